#include "reports/timeline_paths.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>

#include "common/stats.hpp"

namespace attnlab::report {

using timeline::Span;

const char* path_class_name(PathClass c) {
  switch (c) {
    case PathClass::kLoads: return "loads (full-barrier wait)";
    case PathClass::kTensorCores: return "tensor cores (wgmma wait)";
    case PathClass::kPartner: return "partner consumer (ping-pong wait)";
    case PathClass::kConsumers: return "consumers (empty-barrier wait)";
    case PathClass::kOtherRanks: return "other ranks (cluster and merge waits)";
    case PathClass::kSoftmax: return "softmax";
    case PathClass::kIssue: return "issue (TMA, QK^T, PV)";
    case PathClass::kEpilogue: return "epilogue";
    case PathClass::kPrologue: return "prologue (to the first tile's landing)";
    case PathClass::kBetween: return "between stamps";
    case PathClass::kCount: break;
  }
  return "unknown";
}

std::vector<ItemPath> item_paths(const TimelineDecoded& d) { return item_paths(d.warps); }

LaunchPaths launch_paths(const TimelineDecoded& d) {
  if (d.paths) return {*d.paths, true};
  return {item_paths(d), false};
}

std::vector<PathClassSummary> summarize_paths(const std::vector<ItemPath>& paths) {
  std::array<PathClassSummary, kPathClasses> by{};
  double total = 0;
  for (const auto& p : paths) {
    total += p.end_ns - p.begin_ns;
    ++by[std::size_t(p.bound)].items_bound;
    for (std::size_t c = 0; c < kPathClasses; ++c) by[c].ns += p.ns[c];
  }
  std::vector<PathClassSummary> out;
  for (std::size_t c = 0; c < kPathClasses; ++c) {
    if (by[c].ns <= 0) continue;
    by[c].cls = PathClass(c);
    by[c].share = total > 0 ? by[c].ns / total : 0;
    std::vector<double> shares;
    for (const auto& p : paths)
      if (p.end_ns > p.begin_ns) shares.push_back(p.ns[c] / (p.end_ns - p.begin_ns));
    if (!shares.empty()) {
      by[c].item_share_median = stats::median(shares);
      by[c].item_share_p90 = stats::percentile(shares, 0.9);
    }
    out.push_back(by[c]);
  }
  return out;
}

SlowdownPrediction predict_slowdown(const std::vector<ItemPath>& base, const std::vector<ItemPath>& delayed,
                                    double items_per_sm) {
  SlowdownPrediction p;
  p.items_per_sm = items_per_sm;
  if (base.empty() || delayed.empty()) return p;
  std::array<double, kPathClasses> base_ns{}, delayed_ns{};
  for (const auto& [paths, item_ns, ns] : {std::tuple{&base, &p.base_item_ns, &base_ns},
                                           std::tuple{&delayed, &p.delayed_item_ns, &delayed_ns}}) {
    for (const auto& ip : *paths) {
      *item_ns += ip.end_ns - ip.begin_ns;
      for (std::size_t c = 0; c < kPathClasses; ++c) (*ns)[c] += ip.ns[c];
    }
    *item_ns /= double(paths->size());
    for (double& v : *ns) v /= double(paths->size());
  }
  for (std::size_t c = 0; c < kPathClasses; ++c) p.class_growth_ns[c] = delayed_ns[c] - base_ns[c];
  p.predicted_ns = (p.delayed_item_ns - p.base_item_ns) * items_per_sm;
  return p;
}

double busiest_sm_items(std::int64_t work_items, std::uint32_t ctas, std::uint32_t sms) {
  if (ctas == 0 || sms == 0 || work_items <= 0) return 0;
  const std::int64_t per_cta = (work_items + std::int64_t(ctas) - 1) / std::int64_t(ctas);
  const std::int64_t per_sm = (std::int64_t(ctas) + sms - 1) / sms;
  return double(per_cta * per_sm);
}

std::vector<ItemPath> without_class(const std::vector<ItemPath>& paths, PathClass c) {
  std::vector<ItemPath> out = paths;
  for (auto& p : out) {
    p.end_ns -= p.ns[std::size_t(c)];
    p.ns[std::size_t(c)] = 0;
    p.bound = path_bound(p.ns);
  }
  return out;
}

std::vector<ClassWhatIf> class_what_ifs(const std::vector<ItemPath>& paths, double items_per_sm) {
  std::vector<ClassWhatIf> out;
  for (std::size_t c = 0; c < kPathClasses; ++c) {
    const bool has_time = std::any_of(paths.begin(), paths.end(), [&](const ItemPath& p) { return p.ns[c] > 0; });
    if (has_time) out.push_back({PathClass(c), predict_slowdown(paths, without_class(paths, PathClass(c)), items_per_sm)});
  }
  return out;
}

std::vector<PathTimes> path_times_by_role(const std::vector<ItemPath>& paths) {
  std::map<std::string, std::vector<double>> by_role;
  std::vector<double> all;
  for (const auto& p : paths) {
    by_role[p.role].push_back(p.end_ns - p.begin_ns);
    all.push_back(p.end_ns - p.begin_ns);
  }
  const auto times = [](const std::string& role, const std::vector<double>& ns) {
    PathTimes t;
    t.role = role;
    t.items = ns.size();
    double sum = 0;
    for (double v : ns) sum += v;
    t.mean_ns = sum / double(ns.size());
    t.p10_ns = stats::percentile(ns, 0.1);
    t.median_ns = stats::median(ns);
    t.p90_ns = stats::percentile(ns, 0.9);
    t.max_ns = *std::max_element(ns.begin(), ns.end());
    return t;
  };
  std::vector<PathTimes> out;
  if (all.empty()) return out;
  for (const auto& [role, ns] : by_role) out.push_back(times(role, ns));
  out.push_back(times("all", all));
  return out;
}

SmItemCounts sm_item_counts(const std::vector<ItemPath>& paths) {
  std::map<std::uint32_t, double> per_sm;
  for (const auto& p : paths) per_sm[p.smid] += 1;
  SmItemCounts c;
  c.sms = per_sm.size();
  if (per_sm.empty()) return c;
  std::vector<double> counts;
  for (const auto& [sm, n] : per_sm) counts.push_back(n);
  c.least = *std::min_element(counts.begin(), counts.end());
  c.most = *std::max_element(counts.begin(), counts.end());
  c.median = stats::median(counts);
  return c;
}

std::string paths_line(const TimelineDecoded& d) {
  const LaunchPaths lp = launch_paths(d);
  std::ostringstream line;
  if (lp.every_sm)
    line << "critical path, every SM (" << lp.paths.size() << " items on " << sm_item_counts(lp.paths).sms
         << " SMs): ";
  else
    line << "critical path on SM " << d.pictured_sm << " alone (the record keeps no other SM's paths): ";
  const auto classes = summarize_paths(lp.paths);
  if (classes.empty()) return line.str() + "no work item stamped";
  const auto most = std::max_element(classes.begin(), classes.end(), [](const auto& a, const auto& b) {
    return a.items_bound < b.items_bound;
  });
  line << path_class_name(most->cls) << " bounds " << most->items_bound << " of " << lp.paths.size()
       << " items (" << std::fixed << std::setprecision(1) << 100 * most->share << "% of their time)";
  return line.str();
}

}  // namespace attnlab::report
