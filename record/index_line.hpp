// One line of results/index.jsonl (attnlab-report notebook): a run's identity, each shape's
// headline figures and its claims' verdicts, for pandas, as a typed struct with its one JSON
// mapping. The notebook (reports/render_notebook.cpp) fills it from the records it read.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

struct IndexHeadline {
  std::string regime;
  double median_ns = 0, p10_ns = 0, p90_ns = 0, noise_pct = 0;
  long long samples = 0;
  double tflops = 0, dram_gbps_min_bytes = 0;
  // The reports' headline quantity: device (busy) time, and what the record gave of it.
  std::string device_time;
  double device_median_ns = 0;
  std::optional<double> device_p10_ns, device_p90_ns;  // nullopt: a busy median alone
  double device_tflops = 0;
};

struct IndexShape {
  std::string name;
  bool passed = false;
  std::optional<IndexHeadline> headline;  // nullopt: not timed ("regime": null)
};

struct IndexLine {
  std::string run, phase, title, status, started_utc, commit;
  bool dirty = false;
  std::string gpu;
  std::optional<std::string> gpu_uuid;
  std::string seed;  // a string: seeds are 64-bit unsigned and pandas would read lossy floats
  std::string record;
  std::optional<std::string> report;  // nullopt: not rendered
  std::vector<IndexShape> shapes;
  std::vector<std::pair<std::string, std::string>> claims;  // claim id -> verdict
};

// The line's JSON on one line, without the newline.
std::string index_jsonl_line(const IndexLine& line);

}  // namespace attnlab
