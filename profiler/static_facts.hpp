// Static facts of the kernels one launch runs: launch configuration, registers, static,
// dynamic and local memory and theoretical occupancy. The CUPTI callback API names the
// functions a launch starts (the harness has only Phase::launch, no function pointers); the
// driver answers for each. Host-only.
#pragma once

#include <cuda_runtime.h>

#include "profiler/occupancy.hpp"
#include "record/static_facts.hpp"
#include "profiler/sampler.hpp"

namespace attnlab::profiler {

// KernelFacts and StaticFacts are record types (record/static_facts.hpp: their JSON mapping).
using attnlab::KernelFacts;
using attnlab::StaticFacts;

// Launches once on `stream` with CUPTI launch callbacks subscribed (KernelActivity paused),
// waits for it, and describes every kernel it started. CUPTI refusals (another subscriber
// attached, say) give an unavailable result; CUDA errors of the launch propagate.
StaticFacts capture_static_facts(const LaunchFn& launch, cudaStream_t stream);

}  // namespace attnlab::profiler
