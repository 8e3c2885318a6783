// What a consumer warpgroup of the Hopper kernels (phases 5 and d4) does with its m64nN
// accumulators: the two GEMMs of a key tile, the mask and the online softmax of a tile of S, P
// packed for the PV GEMM, and the epilogue (rows of O stored from registers, or staged in shared
// memory for a TMA store).
// Accumulator layout of m64nN: thread (warp, lane) of the warpgroup holds rows
// warp*16 + lane/4 (+8) and, per 8-column chunk i, columns 8i + 2(lane%4) (+1) in
// d[4i .. 4i+3]: elements 4i + 2r and 4i + 2r + 1 belong to row r of the thread's two.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>

#include <cuda/ptx>

#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/e4m3_fragment.hpp"
#include "common/hopper.cuh"

namespace attnlab::hopper {

// The descriptor of a k-step's operand `bytes` into the tile at `base`: advanced from the
// tile's own (Advance: one add a k-step, desc_advance) or built afresh (four uniform instructions
// more a k-step). Phase 5's kernels measured a little slower with the advanced form at D = 128
// (under 1%), b5's and d4's faster (kernels/NOTES.md, "Backward: phase b5
// (kernels/phase_b5_wgmma.cu)": Fewer instructions a step), so the form is the caller's.
template <bool Advance>
__device__ __forceinline__ std::uint64_t step_desc(const __half* base, std::uint32_t bytes, std::uint32_t leading,
                                                   std::uint32_t stride) {
  if constexpr (Advance)
    return desc_advance(smem_desc_sw128(base, leading, stride), bytes);
  else
    return smem_desc_sw128(base + bytes / sizeof(__half), leading, stride);
}

// S = Q K^T of one key tile into s, issued and committed without waiting. Q and K are both
// K-major (D contiguous) in column blocks of 64 halves (QRows and TileK swizzled 128-byte rows
// each): a k-step is 16 halves = 32 bytes inside a swizzle row, the next column block after four.
template <int TileK, int D, int QRows, bool Advance = false>
__device__ __forceinline__ void qk_gemm(float (&s)[TileK / 2], const __half* q, const __half* k) {
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int cb = kk / 4;
    const int within = (kk % 4) * 16;
    const std::uint32_t q_bytes = (cb * QRows * kSwizzleHalves + within) * sizeof(__half);
    const std::uint32_t k_bytes = (cb * TileK * kSwizzleHalves + within) * sizeof(__half);
    const std::uint64_t da = step_desc<Advance>(q, q_bytes, 16, kSwizzleAtomBytes);
    const std::uint64_t db = step_desc<Advance>(k, k_bytes, 16, kSwizzleAtomBytes);
    wgmma_ss<TileK>(s, da, db, kk > 0);
  }
  wgmma_commit();
}

// A warpgroup's 64 rows of a Q tile (column blocks of 64 halves, QRows swizzled 128-byte rows
// each, as qk_gemm reads it; q at the warpgroup's first row, on a 1024-byte boundary) into the
// register A fragment of each of QK^T's D/16 k-steps: ldmatrix.x4 gives a warp its 16 rows of a
// k-step, matrix m (rows 8(m%2).., columns 8(m/2)..) landing in register m, the fragment's order
// (pack_p's). Lane l addresses row l%8 + 8((l/8)%2) of its warp's slice, at 16-byte chunk
// 2(k-step%4) + l/16 of the swizzled line, the chunk moved by the 128-byte swizzle (XOR the row's
// low three bits).
template <int D, int QRows>
__device__ __forceinline__ void load_q_fragment(std::uint32_t (&a)[D / 16][4], const __half* q, int warp, int lane) {
  const int row = warp * 16 + lane % 8 + 8 * ((lane / 8) % 2);
  const unsigned line = smem_addr(q) + unsigned(row) * kSwizzleBytes;
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int chunk = (2 * (kk % 4) + lane / 16) ^ (row % 8);
    const unsigned addr = line + unsigned((kk / 4) * QRows * kSwizzleBytes + chunk * 16);
    ldmatrix_x4(addr, a[kk]);
  }
}

