// A run's report, hardware metrics section: the CUPTI metric groups of each shape and the
// figures derived from them.
#include "reports/run/sections.hpp"

namespace attnlab::report::detail {

namespace {

// The metric groups a record can carry (the experiments' metrics collection, in order, from
// record/constants.json); others that a record has are shown too.
const std::vector<std::string>& kMetricGroups = metric_vocabulary().groups;

// The range profiler's replay duration (gpu__time_duration.sum of the throughput group) over the
// launch's device time at the headline median; nullopt where either is missing.
struct Replay {
  double replay_ns = 0, device_ns = 0;
  double ratio() const { return replay_ns / device_ns; }
  bool dominated() const { return replay_ns > kReplayDominatedRatio * device_ns; }
};
std::optional<Replay> replay_of(const Result& r) {
  const GroupResult* g = r.group("throughput");
  const auto replay = g ? g->value("gpu__time_duration.sum") : std::nullopt;
  if (!replay || !r.timed()) return std::nullopt;
  return Replay{*replay, device_time(r, *r.headline()).median_ns};
}

// The derived figures of one result, in the record's order: each with the reason it is null, or
// the source of its value where the record names one. A rate over a replay much longer than the
// kernel (records derived before derived.cpp refused it) is flagged.
void derived_table(std::ostringstream& md, const DerivedFigures& d, const std::optional<Replay>& replay) {
  Table t({"derived figure", "value", "note"}, "lrl");
  auto figure = [&](const char* key, const DerivedFigure& f, std::string note = "") {
    if (!f.value) note = f.reason;
    t.row({code(key), f.value ? sig(*f.value) : "not measured", note});
  };
  auto number = [&](const char* key, const std::optional<double>& v, const std::optional<std::string>& source) {
    if (v) t.row({code(key), sig(*v), source.value_or("")});
  };
  figure("pct_of_tensor_peak", d.pct_of_tensor_peak);
  number("tensor_peak_tflops", d.tensor_peak_tflops, d.tensor_peak_source);
  figure("arithmetic_intensity_flop_per_byte", d.arithmetic_intensity_flop_per_byte);
  number("replay_over_kernel", d.replay_over_kernel, std::nullopt);
  std::string dram_note;
  if (d.dram_gbps_measured.value && replay && replay->dominated())
    dram_note = "dominated by replay overhead: divides by the replay's " + duration(replay->replay_ns) + ", " +
                sig(replay->ratio(), 3) + "x the kernel's device time; not the kernel's bandwidth";
  figure("dram_gbps_measured", d.dram_gbps_measured, dram_note);
  md << t.str() << "\n";
}

// The groups in order: the known ones, then any other the record has, sorted.
std::vector<std::string> groups_of(const std::vector<GroupResult>& m) {
  std::vector<std::string> groups = kMetricGroups;
  std::vector<std::string> extra;
  for (const auto& g : m)
    if (std::find(groups.begin(), groups.end(), g.group) == groups.end()) extra.push_back(g.group);
  std::sort(extra.begin(), extra.end());
  groups.insert(groups.end(), extra.begin(), extra.end());
  return groups;
}

// A measured group's line: its passes and collection time, its per-kernel breakdown and the
// metrics it left out.
void group_line(std::ostringstream& md, const GroupResult& g) {
  std::string detail = count(g.passes) + " passes";
  if (!g.kernels.empty())
    detail += ", and " + count(g.kernel_passes) + " for " + count(double(g.kernels.size())) + " kernels one by one";
  detail += ", " + sig(g.collection_wall_s, 3) + " s to collect";
  md << "- " << code(g.group) << ": measured (" << detail << ")\n";
  if (!g.kernels.empty())
    md << "  - per kernel: in the per-kernel breakdown below\n";
  else if (!g.kernels_reason.empty())
    md << "  - per kernel: not measured (" << fixed_line(g.kernels_reason) << ")\n";
  for (const auto& [name, why] : g.unavailable_metrics)
    md << "  - left out " << code(name) << ": " << fixed_line(why) << "\n";
}

// A group's values as table rows, sorted by metric name.
void value_rows(Table& t, const GroupResult& g) {
  std::vector<const MetricValue*> values;
  for (const auto& v : g.values) values.push_back(&v);
  std::sort(values.begin(), values.end(),
            [](const MetricValue* a, const MetricValue* b) { return a->name < b->name; });
  for (const MetricValue* v : values) t.row({g.group, code(v->name), sig(v->value), v->unit});
}

// One shape's metric groups: a line per group (measured, not collected or not available), then
// every measured value in one table.
void shape_metrics(std::ostringstream& md, const std::vector<GroupResult>& m) {
  Table t({"group", "metric", "value", "unit"}, "llrl");
  for (const auto& name : groups_of(m)) {
    const GroupResult* g = find_group(m, name);
    if (!g) {
      md << "- " << code(name) << ": not collected\n";
      continue;
    }
    if (!g->available) {
      md << "- " << code(name) << ": not available: " << fixed_line(g->reason) << "\n";
      continue;
    }
    group_line(md, *g);
    value_rows(t, *g);
  }
  md << "\n";
  if (!t.empty()) md << t.str() << "\n";
}

}  // namespace

void metrics_section(std::ostringstream& md, const Run& run) {
  md << "## Hardware metrics\n\n";
  if (!any_result_has(run, &Result::metrics) && !any_result_has(run, &Result::derived)) {
    md << "Not measured: this record has no `metrics` (hardware counters: ";
    for (std::size_t i = 0; i < kMetricGroups.size(); ++i)
      md << (i ? ", " : "") << code(kMetricGroups[i]);
    md << ") and no `derived` figures. The run did not collect them.\n\n";
    return;
  }
  if (const auto& cfg = run.metrics_config) {
    std::string groups;
    for (const auto& g : cfg->groups) groups += (groups.empty() ? "" : ", ") + code(g);
    md << "Requested groups: " << (groups.empty() ? "none" : groups) << ".";
    // A run that collected nothing holds why in place of the method (MetricsConfig::not_collected).
    if (const auto& why = cfg->not_collected ? cfg->not_collected : cfg->unavailable)
      md << " Counters unavailable for the whole run: " << fixed_line(*why) << ".";
    if (!cfg->not_collected) md << " Method: " << fixed_line(cfg->method) << ".";
    md << "\n\n";
  }
  for (const auto& r : run.results) {
    md << "### " << shape_label(r.name) << "\n\n";
    if (!r.metrics) {
      md << "Hardware metrics: not measured for this shape"
         << (r.timed() ? "" : " (" + r.untimed_reason() + ")") << ".\n\n";
    } else {
      shape_metrics(md, *r.metrics);
    }
    const auto replay = replay_of(r);
    if (replay && replay->dominated())
      md << "Replay overhead: the range profiler's replay of one launch took " << duration(replay->replay_ns)
         << " (`gpu__time_duration.sum`) against " << duration(replay->device_ns)
         << " of device time at the headline median, " << sig(replay->ratio(), 3) << "x (more than "
         << plain(kReplayDominatedRatio)
         << "x): figures over the replay's elapsed time (the duration itself, % of peak over elapsed "
            "cycles, rates derived from the duration) are dominated by the replay's overhead, "
            "not the kernel's; counts (bytes, instructions) are the kernel's.\n\n";
    if (r.derived) derived_table(md, *r.derived, replay);
    else md << "Derived figures: not in the record.\n\n";
  }
}

}  // namespace attnlab::report::detail
