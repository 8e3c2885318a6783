// A run's report, correctness section: each shape's errors against the fp64 reference and the
// gate's bound.
#include "reports/run/sections.hpp"
#include "record/constants.hpp"

namespace attnlab::report::detail {

// The gate's bound beside the error it bounds: under the row rule the bound is on the rms error
// of the row closest to failing, not on the max abs error printed beside it, which may exceed it.
void correctness_section(std::ostringstream& md, const Run& run) {
  md << "## Correctness\n\n"
        "Checked against an fp64 CPU reference on the record's seed; the bound derives from a "
        "naive fp16 implementation's error. Each bound is labelled with what it bounds: a "
        "row-RMS bound limits each checked row's rms error (rule `row_rms`; shown against the "
        "row closest to failing), so the max abs error beside it is reported, not gated, and may "
        "exceed it; a max-abs bound (records before the row rule) limits the max abs error.\n\n";
  Table t({"shape", "check", "gated error", "its bound", "max abs err", "naive fp16 max abs err",
           "max rel err", "rows checked", "non-finite", "repeat identical"},
          "llrrrrrrrl");
  for (const auto& r : run.results) {
    const ordered_json& j = r.json;
    auto num = [&](const char* key, bool scientific) -> std::string {
      const auto v = optional_number_at(j, std::string("/correctness/") + key);
      return v ? (scientific ? sci(*v) : count(*v)) : "not recorded";
    };
    const auto* rep = find(j, "/correctness/repeat_identical");
    const auto rows = optional_number_at(j, "/correctness/rows_checked");
    const auto total = optional_number_at(j, "/correctness/rows_total");
    std::string rows_text = rows ? count(*rows) : "not recorded";
    if (rows && total) rows_text += " of " + count(*total);
    std::string check = r.unavailable ? r.untimed_reason() : r.passed ? "PASS" : "FAIL";
    // The input distributions the gate checked, where the record lists them (the figures beside
    // are the first's, the one timed).
    if (const ordered_json* checks = find(j, "/correctness/checks"); checks && checks->is_array()) {
      std::string names;
      for (const auto& k : *checks)
        names += (names.empty() ? "" : ", ") + k.value("inputs", std::string("unnamed"));
      if (!names.empty()) check += " on " + names + " inputs";
    }
    if (r.failure) check += ": " + *r.failure;
    const bool row_rule = optional_string_at(j, "/correctness/rule").value_or("") == kRowRmsRule;
    const std::string gated = row_rule ? "row rms " + num("row_rms_err", true) : "max abs " + num("max_abs_err", true);
    const std::string bound =
        num("tolerance_abs", true) + (row_rule ? " (row-RMS bound)" : " (max-abs bound)");
    const bool checked = find(j, "/correctness/tolerance_abs") != nullptr;
    t.row({shape_label(r.name), check, checked ? gated : "not recorded", checked ? bound : "not recorded",
           num("max_abs_err", true), num("naive_fp16_max_abs_err", true), num("max_rel_err", true), rows_text,
           num("nonfinite", false), rep && rep->is_boolean() ? (rep->get<bool>() ? "yes" : "no") : "not recorded"});
  }
  md << t.str() << "\n";
}

}  // namespace attnlab::report::detail