// S = Q K^T of one key tile into s with Q in registers (load_q_fragment), K as qk_gemm reads it;
// issued and committed without waiting.
template <int TileK, int D, bool Advance = false>
__device__ __forceinline__ void qk_gemm_rs(float (&s)[TileK / 2], const std::uint32_t (&q)[D / 16][4],
                                           const __half* k) {
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const std::uint32_t k_bytes = ((kk / 4) * TileK * kSwizzleHalves + (kk % 4) * 16) * sizeof(__half);
    const std::uint64_t db = step_desc<Advance>(k, k_bytes, 16, kSwizzleAtomBytes);
    wgmma_rs<TileK>(s, q[kk], db, kk > 0);
  }
  wgmma_commit();
}

// O += P V of one key tile, P from registers (pack_p), issued and committed without waiting. V
// is [keys][D], MN-major for this product; a k-step is 16 keys = two swizzle atoms.
template <int TileK, int D, bool Advance = false>
__device__ __forceinline__ void pv_gemm(float (&o)[D / 2], const std::uint32_t (&p)[TileK / 16][4],
                                        const __half* v) {
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < TileK / 16; ++kk)
    wgmma_rs_mn<D>(o, p[kk], step_desc<Advance>(v, kk * 16 * kSwizzleBytes, TileK * kSwizzleBytes, kSwizzleAtomBytes),
                   1);
  wgmma_commit();
}

// Sets to -inf the scores of tile s (keys key0 ..) that Mask hides from the thread's rows
// (row_lo and row_lo + 8; col its first column in a chunk), on the tiles that hold such a key
// for some row from first_row on: only tiles past S's end or across the diagonal pay for it.
template <class Mask, int TileK>
__device__ __forceinline__ void mask_tile(float (&s)[TileK / 2], int key0, int first_row, int row_lo,
                                          int col, int S) {
  if (!Mask::tile_needs_mask(key0, TileK, first_row, S)) return;
  // Each row's bound taken relative to the thread's first key, so each score compares its
  // compile-time offset with one of two registers.
  const int end[2] = {Mask::key_end(row_lo, S) - key0 - col, Mask::key_end(row_lo + 8, S) - key0 - col};
#pragma unroll
  for (int i = 0; i < TileK / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (8 * i + (e & 1) >= end[e >> 1]) s[4 * i + e] = kNegInf;
}

// P as fp16 in the register-A layout of the PV wgmma: for keys 16kk..16kk+15 it is the
// accumulator chunks 2kk and 2kk+1 (rows lo, hi of each), which is the same ownership.
template <int TileK>
__device__ __forceinline__ void pack_p(const float (&s)[TileK / 2], std::uint32_t (&p)[TileK / 16][4]) {
#pragma unroll
  for (int kk = 0; kk < TileK / 16; ++kk)
#pragma unroll
    for (int x = 0; x < 4; ++x) p[kk][x] = pack_half2(s[8 * kk + 2 * x], s[8 * kk + 2 * x + 1]);
}

// O's rows rescaled by the online softmax's correction factors (one per row of the two).
template <int D>
__device__ __forceinline__ void rescale_o(float (&o)[D / 2], const float (&corr)[2]) {
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) o[4 * i + e] *= corr[e >> 1];
}

// The order in which online_softmax runs a thread's two rows.
// - kInterleaved: both rows at once, step by step (two independent chains to interleave: phase
//   5's profile leads with `wait` on fixed-latency results), maxima and sums as pairwise trees
//   (kernels/NOTES.md, "Why phase 5 and d4 are as they are": the online softmax's two rows
//   interleaved).
// - kOneByOne: one row after the other, maxima and sums as linear chains: d4 at the latency
//   shape, whose 64-key tiles are few per warpgroup, is faster so (kernels/NOTES.md, "Why phase
//   5 and d4 are as they are": d4's first loads and softmax order).
enum class SoftmaxRows { kInterleaved, kOneByOne };

