// A run's report, the Nsight Compute cross-check: ncu's values imported into the record beside
// CUPTI's.
#include "reports/run/sections.hpp"

namespace attnlab::report::detail {

namespace {

// A metric's CUPTI value in a result entry: metrics.<group>.values.<name>.value of any group.
std::optional<double> cupti_value(const Result& r, const std::string& name) {
  const ordered_json* m = find(r.json, "/metrics");
  if (!m || !m->is_object()) return std::nullopt;
  for (const auto& [group, gj] : m->items()) {
    (void)group;
    if (!gj.is_object() || !gj.contains("values") || !gj["values"].is_object()) continue;
    const auto& vals = gj["values"];
    if (!vals.contains(name)) continue;
    const ordered_json& v = vals[name];
    const ordered_json* value = v.is_object() ? find(v, "/value") : &v;
    if (value && value->is_number()) return value->get<double>();
  }
  return std::nullopt;
}

// The table of ncu's values beside CUPTI's, with the record's difference or why it has none.
std::string values_table(const Result& r, const ordered_json& n, const ordered_json& vals) {
  Table t({"metric", "unit", "CUPTI", "ncu", "difference"}, "llrrr");
  for (const auto& [name, v] : vals.items()) {
    const ordered_json* value = v.is_object() ? find(v, "/value") : &v;
    const auto unit = v.is_object() ? optional_string_at(v, "/unit") : std::nullopt;
    const auto cupti = cupti_value(r, name);
    std::string diff = "not computed";
    const ordered_json* d = find(n, "/rel_diff_pct/" + name);
    if (d && d->is_number()) {
      diff = pct(d->get<double>());
    } else if (const ordered_json* why = find(n, "/rel_diff_reason/" + name); why && why->is_string()) {
      diff = "not computed: " + why->get<std::string>();
    }
    t.row({code(name), unit.value_or(""), cupti ? sig(*cupti) : "not measured",
           value && value->is_number() ? sig(value->get<double>()) : "not measured", diff});
  }
  return t.str();
}

// Wall time of the profiled process, keyed by the report's shape part (ncu-<slug>.ncu-rep).
void wall_time(std::ostringstream& md, const Run& run, const std::string& report) {
  if (report.rfind("ncu-", 0) != 0 || report.size() <= 12 || report.compare(report.size() - 8, 8, ".ncu-rep") != 0)
    return;
  const std::string slug = report.substr(4, report.size() - 12);
  const ordered_json* s = find(run.json, "/ncu_profile/shapes/" + slug);
  const auto wall = s ? optional_number_at(*s, "/wall_s") : std::nullopt;
  const auto base = s ? optional_number_at(*s, "/baseline_wall_s") : std::nullopt;
  if (wall) {
    md << "Wall time of the experiment under ncu: " << sig(*wall) << " s";
    if (base) md << ", without ncu " << sig(*base) << " s (ncu's overhead " << sig(*wall - *base) << " s)";
    md << ".\n\n";
  }
}

// One shape's cross-check: its ncu report, its values against CUPTI's, what ncu did not give.
void ncu_shape(std::ostringstream& md, const Run& run, const Result& r, const ordered_json& n) {
  md << "### " << shape_label(r.name) << "\n\n";
  const auto report = optional_string_at(n, "/report");
  if (report) {
    std::error_code ec;
    if (fs::is_regular_file(run.dir / *report, ec))
      md << "Nsight Compute report: [" << code(*report) << "](" << fs::path(*report).generic_string() << ")";
    else
      md << "Nsight Compute report: " << code(*report) << " (not beside the record)";
  } else {
    md << "Nsight Compute report: not recorded";
  }
  if (const ordered_json* k = find(n, "/kernels"); k && k->is_number())
    md << "; " << count(k->get<double>()) << " kernel" << (k->get<double>() == 1 ? "" : "s") << " profiled";
  md << ".";
  if (const auto c = optional_string_at(n, "/combined")) md << " Combined " << fixed_line(*c) << ".";
  md << "\n\n";
  const ordered_json* vals = find(n, "/values");
  if (!vals || !vals->is_object()) {
    const ordered_json* why = find(n, "/unavailable");
    md << "Not measured: " << (why && why->is_string() ? fixed_line(why->get<std::string>()) : "no ncu values")
       << ".\n\n";
    return;
  }
  md << values_table(r, n, *vals) << "\n";
  if (const ordered_json* u = find(n, "/unavailable"); u && u->is_object() && !u->empty()) {
    md << "Not in ncu's values:\n\n";
    for (const auto& [name, why] : u->items()) md << "- " << code(name) << ": " << fixed_line(json_scalar(why)) << "\n";
    md << "\n";
  }
  if (report) wall_time(md, run, *report);
}

}  // namespace

void ncu_section(std::ostringstream& md, const Run& run) {
  md << "## Nsight Compute cross-check\n\n";
  if (!any_result_has(run, "ncu")) {
    md << "Not measured: this record has no `ncu` values. `make profile` reruns each shape's launch "
          "under Nsight Compute, keeps its `.ncu-rep` report beside the record and imports ncu's "
          "values of the same metrics here, against CUPTI's.\n\n";
    return;
  }
  if (const ordered_json* p = find(run.json, "/ncu_profile"); p && p->is_object()) {
    if (const auto v = optional_string_at(*p, "/ncu_version")) md << "Nsight Compute: " << fixed_line(*v) << ". ";
    if (const auto c = optional_string_at(*p, "/ncu_command")) md << "Command: " << code(fixed_line(*c)) << ". ";
    if (const auto m = optional_string_at(*p, "/method")) md << "Method: " << fixed_line(*m) << ".";
    md << "\n\n";
  }
  md << "Difference: (CUPTI - ncu) / |ncu|, as the record gives it (`ncu.rel_diff_pct`). CUPTI's "
        "value comes from the range profiler's replay of one launch (hardware metrics above), ncu's "
        "from a separate run of the launch under Nsight Compute: two passes over the kernel.\n\n";
  for (const auto& r : run.results) {
    const ordered_json* n = find(r.json, "/ncu");
    if (!n || !n->is_object()) {
      if (r.timed()) md << "### " << shape_label(r.name) << "\n\nNot measured: no `ncu` values for this shape.\n\n";
      continue;
    }
    ncu_shape(md, run, r, *n);
  }
}

}  // namespace attnlab::report::detail
