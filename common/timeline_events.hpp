// The vocabulary and memory layout of warp-role timelines: what the stamps of a kernel under
// a stamping policy write (kernels/timeline.cuh) and the host decodes
// (profiler/timeline_decode.hpp). Plain types, compiled by nvcc and host compilers alike.
#pragma once

#include <cstdint>
#include <vector>

namespace attnlab::timeline {

// A span is stamped at its begin and its end (the prologue at its end alone); the kinds that are
// waits on a barrier are what the report's wait fractions add up.
enum class Span : std::uint16_t {
  kItem,          // a work item (a CTA's tile of queries), per warp
  kTmaIssue,      // a producer announces a copy's bytes and issues it
  kEmptyWait,     // a producer waits until consumers release a buffer (empty mbarrier)
  kFullWait,      // a consumer waits for a copy to land (full mbarrier: Q, K or V)
  kQkIssue,       // a consumer issues QK^T wgmmas
  kPvIssue,       // a consumer issues PV wgmmas
  kWgmmaWait,     // wgmma.wait_group: the consumer waits for its tensor-core work
  kSoftmax,       // online softmax of one key tile
  kPingPongWait,  // a consumer waits for its turn on the tensor cores (named barrier)
  kEpilogue,      // output written (phase 5) or partial states merged and written (d4)
  kClusterWait,   // barrier.cluster wait (d4)
  kMergeWait,     // waiting for the other ranks' partial states (d4's bulk-copied bytes)
  kPrologue,      // a work item's start to the end of its first full-barrier wait (its first data
                  // landed); the kernels stamp its end alone, and the decoder begins it where the
                  // warp's open work item began, one stamp fewer per item
  kCount
};

constexpr const char* span_name(Span s) {
  switch (s) {
    case Span::kItem: return "work item";
    case Span::kTmaIssue: return "TMA issue";
    case Span::kEmptyWait: return "empty-barrier wait";
    case Span::kFullWait: return "full-barrier wait";
    case Span::kQkIssue: return "QK^T issue";
    case Span::kPvIssue: return "PV issue";
    case Span::kWgmmaWait: return "wgmma wait";
    case Span::kSoftmax: return "softmax";
    case Span::kPingPongWait: return "ping-pong wait";
    case Span::kEpilogue: return "epilogue";
    case Span::kClusterWait: return "cluster-barrier wait";
    case Span::kMergeWait: return "merge wait";
    case Span::kPrologue: return "prologue";
    case Span::kCount: break;
  }
  return "unknown";
}

// Waits on a barrier: a warp in one of these is idle until another party arrives.
constexpr bool is_wait(Span s) {
  return s == Span::kEmptyWait || s == Span::kFullWait || s == Span::kWgmmaWait ||
         s == Span::kPingPongWait || s == Span::kClusterWait || s == Span::kMergeWait;
}

// How a stamped kernel stores its stamps (kernels/timeline.cuh), one per build: the CMake option
// ATTNLAB_TIMELINE_STAMPS picks it (and ATTNLAB_TIMELINE_SAMPLE which work items it stamps), so
// one build can be timed against another, and the timeline record names both.
enum class StampPolicy : std::uint8_t {
  kGlobal,            // every stamp stored to the warp's global slot as it is taken
  kGlobalBoundaries,  // kGlobal without the issue spans (TMA, QK^T, PV): waits, softmax, items
  kShared,            // stamps buffered in a shared-memory ring per warp, written out when it fills
  kSharedBoundaries,  // kShared without the issue spans (TMA, QK^T, PV): waits, softmax, items
  kGlobalConsumers,   // kGlobalBoundaries without the empty-barrier waits (a producer's items only)
                      // and without the mbarrier waits that pass at once
  kGlobalPhases,      // per work item only: the item, its prologue, the epilogue, the merge and
                      // cluster waits; nothing per key tile
  kGlobalPhasesLeads,  // kGlobalPhases stamped by the first warp of each warpgroup alone
};

constexpr const char* stamp_policy_name(StampPolicy p) {
  switch (p) {
    case StampPolicy::kGlobal: return "global";
    case StampPolicy::kGlobalBoundaries: return "global-boundaries";
    case StampPolicy::kShared: return "shared";
    case StampPolicy::kSharedBoundaries: return "shared-boundaries";
    case StampPolicy::kGlobalConsumers: return "global-consumers";
    case StampPolicy::kGlobalPhases: return "global-phases";
    case StampPolicy::kGlobalPhasesLeads: return "global-phases-leads";
  }
  return "unknown";
}

// Whether a policy stamps the issue spans (TMA, QK^T, PV), which the tensor pipe over time
// reads: the -boundaries policies leave them out.
constexpr bool stamps_issue_spans(StampPolicy p) {
  return p == StampPolicy::kGlobal || p == StampPolicy::kShared;
}

// Warps per warpgroup: under kGlobalPhasesLeads only a warpgroup's first warp stamps.
inline constexpr std::uint32_t kWarpsPerWarpgroup = 4;
// Whether a policy stamps in warp `warp` (its index in the block) at all: every warp, or under
// kGlobalPhasesLeads the first of each warpgroup, the others storing nothing (no stamp, count or
// anchor), so the decoder reads their empty slots as the policy's, not as warps that never ran.
constexpr bool policy_stamps_warp(StampPolicy p, std::uint32_t warp) {
  return p != StampPolicy::kGlobalPhasesLeads || warp % kWarpsPerWarpgroup == 0;
}

// Whether work item `item` is one of those a build stamps when it stamps every `every`-th
// (ATTNLAB_TIMELINE_SAMPLE): counted along the items' rounds over a grid of `grid` blocks
// (item / grid), shifted by the block's place (item % grid), so that a persistent block walking
// items b, b + grid, b + 2 grid, ... (the static schedule) stamps every `every`-th of its own,
// the blocks staggered, and a grid of one item per block (d4) stamps every `every`-th block.
// Every warp that stamps an item passes the same index, so they all agree; the kernels
// (kernels/timeline.cuh) and the tests apply the one rule (constexpr: device code calls it).
constexpr bool sampled_item(std::uint32_t item, std::uint32_t grid, std::uint32_t every) {
  return every <= 1 || grid == 0 || (item / grid + item % grid) % every == 0;
}

// One stamp as a warp writes it: 8 bytes, one 8-byte store. The low 32 bits of the SM's clock64
// (the stamp reads only those, %clock: a 64-bit read costs the stamp more, and a warp's stamps
// lie far less than 2^32 cycles apart, so the decoder restores the high half from a start
// anchor of the warp's block, widen()), and a tag: the event code in the low kCodeBits bits,
// the item above them (its low kItemBits bits).
struct RawEvent {
  std::uint32_t clock_lo;  // [cycles] low half of clock64
  std::uint32_t tag;       // item << kCodeBits | code
};
static_assert(sizeof(RawEvent) == 8, "a stamp is one 8-byte store");
inline constexpr unsigned kCodeBits = 5;
inline constexpr unsigned kItemBits = 32 - kCodeBits;
static_assert(2 * unsigned(Span::kCount) <= (1u << kCodeBits), "every event code fits its bits");

// One warp's slot header. The anchors pair clock64 with %globaltimer at the warp's start and
// end, so that the SMs' cycle counters, which are not synchronised, align on one time axis. Under
// GlobalStamps one warp per block writes them (started 1) and the block's other warps only their
// count (started 0): the decoder gives those the anchoring warp's SM and clock reference.
// entry_clock is clock64 at the stamped kernel's first instruction, which an anchoring warp
// writes beside its start anchor: a recorder is made after the kernel's prologue (so that it
// delays no first copy), and the warp's life on the axis begins at the entry (anchored_start).
struct RawSlot {
  std::uint64_t start_clock;  // [cycles]
  std::uint64_t start_ns;     // [ns] %globaltimer
  std::uint64_t end_clock;    // [cycles]
  std::uint64_t end_ns;       // [ns] %globaltimer
  std::uint32_t count;        // stamps attempted; those past the capacity were not written
  std::uint32_t smid;
  std::uint32_t cta;          // linear block index
  std::uint32_t started;      // 1 once the warp ran (0: no CTA ever held this slot)
  std::uint64_t entry_clock;  // [cycles] 0: not read (a kernel that passes its recorders no entry)
};
static_assert(sizeof(RawSlot) == 56, "slot headers pack without padding");

// [cycles] where an anchoring warp's life begins: the kernel's entry where it was read (and lies
// before the start anchor, as it must on one SM's counter), else the start anchor.
constexpr std::uint64_t anchored_start(const RawSlot& s) {
  return s.entry_clock != 0 && s.entry_clock <= s.start_clock ? s.entry_clock : s.start_clock;
}

constexpr std::uint16_t event_code(Span s, bool end) {
  return std::uint16_t(2 * unsigned(s) + (end ? 1u : 0u));
}
// The stamp's tag; an item keeps its low kItemBits bits (items beyond 2^27 alias).
constexpr std::uint32_t event_tag(Span s, bool end, std::uint32_t item) {
  return item << kCodeBits | event_code(s, end);
}

// One stamp decoded: its whole clock64, the item (its low kItemBits bits) and the code.
struct Stamp {
  std::uint64_t clock;  // [cycles]
  std::uint32_t item;
  std::uint16_t code;  // 2 * Span + (1 at the end, 0 at the begin)
};
// A warp's n stamps widened: each clock's high half from the one before it, the first's from
// the nearest clock to a start anchor of its block (the warp's own, or another warp's taken
// about when this one started, before or after its first stamp: within 2^31 cycles either
// way), so stamps fewer than 2^32 cycles apart, in the order the warp took them, come out whole.
inline std::vector<Stamp> widen(const RawEvent* ev, std::uint32_t n, std::uint64_t start_clock) {
  std::vector<Stamp> out;
  out.reserve(n);
  std::uint64_t clock = start_clock;
  for (std::uint32_t e = 0; e < n; ++e) {
    const std::uint32_t step = ev[e].clock_lo - std::uint32_t(clock);
    clock += e == 0 ? std::uint64_t(std::int64_t(std::int32_t(step))) : std::uint64_t(step);
    out.push_back(Stamp{clock, ev[e].tag >> kCodeBits, std::uint16_t(ev[e].tag & ((1u << kCodeBits) - 1))});
  }
  return out;
}

// A launch's buffer as copied back to the host: slot i = cta * warps_per_cta + warp, its
// events at [i * capacity, i * capacity + min(count, capacity)).
struct RawTimeline {
  std::uint32_t warps_per_cta = 0, ctas = 0, capacity = 0;
  std::vector<RawSlot> slots;
  std::vector<RawEvent> events;
};

}  // namespace attnlab::timeline
