#include "profiler/timeline_decode.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/stats.hpp"
#include "record/timeline_paths.hpp"

namespace attnlab::timeline {

namespace {

constexpr std::size_t kKinds = std::size_t(Span::kCount);

struct RoleAccumulator {
  std::string role;
  std::uint32_t warps = 0;
  double lifetime_ns = 0;
  std::array<double, kKinds> wait_ns{};
  std::array<bool, kKinds> seen{};
};

RoleSummary summarise(const RoleAccumulator& a) {
  RoleSummary r;
  r.role = a.role;
  r.warps = a.warps;
  r.lifetime_ns = a.lifetime_ns;
  double total = 0;
  for (std::size_t k = 0; k < kKinds; ++k) {
    if (!a.seen[k]) continue;
    const double f = a.lifetime_ns > 0 ? a.wait_ns[k] / a.lifetime_ns : 0;
    r.waits.push_back({Span(k), a.wait_ns[k], f});
    total += a.wait_ns[k];
  }
  r.wait_fraction = a.lifetime_ns > 0 ? total / a.lifetime_ns : 0;
  return r;
}

// Roles in the order their first warp index appears.
class RoleTable {
 public:
  RoleAccumulator& at(const std::string& role) {
    for (auto& a : roles_)
      if (a.role == role) return a;
    roles_.push_back({});
    roles_.back().role = role;
    return roles_.back();
  }
  std::vector<RoleSummary> summaries() const {
    std::vector<RoleSummary> out;
    for (const auto& a : roles_) out.push_back(summarise(a));
    return out;
  }

 private:
  std::vector<RoleAccumulator> roles_;
};

bool ended(const RawSlot& s) { return s.end_clock >= s.start_clock && s.end_ns >= s.start_ns; }

// Every SM's cycle counts placed on one globaltimer axis.
class TimeAxis {
 public:
  // References that keep every double small: the earliest globaltimer reading, and per SM its
  // earliest cycle count (globaltimer is ~1e18 ns, where a double's step is 128 ns).
  TimeAxis(const RawTimeline& raw, double ns_per_cycle) : ns_per_cycle_(ns_per_cycle) {
    for (const RawSlot& s : raw.slots) {
      if (!s.started) continue;
      ns_ref_ = std::min(ns_ref_, s.start_ns);
      auto [it, fresh] = clock_ref_.emplace(s.smid, s.start_clock);
      if (!fresh) it->second = std::min(it->second, s.start_clock);
      if (!first_sm) first_sm = s.smid;
    }
    // Per SM: where its cycle zero sits on the globaltimer axis, from every anchor it has.
    std::map<std::uint32_t, std::vector<double>> offsets;
    for (const RawSlot& s : raw.slots) {
      if (!s.started) continue;
      offsets[s.smid].push_back(double(s.start_ns - ns_ref_) - cycles_ns(s.start_clock, s.smid));
      if (ended(s)) offsets[s.smid].push_back(double(s.end_ns - ns_ref_) - cycles_ns(s.end_clock, s.smid));
    }
    for (auto& [sm, v] : offsets) sm_offset_[sm] = stats::median(std::move(v));
  }

  // [ns] a cycle count of SM `sm` on the axis; `sm` must have run a started slot.
  double at(std::uint64_t clock, std::uint32_t sm) const { return cycles_ns(clock, sm) + sm_offset_.at(sm); }
  bool ran(std::uint32_t sm) const { return clock_ref_.count(sm) > 0; }

  std::optional<std::uint32_t> first_sm;  // of the first started slot; none: nothing ran

 private:
  double cycles_ns(std::uint64_t clock, std::uint32_t sm) const {
    return double(std::int64_t(clock - clock_ref_.at(sm))) * ns_per_cycle_;
  }

