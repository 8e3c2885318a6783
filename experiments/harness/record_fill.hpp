// What the harness records: the record's structs (record/) filled from CUDA, CUPTI, the build,
// the sampler's regimes and the correctness gate. The harness and attnlab-ab share them.
#pragma once

#include "common/direction.hpp"
#include "common/shape.hpp"
#include "profiler/sampler.hpp"
#include "record/timing.hpp"

namespace attnlab {

// The record's timing block of one regime of shape `s` in pass `d` (its FLOPs and bytes), with
// what NVML said while it ran.
RegimeTiming regime_timing(const profiler::RegimeResult& r, const Shape& s, Direction d = Direction::kForward);

}  // namespace attnlab
