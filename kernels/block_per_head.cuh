// The kernel of latency phases d1 and d2: one block per (batch, head), one thread per query
// row, scalar fp32 math, K/V read straight from global memory. kBranchFree = false is d1;
// true is d2, the same math with its guards turned from branches into clamps and predicates.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/attention_common.cuh"
#include "common/check.hpp"
#include "kernels/problem.hpp"
#include "kernels/registry.hpp"

namespace attnlab::block_per_head {

template <int D>
struct Traits {
  // A block is a whole head, so its threads are all the parallelism a head gets: as many as the
  // D-float accumulator leaves registers for (65536 per SM: 128 each at 512 threads, 255 at
  // 256).
  static constexpr int kThreads = D == 64 ? 512 : 256;
  // Keys scored per online-softmax step: the scores stay in registers (compile-time indices)
  // and the accumulator is rescaled once per chunk rather than once per key.
  static constexpr int kChunk = 16;
  static constexpr int kVecsPerRow = D / kHalvesPerVec;
  // Each thread's own query row; one extra vector per row gives an odd number of 16-byte
  // units, so a warp's reads of 32 different rows at one column hit distinct banks.
  static constexpr int kStride = D + kHalvesPerVec;
  static constexpr std::size_t kQBytes = std::size_t(kThreads) * kStride * sizeof(__half);
  // Q rows, then one column of kChunk probabilities per thread.
  static constexpr std::size_t kSmemBytes =
      kQBytes + std::size_t(kChunk) * kThreads * sizeof(float);

  static_assert(D == 64 || D == 128, "instantiated for head dim 64 and 128");
  static_assert(kThreads % kWarpSize == 0, "whole warps");
  static_assert((kStride / kHalvesPerVec) % 2 == 1, "odd vector stride: conflict-free row reads");
  static_assert(kQBytes % sizeof(float) == 0, "the probability columns start aligned");
};

// Stores one 16-byte vector only where pred holds, as a predicated instruction: written as
// `if (pred) *dst = v`, the compiler may branch around it.
__device__ __forceinline__ void store_vec_if(__half* dst, const uint4& v, bool pred) {
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  setp.ne.b32 p, %5, 0;\n"
      "  @p st.global.v4.b32 [%0], {%1, %2, %3, %4};\n"
      "}\n" ::"l"(dst),
      "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"(int(pred))
      : "memory");
}

// The scores of one chunk of keys (k0 ..) against the thread's query row, unscaled.
template <int D, bool kBranchFree>
__device__ __forceinline__ void chunk_scores(const __half* q_row, const __half* __restrict__ k, int k0,
                                             int key_end, int S, float (&s)[Traits<D>::kChunk]) {
  using T = Traits<D>;
#pragma unroll
  for (int j = 0; j < T::kChunk; ++j) s[j] = 0.f;
  // Rolled over vectors, unrolled over keys: s[] sees compile-time indices only. The
  // warp's lanes walk the same keys, so each K load is one broadcast from L1.
#pragma unroll 1
  for (int c = 0; c < T::kVecsPerRow; ++c) {
    float qf[kHalvesPerVec];
    unpack8(*reinterpret_cast<const uint4*>(q_row + c * kHalvesPerVec), qf);
#pragma unroll
    for (int j = 0; j < T::kChunk; ++j) {
      // d1 skips keys past key_end; d2 loads a real row in their place (clamped index)
      // and lets the mask below discard the score. Clamping j rather than k0 + j keeps the
      // 16 keys' addresses small offsets from one base: clamped whole, they are 16 64-bit
      // addresses held across the loop, and D = 64 spills at its 128-register budget.
      const int key = kBranchFree ? k0 + min(j, S - 1 - k0) : k0 + j;
      if (kBranchFree || key < key_end) {
        float kf[kHalvesPerVec];
        unpack8(*reinterpret_cast<const uint4*>(k + std::int64_t(key) * D + c * kHalvesPerVec),
                kf);
#pragma unroll
        for (int e = 0; e < kHalvesPerVec; ++e) s[j] = fmaf(qf[e], kf[e], s[j]);
      }
    }
  }
}

// acc += the chunk's weights (p_col, the thread's column) times the keys' V rows.
template <int D, bool kBranchFree>
__device__ __forceinline__ void accumulate_chunk(const __half* __restrict__ v, const float* p_col, int k0,
                                                 int key_end, int S, float (&acc)[D]) {
  using T = Traits<D>;
  // d1 stops at the row's last key; d2 runs the whole chunk: a masked key's weight is
  // exactly 0, so its (clamped, finite) V row adds nothing.
  const int n_keys = kBranchFree ? T::kChunk : min(T::kChunk, key_end - k0);
#pragma unroll 1
  for (int j = 0; j < n_keys; ++j) {
    const float p = p_col[j * T::kThreads];
    const int key = kBranchFree ? min(k0 + j, S - 1) : k0 + j;
#pragma unroll
    for (int c = 0; c < T::kVecsPerRow; ++c) {
      float vf[kHalvesPerVec];
      unpack8(*reinterpret_cast<const uint4*>(v + std::int64_t(key) * D + c * kHalvesPerVec),
              vf);
#pragma unroll
      for (int e = 0; e < kHalvesPerVec; ++e)
        acc[c * kHalvesPerVec + e] = fmaf(p, vf[e], acc[c * kHalvesPerVec + e]);
    }
  }
}

