// Published figures drawn beside the lab's own (FA3's forward TFLOPS on the H100 beside the
// progression's TFLOPS against S): a cited JSON file, never a measurement of this lab, read
// with every field checked. reports/published/ holds them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

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

struct Published {
  std::string label;   // the legend's and the line's name
  std::string source;  // the citation: paper and version, pass, precision, GPU
  int page = 0;        // the page of the figure in that version
  std::string figure;  // the figure (and panels) the series are read from
  std::string clock;   // the clock the figures were taken at, as the source states it (or that it does not)
  std::vector<int> S;  // the source's sequence lengths, ascending
  std::vector<PublishedSeries> series;
};

// Reads a published-figures file; throws InputError naming the file and the missing or
// mistyped field ("<file>: /series/3/tflops/2: not a positive number or null").
Published read_published(const std::filesystem::path& file);

// "D 128 causal (no figure at S 4096)" for each series missing a point of the source's axis.
std::vector<std::string> incomplete_series(const Published& p);

}  // namespace attnlab::report
