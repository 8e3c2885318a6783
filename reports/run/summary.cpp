// A run's report, its opening and closing sections: the summary, the claims with their
// verdicts, and the provenance.
#include "reports/run/sections.hpp"

namespace attnlab::report::detail {

namespace {

// Whether any shape has a metric group that was collected (`"available": true`).
bool any_metric_measured(const Run& run) {
  for (const auto& r : run.results)
    if (r.metrics)
      for (const GroupResult& g : *r.metrics)
        if (g.available) return true;
  return false;
}

// The summary's line on hardware metrics: "measured" only where a group was collected.
std::string metrics_summary(const Run& run) {
  if (any_metric_measured(run)) return "measured, see below";
  if (!any_result_has(run, &Result::metrics)) return "not measured (this record has no `metrics`)";
  if (run.options.metrics == "none")
    return "not measured (the run was started with `--metrics none`)";
  return "not measured (no metric group was collected; see below)";
}

}  // namespace

void summary(std::ostringstream& md, const Run& run, const std::vector<Judgement>& js,
             const Ceilings& c) {
  md << "## Summary\n\n";
  md << "- **Question:** " << fixed_line(run.experiment.question) << "\n";
  md << "- **Technique:** " << fixed_line(run.experiment.technique) << "\n";
  std::size_t passed = 0, timed = 0, not_run = 0;
  for (const auto& r : run.results) {
    passed += r.passed();
    timed += r.timed();
    not_run += r.unavailable() != nullptr;
  }
  md << "- **Status:** " << run.status << ": " << passed << " of " << run.results.size()
     << " shapes passed the fp64 reference check, " << timed << " timed";
  if (not_run) md << ", " << not_run << " not run (the implementation cannot run them)";
  if (run.error) md << "; run error: " << fixed_line(*run.error);
  md << "\n";
  md << "- **Run:** started " << (run.started_utc.empty() ? "(not recorded)" : run.started_utc)
     << ", commit " << code(run.short_commit()) << (run.provenance.git.dirty ? " with uncommitted changes" : " (clean)")
     << ", " << run.gpu_name() << ", board " << code(run.gpu_uuid().empty() ? board(run) : run.gpu_uuid()) << "\n";
  md << "- **Claims:** " << verdict_counts(js) << "\n";
  md << "- **Hardware metrics:** " << metrics_summary(run) << "\n\n";

  Table t({"shape", "regime", "device time", "p10-p90", "time counted", "noise of device time", "TFLOPS",
           "% of tensor peak"},
          "llrrlrrr");
  for (const auto& r : run.results) {
    if (!r.timed()) {
      t.row({shape_label(r.name), r.untimed_reason(), "", "", "", "", "", ""});
      continue;
    }
    const Regime& g = *r.headline();
    const DeviceTime dt = device_time(r, g);
    const char* u = time_unit(dt.median_ns);
    const int d = resolving_digits({in_unit(dt.p10_ns, u), in_unit(dt.median_ns, u), in_unit(dt.p90_ns, u)});
    const double tflops = dt.rate_at(g, g.tflops, dt.median_ns);
    t.row({shape_label(r.name), g.name, duration_in(dt.median_ns, u, d),
           dt.has_interval() ? duration_range(dt.p10_ns, dt.p90_ns, dt.median_ns) : "not recorded",
           basis_words(dt) + span_beside(dt), device_noise_cell(g, dt),
           sig(tflops), pct_of(tflops, c.tensor_tflops)});
  }
  if (t.empty()) return;
  md << "Headline figures: each shape's headline regime at its device time, the time during "
        "which the launch's kernels ran (busy time: idle gaps between kernels left out; for one "
        "kernel per launch, the span of its samples). Progression, comparisons and claims use "
        "the same figure; \"time counted\" says where a record gives less, and the timing "
        "section below gives each regime's span.\n\n"
     << t.str() << "\n";
}

void claims_section(std::ostringstream& md, const Run& run, const std::vector<Judgement>& js) {
  md << "## Claims\n\n";
  if (js.empty()) {
    md << "This record states no claims.\n\n";
    return;
  }
  md << "Each claim is a predicate over measurements. A timing is the p10-p90 interval of its "
        "samples' device time (busy time, where the record has it; a throughput maps that "
        "interval through work / time). One rule: a difference within the noise is never "
        "SUPPORTED. A claim is SUPPORTED only when the intervals are separated in the claimed "
        "direction (`within_pct`: the interval lies inside the band), REFUTED when separated "
        "against it, and INCONCLUSIVE when they overlap, whatever the operator. NOT TESTED: "
        "the metric or the record to compare with is missing, or the shape failed. A claim "
        "against another phase uses that phase's ok record of the same session (same GPU, "
        "nearest in start time) where there is one; else the newest on the same GPU (uuid); "
        "else the newest on another GPU of the same model. The evidence names the record and "
        "which of these it is.\n\n";
  Table t({"claim", "verdict", "evidence"}, "lll");
  for (const auto& jd : js) {
    std::string ev = jd.evidence;
    if (jd.compared)
      ev += " [record](" + link(run.dir, jd.compared->dir / "report.md") + ")";
    t.row({code(jd.claim.id) + ": " + jd.claim.text, std::string("**") + verdict_name(jd.verdict) + "**", ev});
  }
  md << t.str() << "\n";
}

void provenance_section(std::ostringstream& md, const Run& run) {
  md << "## Environment and provenance\n\n";
  std::vector<std::pair<std::string, std::string>> rows;
  for (const char* block : {"/started_utc", "/provenance", "/options"})
    for (auto& row : field_rows(run.json, block)) rows.push_back(std::move(row));
  Table t({"field", "value"}, "ll");
  for (const auto& [k, v] : rows) t.row({code(k), v});
  md << t.str() << "\n";
}

}  // namespace attnlab::report::detail
