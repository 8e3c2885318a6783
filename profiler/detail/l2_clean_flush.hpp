// An L2 flush for counter collection that leaves the L2 holding only clean lines: a read of
// twice the L2 size. L2Flush's memset leaves dirty lines whose write-back would land in the
// next profiled range and inflate dram__bytes_write; Nsight Compute's cache control flushes
// and invalidates, and its DRAM counts see no such traffic either.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace attnlab::profiler::detail {

// Owns a device buffer of twice the current device's L2 size that is read and never written.
// Construct with the measured device current.
class CleanL2Flush {
 public:
  CleanL2Flush();
  ~CleanL2Flush();
  CleanL2Flush(const CleanL2Flush&) = delete;
  CleanL2Flush& operator=(const CleanL2Flush&) = delete;
  CleanL2Flush(CleanL2Flush&&) = delete;
  CleanL2Flush& operator=(CleanL2Flush&&) = delete;

  // Enqueues the read sweep and waits for it: every dirty line of earlier work is written back
  // before this returns, outside any range the caller opens next.
  void flush_and_wait(cudaStream_t stream);

 private:
  std::size_t bytes_ = 0;  // [bytes]
  void* buffer_ = nullptr;
  void* sink_ = nullptr;   // 16 bytes the sweep writes only if its checksum hits a sentinel
};

}  // namespace attnlab::profiler::detail