// Attends one query row r (< S) of the head: online softmax over chunks of keys, output row
// normalised and rounded to fp16. d2 stores only where `store` holds.
template <int D, bool kBranchFree>
__device__ __forceinline__ void attend_row(const __half* __restrict__ q,
                                           const __half* __restrict__ k,
                                           const __half* __restrict__ v, __half* __restrict__ o,
                                           __half* q_row, float* p_col, int r, bool store, int S,
                                           float scale_log2, bool causal) {
  using T = Traits<D>;
  // The thread's own row: no other thread reads it, so no barrier.
#pragma unroll
  for (int c = 0; c < T::kVecsPerRow; ++c)
    *reinterpret_cast<uint4*>(q_row + c * kHalvesPerVec) =
        *reinterpret_cast<const uint4*>(q + std::int64_t(r) * D + c * kHalvesPerVec);

  const int key_end = causal ? r + 1 : S;
  float acc[D];
#pragma unroll
  for (int d = 0; d < D; ++d) acc[d] = 0.f;
  float m_run = kNegInf;  // running max of the log2-scaled scores
  float l_run = 0.f;      // running sum of exp2(score - m_run)

  // Key 0 is live for every row (key_end >= 1): the first chunk always runs, and it makes
  // m_run finite, so no exponent below is ever -inf - -inf.
  int k0 = 0;
  do {
    float s[T::kChunk];
    chunk_scores<D, kBranchFree>(q_row, k, k0, key_end, S, s);
    float m_tile = kNegInf;
#pragma unroll
    for (int j = 0; j < T::kChunk; ++j) {
      s[j] = k0 + j < key_end ? s[j] * scale_log2 : kNegInf;
      m_tile = fmaxf(m_tile, s[j]);
    }
    const float m_new = fmaxf(m_run, m_tile);
    const float alpha = exp2f(m_run - m_new);
    l_run *= alpha;
#pragma unroll
    for (int d = 0; d < D; ++d) acc[d] *= alpha;
    // Through the thread's own column of shared memory, so the key loop below can stay
    // rolled; a private column needs no barrier and a warp's accesses fill 32 banks.
#pragma unroll
    for (int j = 0; j < T::kChunk; ++j) {
      const float p = exp2f(s[j] - m_new);
      l_run += p;
      p_col[j * T::kThreads] = p;
    }
    accumulate_chunk<D, kBranchFree>(v, p_col, k0, key_end, S, acc);
    m_run = m_new;
    k0 += T::kChunk;
  } while (k0 < key_end);

  // l_run >= 1 (the row's maximum contributes exp2(0)), far below where the fast reciprocal
  // loses accuracy; IEEE division would bring a slow-path subroutine and its branches.
  const float inv_l = __fdividef(1.f, l_run);
  __half* o_row = o + std::int64_t(r) * D;
#pragma unroll
  for (int c = 0; c < T::kVecsPerRow; ++c) {
    float out[kHalvesPerVec];
#pragma unroll
    for (int e = 0; e < kHalvesPerVec; ++e) out[e] = acc[c * kHalvesPerVec + e] * inv_l;
    if constexpr (kBranchFree)
      store_vec_if(o_row + c * kHalvesPerVec, pack8(out), store);
    else
      *reinterpret_cast<uint4*>(o_row + c * kHalvesPerVec) = pack8(out);
  }
}

template <int D, bool kBranchFree>
__global__ void __launch_bounds__(Traits<D>::kThreads)
    attention_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                     const __half* __restrict__ v, __half* __restrict__ o, int H, int H_kv, int S,
                     float scale_log2, bool causal) {
  using T = Traits<D>;
  extern __shared__ uint4 smem[];  // uint4: 16-byte alignment for the vector accesses
  __half* q_row = reinterpret_cast<__half*>(smem) + threadIdx.x * T::kStride;
  float* p_col = reinterpret_cast<float*>(reinterpret_cast<char*>(smem) + T::kQBytes) +
                 threadIdx.x;

  const HeadSlice hs = head_slice(int(blockIdx.x), H, H_kv, S, D);
  q += hs.q;
  o += hs.q;
  k += hs.kv;
  v += hs.kv;

  if constexpr (kBranchFree) {
    // Every thread makes the same number of passes (at least one, S >= 1), so the loop
    // branch is uniform and needs no entry guard; a thread past the last row recomputes row
    // S - 1, and its store is predicated off.
    const int num_passes = ceil_div(S, T::kThreads);
    int pass = 0;
    do {
      const int row = pass * T::kThreads + int(threadIdx.x);
      attend_row<D, true>(q, k, v, o, q_row, p_col, min(row, S - 1), row < S, S, scale_log2,
                          causal);
    } while (++pass < num_passes);
  } else {
    for (int row = int(threadIdx.x); row < S; row += T::kThreads)
      attend_row<D, false>(q, k, v, o, q_row, p_col, row, true, S, scale_log2, causal);
  }
}

// Enqueues the kernel for a shape that the calling phase's can_implement accepted.
template <int D, bool kBranchFree>
void launch(const Problem& p, cudaStream_t stream) {
  using T = Traits<D>;
  // One block per (batch, head) along x; shape_refusal keeps B*H within 2^31 - 1.
  launch_fused(attention_kernel<D, kBranchFree>, dim3(unsigned(p.shape.B * p.shape.H)),
               T::kThreads, T::kSmemBytes, p, stream);
}

// The shape limits d1 and d2 share; nullopt if the shape fits.
inline Refusal shape_refusal(const Shape& s, const char* phase) {
  if (auto r = fp16_head_dim_refusal(s, phase)) return r;
  // One block per head along grid x (up to 2^31 - 1 blocks); the head index is an int.
  if (std::int64_t(s.B) * s.H > INT_MAX) return "B*H exceeds the grid's 2^31 - 1 x-blocks";
  return std::nullopt;
}

}  // namespace attnlab::block_per_head
