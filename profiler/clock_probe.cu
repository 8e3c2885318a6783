// measure_sm_clock_mhz: one thread counts SM cycles against the GPU's nanosecond timer; and
// the peak clock the device reports, to compare against.
#include "profiler/clock_probe.hpp"

#include <cstdio>
#include <memory>

#include "common/check.hpp"

namespace attnlab::profiler {

namespace {

// %globaltimer advances in steps of 32 ns on the H200 measured here and of up to about 1 us on
// other GPUs, so 2 ms of spin keeps the quantisation error of the nanosecond count under 0.1%.
// The spin runs on the CUDA cores: it reads the clock of an SM without tensor-core load
// (kernels/NOTES.md, "Floors: measured per GPU").
constexpr unsigned long long kSpinNs = 2'000'000;  // [ns]
constexpr double kMhzPerGhz = 1000.0;
constexpr int kKhzPerMhz = 1000;

struct ClockSample {
  long long cycles;       // [SM cycles]
  unsigned long long ns;  // [ns]
};

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__global__ void clock_probe_kernel(ClockSample* out, unsigned long long spin_ns) {
  const unsigned long long t0 = global_timer_ns();
  const long long c0 = clock64();
  unsigned long long t1 = t0;
  while (t1 - t0 < spin_ns) t1 = global_timer_ns();
  const long long c1 = clock64();
  out->cycles = c1 - c0;
  out->ns = t1 - t0;
}

struct DeviceFree {
  void operator()(ClockSample* p) const noexcept {
    const cudaError_t code = cudaFree(p);
    if (code != cudaSuccess) {
      std::fprintf(stderr, "attnlab: warning: cudaFree of the clock probe sample failed: %s\n",
                   cudaGetErrorString(code));
    }
  }
};

}  // namespace

double measure_sm_clock_mhz(cudaStream_t stream) {
  ClockSample* raw = nullptr;
  ATTNLAB_CUDA_CHECK(cudaMalloc(&raw, sizeof(ClockSample)));
  const std::unique_ptr<ClockSample, DeviceFree> sample(raw);

  clock_probe_kernel<<<1, 1, 0, stream>>>(sample.get(), kSpinNs);
  ATTNLAB_CHECK_LAUNCH();
  ClockSample host{};
  ATTNLAB_CUDA_CHECK(
      cudaMemcpyAsync(&host, sample.get(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  // cycles per ns is GHz
  return static_cast<double>(host.cycles) / static_cast<double>(host.ns) * kMhzPerGhz;
}

int max_sm_clock_mhz(int device) {
  int khz = 0;  // [kHz]
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  return khz / kKhzPerMhz;
}

}  // namespace attnlab::profiler