// SoftmaxRows::kOneByOne's order (online_softmax says what it computes).
template <int N, int PLog2Scale>
__device__ __forceinline__ void online_softmax_one_by_one(float (&s)[N / 2], float (&m_row)[2], float (&l_row)[2],
                                                          float (&corr)[2], float scale_log2) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = kNegInf;
#pragma unroll
    for (int j = 0; j < N / 8; ++j) mx = fmaxf(mx, fmaxf(s[4 * j + 2 * r], s[4 * j + 2 * r + 1]));
    // A row's four lanes share its maximum.
    mx = fmaxf(mx, __shfl_xor_sync(kFullMask, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(kFullMask, mx, 2));
    const float m_new = fmaxf(m_row[r], mx * scale_log2);
    const float m_base = m_new == kNegInf ? 0.f : m_new;
    const float m_use = m_base - float(PLog2Scale);
    corr[r] = exp2_approx(m_row[r] - m_base);
    m_row[r] = m_new;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
      float& x0 = s[4 * j + 2 * r];
      float& x1 = s[4 * j + 2 * r + 1];
      x0 = exp2_approx(fmaf(x0, scale_log2, -m_use));
      x1 = exp2_approx(fmaf(x1, scale_log2, -m_use));
      sum += x0 + x1;
    }
    l_row[r] = l_row[r] * corr[r] + sum;
  }
}

// SoftmaxRows::kInterleaved's order (online_softmax says what it computes).
template <int N, int PLog2Scale, bool LogLinear, bool Sums>
__device__ __forceinline__ void online_softmax_interleaved(float (&s)[N / 2], float (&m_row)[2], float (&l_row)[2],
                                                           float (&corr)[2], float scale_log2) {
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
  if constexpr (PLog2Scale != 0) {
#pragma unroll
    for (int r = 0; r < 2; ++r) m_use[r] -= float(PLog2Scale);
  }
  [[maybe_unused]] float code_b[2];
  if constexpr (LogLinear) {
#pragma unroll
    for (int r = 0; r < 2; ++r) code_b[r] = e4m3::log_linear_offset(m_use[r]);
  }
#pragma unroll
  for (int i = 0; i < N / 8; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      if constexpr (LogLinear)
        s[4 * i + e] = e4m3::log_linear_code(s[4 * i + e], scale_log2 * (1.f / 16.f), code_b[e >> 1]);
      else
        s[4 * i + e] = exp2_approx(fmaf(s[4 * i + e], scale_log2, -m_use[e >> 1]));
    }
    if constexpr (Sums) {
#pragma unroll
      for (int r = 0; r < 2; ++r) v[r][i] = s[4 * i + 2 * r] + s[4 * i + 2 * r + 1];
    }
  }
  if constexpr (Sums) {
    tree_reduce(v[0], [](float a, float b) { return a + b; });
    tree_reduce(v[1], [](float a, float b) { return a + b; });
#pragma unroll
    for (int r = 0; r < 2; ++r) l_row[r] = l_row[r] * corr[r] + v[r][0];
  }
}

// Online softmax of an N-key tile s (masked keys already -inf) in place, log2 units: s becomes
// exp2(s * scale_log2 - m + PLog2Scale) with m the rows' running maxima (m_row, updated), l_row
// (this thread's share of each row's running sum) is rescaled and grows by the tile's sum, and
// corr is each row's factor for O. PLog2Scale scales P by a power of two (an FP8 P filling
// e4m3's range); the sums carry it too, so it cancels in O / l. A row with every key so far
// masked keeps m = -inf; its exponents are taken against 0, so its weights are 0. LogLinear: s
// becomes each weight's e4m3 code by the log-linear map instead (e4m3::log_linear_code, for
// E4m3Operands::pack), with no exponential; the running maxima's corrections stay exact. Sums
// false: l_row is left as it is, for a caller whose PV GEMM sums the weights
// (E4m3Operands::pv_sum_rows), which LogLinear needs. Both in the interleaved order only.
template <int N, int PLog2Scale = 0, SoftmaxRows Order = SoftmaxRows::kInterleaved, bool LogLinear = false,
          bool Sums = true>
