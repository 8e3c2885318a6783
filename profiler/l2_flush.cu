// L2Flush: a cudaMemsetAsync over twice the L2 size before each cold sample. No device code
// of its own: the memset writes the buffer, and a memset is not a kernel in CUPTI's records.
#include "profiler/l2_flush.hpp"

#include <cstdio>

#include "common/check.hpp"

namespace attnlab::profiler {

std::size_t l2_flush_bytes() {
  constexpr std::size_t kL2Multiple = 2;
  int device = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&device));
  int l2_bytes = 0;
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return kL2Multiple * static_cast<std::size_t>(l2_bytes);
}

L2Flush::L2Flush() : bytes_(l2_flush_bytes()) { ATTNLAB_CUDA_CHECK(cudaMalloc(&buffer_, bytes_)); }

L2Flush::~L2Flush() {
  // cudaErrorCudartUnloading: the runtime was torn down first at exit and freed the memory.
  const cudaError_t code = cudaFree(buffer_);
  if (code != cudaSuccess && code != cudaErrorCudartUnloading) {
    std::fprintf(stderr, "attnlab: warning: cudaFree of the L2 flush buffer failed: %s\n",
                 cudaGetErrorString(code));
  }
}

void L2Flush::flush(cudaStream_t stream) {
  // Every write goes through L2, the GPU's point of coherence for device memory, and
  // allocates its line there; cudaMalloc memory is not compressible, so a memset of zeros
  // really writes every line. Written lines displace whatever the measured kernel would
  // otherwise find resident.
  ATTNLAB_CUDA_CHECK(cudaMemsetAsync(buffer_, 0, bytes_, stream));
}

}  // namespace attnlab::profiler
