// Evicts the L2 cache between samples so that "cold" timings read their inputs from HBM, as
// nvbench's cold regime does.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace attnlab::profiler {

// The size of a buffer whose sweep leaves no earlier line in the current device's L2: twice
// the L2, since the L2 does not replace lines in strict LRU order and H100 splits it into two
// partitions. Throws CudaError when the device cannot be queried.
std::size_t l2_flush_bytes();

// Owns a device buffer of l2_flush_bytes(). Construct it with the device
// to be measured current; flush() on a stream of that device.
class L2Flush {
 public:
  L2Flush();
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;
  L2Flush(L2Flush&&) = delete;
  L2Flush& operator=(L2Flush&&) = delete;

  // Enqueues writes over the whole buffer; does not synchronise. Put it before the start
  // event of a cold sample, never between the events.
  void flush(cudaStream_t stream);

  std::size_t bytes() const noexcept { return bytes_; }  // [bytes]

 private:
  std::size_t bytes_ = 0;  // [bytes]
  void* buffer_ = nullptr;
};

}  // namespace attnlab::profiler
