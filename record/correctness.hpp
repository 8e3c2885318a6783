// The correctness block of one shape, /results/<i>/correctness of a run record: the fp64
// gate's verdict as the harness (and the SDPA baseline) write it, with its one JSON mapping.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace attnlab {

struct Correctness {
  bool passed = false;
  double max_abs_err = 0, max_rel_err = 0;
  double tolerance_abs = 0;           // the gate's bound on max_abs_err
  double naive_fp16_max_abs_err = 0;  // a naive fp16 implementation's error, which sets it
  long long rows_checked = 0, rows_total = 0;
  long long nonfinite = 0;            // NaN or Inf outputs found
  bool repeat_identical = false;      // two launches on the same inputs gave the same bits
  std::optional<bool> output_poisoned;  // the baseline says whether it poisoned the output first
  std::optional<std::string> failure;   // why it failed
};

nlohmann::ordered_json to_json(const Correctness& c);

// Reads the block at JSON pointer `base`; throws FieldError naming the field.
Correctness read_correctness(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab
