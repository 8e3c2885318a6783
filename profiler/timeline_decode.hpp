// Decoding of a warp-role timeline buffer (kernels/timeline.cuh) into spans on one time axis,
// per-warp lifetimes and the time each role spent in each kind of wait. Host-only, no CUDA: the
// CPU tests drive it with synthetic buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/timeline_events.hpp"
#include "record/timeline.hpp"

namespace attnlab::timeline {

struct DecodeOptions {
  double sm_clock_mhz = 0;                // [MHz] cycles per microsecond of clock64
  std::optional<std::uint32_t> sm;        // the SM pictured; default: that of the first CTA
  std::function<std::string(std::uint32_t warp)> role;  // a warp's role from its index in the CTA
};

// Cycles become nanoseconds at opt.sm_clock_mhz; the warps' anchors give a check of that clock
// (anchor_clock_mhz). Each SM's cycle counter is placed on the
// %globaltimer axis by the median offset of its warps' anchors, so spans within an SM keep
// cycle precision and SMs align to the globaltimer's. Times start at the earliest warp start.
// Per kind, an end closes the latest open begin; an end with none open, or a begin left open
// (a slot that overflowed, a kernel that returned between the two), counts as unmatched.
// Throws std::invalid_argument for a clock <= 0, a buffer whose sizes disagree with its
// geometry, or a requested SM that ran none of the launch's CTAs.
TimelineDecoded decode(const RawTimeline& raw, const DecodeOptions& opt);

}  // namespace attnlab::timeline