  double ns_per_cycle_;
  std::uint64_t ns_ref_ = UINT64_MAX;
  std::map<std::uint32_t, std::uint64_t> clock_ref_;
  std::map<std::uint32_t, double> sm_offset_;
};

// [MHz] the SMs' clock64 rate fitted to the warps' anchors: one least-squares slope of
// globaltimer against clock64 over every start and end anchor, with an intercept per SM (each
// SM counts from its own zero). Every anchor of the launch enters the one slope, so it holds
// over the launch's whole length however coarsely the globaltimer ticks over one warp's
// lifetime. 0 where no SM has anchors that differ in both clocks.
double anchor_clock_mhz(const RawTimeline& raw) {
  struct Sums {
    std::uint64_t clock0 = 0, ns0 = 0;  // the SM's first anchor: keeps the sums' terms small
    double n = 0, c = 0, t = 0, cc = 0, ct = 0;
  };
  std::map<std::uint32_t, Sums> per_sm;
  const auto add = [&](std::uint32_t sm, std::uint64_t clock, std::uint64_t ns) {
    auto [it, fresh] = per_sm.try_emplace(sm);
    Sums& s = it->second;
    if (fresh) {
      s.clock0 = clock;
      s.ns0 = ns;
    }
    const double c = double(std::int64_t(clock - s.clock0)), t = double(std::int64_t(ns - s.ns0));
    s.n += 1;
    s.c += c;
    s.t += t;
    s.cc += c * c;
    s.ct += c * t;
  };
  for (const RawSlot& s : raw.slots) {
    if (!s.started) continue;
    add(s.smid, s.start_clock, s.start_ns);
    if (ended(s)) add(s.smid, s.end_clock, s.end_ns);
  }
  double scc = 0, sct = 0;  // within-SM sums of squares and products
  for (const auto& [sm, s] : per_sm) {
    scc += s.cc - s.c * s.c / s.n;
    sct += s.ct - s.c * s.t / s.n;
  }
  return scc > 0 && sct > 0 ? 1000.0 * scc / sct : 0;
}

// [ns] on the axis: a warp's end anchor, or for a warp that never reached it (or whose block's
// anchors another warp took) its last stamp; `a` is the slot whose anchors place the warp.
double warp_end(const RawSlot& s, const RawSlot& a, const std::vector<Stamp>& ev, const TimeAxis& axis) {
  if (&s == &a && ended(s)) return axis.at(s.end_clock, s.smid);
  double end = &s == &a ? axis.at(s.start_clock, s.smid) : -INFINITY;
  for (const Stamp& e : ev) end = std::max(end, axis.at(e.clock, a.smid));
  return end;
}

// Per slot, the slot whose anchors place it on the time axis: its own where it took them
// (started), else, for a warp that stamped in a block whose anchors one warp took for all
// (GlobalStamps), that warp's; nullptr where neither is there.
std::vector<const RawSlot*> anchoring_slots(const RawTimeline& raw) {
  std::vector<const RawSlot*> out(raw.slots.size(), nullptr);
  for (std::size_t cta = 0; cta < raw.ctas; ++cta) {
    const std::size_t first = cta * raw.warps_per_cta, last = first + raw.warps_per_cta;
    const RawSlot* block = nullptr;
    for (std::size_t i = first; i < last && !block; ++i)
      if (raw.slots[i].started) block = &raw.slots[i];
    for (std::size_t i = first; i < last; ++i)
      out[i] = raw.slots[i].started ? &raw.slots[i] : raw.slots[i].count > 0 ? block : nullptr;
  }
  return out;
}

// The slots of the blocks that ran (one of their warps took the anchors) whose warps `policy` does
// not stamp (policy_stamps_warp): empty by design, so neither a warp of the timeline nor one lost.
// Such a slot with anything written in it is from another build's buffer: invalid_argument.
std::uint32_t unstamped_by_policy(const RawTimeline& raw, StampPolicy policy) {
  std::uint32_t n = 0;
  for (std::size_t cta = 0; cta < raw.ctas; ++cta) {
    const std::size_t first = cta * raw.warps_per_cta, last = first + raw.warps_per_cta;
    bool ran = false;
    for (std::size_t i = first; i < last; ++i) ran = ran || raw.slots[i].started != 0;
    for (std::size_t i = first; i < last; ++i) {
      const std::uint32_t warp = std::uint32_t(i - first);
      if (policy_stamps_warp(policy, warp)) continue;
      if (raw.slots[i].started || raw.slots[i].count > 0)
        throw std::invalid_argument("timeline decode: warp " + std::to_string(warp) + " of CTA " +
                                    std::to_string(cta) + " wrote its slot, which the stamp policy " +
                                    stamp_policy_name(policy) + " leaves empty");
      n += ran ? 1 : 0;
    }
  }
  return n;
}

// [ns] on the axis: the launch's zero, its earliest start anchor or first stamp of a warp
// without anchors (a warp may stamp before its block's anchoring warp reads its clock; a warp's
// first stamp is its earliest).
double axis_zero(const RawTimeline& raw, const std::vector<const RawSlot*>& anchor, const TimeAxis& axis) {
  double t0 = INFINITY;
  for (std::size_t i = 0; i < raw.slots.size(); ++i) {
    const RawSlot* a = anchor[i];
    const bool own = raw.slots[i].started != 0;
    if (!a || (!own && raw.capacity == 0)) continue;
    const std::uint64_t first =
        own ? anchored_start(*a) : widen(raw.events.data() + i * raw.capacity, 1, a->start_clock)[0].clock;
    t0 = std::min(t0, axis.at(first, a->smid));
  }
  return t0;
}

// One warp's time in each kind of wait span.
struct WarpWaits {
  std::array<double, kKinds> wait_ns{};
  std::array<bool, kKinds> seen{};  // a span of the kind closed
};

// The warp's stamps paired into spans, sorted by begin: an even code opens a span of its kind,
// the odd one after closes the latest open one. A prologue's end with no prologue open begins at
// the begin of the warp's open work item that no prologue has taken yet (the kernels stamp a
// prologue's end alone). A code no stamp writes, an end with nothing open and a begin never
// closed count as unmatched.
WarpWaits pair_spans(TimelineWarp& w, const std::vector<Stamp>& ev, const TimeAxis& axis, double t0) {
  constexpr unsigned kItemKind = unsigned(Span::kItem), kPrologueKind = unsigned(Span::kPrologue);
  WarpWaits waits;
  std::array<std::vector<const Stamp*>, kKinds> open;
  const Stamp* item_begin = nullptr;  // the open work item's begin, until a prologue takes it
  for (std::size_t e = 0; e < ev.size(); ++e) {
    const unsigned kind = ev[e].code / 2u;
    if (kind >= kKinds) {
      ++w.unmatched;
      continue;
    }
    if (ev[e].code % 2 == 0) {
      open[kind].push_back(&ev[e]);
      if (kind == kItemKind) item_begin = &ev[e];
      continue;
    }
    if (open[kind].empty() && kind == kPrologueKind && item_begin) {
      open[kind].push_back(item_begin);
      item_begin = nullptr;
    }
    if (kind == kItemKind) item_begin = nullptr;  // the item is over
    if (open[kind].empty()) {
      ++w.unmatched;
      continue;
    }
    const Stamp* b = open[kind].back();
    open[kind].pop_back();
    const TimelineSpan span{Span(kind), axis.at(b->clock, w.smid) - t0, axis.at(ev[e].clock, w.smid) - t0, b->item};
    waits.seen[kind] = true;
    if (is_wait(Span(kind))) waits.wait_ns[kind] += span.end_ns - span.begin_ns;
    w.spans.push_back(span);
  }
  for (const auto& o : open) w.unmatched += std::uint32_t(o.size());
  std::sort(w.spans.begin(), w.spans.end(),
            [](const TimelineSpan& a, const TimelineSpan& b) { return a.begin_ns < b.begin_ns; });
  return waits;
}

// [ns] the time a warp's stamps cover: its lifetime, or under sampling its stamped items'.
double covered_ns(const TimelineWarp& w, std::uint32_t sample_every) {
  if (sample_every <= 1) return w.end_ns - w.start_ns;
  double ns = 0;
  for (const auto& s : w.spans)
    if (s.kind == Span::kItem) ns += s.end_ns - s.begin_ns;
  return ns;
}

void add_warp(RoleAccumulator& a, const TimelineWarp& w, const WarpWaits& waits, std::uint32_t sample_every) {
  ++a.warps;
  a.lifetime_ns += covered_ns(w, sample_every);
  for (std::size_t k = 0; k < kKinds; ++k)
    if (waits.seen[k] && is_wait(Span(k))) {
      a.seen[k] = true;
      a.wait_ns[k] += waits.wait_ns[k];
    }
}

// Adds `amount` to `bins` (each bin_ns wide from 0), spread evenly over [b, e) (clamped to
// the bins); all of it to b's bin where that leaves nothing.
void spread(std::vector<double>& bins, double bin_ns, double b, double e, double amount) {
  if (bins.empty() || !(bin_ns > 0)) return;
  const double end = double(bins.size()) * bin_ns;
  b = std::clamp(b, 0.0, end);
  e = std::clamp(e, 0.0, end);
  const auto bin_of = [&](double t) { return std::min(std::size_t(t / bin_ns), bins.size() - 1); };
  if (!(e > b)) {
    bins[bin_of(b)] += amount;
    return;
  }
  for (std::size_t i = bin_of(b), last = bin_of(e); i <= last; ++i) {
    const double overlap = std::min(e, double(i + 1) * bin_ns) - std::max(b, double(i) * bin_ns);
    if (overlap > 0) bins[i] += amount * overlap / (e - b);
  }
}

// Per SM, the union of `intervals` [begin, end), as sorted disjoint intervals.
std::vector<std::pair<double, double>> union_of(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<std::pair<double, double>> out;
  for (const auto& iv : intervals) {
    if (!(iv.second > iv.first)) continue;
    if (!out.empty() && iv.first <= out.back().second)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  }
  return out;
}

// The wgmma wait that covers issue span spans[i]: the first wait after it that names its key
// tile (the kernels stamp each wait with the tile whose GEMM it completes), before the warp
// issues the same kind of GEMM on that tile again; nullptr where there is none.
const TimelineSpan* covering_wait(const std::vector<TimelineSpan>& spans, std::size_t i) {
  const TimelineSpan& issue = spans[i];
  for (std::size_t k = i + 1; k < spans.size(); ++k) {
    const TimelineSpan& s = spans[k];
    if (s.item != issue.item) continue;
    if (s.kind == Span::kWgmmaWait && s.begin_ns >= issue.end_ns) return &s;
    if (s.kind == issue.kind) return nullptr;
  }
  return nullptr;
}

}  // namespace

TimelineTensorPipe tensor_pipe(const std::vector<TimelineWarp>& warps, const TensorPipeInputs& in,
                               double sm_clock_mhz, double span_ns, std::uint32_t sample_every) {
  TimelineTensorPipe t;
  static_cast<TensorPipeRate&>(t) = in;
  if (t.not_measured) return t;
  const std::size_t n = std::max<std::size_t>(in.bins, 1);
  t.bin_ns = span_ns / double(n);
  // The SMs' active time, in all and per bin. Under sampling, the stamped items' spans of the
  // warps that issue GEMMs: a producer begins an item while the consumers still compute the one
  // before, which is not stamped and whose FLOPs are not counted.
  const auto issues_gemms = [](const TimelineWarp& w) {
    return std::any_of(w.spans.begin(), w.spans.end(),
                       [](const TimelineSpan& s) { return s.kind == Span::kQkIssue || s.kind == Span::kPvIssue; });
  };
  std::map<std::uint32_t, std::vector<std::pair<double, double>>> by_sm;
  for (const auto& w : warps) {
    if (sample_every <= 1) {
      by_sm[w.smid].push_back({w.start_ns, w.end_ns});
      continue;
    }
    if (!issues_gemms(w)) continue;
    for (const auto& s : w.spans)
      if (s.kind == Span::kItem) by_sm[w.smid].push_back({s.begin_ns, s.end_ns});
  }
  std::vector<double> active_bins(n, 0.0);
  for (auto& [sm, intervals] : by_sm)
    for (const auto& [b, e] : union_of(std::move(intervals))) {
      t.active_sm_ns += e - b;
      spread(active_bins, t.bin_ns, b, e, e - b);
    }
  // Each issue's FLOPs, spread from its begin to its covering wait's end, by role.
  std::map<std::string, std::vector<double>> flop_bins;
  std::map<std::string, double> role_flops;
  for (const auto& w : warps)
    for (std::size_t i = 0; i < w.spans.size(); ++i) {
      const TimelineSpan& s = w.spans[i];
      if (s.kind != Span::kQkIssue && s.kind != Span::kPvIssue) continue;
      const TimelineSpan* wait = covering_wait(w.spans, i);
      if (!wait) {
        ++t.uncovered;
        continue;
      }
      const double flops = s.kind == Span::kQkIssue ? in.qk_flops : in.pv_flops;
      auto [it, fresh] = flop_bins.try_emplace(w.role, n, 0.0);
      spread(it->second, t.bin_ns, s.begin_ns, wait->end_ns, flops);
      role_flops[w.role] += flops;
      t.issued_flops += flops;
      ++t.issues;
    }
  // [FLOP per ns of one SM] the pipe's peak at the timeline's clock.
  const double peak_per_ns = in.flop_per_sm_cycle * sm_clock_mhz / 1000.0;
  const auto share = [&](double flops, double sm_ns) { return sm_ns > 0 ? flops / (peak_per_ns * sm_ns) : 0.0; };
  t.average = share(t.issued_flops, t.active_sm_ns);
  for (const auto& [role, bins] : flop_bins) {
    RoleTensorPipe r;
    r.role = role;
    r.flops = role_flops[role];
    r.average = share(r.flops, t.active_sm_ns);
    for (std::size_t b = 0; b < n; ++b) r.bins.push_back(share(bins[b], active_bins[b]));
    t.roles.push_back(std::move(r));
  }
  return t;
}

TimelineDecoded decode(const RawTimeline& raw, const DecodeOptions& opt) {
  if (opt.sm_clock_mhz && (!(*opt.sm_clock_mhz > 0) || !std::isfinite(*opt.sm_clock_mhz)))
    throw std::invalid_argument("timeline decode: the SM clock must be a positive number of MHz");
  const std::size_t n_slots = std::size_t(raw.ctas) * raw.warps_per_cta;
  if (raw.slots.size() != n_slots || raw.events.size() != n_slots * raw.capacity)
    throw std::invalid_argument("timeline decode: the buffer's sizes disagree with its geometry");

  TimelineDecoded d;
  d.anchor_clock_mhz = anchor_clock_mhz(raw);
  if (!opt.sm_clock_mhz && d.anchor_clock_mhz <= 0)
    throw std::runtime_error(
        "timeline decode: the warps' anchors give no clock rate (no SM has two anchors a globaltimer "
        "tick apart), and no clock was given");
  d.sm_clock_mhz = opt.sm_clock_mhz ? *opt.sm_clock_mhz : d.anchor_clock_mhz;
  d.clock_source = opt.sm_clock_mhz ? kClockGiven : kClockAnchors;
  d.ctas = raw.ctas;
  d.warps_per_cta = raw.warps_per_cta;
  d.capacity = raw.capacity;
  d.warps_unstamped_by_policy = unstamped_by_policy(raw, opt.policy);
  const TimeAxis axis(raw, 1000.0 / d.sm_clock_mhz);
  d.paths.emplace();
  if (!axis.first_sm) return d;  // nothing ran with the buffer attached
  d.pictured_sm = opt.sm ? *opt.sm : *axis.first_sm;
  if (!axis.ran(d.pictured_sm))
    throw std::invalid_argument("timeline decode: SM " + std::to_string(d.pictured_sm) +
                                " ran none of the launch's CTAs");

  const std::vector<const RawSlot*> anchor = anchoring_slots(raw);
  const double t0 = axis_zero(raw, anchor, axis);
  double t1 = -INFINITY;

  RoleTable roles, sm_roles;
  std::vector<TimelineWarp> all;  // every SM's warps that stamped
  for (std::size_t i = 0; i < n_slots; ++i) {
    const RawSlot& s = raw.slots[i];
    const RawSlot* a = anchor[i];
    if (!a) continue;
    const std::uint32_t written = std::min(s.count, raw.capacity);
    const std::vector<Stamp> ev = widen(raw.events.data() + i * raw.capacity, written, a->start_clock);
    const double end = warp_end(s, *a, ev, axis);
    t1 = std::max(t1, end);
    d.stamps += s.count;
    if (s.count > raw.capacity) {
      d.overflow += s.count - raw.capacity;
      ++d.warps_overflowed;
    }
    if (s.count == 0) continue;

    TimelineWarp w;
    w.cta = a->cta;
    w.warp = std::uint32_t(i % raw.warps_per_cta);
    w.smid = a->smid;
    w.role = opt.role ? opt.role(w.warp) : "warp " + std::to_string(w.warp);
    // Its start anchor (from the kernel's entry where the warp wrote it), or without one its
    // first stamp.
    const std::uint64_t start = s.started || ev.empty() ? anchored_start(*a) : ev.front().clock;
    w.start_ns = axis.at(start, a->smid) - t0;
    w.end_ns = end - t0;
    w.stamps = s.count;
    w.overflow = s.count > raw.capacity ? s.count - raw.capacity : 0;
    const WarpWaits waits = pair_spans(w, ev, axis, t0);
    d.unmatched += w.unmatched;
    add_warp(roles.at(w.role), w, waits, opt.sample_every);
    if (w.smid == d.pictured_sm) add_warp(sm_roles.at(w.role), w, waits, opt.sample_every);
    all.push_back(std::move(w));
  }
  d.span_ns = t1 - t0;
  if (opt.tensor_pipe) d.tensor_pipe = tensor_pipe(all, *opt.tensor_pipe, d.sm_clock_mhz, d.span_ns, opt.sample_every);
  d.paths = item_paths(all);
  for (auto& w : all)
    if (w.smid == d.pictured_sm) d.warps.push_back(std::move(w));
  d.roles = roles.summaries();
  d.sm_roles = sm_roles.summaries();
  return d;
}

}  // namespace attnlab::timeline
