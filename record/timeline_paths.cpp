#include "record/timeline_paths.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

namespace attnlab {

using timeline::Span;

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

}  // namespace attnlab
