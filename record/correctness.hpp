// The correctness block of one shape, /results/<i>/correctness of a run record: the fp64
// gate's verdict as the harness (and the SDPA baseline) write it, with its one JSON mapping.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

// The per-tensor scales of e4m3 inputs (experiments/harness/fp8_inputs.hpp): the codes hold
// e4m3(x * scale), and the kernel's descale factor is 1 / scale.
struct InputScales {
  double q = 1, k = 1, v = 1;
};

// One input distribution's check, as the block's `checks` list holds it.
struct InputCheck {
  std::string inputs;        // "normal", "wide" or "negative"
  bool passed = false;
  double row_err_ratio = 0;  // the row closest to failing: its rms error over its bound
  double max_abs_err = 0;
  long long nonfinite = 0;
  bool repeat_identical = false;
  std::optional<std::string> failure;
  std::optional<double> rmse_unquantised;   // as Correctness's
  std::optional<InputScales> input_scales;  // e4m3 inputs only
  std::optional<double> lse_err_ratio;      // as Correctness's
};

// Records before the row rule (no "rule" field) bounded max_abs_err by one global tolerance
// (2 x the naive fp16 max error + 1e-3) and scanned only the checked rows for NaN; records with
// rule "row_rms" bound each checked row's rms error (experiments/harness/reference.hpp), and
// tolerance_abs is then the bound of the row closest to failing.
// A gate that checked several input distributions (experiments/harness/reference.hpp) lists each under
// `checks`; the block's own figures are those of `inputs`, the distribution the run then timed,
// and `passed` is true only when every check passed. Records before the list checked one.
// A phase that reads e4m3 inputs (input_format "e4m3") is checked on its dequantised inputs
// against the naive FP8 yardstick (experiments/harness/reference.hpp, Grade::kFp8), whose error
// naive_fp16_max_abs_err then holds; input_scales are its inputs' quantisation scales.
// rmse_unquantised, the rms error against the fp64 reference on the inputs before any
// quantisation, is comparable across formats (for fp16 inputs, those are the ones checked).
// Records before the FP8 path have none of the three: their inputs were fp16.
// A forward phase that emits the rows' log-sum-exp (Phase::emits_lse) has it checked beside O
// (experiments/harness/reference.hpp, check_lse): lse_max_abs_err and lse_err_ratio (the row closest to
// failing, its error over its bound; null where an LSE was NaN or Inf). A backward check names
// the forward that made the O and LSE it read: "fp32" (the harness's own fp32 forward,
// experiments/harness/backward_forward.hpp) or a phase's id (--forward); records before have neither.
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
  std::vector<InputCheck> checks;       // every distribution checked; empty: `inputs` alone
  std::optional<std::string> input_format;  // "fp16" or "e4m3"
  std::optional<InputScales> input_scales;  // e4m3 inputs only
  std::optional<double> rmse_unquantised;   // inf (JSON null) where the output held NaN or Inf
  std::optional<double> lse_max_abs_err, lse_err_ratio;  // inf (JSON null) where an LSE was NaN or Inf
  std::optional<std::string> forward;       // backward checks: "fp32" or the forward phase's id
};

// A check's summary of a block that checked one distribution (its `inputs`).
InputCheck input_check(const Correctness& c);
// The block of a gate over several distributions: `timed`'s figures, every check listed,
// passed when each passed, and a failure that names the distribution of each failed check.
Correctness with_checks(Correctness timed, std::vector<InputCheck> checks);

nlohmann::ordered_json to_json(const Correctness& c);

// Reads the block at JSON pointer `base`, as the harness, the SDPA baseline and the records
// before them wrote it (every committed record's block holds the required figures); an error
// written null (an output that held NaN or Inf) reads as inf. Throws FieldError naming the field.
Correctness read_correctness(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab
