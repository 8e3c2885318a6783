// The backward gate's fp32 forward (experiments/harness/backward_forward.hpp).
#include "experiments/harness/backward_forward.hpp"

#include <cuda_fp16.h>

#include <stdexcept>
#include <string>

#include "common/check.hpp"

namespace attnlab {
namespace {

constexpr int kWarp = 32;
constexpr int kRowsPerBlock = 4;  // one warp each
constexpr int kMaxPerLane = kForwardMaxHeadDim / kWarp;

__device__ float warp_sum(float x) {
  for (int o = kWarp / 2; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

__global__ void forward_fp32_kernel(Shape s, float scale, const __half* q, const __half* k, const __half* v,
                                    __half* o, float* lse) {
  const int lane = threadIdx.x % kWarp;
  const long long row = (long long)blockIdx.x * kRowsPerBlock + threadIdx.x / kWarp;
  if (row >= (long long)s.B * s.H * s.S) return;  // a whole warp leaves together
  const int i = int(row % s.S);
  const long long bh = row / s.S;
  const int b = int(bh / s.H), h = int(bh % s.H), kvh = h / (s.H / s.H_kv);
  const __half* qr = q + row * s.D;
  const __half* kh = k + ((long long)b * s.H_kv + kvh) * s.S * s.D;
  const __half* vh = v + ((long long)b * s.H_kv + kvh) * s.S * s.D;
  float qv[kMaxPerLane], acc[kMaxPerLane];
  for (int c = 0; c < kMaxPerLane; ++c) {
    const int d = lane + c * kWarp;
    qv[c] = d < s.D ? __half2float(qr[d]) : 0.f;
    acc[c] = 0.f;
  }
  float m = -INFINITY, l = 0.f;
  const int n = s.causal ? i + 1 : s.S;
  for (int j = 0; j < n; ++j) {
    float part = 0.f;
    for (int c = 0; c < kMaxPerLane; ++c) {
      const int d = lane + c * kWarp;
      if (d < s.D) part += qv[c] * __half2float(kh[(long long)j * s.D + d]);
    }
    const float sc = warp_sum(part) * scale;
    const float m_new = fmaxf(m, sc);
    const float alpha = expf(m - m_new), p = expf(sc - m_new);
    l = l * alpha + p;
    for (int c = 0; c < kMaxPerLane; ++c) {
      const int d = lane + c * kWarp;
      acc[c] = acc[c] * alpha + (d < s.D ? p * __half2float(vh[(long long)j * s.D + d]) : 0.f);
    }
    m = m_new;
  }
  for (int c = 0; c < kMaxPerLane; ++c) {
    const int d = lane + c * kWarp;
    if (d < s.D) o[row * s.D + d] = __float2half(acc[c] / l);
  }
  if (lane == 0) lse[row] = m + logf(l);
}

}  // namespace

void attention_forward_fp32(const Shape& s, float scale, const void* q, const void* k, const void* v,
                            void* o, float* lse, cudaStream_t stream) {
  if (s.D > kForwardMaxHeadDim)
    throw std::invalid_argument("the gate's fp32 forward takes head dimensions up to " +
                                std::to_string(kForwardMaxHeadDim) + ", not " + std::to_string(s.D));
  const long long rows = (long long)s.B * s.H * s.S;
  const unsigned blocks = unsigned((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  forward_fp32_kernel<<<blocks, kRowsPerBlock * kWarp, 0, stream>>>(
      s, scale, static_cast<const __half*>(q), static_cast<const __half*>(k), static_cast<const __half*>(v),
      static_cast<__half*>(o), lse);
  ATTNLAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace attnlab
