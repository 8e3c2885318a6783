// Published figures drawn beside the lab's own (FA3's forward TFLOPS on the H100 beside
// the progression's TFLOPS against S): a cited JSON file, never a measurement of this lab, read
// with every field checked. reports/published/ holds them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::report {

struct PublishedPoint {
  int D = 0;
  bool causal = false;
  int S = 0;
  double tflops = 0;
};

struct Published {
  std::string label;   // the legend's and the line's name
  std::string source;  // the citation: paper, GPU, clock
  int sm_clock_mhz = 0;  // the SM clock the figures were published at
  std::vector<PublishedPoint> points;
};

// Reads a published-figures file; throws InputError naming the file and the missing or
// mistyped field ("<file>: /points/3/tflops: missing or not a positive number").
Published read_published(const std::filesystem::path& file);

}  // namespace attnlab::report
