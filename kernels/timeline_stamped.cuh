// timeline::Stamped: the stamp policy (kernels/timeline.cuh) that this build's stamped launches
// instantiate, as the CMake options ATTNLAB_TIMELINE_STAMPS and ATTNLAB_TIMELINE_SAMPLE name it. Only the kernel files that
// declare a stamped launch include it, so switching the option rebuilds those alone.
#pragma once

#include "kernels/timeline.cuh"

// Generated from the CMake option (kernels/CMakeLists.txt).
#include "attnlab_timeline_policy.hpp"

namespace attnlab::timeline {

template <StampPolicy P>
struct PolicyStamps;
template <>
struct PolicyStamps<StampPolicy::kGlobal> {
  using type = GlobalStamps<kEverySpan, kBuildStampSample>;
};
template <>
struct PolicyStamps<StampPolicy::kGlobalBoundaries> {
  using type = GlobalStamps<kBoundarySpans, kBuildStampSample>;
};
template <>
struct PolicyStamps<StampPolicy::kGlobalConsumers> {
  using type = GlobalStamps<kConsumerSpans, kBuildStampSample>;
};
template <>
struct PolicyStamps<StampPolicy::kShared> {
  using type = SharedStamps<kEverySpan, kBuildStampSample>;
};
template <>
struct PolicyStamps<StampPolicy::kSharedBoundaries> {
  using type = SharedStamps<kBoundarySpans, kBuildStampSample>;
};
using Stamped = typename PolicyStamps<kBuildStampPolicy>::type;

}  // namespace attnlab::timeline
