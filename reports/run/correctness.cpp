// A run's report, correctness section: each shape's errors against the fp64 reference and the
// gate's bound.
#include "reports/run/sections.hpp"

#include <cmath>

#include "record/constants.hpp"

namespace attnlab::report::detail {

namespace {

// Whether the record's gate bounds each checked row's rms error (the forward's rule, or the
// backward's per row of dQ, dK and dV): the bound is then on the row closest to failing's rms
// error, not on the max abs error.
bool row_rms_rule(const Correctness& c) {
  const std::string rule = c.rule.value_or("");
  return rule == kRowRmsRule || rule == kBackwardRowRmsRule;
}

bool e4m3(const Correctness& c) { return c.input_format.value_or("") == "e4m3"; }

// An error the gate measured; inf where the output held NaN or Inf (written null).
std::string error_text(double v) { return std::isfinite(v) ? sci(v) : "not finite (NaN or Inf output)"; }

std::string rmse_text(const std::optional<double>& v) { return v ? error_text(*v) : "not recorded"; }

// "64.00, 128.0, 32.00": Q's, K's and V's.
std::string scales_text(const std::optional<InputScales>& s) {
  return s ? sig(s->q) + ", " + sig(s->k) + ", " + sig(s->v) : std::string("not recorded");
}

// "normal 1.23e-02 (scales 64.00, 128.0, 32.00); wide ...": each checked distribution's.
std::string per_check(const Correctness& c) {
  std::string out;
  for (const InputCheck& k : c.checks) {
    if (!k.rmse_unquantised && !k.input_scales) continue;
    out += (out.empty() ? "" : "; ") + k.inputs + " " + rmse_text(k.rmse_unquantised) + " (scales " +
           scales_text(k.input_scales) + ")";
  }
  return out.empty() ? "not recorded" : out;
}

// The e4m3 shapes' inputs beside the gate's numbers: their per-tensor scales and the error
// against the unquantised draw, which compares with an fp16 phase's error where the gate's own
// figures, against the dequantised inputs, do not. Said only where a shape read e4m3, so the
// reports of fp16 records, and of records before the FP8 path, stay as they were.
void e4m3_inputs(std::ostringstream& md, const Run& run) {
  Table t({"shape", "input format", "scale Q", "scale K", "scale V", "RMSE vs unquantised inputs",
           "per checked distribution", "gated error", "its bound"},
          "llrrrrlrr");
  for (const auto& r : run.results) {
    const Correctness& c = r.correctness;
    if (!e4m3(c)) continue;
    const auto scale = [&](double InputScales::*m) {
      return c.input_scales ? sig((*c.input_scales).*m) : std::string("not recorded");
    };
    const bool row_rule = row_rms_rule(c);
    const auto gated = row_rule ? c.row_rms_err : std::optional<double>(c.max_abs_err);
    t.row({shape_label(r.name), *c.input_format, scale(&InputScales::q), scale(&InputScales::k),
           scale(&InputScales::v), rmse_text(c.rmse_unquantised), per_check(c),
           gated ? std::string(row_rule ? "row rms " : "max abs ") + error_text(*gated) : std::string("not recorded"),
           sci(c.tolerance_abs)});
  }
  if (t.empty()) return;
  md << "### E4m3 inputs\n\n"
        "Shapes whose phase read e4m3 Q, K and V: each tensor is quantised with its own scale (the codes hold "
        "e4m3(x · scale); the kernel's descale factor is 1 / scale), the gate checks the output against the fp64 "
        "reference on the dequantised inputs, and its yardstick is a naive FP8 implementation's error, which the "
        "naive fp16 column above then holds. The RMSE against the unquantised inputs is the output's rms error "
        "against the fp64 reference on the draw before quantisation, so it includes the quantisation's own error "
        "and compares with an fp16 phase's error on the same draw. The scales and RMSE are the timed "
        "distribution's, then each checked distribution's with its own scales (Q, K, V), which follow its range.\n\n"
     << t.str() << "\n";
}

// The LSE a forward phase emits for the backward (Phase::emits_lse), checked beside O on the
// same rows against the fp64 reference (experiments/harness/reference.hpp, check_lse: an absolute bound
// that grows with the value). Said only where a shape has the figures, so other reports stay as
// they were.
void lse_check(std::ostringstream& md, const Run& run) {
  Table t({"shape", "LSE max abs err", "worst row, error over its bound"}, "lrr");
  for (const auto& r : run.results) {
    const Correctness& c = r.correctness;
    if (!c.lse_max_abs_err && !c.lse_err_ratio) continue;
    t.row({shape_label(r.name), rmse_text(c.lse_max_abs_err),
           c.lse_err_ratio ? (std::isfinite(*c.lse_err_ratio) ? sig(*c.lse_err_ratio) : "not finite")
                           : std::string("not recorded")});
  }
  if (t.empty()) return;
  md << "### Row log-sum-exp\n\n"
        "The phase also writes each query row's log-sum-exp (natural log, fp32), the LSE a backward pass "
        "reads; the gate checks it on the same rows against the fp64 reference, and a row passes at a ratio "
        "of at most 1. The figures are the timed distribution's.\n\n"
     << t.str() << "\n";
}

// What made the O and LSE a backward run's gradients were checked on: the harness's fp32
// forward, or a forward phase (--forward). Said only where the record names it.
void backward_forward(std::ostringstream& md, const Run& run) {
  std::string names;
  for (const auto& r : run.results)
    if (r.correctness.forward && names.find(code(*r.correctness.forward)) == std::string::npos)
      names += (names.empty() ? "" : ", ") + code(*r.correctness.forward);
  if (names.empty()) return;
  md << "O and LSE, which the backward reads, were made by " << names
     << " (`fp32`: the harness's own fp32 forward; else the forward phase of that id).\n\n";
}

}  // namespace

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
    if (r.unavailable()) {  // no check ran
      t.row({shape_label(r.name), r.untimed_reason(), "not recorded", "not recorded", "not recorded", "not recorded",
             "not recorded", "not recorded", "not recorded", "not recorded"});
      continue;
    }
    const Correctness& c = r.correctness;
    std::string check = r.passed() ? "PASS" : "FAIL";
    // The input distributions the gate checked, where the record lists them (the figures beside
    // are the first's, the one timed).
    std::string names;
    for (const InputCheck& k : c.checks) names += (names.empty() ? "" : ", ") + k.inputs;
    if (!names.empty()) check += " on " + names + " inputs";
    if (r.correctness.failure) check += ": " + *r.correctness.failure;
    const bool row_rule = row_rms_rule(c);
    const std::string gated = row_rule ? "row rms " + (c.row_rms_err ? error_text(*c.row_rms_err) : "not recorded")
                                       : "max abs " + error_text(c.max_abs_err);
    const std::string bound = sci(c.tolerance_abs) + (row_rule ? " (row-RMS bound)" : " (max-abs bound)");
    t.row({shape_label(r.name), check, gated, bound, error_text(c.max_abs_err), sci(c.naive_fp16_max_abs_err),
           error_text(c.max_rel_err), count(double(c.rows_checked)) + " of " + count(double(c.rows_total)),
           count(double(c.nonfinite)), c.repeat_identical ? "yes" : "no"});
  }
  md << t.str() << "\n";
  backward_forward(md, run);
  e4m3_inputs(md, run);
  lse_check(md, run);
}

}  // namespace attnlab::report::detail
