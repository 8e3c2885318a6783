// What a consumer warpgroup of phase 5 does with its m64nN accumulators between the GEMMs:
// the online softmax of a tile of S, and its rows of O staged in shared memory for a TMA store.
// Accumulator layout of m64nN: thread (warp, lane) of the warpgroup holds rows
// warp*16 + lane/4 (+8) and, per 8-column chunk i, columns 8i + 2(lane%4) (+1) in
// d[4i .. 4i+3]: elements 4i + 2r and 4i + 2r + 1 belong to row r of the thread's two.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/hopper.cuh"

namespace attnlab::hopper {

// Online softmax of an N-key tile s (masked keys already -inf) in place, log2 units: s becomes
// exp2(s * scale_log2 - m) with m the rows' running maxima (m_row, updated), l_row (this
// thread's share of each row's running sum) is rescaled and grows by the tile's sum, and corr
// is each row's factor for O. Both rows at once, step by step (two independent chains to
// interleave: the profile's leading stall is `wait` on fixed-latency results); maxima and sums
// as pairwise trees (kernels/NOTES.md, "Why phase 5 and d4 are as they are": the online
// softmax's two rows interleaved).
template <int N>
__device__ __forceinline__ void online_softmax(float (&s)[N / 2], float (&m_row)[2],
                                               float (&l_row)[2], float (&corr)[2],
                                               float scale_log2) {
  float v[2][N / 8];
#pragma unroll
  for (int i = 0; i < N / 8; ++i)
#pragma unroll
    for (int r = 0; r < 2; ++r) v[r][i] = fmaxf(s[4 * i + 2 * r], s[4 * i + 2 * r + 1]);
  tree_reduce(v[0], [](float a, float b) { return fmaxf(a, b); });
  tree_reduce(v[1], [](float a, float b) { return fmaxf(a, b); });
  float m_use[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) v[r][0] = fmaxf(v[r][0], __shfl_xor_sync(kFullMask, v[r][0], 1));
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    // A row's four lanes share its maximum.
    const float mx = fmaxf(v[r][0], __shfl_xor_sync(kFullMask, v[r][0], 2));
    const float m_new = fmaxf(m_row[r], mx * scale_log2);
    // A row with every key so far masked keeps m = -inf; exp2 of -inf - 0 then gives 0.
    m_use[r] = m_new == kNegInf ? 0.f : m_new;
    corr[r] = exp2_approx(m_row[r] - m_use[r]);
    m_row[r] = m_new;
  }
#pragma unroll
  for (int i = 0; i < N / 8; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) s[4 * i + e] = exp2_approx(fmaf(s[4 * i + e], scale_log2, -m_use[e >> 1]));
#pragma unroll
    for (int r = 0; r < 2; ++r) v[r][i] = s[4 * i + 2 * r] + s[4 * i + 2 * r + 1];
  }
  tree_reduce(v[0], [](float a, float b) { return a + b; });
  tree_reduce(v[1], [](float a, float b) { return a + b; });
#pragma unroll
  for (int r = 0; r < 2; ++r) l_row[r] = l_row[r] * corr[r] + v[r][0];
}

// A consumer's 64 rows of O (o times each row's 1/l, as fp16) into its part of a staging tile
// of TileQ rows and D / 64 column blocks, in the 128-byte swizzle the TMA store reads: a row's
// 16-byte chunk c sits at chunk c ^ (row % 8), so the eight rows of a warp's store hit eight
// different chunks, no bank conflict. The caller fences and meets before the store is issued.
template <int D, int TileQ>
__device__ __forceinline__ void stage_o_rows(__half* o_stage, const float (&o)[D / 2],
                                             const float (&inv_l)[2]) {
  // The thread's place read afresh (volatile: not a value ptxas keeps, and spilled, across the
  // item loop in the three-consumer kernels).
  unsigned tid_now;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid_now));
  const int lane = int(tid_now % 32);
  // Row in this consumer's 64; rq + 8 the other.
  const int rq = int(tid_now % 128) / 32 * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = rq + 8 * r;
      __half* chunk = o_stage + (i / 8) * TileQ * kSwizzleHalves + row * kSwizzleHalves +
                      ((i % 8) ^ (row % 8)) * 8 + 2 * (lane % 4);
      *reinterpret_cast<std::uint32_t*>(chunk) =
          pack_half2(o[4 * i + 2 * r] * inv_l[r], o[4 * i + 2 * r + 1] * inv_l[r]);
    }
}

}  // namespace attnlab::hopper
