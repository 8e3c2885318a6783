// The correctness block of one shape, /results/<i>/correctness of a run record: the fp64
// gate's verdict as the harness (and the SDPA baseline) write it, with its one JSON mapping.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace attnlab {

// Records before the row rule (no "rule" field) bounded max_abs_err by one global tolerance
// (2 x the naive fp16 max error + 1e-3) and scanned only the checked rows for NaN; records with
// rule "row_rms" bound each checked row's rms error (experiments/reference.hpp), and
// tolerance_abs is then the bound of the row closest to failing.
struct Correctness {
  bool passed = false;
  double max_abs_err = 0, max_rel_err = 0;
  double tolerance_abs = 0;           // the gate's bound (see above)
  double naive_fp16_max_abs_err = 0;  // a naive fp16 implementation's error, which sets it
  long long rows_checked = 0, rows_total = 0;
  long long nonfinite = 0;            // NaN or Inf outputs found
  std::optional<std::string> rule;          // "row_rms"; absent: the global rule
  std::optional<std::string> inputs;        // input distribution: "normal", "wide" or "negative"
  std::optional<double> row_rms_err;        // the row closest to failing: its rms error,
  std::optional<double> row_err_ratio;      //   and that over its bound (passes at <= 1)
  std::optional<long long> elements_scanned;  // output elements scanned for NaN/Inf
  bool repeat_identical = false;      // two launches on the same inputs gave the same bits
  std::optional<bool> output_poisoned;  // the baseline says whether it poisoned the output first
  std::optional<std::string> failure;   // why it failed
};

nlohmann::ordered_json to_json(const Correctness& c);

// Reads the block at JSON pointer `base`; throws FieldError naming the field.
Correctness read_correctness(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab
