#include "record/correctness.hpp"

#include <limits>

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

ordered_json scales_json(const InputScales& s) { return ordered_json{{"q", s.q}, {"k", s.k}, {"v", s.v}}; }

std::optional<InputScales> read_scales(const ordered_json& root, const std::string& at) {
  if (!find(root, at)) return std::nullopt;
  return InputScales{number_at(root, at + "/q"), number_at(root, at + "/k"), number_at(root, at + "/v")};
}

// Infinite where the output held NaN or Inf, which JSON writes as null (the LSE's figures too).
std::optional<double> read_rmse(const ordered_json& root, const std::string& at) {
  if (!find(root, at)) return std::nullopt;
  return optional_number_at(root, at).value_or(kInf);
}

}  // namespace

ordered_json to_json(const Correctness& c) {
  ordered_json j;
  j["passed"] = c.passed;
  j["max_abs_err"] = c.max_abs_err;
  j["max_rel_err"] = c.max_rel_err;
  j["tolerance_abs"] = c.tolerance_abs;
  j["naive_fp16_max_abs_err"] = c.naive_fp16_max_abs_err;
  j["rows_checked"] = c.rows_checked;
  j["rows_total"] = c.rows_total;
  j["nonfinite"] = c.nonfinite;
  j["repeat_identical"] = c.repeat_identical;
  if (c.rule) j["rule"] = *c.rule;
  if (c.inputs) j["inputs"] = *c.inputs;
  if (c.row_rms_err) j["row_rms_err"] = *c.row_rms_err;
  if (c.row_err_ratio) j["row_err_ratio"] = *c.row_err_ratio;
  if (c.elements_scanned) j["elements_scanned"] = *c.elements_scanned;
  if (c.output_poisoned) j["output_poisoned"] = *c.output_poisoned;
  if (c.input_format) j["input_format"] = *c.input_format;
  if (c.input_scales) j["input_scales"] = scales_json(*c.input_scales);
  if (c.rmse_unquantised) j["rmse_unquantised"] = *c.rmse_unquantised;
  if (c.lse_max_abs_err) j["lse_max_abs_err"] = *c.lse_max_abs_err;
  if (c.lse_err_ratio) j["lse_err_ratio"] = *c.lse_err_ratio;
  if (c.forward) j["forward"] = *c.forward;
  if (c.failure) j["failure"] = *c.failure;
  if (!c.checks.empty()) {
    ordered_json list = ordered_json::array();
    for (const InputCheck& k : c.checks) {
      ordered_json e;
      e["inputs"] = k.inputs;
      e["passed"] = k.passed;
      e["row_err_ratio"] = k.row_err_ratio;
      e["max_abs_err"] = k.max_abs_err;
      e["nonfinite"] = k.nonfinite;
      e["repeat_identical"] = k.repeat_identical;
      if (k.rmse_unquantised) e["rmse_unquantised"] = *k.rmse_unquantised;
      if (k.input_scales) e["input_scales"] = scales_json(*k.input_scales);
      if (k.lse_err_ratio) e["lse_err_ratio"] = *k.lse_err_ratio;
      if (k.failure) e["failure"] = *k.failure;
      list.push_back(std::move(e));
    }
    j["checks"] = std::move(list);
  }
  return j;
}

InputCheck input_check(const Correctness& c) {
  InputCheck k;
  k.inputs = c.inputs.value_or("normal");
  k.passed = c.passed;
  k.row_err_ratio = c.row_err_ratio.value_or(0.0);
  k.max_abs_err = c.max_abs_err;
  k.nonfinite = c.nonfinite;
  k.repeat_identical = c.repeat_identical;
  k.failure = c.failure;
  k.rmse_unquantised = c.rmse_unquantised;
  k.input_scales = c.input_scales;
  k.lse_err_ratio = c.lse_err_ratio;
  return k;
}

