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
  const auto replay = optional_number_at(r.json, "/metrics/throughput/values/gpu__time_duration.sum/value");
  if (!replay || !r.timed()) return std::nullopt;
  return Replay{*replay, device_time(r, *r.headline_regime()).median_ns};
}

// The derived figures of one result: each scalar with its "<key>_reason" when it is null and
// its "<key>_source" when it has one; "inputs" says what they were computed from. A rate over a
// replay much longer than the kernel (records derived before derived.cpp refused it) is flagged.
void derived_table(std::ostringstream& md, const ordered_json& d, const std::optional<Replay>& replay) {
  auto ends_with = [](const std::string& k, const std::string& suffix) {
    return k.size() > suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  Table t({"derived figure", "value", "note"}, "lrl");
  for (const auto& [k, v] : d.items()) {
    if (ends_with(k, "_reason") || ends_with(k, "_source") || v.is_object() || v.is_array()) continue;
    std::string note;
    std::string base = k;
    if (ends_with(k, "_tflops")) base = k.substr(0, k.size() - 7);
    if (const ordered_json* why = find(d, "/" + k + "_reason"); why && why->is_string()) note = why->get<std::string>();
    else if (const ordered_json* src = find(d, "/" + base + "_source"); src && src->is_string()) note = src->get<std::string>();
    if (k == "dram_gbps_measured" && v.is_number() && replay && replay->dominated())
      note = "dominated by replay overhead: divides by the replay's " + duration(replay->replay_ns) +
             ", " + sig(replay->ratio(), 3) + "x the kernel's device time; not the kernel's bandwidth";
    t.row({code(k), v.is_null() ? "not measured" : v.is_number() ? sig(v.get<double>()) : json_scalar(v), note});
  }
  if (!t.empty()) md << t.str() << "\n";
  if (const ordered_json* in = find(d, "/inputs"); in && in->is_object() && !in->empty()) {
    md << "Computed from: ";
    bool first = true;
    for (const auto& [k, v] : in->items()) {
      md << (first ? "" : "; ") << k << " from " << json_scalar(v);
      first = false;
    }
    md << ".\n\n";
  }
}

// The groups in order: the known ones, then any other the record has, sorted.
std::vector<std::string> groups_of(const ordered_json& m) {
  std::vector<std::string> groups = kMetricGroups;
  std::vector<std::string> extra;
  for (const auto& [k, v] : m.items()) {
    (void)v;
    if (std::find(groups.begin(), groups.end(), k) == groups.end()) extra.push_back(k);
  }
  std::sort(extra.begin(), extra.end());
  groups.insert(groups.end(), extra.begin(), extra.end());
  return groups;
}

// A measured group's line: its passes and collection time, its per-kernel breakdown and the
// metrics it left out.
void group_line(std::ostringstream& md, const std::string& g, const ordered_json& gj) {
  std::string detail;
  if (const ordered_json* p = find(gj, "/passes"); p && p->is_number())
    detail += count(p->get<double>()) + " passes";
  const ordered_json* ks = find(gj, "/kernels");
  const ordered_json* kp = find(gj, "/kernel_passes");
  if (ks && ks->is_array() && kp && kp->is_number())
    detail += (detail.empty() ? "" : ", ") + std::string("and ") + count(kp->get<double>()) + " for " +
              count(double(ks->size())) + " kernels one by one";
  if (const ordered_json* w = find(gj, "/collection_wall_s"); w && w->is_number())
    detail += (detail.empty() ? "" : ", ") + sig(w->get<double>(), 3) + " s to collect";
  md << "- " << code(g) << ": measured" << (detail.empty() ? "" : " (" + detail + ")") << "\n";
  if (ks && ks->is_array())
    md << "  - per kernel: in the per-kernel breakdown below\n";
  else if (const ordered_json* why = find(gj, "/kernels_reason"); why && why->is_string())
    md << "  - per kernel: not measured (" << fixed_line(why->get<std::string>()) << ")\n";
  if (const ordered_json* left = find(gj, "/unavailable_metrics"); left && left->is_object())
    for (const auto& [name, why] : left->items())
      md << "  - left out " << code(name) << ": " << fixed_line(json_scalar(why)) << "\n";
}

// A group's values as table rows, sorted by metric name.
void value_rows(Table& t, const std::string& g, const ordered_json& gj) {
  const ordered_json* vals = find(gj, "/values");
  if (!vals || !vals->is_object()) return;
  std::vector<std::string> names;
  for (const auto& [k, v] : vals->items()) {
    (void)v;
    names.push_back(k);
  }
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    const ordered_json& v = (*vals)[n];
    const ordered_json* value = v.is_object() ? find(v, "/value") : &v;
    const ordered_json* unit = v.is_object() ? find(v, "/unit") : nullptr;
    t.row({g, code(n),
           value && value->is_number() ? sig(value->get<double>()) : value ? json_scalar(*value) : "missing",
           unit && unit->is_string() ? unit->get<std::string>() : ""});
  }
}

