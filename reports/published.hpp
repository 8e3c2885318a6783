// Published figures shown beside the lab's own (FA3's forward TFLOPS on the H100 beside the
// progression's TFLOPS against S; FA3's and cuDNN's FP8 figures beside an FP8 A/B's TFLOPS): a
// cited JSON file, never a measurement of this lab, read with every field checked.
// reports/published/ holds them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/shape.hpp"

namespace attnlab::report {

// One curve of the source: a head dimension and mask, a figure per S of the source's axis.
struct PublishedSeries {
  int D = 0;
  bool causal = false;
  std::vector<std::optional<double>> tflops;  // per Published::S; nullopt: not read from the source
  // The S of the source's axis this series has no figure for. A series missing one is never
  // drawn: a curve with points left out reads as the source's, and hides where they lie.
  std::vector<int> missing(const std::vector<int>& S) const;
};

// How the source's batch and heads follow from a point's S and D, as the source states them:
// a fixed batch or a fixed token count B*S, a fixed head count or a fixed hidden size H*D, and
// the key/value heads where fewer than H. A lab shape is at a point of the source only where
// all of them hold exactly (a figure of other heads or batch is another problem's).
struct PublishedShapes {
  std::optional<int> batch, tokens;  // exactly one
  std::optional<int> heads, hidden;  // exactly one
  std::optional<int> kv_heads;       // absent: as many as the query heads
  bool matches(const Shape& s) const;
  std::string str() const;  // "B*S = 16384, H*D = 2048", "B = 1, H = 64, H_kv = 8"
};

struct Published {
  std::string label;    // the legend's and the line's name
  std::string source;   // the citation: paper and version (or repository, commit and file), pass, precision
  std::optional<int> page;  // the page of the figure in that version; none for a source without pages
  std::string figure;   // the figure (and panels) or columns the series are read from
  std::string board;    // the GPU the figures were taken on, as the source states it
  std::string clock;    // the clock the figures were taken at, as the source states it (or that it does not)
  std::string precision;  // the inputs' precision: "fp16" (16-bit) or "fp8"
  PublishedShapes shapes;
  std::optional<std::string> note;  // what the source leaves open about its shapes, said beside the figures
  std::vector<int> S;   // the source's sequence lengths, ascending
  std::vector<PublishedSeries> series;

  // The figure at exactly this shape (batch, heads, key/value heads, S, D and mask), or none.
  std::optional<double> at(const Shape& s) const;
  // "paper X, Figure 2, p. 7": the source, the figure and the page where there is one.
  std::string citation() const;
};

// Reads a published-figures file; throws InputError naming the file and the missing or
// mistyped field ("<file>: /series/3/tflops/2: not a positive number or null",
// "<file>: /shape: not exactly one of batch and tokens").
Published read_published(const std::filesystem::path& file);

// "D 128 causal (no figure at S 4096)" for each series missing a point of the source's axis.
std::vector<std::string> incomplete_series(const Published& p);

}  // namespace attnlab::report
