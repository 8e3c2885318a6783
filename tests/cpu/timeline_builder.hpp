// Synthetic stamp buffers for the timeline's CPU tests: a RawTimeline built slot by slot, as the
// stamped kernels write it.
#pragma once

#include <cstdint>

#include "common/shapes.hpp"
#include "profiler/timeline_decode.hpp"
#include "record/timeline.hpp"

namespace attnlab::timeline::test {

constexpr std::uint64_t kEpochNs = 1'764'000'000'000'000'000ull;  // a globaltimer of 2025-2026

// A buffer of `ctas` x `warps` slots of `capacity`, built slot by slot.
struct Builder {
  RawTimeline raw;
  Builder(std::uint32_t ctas, std::uint32_t warps, std::uint32_t capacity) {
    raw.ctas = ctas;
    raw.warps_per_cta = warps;
    raw.capacity = capacity;
    raw.slots.resize(std::size_t(ctas) * warps);
    raw.events.resize(raw.slots.size() * capacity);
  }
  // Starts slot (cta, warp) on `sm` at cycle `clock`, globaltimer `ns`.
  RawSlot& start(std::uint32_t cta, std::uint32_t warp, std::uint32_t sm, std::uint64_t clock, std::uint64_t ns) {
    RawSlot& s = raw.slots[std::size_t(cta) * raw.warps_per_cta + warp];
    s.started = 1;
    s.cta = cta;
    s.smid = sm;
    s.start_clock = clock;
    s.start_ns = ns;
    return s;
  }
  void stamp(std::uint32_t cta, std::uint32_t warp, Span span, bool end, std::uint64_t clock,
             std::uint32_t item = 0) {
    const std::size_t slot = std::size_t(cta) * raw.warps_per_cta + warp;
    RawSlot& s = raw.slots[slot];
    if (s.count < raw.capacity)
      raw.events[slot * raw.capacity + s.count] = RawEvent{std::uint32_t(clock), event_tag(span, end, item)};
    ++s.count;
  }
  void end(std::uint32_t cta, std::uint32_t warp, std::uint64_t clock, std::uint64_t ns) {
    RawSlot& s = raw.slots[std::size_t(cta) * raw.warps_per_cta + warp];
    s.end_clock = clock;
    s.end_ns = ns;
  }
};

// A timeline record of phase 5 at the latency shape with its required fields filled and the gate
// passed; each test sets what it checks.
inline TimelineRecord phase5_record(const char* started_utc) {
  TimelineRecord r;
  r.status = "ok";
  r.phase = "5";
  r.title = "wgmma + TMA";
  r.technique = "t";
  r.shape = parse_shape("1x8x512x64");
  r.scale = 0.125;
  r.started_utc = started_utc;
  r.method = "m";
  r.correctness.passed = true;
  r.kernel_normal = "k";
  r.kernel_timeline = "k_tl";
  return r;
}

}  // namespace attnlab::timeline::test
