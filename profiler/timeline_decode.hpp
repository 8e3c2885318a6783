// Decoding of a warp-role timeline buffer (kernels/timeline.cuh) into spans on one time axis,
// per-warp lifetimes and the time each role spent in each kind of wait. Host-only, no CUDA: the
// CPU tests drive it with synthetic buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/timeline_events.hpp"
#include "record/timeline.hpp"

namespace attnlab::timeline {

// What the tensor pipe over time (TimelineTensorPipe) is computed from: the record's rate block
// (record/timeline.hpp), and how many bins the picture has.
struct TensorPipeInputs : TensorPipeRate {
  std::size_t bins = 64;  // over the launch's span, for the picture
};

struct DecodeOptions {
  // [MHz] a clock64 rate to convert at instead of the warps' anchors: a test that reads its
  // spans in cycles sets 1000. Unset, the rate is the one the anchors give (below).
  std::optional<double> sm_clock_mhz;
  std::optional<std::uint32_t> sm;        // the SM pictured; default: that of the first CTA
  std::function<std::string(std::uint32_t warp)> role;  // a warp's role from its index in the CTA
  // The build stamped every sample_every-th work item only (ATTNLAB_TIMELINE_SAMPLE): a warp's
  // stamps then cover its sampled items alone, so its role's wait fractions are shares of the
  // time of those items (its kItem spans), not of its lifetime.
  std::uint32_t sample_every = 1;
  // The build's stamp policy, for which warps it stamps at all (policy_stamps_warp): under
  // global-phases-leads a block's other warps store nothing, and their slots count as
  // TimelineDecoded::warps_unstamped_by_policy, not as warps that stamped or ran.
  StampPolicy policy = StampPolicy::kGlobal;
  // Where set, the decoded block's tensor_pipe, over every SM's warps.
  std::optional<TensorPipeInputs> tensor_pipe;
};

// Cycles become nanoseconds at the rate the warps' own anchors give (anchor_clock_mhz: every
// warp's start and end pairs of clock64 and %globaltimer, one least-squares slope with an
// intercept per SM, since each SM counts its own cycles from its own zero), or at
// opt.sm_clock_mhz where set. The anchors are the clock the launch ran at: a probe before and
// after it reads the clock of an idle GPU, which the launch's own power draw then lowers. Each
// SM's cycle counter is placed on the %globaltimer axis by the median offset of its warps'
// anchors, so spans within an SM keep cycle precision and SMs align to the globaltimer's.
// Times start at the earliest warp start. The decoded block keeps the pictured SM's warps, and
// every SM's work items' critical paths (record/timeline_paths.hpp).
// Per kind, an end closes the latest open begin; an end with none open, or a begin left open
// (a slot that overflowed, a kernel that returned between the two), counts as unmatched. A
// prologue's end with no prologue open (the kernels stamp its end alone) begins at the warp's
// open work item's begin, once per item.
// Throws std::invalid_argument for a given clock <= 0, a buffer whose sizes disagree with its
// geometry, a requested SM that ran none of the launch's CTAs, or a slot written by a warp that
// opt.policy does not stamp (a buffer of another build); std::runtime_error where no
// clock is given and the anchors give no rate (no SM with two anchors a globaltimer tick apart).
TimelineDecoded decode(const RawTimeline& raw, const DecodeOptions& opt);

// The tensor pipe over time of `warps` (every SM's, spans sorted by begin as decode leaves
// them) on a timeline of span_ns at sm_clock_mhz; sample_every as DecodeOptions' (an SM's
// active time is then the stamped items' spans of its warps that issue GEMMs). An issue span whose covering wait is not found
// (a slot that overflowed) is counted in `uncovered` and its FLOPs left out.
TimelineTensorPipe tensor_pipe(const std::vector<TimelineWarp>& warps, const TensorPipeInputs& in,
                               double sm_clock_mhz, double span_ns, std::uint32_t sample_every);

}  // namespace attnlab::timeline
