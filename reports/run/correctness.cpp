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
  auto sci_or = [](const std::optional<double>& v) { return v ? sci(*v) : "not recorded"; };
  auto count_or = [](const std::optional<long long>& v) { return v ? count(double(*v)) : "not recorded"; };
  for (const auto& r : run.results) {
    const RecordedCorrectness& c = r.correctness;
    std::string rows_text = count_or(c.rows_checked);
    if (c.rows_checked && c.rows_total) rows_text += " of " + count(double(*c.rows_total));
    std::string check = r.unavailable ? r.untimed_reason() : r.passed ? "PASS" : "FAIL";
    // The input distributions the gate checked, where the record lists them (the figures beside
    // are the first's, the one timed).
    std::string names;
    for (const auto& k : c.checked_inputs) names += (names.empty() ? "" : ", ") + k;
    if (!names.empty()) check += " on " + names + " inputs";
    if (r.failure) check += ": " + *r.failure;
    const bool row_rule = c.rule.value_or("") == kRowRmsRule;
    const std::string gated = row_rule ? "row rms " + sci_or(c.row_rms_err) : "max abs " + sci_or(c.max_abs_err);
    const std::string bound = sci_or(c.tolerance_abs) + (row_rule ? " (row-RMS bound)" : " (max-abs bound)");
    const bool checked = c.tolerance_abs.has_value();
    t.row({shape_label(r.name), check, checked ? gated : "not recorded", checked ? bound : "not recorded",
           sci_or(c.max_abs_err), sci_or(c.naive_fp16_max_abs_err), sci_or(c.max_rel_err), rows_text,
           count_or(c.nonfinite), c.repeat_identical ? (*c.repeat_identical ? "yes" : "no") : "not recorded"});
  }
  md << t.str() << "\n";
}

}  // namespace attnlab::report::detail
