// A kernel that keeps the GPU busy for a given device time. Enqueued ahead of a batch of
// timed work so the host can queue the whole batch while it runs: launch latency then never
// lands between a start event and the work it times.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace attnlab::profiler {

void gpu_spin(cudaStream_t stream, std::uint64_t nanoseconds);

}  // namespace attnlab::profiler
