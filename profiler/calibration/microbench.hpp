// The calibration's microbenchmarks (attnlab-calibrate): kernels that each keep one resource of
// every SM busy (the tensor cores through fp16 and e4m3 wgmma, the MUFU through ex2, the FMA
// pipe, DRAM reads, shared-memory reads) doing a known amount of work, and an empty kernel for
// launch floors.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace attnlab::profiler::calibration {

// One configured kernel: launch() enqueues it on a stream (never synchronises, checks the
// launch error); work() is what one launch does, in the unit of its rate.
struct Launch {
  dim3 grid, block;
  dim3 cluster{1, 1, 1};
  std::size_t dynamic_smem_bytes = 0;
};

// What thread 0 of block 0 of a throughput kernel counted over its work: SM cycles (clock64) and
// nanoseconds (%globaltimer); their ratio is the SM clock that kernel ran at.
struct KernelClock {
  std::uint64_t cycles = 0;
  std::uint64_t ns = 0;
};

// kTensor: fp16 wgmma; kTensorFp8: e4m3 wgmma, the same tiles and loop.
enum class Kind { kTensor, kTensorFp8, kExp2, kFfma, kDramRead, kSmemRead };

// Owns the device buffers of the throughput kernels on the current device; the sizes scale with
// `iterations` (compute and shared memory: the kernel's loop count) and the DRAM buffer.
class Microbenchmarks {
 public:
  // dram_bytes: the size of the buffer the DRAM kernel reads once per launch (rounded down to
  // whole 16-byte vectors per thread of its grid). Throws CudaError when allocation fails.
  explicit Microbenchmarks(std::size_t dram_bytes);
  ~Microbenchmarks();
  Microbenchmarks(const Microbenchmarks&) = delete;
  Microbenchmarks& operator=(const Microbenchmarks&) = delete;

  // The launch configuration of a kind: every SM filled (one wgmma block of two warpgroups per
  // SM; as many blocks per SM as fit for the others).
  Launch launch_of(Kind k) const;
  // Work per launch at `iterations` of the kernel's loop (ignored for DRAM, which reads its
  // buffer once): FLOPs for tensor and FFMA, ex2 for MUFU, bytes for the reads.
  double work(Kind k, std::int64_t iterations) const;
  // Enqueues one launch of kind k on `stream`.
  void launch(Kind k, std::int64_t iterations, cudaStream_t stream);
  std::size_t dram_bytes() const { return dram_bytes_; }
  // [MHz] The SM clock of the last throughput launch, from its own clock64 and %globaltimer
  // (KernelClock); call after that launch completed. Throws if its span saw no timer tick.
  double last_sm_clock_mhz() const;

 private:
  int sms_ = 0;
  std::size_t dram_bytes_ = 0;  // [bytes] read per DRAM launch
  void* dram_ = nullptr;        // the DRAM kernel's input
  void* sink_ = nullptr;        // one value per thread of the largest grid, so no loop is dead code
  KernelClock* clock_ = nullptr;  // written by every throughput launch
  std::size_t sink_bytes_ = 0;
  int blocks_per_sm_[6] = {};
};

// An empty kernel launched with `l` (cluster dimensions through cudaLaunchKernelEx, the
// dynamic shared memory allowed first): its device time is the launch floor of any kernel
// launched with the same configuration.
void launch_empty(const Launch& l, cudaStream_t stream);

}  // namespace attnlab::profiler::calibration