__device__ __forceinline__ void online_softmax(float (&s)[N / 2], float (&m_row)[2],
                                               float (&l_row)[2], float (&corr)[2],
                                               float scale_log2) {
  static_assert(Order == SoftmaxRows::kInterleaved || (!LogLinear && Sums),
                "codes by the log-linear map and sums left to PV are wired into the interleaved order only");
  static_assert(!(LogLinear && Sums), "a row's sum of codes is the PV GEMM's (E4m3Operands::pv_sum_rows)");
  if constexpr (Order == SoftmaxRows::kOneByOne)
    online_softmax_one_by_one<N, PLog2Scale>(s, m_row, l_row, corr, scale_log2);
  else
    online_softmax_interleaved<N, PLog2Scale, LogLinear, Sums>(s, m_row, l_row, corr, scale_log2);
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

// 1/l of a row whose softmax sum is l; a row that no key reached (l = 0) gets 0, so it writes
// zeros, never NaN. Fast: the approximate reciprocal (l >= 1 for a row with any key, far from
// where it loses accuracy), without IEEE division's slow path and its branch: d4's merge runs on
// the kernel's tail, where that branch measured slower.
template <bool Fast = false>
__device__ __forceinline__ float inverse_sum(float l) {
  return l > 0.f ? (Fast ? __fdividef(1.f, l) : 1.f / l) : 0.f;
}

// Each of the thread's two rows' softmax sum, over the row's four lanes (l_row holds this
// thread's share).
__device__ __forceinline__ void row_sums(const float (&l_row)[2], float (&l)[2]) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] = l_row[r];
    l[r] += __shfl_xor_sync(kFullMask, l[r], 1);
    l[r] += __shfl_xor_sync(kFullMask, l[r], 2);
  }
}

// Each of the thread's two rows' 1/l (inverse_sum).
template <bool Fast = false>
__device__ __forceinline__ void row_inverse_sums(const float (&l_row)[2], float (&inv_l)[2]) {
  float l[2];
  row_sums(l_row, l);
#pragma unroll
  for (int r = 0; r < 2; ++r) inv_l[r] = inverse_sum<Fast>(l[r]);
}

// The thread's rows of O straight from registers into a head's rows of global memory: rows
// row_lo and row_lo + 8 (not written at or past S), columns 8i + col and 8i + col + 1.
template <int D>
__device__ __forceinline__ void store_o_rows(__half* o_head, const float (&o)[D / 2],
                                             const float (&inv_l)[2], int row_lo, int col, int S) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = row_lo + 8 * r;
    if (row < S) {
      __half* o_row = o_head + std::int64_t(row) * D;
#pragma unroll
      for (int i = 0; i < D / 8; ++i)
        *reinterpret_cast<__half2*>(o_row + 8 * i + col) =
            __floats2half2_rn(o[4 * i + 2 * r] * inv_l[r], o[4 * i + 2 * r + 1] * inv_l[r]);
    }
  }
}

// One thread stores a consumer's staged rows (stage_o_rows) with TMA, rows [row0, row0 + 64)
// of plane z (rows past the tensor's end are clipped by the map), and commits the group; the
// caller waits for its reads before the staging tile is written again.
template <int D, int TileQ>
__device__ __forceinline__ void tma_store_o_rows(const CUtensorMap* tm_o, const __half* o_stage, int row0, int z) {
#pragma unroll
  for (int cb = 0; cb < D / kSwizzleHalves; ++cb) {
    const std::int32_t coords[3] = {cb * kSwizzleHalves, row0, z};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, tm_o, coords,
                                    o_stage + cb * TileQ * kSwizzleHalves);
  }
  cuda::ptx::cp_async_bulk_commit_group();
}

}  // namespace attnlab::hopper
