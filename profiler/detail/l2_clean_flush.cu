// CleanL2Flush: a grid-stride read sweep over a never-written buffer of twice the L2 size.
#include "profiler/detail/l2_clean_flush.hpp"

#include <cstdint>
#include <cstdio>

#include "common/check.hpp"
#include "profiler/l2_flush.hpp"

namespace attnlab::profiler::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 4;
// The sweep's checksum is compared with this, so the compiler cannot drop the loads; no
// realistic sum of the buffer's bytes equals it, and a match would only write 16 bytes.
constexpr std::uint32_t kSentinel = 0x9E3779B9u;

__global__ void read_sweep(const uint4* __restrict__ buffer, std::size_t count, uint4* sink,
                           std::uint32_t sentinel) {
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    // .cg: cached in L2 only, so every line of the buffer is allocated there, clean.
    const uint4 v = __ldcg(buffer + i);
    acc.x ^= v.x;
    acc.y ^= v.y;
    acc.z ^= v.z;
    acc.w ^= v.w;
  }
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == sentinel) *sink = acc;
}

}  // namespace

CleanL2Flush::CleanL2Flush() : bytes_(l2_flush_bytes()) {
  ATTNLAB_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  ATTNLAB_CUDA_CHECK(cudaMalloc(&sink_, sizeof(uint4)));
}

CleanL2Flush::~CleanL2Flush() {
  for (void* p : {buffer_, sink_}) {
    // cudaErrorCudartUnloading: the runtime was torn down first at exit and freed the memory.
    const cudaError_t code = cudaFree(p);
    if (code != cudaSuccess && code != cudaErrorCudartUnloading) {
      std::fprintf(stderr, "attnlab: warning: cudaFree of the clean-flush buffer failed: %s\n",
                   cudaGetErrorString(code));
    }
  }
}

void CleanL2Flush::flush_and_wait(cudaStream_t stream) {
  int device = 0, sms = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&device));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  read_sweep<<<sms * kBlocksPerSm, kThreads, 0, stream>>>(
      static_cast<const uint4*>(buffer_), bytes_ / sizeof(uint4), static_cast<uint4*>(sink_),
      kSentinel);
  ATTNLAB_CHECK_LAUNCH();
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace attnlab::profiler::detail
