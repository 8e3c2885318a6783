// A run's report, the Nsight Compute cross-check: ncu's values imported into the record beside
// CUPTI's.
#include "reports/run/sections.hpp"

namespace attnlab::report::detail {

namespace {

// A metric's CUPTI value in a result entry: the first group that recorded it.
std::optional<double> cupti_value(const Result& r, const std::string& name) {
  if (!r.metrics) return std::nullopt;
  for (const GroupResult& g : *r.metrics)
    if (const auto v = find_value(g.values, name)) return v;
  return std::nullopt;
}

template <class T>
const T* entry(const std::vector<std::pair<std::string, T>>& list, const std::string& name) {
  for (const auto& [k, v] : list)
    if (k == name) return &v;
  return nullptr;
}

// The table of ncu's values beside CUPTI's, with the record's difference or why it has none.
std::string values_table(const Result& r, const NcuEntry& n) {
  Table t({"metric", "unit", "CUPTI", "ncu", "difference"}, "llrrr");
  for (const NcuValue& v : n.values) {
    const auto cupti = cupti_value(r, v.name);
    std::string diff = "not computed";
    if (const auto* d = entry(n.rel_diff_pct, v.name); d && *d) diff = pct(**d);
    else if (const std::string* why = entry(n.rel_diff_reason, v.name)) diff = "not computed: " + *why;
    t.row({code(v.name), v.unit, cupti ? sig(*cupti) : "not measured", sig(v.value), diff});
  }
  return t.str();
}

// Wall time of the profiled process, keyed by the report's shape part (ncu-<slug>.ncu-rep).
void wall_time(std::ostringstream& md, const Run& run, const std::string& report) {
  if (report.rfind("ncu-", 0) != 0 || report.size() <= 12 || report.compare(report.size() - 8, 8, ".ncu-rep") != 0)
    return;
  const std::string slug = report.substr(4, report.size() - 12);
  if (!run.ncu_profile) return;
  for (const NcuShapeWall& s : run.ncu_profile->shapes) {
    if (s.slug != slug || !s.wall_s) continue;
    md << "Wall time of the experiment under ncu: " << sig(*s.wall_s) << " s";
    if (s.baseline_wall_s)
      md << ", without ncu " << sig(*s.baseline_wall_s) << " s (ncu's overhead " << sig(*s.wall_s - *s.baseline_wall_s) << " s)";
    md << ".\n\n";
  }
}

// One shape's cross-check: its ncu report, its values against CUPTI's, what ncu did not give.
void ncu_shape(std::ostringstream& md, const Run& run, const Result& r, const NcuEntry& n) {
  md << "### " << shape_label(r.name) << "\n\n";
  if (n.report) {
    std::error_code ec;
    if (fs::is_regular_file(run.dir / *n.report, ec))
      md << "Nsight Compute report: [" << code(*n.report) << "](" << fs::path(*n.report).generic_string() << ")";
    else
      md << "Nsight Compute report: " << code(*n.report) << " (not beside the record)";
  } else {
    md << "Nsight Compute report: not recorded";
  }
  if (!n.unavailable_reason)
    md << "; " << count(double(n.kernels)) << " kernel" << (n.kernels == 1 ? "" : "s") << " profiled";
  md << ".";
  if (!n.combined.empty()) md << " Combined " << fixed_line(n.combined) << ".";
  md << "\n\n";
  if (n.unavailable_reason) {
    md << "Not measured: " << fixed_line(*n.unavailable_reason) << ".\n\n";
    return;
  }
  md << values_table(r, n) << "\n";
  if (!n.unavailable.empty()) {
    md << "Not in ncu's values:\n\n";
    for (const auto& [name, why] : n.unavailable) md << "- " << code(name) << ": " << fixed_line(why) << "\n";
    md << "\n";
  }
  if (n.report) wall_time(md, run, *n.report);
}

}  // namespace

void ncu_section(std::ostringstream& md, const Run& run) {
  md << "## Nsight Compute cross-check\n\n";
  if (!any_result_has(run, &Result::ncu)) {
    md << "Not measured: this record has no `ncu` values. `make profile` reruns each shape's launch "
          "under Nsight Compute, keeps its `.ncu-rep` report beside the record and imports ncu's "
          "values of the same metrics here, against CUPTI's.\n\n";
    return;
  }
  if (const auto& p = run.ncu_profile)
    md << "Nsight Compute: " << fixed_line(p->ncu_version) << ". Command: " << code(fixed_line(p->ncu_command))
       << ". Method: " << fixed_line(p->method) << ".\n\n";
  md << "Difference: (CUPTI - ncu) / |ncu|, as the record gives it (`ncu.rel_diff_pct`). CUPTI's "
        "value comes from the range profiler's replay of one launch (hardware metrics above), ncu's "
        "from a separate run of the launch under Nsight Compute: two passes over the kernel.\n\n";
  for (const auto& r : run.results) {
    if (!r.ncu) {
      if (r.timed()) md << "### " << shape_label(r.name) << "\n\nNot measured: no `ncu` values for this shape.\n\n";
      continue;
    }
    ncu_shape(md, run, r, *r.ncu);
  }
}

}  // namespace attnlab::report::detail