// One shape's metric groups: a line per group (measured, not collected or not available), then
// every measured value in one table.
void shape_metrics(std::ostringstream& md, const ordered_json& m) {
  Table t({"group", "metric", "value", "unit"}, "llrl");
  for (const auto& g : groups_of(m)) {
    const RecordedGroupState state = read_group_state(m, "/" + g);
    if (!state.collected) {
      md << "- " << code(g) << ": not collected\n";
      continue;
    }
    if (state.available != true) {
      md << "- " << code(g) << ": not available"
         << (state.reason ? ": " + fixed_line(*state.reason) : std::string()) << "\n";
      continue;
    }
    const ordered_json& gj = *find(m, "/" + g);
    group_line(md, g, gj);
    value_rows(t, g, gj);
  }
  md << "\n";
  if (!t.empty()) md << t.str() << "\n";
}

}  // namespace

void metrics_section(std::ostringstream& md, const Run& run) {
  md << "## Hardware metrics\n\n";
  if (!any_result_has(run, "metrics") && !any_result_has(run, "derived")) {
    md << "Not measured: this record has no `metrics` (hardware counters: ";
    for (std::size_t i = 0; i < kMetricGroups.size(); ++i)
      md << (i ? ", " : "") << code(kMetricGroups[i]);
    md << ") and no `derived` figures. The run did not collect them.\n\n";
    return;
  }
  if (const ordered_json* cfg = find(run.json, "/metrics_config"); cfg && cfg->is_object()) {
    std::string groups;
    if (const ordered_json* g = find(*cfg, "/groups"); g && g->is_array())
      for (const auto& x : *g) groups += (groups.empty() ? "" : ", ") + code(json_scalar(x));
    md << "Requested groups: " << (groups.empty() ? "none" : groups) << ".";
    if (const ordered_json* u = find(*cfg, "/unavailable"); u && u->is_string())
      md << " Counters unavailable for the whole run: " << fixed_line(u->get<std::string>()) << ".";
    if (const ordered_json* m = find(*cfg, "/method"); m && m->is_string())
      md << " Method: " << fixed_line(m->get<std::string>()) << ".";
    md << "\n\n";
  }
  for (const auto& r : run.results) {
    md << "### " << shape_label(r.name) << "\n\n";
    const ordered_json* m = find(r.json, "/metrics");
    if (!m || !m->is_object()) {
      md << "Hardware metrics: not measured for this shape"
         << (r.timed() ? "" : " (" + r.untimed_reason() + ")") << ".\n\n";
    } else {
      shape_metrics(md, *m);
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
    const ordered_json* d = find(r.json, "/derived");
    if (d && d->is_object() && !d->empty()) derived_table(md, *d, replay);
    else md << "Derived figures: not in the record.\n\n";
  }
}

}  // namespace attnlab::report::detail
