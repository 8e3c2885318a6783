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

PathClass path_class_of(Span s) {
  switch (s) {
    case Span::kFullWait: return PathClass::kLoads;
    case Span::kWgmmaWait: return PathClass::kTensorCores;
    case Span::kPingPongWait: return PathClass::kPartner;
    case Span::kEmptyWait: return PathClass::kConsumers;
    case Span::kClusterWait:
    case Span::kMergeWait: return PathClass::kOtherRanks;
    case Span::kSoftmax: return PathClass::kSoftmax;
    case Span::kTmaIssue:
    case Span::kQkIssue:
    case Span::kPvIssue: return PathClass::kIssue;
    case Span::kEpilogue: return PathClass::kEpilogue;
    case Span::kPrologue: return PathClass::kPrologue;
    case Span::kItem:
    case Span::kCount: break;
  }
  return PathClass::kBetween;
}

namespace {

// The number in a role named "consumer N"; none for any other role.
std::optional<std::uint32_t> consumer_index(const std::string& role) {
  constexpr std::string_view kPrefix = "consumer ";
  if (role.compare(0, kPrefix.size(), kPrefix) != 0 || role.size() == kPrefix.size()) return std::nullopt;
  std::uint32_t n = 0;
  for (std::size_t i = kPrefix.size(); i < role.size(); ++i) {
    if (role[i] < '0' || role[i] > '9') return std::nullopt;
    n = 10 * n + std::uint32_t(role[i] - '0');
  }
  return n;
}

// A launch's warps, indexed for the paths: each CTA's warps (a turn partner is one of them), and
// each warp's spans but its items, by begin, with the longest one's length, so that the spans
// over an item are found by a binary search (a warp of a long kernel holds thousands).
class WarpIndex {
 public:
  explicit WarpIndex(const std::vector<TimelineWarp>& warps) {
    for (const auto& w : warps) {
      by_cta_[w.cta].push_back(&w);
      Spans& s = spans_[&w];
      for (const auto& sp : w.spans)
        if (sp.kind != Span::kItem) {
          s.by_begin.push_back(&sp);
          s.longest = std::max(s.longest, sp.end_ns - sp.begin_ns);
        }
      std::sort(s.by_begin.begin(), s.by_begin.end(),
                [](const TimelineSpan* a, const TimelineSpan* b) { return a->begin_ns < b->begin_ns; });
    }
  }
  const std::vector<const TimelineWarp*>& cta(std::uint32_t c) const { return by_cta_.at(c); }
  // The warp's spans but its items that overlap [b, e).
  std::vector<const TimelineSpan*> over(const TimelineWarp& w, double b, double e) const {
    const Spans& s = spans_.at(&w);
    auto it = std::lower_bound(s.by_begin.begin(), s.by_begin.end(), b - s.longest,
                               [](const TimelineSpan* sp, double t) { return sp->begin_ns < t; });
    std::vector<const TimelineSpan*> out;
    for (; it != s.by_begin.end() && (*it)->begin_ns < e; ++it)
      if ((*it)->end_ns > b) out.push_back(*it);
    return out;
  }

 private:
  struct Spans {
    std::vector<const TimelineSpan*> by_begin;
    double longest = 0;
  };
  std::map<std::uint32_t, std::vector<const TimelineWarp*>> by_cta_;
  std::map<const TimelineWarp*, Spans> spans_;
};

// The warp whose turn a ping-pong wait of `w` waits on: in w's CTA, a warp of the consumer before
// w's in the turn order (consumer N waits on consumer N - 1, consumer 0 on the last), the one at
// w's place in its warpgroup where it stamped, else any of that consumer's. None where w is no
// consumer or its CTA has no other.
const TimelineWarp* turn_partner(const WarpIndex& index, const TimelineWarp& w) {
  const auto mine = consumer_index(w.role);
  if (!mine) return nullptr;
  const auto& cta = index.cta(w.cta);
  std::uint32_t consumers = 0;
  for (const auto* o : cta)
    if (const auto c = consumer_index(o->role)) consumers = std::max(consumers, *c + 1);
  if (consumers < 2) return nullptr;
  const std::uint32_t before = (*mine + consumers - 1) % consumers;
  const TimelineWarp* any = nullptr;
  for (const auto* o : cta) {
    if (consumer_index(o->role) != before) continue;
    if (o->warp % kWarpgroupWarps == w.warp % kWarpgroupWarps) return o;
    if (!any) any = o;
  }
  return any;
}

// The warp's time over [b, e) by class: each piece between two span edges goes to the innermost
// span that holds it (the latest begin; of equal begins, the earliest end), or to kBetween. A
// piece in a ping-pong wait goes to what the partner consumer whose turn it waits on did
// meanwhile (turn_partner), followed up to `hops` partners deep, else to kPartner.
std::array<double, kPathClasses> attribute(const WarpIndex& index, const TimelineWarp& w, double b, double e,
                                           int hops) {
  const std::vector<const TimelineSpan*> in = index.over(w, b, e);
  std::vector<double> edges = {b, e};
  for (const auto* s : in) {
    edges.push_back(std::max(s->begin_ns, b));
    edges.push_back(std::min(s->end_ns, e));
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  const TimelineWarp* partner = hops > 0 ? turn_partner(index, w) : nullptr;
  std::array<double, kPathClasses> ns{};
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    const double mid = 0.5 * (edges[i] + edges[i + 1]);
    const TimelineSpan* inner = nullptr;
    for (const auto* s : in)
      if (s->begin_ns <= mid && mid < s->end_ns &&
          (!inner || s->begin_ns > inner->begin_ns || (s->begin_ns == inner->begin_ns && s->end_ns < inner->end_ns)))
        inner = s;
    if (inner && inner->kind == Span::kPingPongWait && partner) {
      const auto theirs = attribute(index, *partner, edges[i], edges[i + 1], hops - 1);
      for (std::size_t c = 0; c < kPathClasses; ++c) ns[c] += theirs[c];
      continue;
    }
    ns[std::size_t(inner ? path_class_of(inner->kind) : PathClass::kBetween)] += edges[i + 1] - edges[i];
  }
  return ns;
}

}  // namespace

std::vector<ItemPath> item_paths(const std::vector<TimelineWarp>& warps) {
  // Per (CTA, item): the warp whose item span ends last, and that span.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<const TimelineWarp*, const TimelineSpan*>> last;
  for (const auto& w : warps)
    for (const auto& s : w.spans) {
      if (s.kind != Span::kItem) continue;
      auto& slot = last[{w.cta, s.item}];
      if (!slot.second || s.end_ns > slot.second->end_ns) slot = {&w, &s};
    }
  const WarpIndex index(warps);
  std::vector<ItemPath> out;
  for (const auto& [key, at] : last) {
    const auto& [w, s] = at;
    ItemPath p;
    p.cta = key.first;
    p.item = key.second;
    p.smid = w->smid;
    p.warp = w->warp;
    p.role = w->role;
    p.begin_ns = s->begin_ns;
    p.end_ns = s->end_ns;
    p.ns = attribute(index, *w, s->begin_ns, s->end_ns, kPartnerHops);
    p.bound = path_bound(p.ns);
    out.push_back(std::move(p));
  }
  std::stable_sort(out.begin(), out.end(), [](const ItemPath& a, const ItemPath& b) { return a.end_ns < b.end_ns; });
  return out;
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
