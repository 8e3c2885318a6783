// Phase 1: scalar fused attention, fp32 math on CUDA cores, no tensor cores.
// Idea: one thread per query row holds its 64 tile scores and its D-wide output row in
// registers while 64-key K/V tiles stream through shared memory; online softmax rescales once
// per tile. Its measured effect lives in the run records.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "kernels/attention_common.cuh"
#include "kernels/check.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase1 {
namespace {

template <int D>
struct Traits {
  static constexpr int kTileQ = 64;  // query rows per block, one per thread
  static constexpr int kTileK = 64;  // keys per shared-memory tile: scores a thread holds
  static constexpr int kThreads = kTileQ;
  static constexpr int kVecsPerRow = D / kHalvesPerVec;
  // One extra vector per row makes the stride an odd number of 16-byte units, so threads
  // reading their own Q row at the same column hit distinct banks. K/V reads are broadcasts
  // and need no padding; they share the stride so that one loader serves all three tiles.
  static constexpr int kStride = D + kHalvesPerVec;
  static constexpr std::size_t kTileBytes =
      std::size_t(kTileQ + 2 * kTileK) * kStride * sizeof(__half);
  // Q, K, V tiles, then one column of kTileK probabilities per thread.
  static constexpr std::size_t kSmemBytes =
      kTileBytes + std::size_t(kTileK) * kThreads * sizeof(float);

  static_assert(D == 64 || D == 128, "phase 1 is instantiated for head dim 64 and 128");
  static_assert(kThreads % kWarpSize == 0, "whole warps");
  static_assert((kStride / kHalvesPerVec) % 2 == 1, "odd vector stride: conflict-free row reads");
  static_assert((kTileQ * kVecsPerRow) % kThreads == 0, "the output store splits evenly");
};

__device__ __forceinline__ uint4 pack8(const float* f) {
  uint4 v;
  __half2* h = reinterpret_cast<__half2*>(&v);
#pragma unroll
  for (int i = 0; i < kHalvesPerVec / 2; ++i) h[i] = __floats2half2_rn(f[2 * i], f[2 * i + 1]);
  return v;
}

template <int D>
__global__ void __launch_bounds__(Traits<D>::kThreads)
    attention_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                     const __half* __restrict__ v, __half* __restrict__ o, int H, int H_kv, int S,
                     float scale_log2, bool causal) {
  using T = Traits<D>;
  extern __shared__ uint4 smem[];  // uint4: 16-byte alignment for the vector accesses
  __half* sq = reinterpret_cast<__half*>(smem);
  __half* sk = sq + T::kTileQ * T::kStride;
  __half* sv = sk + T::kTileK * T::kStride;
  float* p_col = reinterpret_cast<float*>(sv + T::kTileK * T::kStride) + threadIdx.x;

  // Causal blocks far down the diagonal have the most key tiles; issuing them first keeps
  // the grid's tail short.
  const int q_tile = causal ? int(gridDim.x - 1 - blockIdx.x) : int(blockIdx.x);
  const int q0 = q_tile * T::kTileQ;
  const HeadSlice hs = head_slice(int(blockIdx.y), H, H_kv, S, D);
  q += hs.q;
  o += hs.q;
  k += hs.kv;
  v += hs.kv;

  load_tile<T::kTileQ, D, T::kStride, T::kThreads>(sq, q, q0, S);

  const int row = q0 + int(threadIdx.x);
  // Keys at or past key_end are masked. Rows past S keep every real key, so their
  // (never stored) results stay finite.
  const int key_end = causal ? min(S, row + 1) : S;
  // Causal: key tiles wholly above the block's last row are skipped, not computed and masked.
  const int kv_end = causal ? min(S, q0 + T::kTileQ) : S;
  const int num_k_tiles = ceil_div(kv_end, T::kTileK);
  __half* q_row = sq + threadIdx.x * T::kStride;

  float acc[D];
#pragma unroll
  for (int d = 0; d < D; ++d) acc[d] = 0.f;
  float m_run = kNegInf;  // running max of the log2-scaled scores
  float l_run = 0.f;      // running sum of exp2(score - m_run)

  for (int kt = 0; kt < num_k_tiles; ++kt) {
    const int k0 = kt * T::kTileK;
    __syncthreads();  // every thread is done with the previous K/V tile before it is replaced
    load_tile<T::kTileK, D, T::kStride, T::kThreads>(sk, k, k0, S);
    load_tile<T::kTileK, D, T::kStride, T::kThreads>(sv, v, k0, S);
    __syncthreads();  // K/V, and on the first pass Q, visible to every thread

    float s[T::kTileK];
#pragma unroll
    for (int j = 0; j < T::kTileK; ++j) s[j] = 0.f;
    // Rolled over vectors, unrolled over keys: s[] sees compile-time indices only, which
    // keeps it in registers.
#pragma unroll 1
    for (int c = 0; c < T::kVecsPerRow; ++c) {
      float qf[kHalvesPerVec];
      unpack8(*reinterpret_cast<const uint4*>(q_row + c * kHalvesPerVec), qf);
#pragma unroll
      for (int j = 0; j < T::kTileK; ++j) {
        float kf[kHalvesPerVec];
        unpack8(*reinterpret_cast<const uint4*>(sk + j * T::kStride + c * kHalvesPerVec), kf);
#pragma unroll
        for (int e = 0; e < kHalvesPerVec; ++e) s[j] = fmaf(qf[e], kf[e], s[j]);
      }
    }

    float m_tile = kNegInf;
#pragma unroll
    for (int j = 0; j < T::kTileK; ++j) {
      s[j] = k0 + j < key_end ? s[j] * scale_log2 : kNegInf;
      m_tile = fmaxf(m_tile, s[j]);
    }
    const float m_new = fmaxf(m_run, m_tile);
    // While a row has seen no live key, m_new is -inf; measuring from 0 instead keeps every
    // exponent at -inf (weight 0) where -inf - -inf would be NaN.
    const float m_ref = m_new == kNegInf ? 0.f : m_new;
    const float alpha = exp2f(m_run - m_ref);
    l_run *= alpha;
#pragma unroll
    for (int d = 0; d < D; ++d) acc[d] *= alpha;

    // The probabilities go through this thread's own column of shared memory so that the key
    // loop below can stay rolled: unrolled over every key and vector it grows past the
    // instruction cache. A private column needs no barrier, and a warp's accesses to it fill
    // 32 distinct banks.
#pragma unroll
    for (int j = 0; j < T::kTileK; ++j) {
      const float p = exp2f(s[j] - m_ref);
      l_run += p;
      p_col[j * T::kThreads] = p;
    }
#pragma unroll 1
    for (int j = 0; j < T::kTileK; ++j) {
      const float p = p_col[j * T::kThreads];
#pragma unroll
      for (int c = 0; c < T::kVecsPerRow; ++c) {
        float vf[kHalvesPerVec];
        unpack8(*reinterpret_cast<const uint4*>(sv + j * T::kStride + c * kHalvesPerVec), vf);
#pragma unroll
        for (int e = 0; e < kHalvesPerVec; ++e)
          acc[c * kHalvesPerVec + e] = fmaf(p, vf[e], acc[c * kHalvesPerVec + e]);
      }
    }
    m_run = m_new;
  }

  const float inv_l = l_run > 0.f ? 1.f / l_run : 0.f;
#pragma unroll
  for (int d = 0; d < D; ++d) acc[d] *= inv_l;
  // The thread's own Q row is read by no one else, so it can take the output row without a
  // barrier; staging it lets the store below write whole rows, coalesced.
#pragma unroll
  for (int c = 0; c < T::kVecsPerRow; ++c)
    *reinterpret_cast<uint4*>(q_row + c * kHalvesPerVec) = pack8(acc + c * kHalvesPerVec);
  __syncthreads();

#pragma unroll
  for (int it = 0; it < T::kTileQ * T::kVecsPerRow / T::kThreads; ++it) {
    const int i = it * T::kThreads + int(threadIdx.x);
    const int r = i / T::kVecsPerRow;
    const int c = i % T::kVecsPerRow;
    if (q0 + r < S)
      *reinterpret_cast<uint4*>(o + std::int64_t(q0 + r) * D + c * kHalvesPerVec) =
          *reinterpret_cast<const uint4*>(sq + r * T::kStride + c * kHalvesPerVec);
  }
}