Correctness with_checks(Correctness timed, std::vector<InputCheck> checks) {
  std::string failures;
  for (const InputCheck& k : checks) {
    timed.passed = timed.passed && k.passed;
    if (k.passed) continue;
    failures += (failures.empty() ? "" : "; ") + k.inputs + " inputs: " +
                k.failure.value_or("the check failed");
  }
  timed.failure = failures.empty() ? std::optional<std::string>() : failures;
  if (!timed.passed && !timed.failure) timed.failure = "the check failed";
  timed.checks = std::move(checks);
  return timed;
}

namespace {

// An error over an output that held NaN or inf is inf, which JSON holds as null.
double error_at(const ordered_json& root, const std::string& ptr) {
  const ordered_json* j = find(root, ptr);
  if (j && j->is_null()) return std::numeric_limits<double>::infinity();
  return number_at(root, ptr);
}

}  // namespace

Correctness read_correctness(const ordered_json& root, const std::string& base) {
  Correctness c;
  c.passed = bool_at(root, base + "/passed");
  c.max_abs_err = error_at(root, base + "/max_abs_err");
  c.max_rel_err = error_at(root, base + "/max_rel_err");
  c.tolerance_abs = number_at(root, base + "/tolerance_abs");
  c.naive_fp16_max_abs_err = number_at(root, base + "/naive_fp16_max_abs_err");
  c.rows_checked = static_cast<long long>(number_at(root, base + "/rows_checked"));
  c.rows_total = static_cast<long long>(number_at(root, base + "/rows_total"));
  c.nonfinite = static_cast<long long>(number_at(root, base + "/nonfinite"));
  c.repeat_identical = bool_at(root, base + "/repeat_identical");
  c.rule = optional_string_at(root, base + "/rule");
  c.inputs = optional_string_at(root, base + "/inputs");
  if (find(root, base + "/row_rms_err")) c.row_rms_err = error_at(root, base + "/row_rms_err");
  if (find(root, base + "/row_err_ratio"))
    c.row_err_ratio = error_at(root, base + "/row_err_ratio");
  if (find(root, base + "/elements_scanned"))
    c.elements_scanned = static_cast<long long>(number_at(root, base + "/elements_scanned"));
  if (const ordered_json* p = find(root, base + "/output_poisoned"); p && !p->is_null())
    c.output_poisoned = bool_at(root, base + "/output_poisoned");
  c.failure = optional_string_at(root, base + "/failure");
  if (const ordered_json* list = find(root, base + "/checks")) {
    if (!list->is_array()) throw FieldError(type_problem(base + "/checks", "an array"));
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string e = base + "/checks/" + std::to_string(i);
      InputCheck k;
      k.inputs = string_at(root, e + "/inputs");
      k.passed = bool_at(root, e + "/passed");
      // Infinite where the output held NaN or Inf, which JSON writes as null.
      if (!find(root, e + "/row_err_ratio")) throw FieldError("missing " + e + "/row_err_ratio");
      if (!find(root, e + "/max_abs_err")) throw FieldError("missing " + e + "/max_abs_err");
      k.row_err_ratio = optional_number_at(root, e + "/row_err_ratio").value_or(kInf);
      k.max_abs_err = optional_number_at(root, e + "/max_abs_err").value_or(kInf);
      k.nonfinite = static_cast<long long>(number_at(root, e + "/nonfinite"));
      k.repeat_identical = bool_at(root, e + "/repeat_identical");
      k.failure = optional_string_at(root, e + "/failure");
      k.rmse_unquantised = read_rmse(root, e + "/rmse_unquantised");
      k.input_scales = read_scales(root, e + "/input_scales");
      k.lse_err_ratio = read_rmse(root, e + "/lse_err_ratio");
      c.checks.push_back(std::move(k));
    }
  }
  c.input_format = optional_string_at(root, base + "/input_format");
  c.input_scales = read_scales(root, base + "/input_scales");
  c.rmse_unquantised = read_rmse(root, base + "/rmse_unquantised");
  c.lse_max_abs_err = read_rmse(root, base + "/lse_max_abs_err");
  c.lse_err_ratio = read_rmse(root, base + "/lse_err_ratio");
  c.forward = optional_string_at(root, base + "/forward");
  return c;
}

}  // namespace attnlab
