// The e4m3 -> fp16 output conversion (kernels/e4m3_output.hpp): 16 codes per thread, one 16-byte
// load and two 16-byte stores, so that it runs at the memory's rate.
#include "kernels/e4m3_output.hpp"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/check.hpp"

namespace attnlab {
namespace {

constexpr int kPerThread = 16;  // one uint4 of codes
constexpr int kThreads = 256;

__global__ void e4m3_to_fp16(const uint4* __restrict__ in, uint4* __restrict__ out, std::int64_t vectors,
                             float descale) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < vectors;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const uint4 codes = in[i];
    const auto* c = reinterpret_cast<const __nv_fp8_storage_t*>(&codes);
    __align__(16) __half h[kPerThread];
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const float x = __half2float(__half(__nv_cvt_fp8_to_halfraw(c[j], __NV_E4M3)));
      h[j] = __float2half_rn(x * descale);
    }
    out[2 * i] = reinterpret_cast<const uint4*>(h)[0];
    out[2 * i + 1] = reinterpret_cast<const uint4*>(h)[1];
  }
}

}  // namespace

void launch_e4m3_to_fp16(const void* in, void* out, std::int64_t n, float descale, cudaStream_t stream) {
  if (n % kPerThread != 0)
    throw std::invalid_argument("e4m3 -> fp16: " + std::to_string(n) + " elements, not a multiple of 16");
  const std::int64_t vectors = n / kPerThread;
  if (vectors == 0) return;
  // A grid-stride loop over enough blocks to fill any GPU several times over.
  const std::int64_t blocks = std::min<std::int64_t>((vectors + kThreads - 1) / kThreads, 8192);
  e4m3_to_fp16<<<unsigned(blocks), kThreads, 0, stream>>>(static_cast<const uint4*>(in), static_cast<uint4*>(out),
                                                          vectors, descale);
  ATTNLAB_CHECK_LAUNCH();
}

}  // namespace attnlab