template <int D>
void launch_for(const Problem& p, cudaStream_t stream) {
  using T = Traits<D>;
  const Shape& s = p.shape;
  const dim3 grid(unsigned(ceil_div(s.S, T::kTileQ)), unsigned(s.B * s.H));
  set_dynamic_smem(attention_kernel<D>, T::kSmemBytes);
  attention_kernel<D><<<grid, T::kThreads, T::kSmemBytes, stream>>>(
      static_cast<const __half*>(p.q), static_cast<const __half*>(p.k),
      static_cast<const __half*>(p.v), static_cast<__half*>(p.o), s.H, s.H_kv, s.S,
      p.scale * kLog2e, s.causal);
  ATTNLAB_CHECK_LAUNCH();
}

}  // namespace

Refusal can_implement(const Shape& s) {
  if (auto r = common_shape_refusal(s)) return r;
  if (s.D != 64 && s.D != 128) return "phase 1 supports head dim 64 and 128 only";
  if (s.dtype != DType::f16) return "bf16 not implemented by phase 1";
  // Query tiles run along grid x (2^31 - 1 blocks, enough for any int S); heads along y.
  if (std::int64_t(s.B) * s.H > kMaxGridY) return "B*H exceeds the grid's 65535 y-blocks";
  return std::nullopt;
}

void launch(const Problem& p, cudaStream_t stream) {
  if (auto r = can_implement(p.shape)) throw std::invalid_argument(*r);
  require_vector_alignment(p);
  if (p.shape.D == 64)
    launch_for<64>(p, stream);
  else
    launch_for<128>(p, stream);
}

}  // namespace attnlab::phase1
