// The busy-wait kernel behind gpu_spin: one thread watching the global timer.
#include "common/check.hpp"
#include "profiler/gpu_spin.hpp"

namespace attnlab::profiler {
namespace {

__device__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(std::uint64_t nanoseconds) {
  const std::uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < nanoseconds) {
  }
}

}  // namespace

void gpu_spin(cudaStream_t stream, std::uint64_t nanoseconds) {
  spin_kernel<<<1, 1, 0, stream>>>(nanoseconds);
  ATTNLAB_CHECK_LAUNCH();
}

}  // namespace attnlab::profiler
