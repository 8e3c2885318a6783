// timeline::Stamped: the stamp policy (kernels/timeline.cuh) that this build's stamped launches
// instantiate, as the CMake options ATTNLAB_TIMELINE_STAMPS and ATTNLAB_TIMELINE_SAMPLE name it. Only the kernel files that
// declare a stamped launch include it, so switching the option rebuilds those alone.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/timeline.cuh"

// Generated from the CMake option (kernels/CMakeLists.txt).
#include "attnlab_timeline_policy.hpp"

namespace attnlab::timeline {

// A policy's stamped spans, and whether it buffers them in shared memory.
constexpr std::uint32_t policy_spans(StampPolicy p) {
  switch (p) {
    case StampPolicy::kGlobalBoundaries:
    case StampPolicy::kSharedBoundaries: return kBoundarySpans;
    case StampPolicy::kGlobalConsumers: return kConsumerSpans;
    case StampPolicy::kGlobalPhases: return kPhaseSpans;
    case StampPolicy::kGlobalPhasesLeads: return kPhaseSpans | kLeadWarpsOnly;
    case StampPolicy::kGlobal:
    case StampPolicy::kShared: break;
  }
  return kEverySpan;
}
constexpr bool policy_buffers_in_shared(StampPolicy p) {
  return p == StampPolicy::kShared || p == StampPolicy::kSharedBoundaries;
}

using Stamped = std::conditional_t<policy_buffers_in_shared(kBuildStampPolicy),
                                   SharedStamps<policy_spans(kBuildStampPolicy), kBuildStampSample>,
                                   GlobalStamps<policy_spans(kBuildStampPolicy), kBuildStampSample>>;

}  // namespace attnlab::timeline
