#include "record/correctness.hpp"

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

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
  if (c.failure) j["failure"] = *c.failure;
  return j;
}

Correctness read_correctness(const ordered_json& root, const std::string& base) {
  Correctness c;
  c.passed = bool_at(root, base + "/passed");
  c.max_abs_err = number_at(root, base + "/max_abs_err");
  c.max_rel_err = number_at(root, base + "/max_rel_err");
  c.tolerance_abs = number_at(root, base + "/tolerance_abs");
  c.naive_fp16_max_abs_err = number_at(root, base + "/naive_fp16_max_abs_err");
  c.rows_checked = static_cast<long long>(number_at(root, base + "/rows_checked"));
  c.rows_total = static_cast<long long>(number_at(root, base + "/rows_total"));
  c.nonfinite = static_cast<long long>(number_at(root, base + "/nonfinite"));
  c.repeat_identical = bool_at(root, base + "/repeat_identical");
  c.rule = optional_string_at(root, base + "/rule");
  c.inputs = optional_string_at(root, base + "/inputs");
  if (find(root, base + "/row_rms_err")) c.row_rms_err = number_at(root, base + "/row_rms_err");
  if (find(root, base + "/row_err_ratio"))
    c.row_err_ratio = number_at(root, base + "/row_err_ratio");
  if (find(root, base + "/elements_scanned"))
    c.elements_scanned = static_cast<long long>(number_at(root, base + "/elements_scanned"));
  if (const ordered_json* p = find(root, base + "/output_poisoned"); p && !p->is_null())
    c.output_poisoned = bool_at(root, base + "/output_poisoned");
  c.failure = optional_string_at(root, base + "/failure");
  return c;
}

}  // namespace attnlab
