// What a consumer warpgroup of the Hopper backward (kernels/phase_b5_kernel.cuh) does with a
// tile of 64 keys by N queries: P^T rebuilt from the forward's LSE, dS^T from dP^T and delta,
// dQ = dS K from dS staged in shared memory, and dQ's rows added into the fp32 accumulator.
// Accumulators are in wgmma's m64nN layout (kernels/wgmma_tile.cuh) with the keys as rows and
// the queries as columns: thread (warp, lane) holds keys warp*16 + lane/4 (+8) and, per 8-query
// chunk i, queries 8i + 2(lane%4) (+1) in s[4i .. 4i+3].
#pragma once

#include <cuda_fp16.h>

#include <cuda/ptx>

#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/hopper.cuh"

namespace attnlab::hopper {

// The thread's pairs of a tile's per-query vector (LSE or delta, the N queries in shared
// memory) as softmax_grad_tile, softmax_p_tile and grad_tile read them: pair i holds queries
// 8i + col and 8i + col + 1, the columns of the thread's chunk i. InRegisters: all N / 8 pairs
// loaded where they are made, which the caller places ahead of its wait for the score GEMMs, so
// that the softmax's first FFMAs do not wait on loads issued just before them; else each pair
// loaded where it is read.
template <int N, bool InRegisters>
struct QueryPairs {
  const float* vec;
  int col;
  __device__ QueryPairs(const float* v, int c) : vec(v), col(c) {}
  __device__ float2 operator()(int i) const { return *reinterpret_cast<const float2*>(vec + 8 * i + col); }
};
template <int N>
struct QueryPairs<N, true> {
  float2 pairs[N / 8];
  __device__ QueryPairs(const float* v, int c) {
#pragma unroll
    for (int i = 0; i < N / 8; ++i) pairs[i] = *reinterpret_cast<const float2*>(v + 8 * i + c);
  }
  __device__ float2 operator()(int i) const { return pairs[i]; }
};

// One element of P^T: exp2(score * scale_log2 - lse2) of a key and query of the tile. lse2 is in
// log2 units and +inf for queries past S, so their P is exactly 0 without a test. The Masked form
// (for tiles that cross the diagonal or hold keys past S) gives 0, and so dS = 0, for keys a query
// does not see (Mask::key_end). A form each, so that the tiles without a hidden key run no select
// per score.
template <class Mask, bool Masked>
__device__ __forceinline__ float p_element(float score, float scale_log2, float lse2, int key, int query, int S) {
  float x = exp2_approx(fmaf(score, scale_log2, -lse2));
  if (Masked && key >= Mask::key_end(query, S)) x = 0.f;
  return x;
}

// Thread (warp, lane)'s element e of its 8-query chunk i: key key_lo + 8 (e / 2), query
// q0 + 8i + col + e % 2 (wgmma's m64nN layout, kernels/wgmma_tile.cuh).
__device__ __forceinline__ int tile_key(int key_lo, int e) { return key_lo + 8 * (e >> 1); }
__device__ __forceinline__ int tile_query(int q0, int col, int i, int e) { return q0 + 8 * i + col + (e & 1); }

// In place: s (S^T) becomes P^T and dp (dP^T) becomes dS^T = P^T * (dP^T - delta[query]). lse2
// and delta are the tile's N queries (QueryPairs); key_lo is the thread's first key, col its first
// column.
template <class Mask, int N, bool Masked, class Lse, class Delta>
__device__ __forceinline__ void softmax_grad_tile(float (&s)[N / 2], float (&dp)[N / 2], const Lse& lse2,
                                                  const Delta& delta, float scale_log2, int key_lo, int q0, int col,
                                                  int S) {
#pragma unroll
  for (int i = 0; i < N / 8; ++i) {
    const float2 l = lse2(i);
    const float2 dl = delta(i);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const bool hi = (e & 1) != 0;
      const float x = p_element<Mask, Masked>(s[4 * i + e], scale_log2, hi ? l.y : l.x, tile_key(key_lo, e),
                                              tile_query(q0, col, i, e), S);
      s[4 * i + e] = x;
      dp[4 * i + e] = x * (dp[4 * i + e] - (hi ? dl.y : dl.x));
    }
  }
}

// P^T from s (S^T) into p, apart from dS^T (grad_tile) so that the caller can run it while dP^T's
// GEMM is in flight; not in place, since ptxas serialises the wgmmas of such a kernel when
// non-wgmma instructions write an accumulator while a later wgmma group is pending (C7515).
template <class Mask, int N, bool Masked, class Lse>
__device__ __forceinline__ void softmax_p_tile(const float (&s)[N / 2], float (&p)[N / 2], const Lse& lse2,
                                               float scale_log2, int key_lo, int q0, int col, int S) {
#pragma unroll
  for (int i = 0; i < N / 8; ++i) {
    const float2 l = lse2(i);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      p[4 * i + e] = p_element<Mask, Masked>(s[4 * i + e], scale_log2, (e & 1) != 0 ? l.y : l.x,
                                             tile_key(key_lo, e), tile_query(q0, col, i, e), S);
  }
}

// In place: dp (dP^T) becomes dS^T = P^T * (dP^T - delta[query]), p being P^T (softmax_p_tile's)
// and delta the tile's N queries (QueryPairs).
template <int N, class Delta>
__device__ __forceinline__ void grad_tile(const float (&p)[N / 2], float (&dp)[N / 2], const Delta& delta) {
#pragma unroll
  for (int i = 0; i < N / 8; ++i) {
    const float2 dl = delta(i);
#pragma unroll
    for (int e = 0; e < 4; ++e) dp[4 * i + e] = p[4 * i + e] * (dp[4 * i + e] - ((e & 1) != 0 ? dl.y : dl.x));
  }
}

// A warpgroup's dS^T (64 keys by 64 queries), packed as pack_p leaves it for the rs wgmma, into
// its staging tile ([keys][64 queries], one swizzled 128-byte row per key, as dq_gemm reads it)
// by one stmatrix.x4 per 16 queries: fragment register m of k-step kk is the 8x8 matrix of the
// warp's keys 8 (m % 2) .. and queries 16 kk + 8 (m / 2) .., and lane l gives the address of its
// row l % 8 (key warp * 16 + 8 (l / 8 % 2) + l % 8, 16-byte chunk 2 kk + l / 16 moved by the
// swizzle: XOR the row's low three bits, l % 8). The eight rows of a matrix fall on eight chunk
// positions, so no store conflicts.
__device__ __forceinline__ void stage_ds_fragment(__half* tile, const std::uint32_t (&frag)[4][4], int warp,
                                                  int lane) {
  const unsigned line = smem_addr(tile) + unsigned(warp * 16 + 8 * (lane / 8 % 2) + lane % 8) * kSwizzleBytes;
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) stmatrix_x4(line + unsigned(((2 * kk + lane / 16) ^ (lane % 8)) * 16), frag[kk]);
}

// N columns of dQ = dS K (N / 64 of K's column blocks) over Keys keys, issued and committed
// without waiting. A is dS^T as staged ([keys][64 queries], one swizzled 128-byte row per key:
// M-major), B the K tile from its first column block on ([keys][64 of D] a block, N-major), both
// read transposed; a k-step is 16 keys, two swizzle atoms of each. The leading offset is the
// distance between 64-element blocks along M or N: A has one, B's are K's column blocks of Keys
// rows each.
template <int Keys, int N = 64>
__device__ __forceinline__ void dq_gemm(float (&acc)[N / 2], const __half* ds, const __half* k_block) {
  const std::uint64_t da = smem_desc_sw128(ds, Keys * kSwizzleBytes, kSwizzleAtomBytes);
  const std::uint64_t db = smem_desc_sw128(k_block, Keys * kSwizzleBytes, kSwizzleAtomBytes);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < Keys / 16; ++kk)
    wgmma_ss_mn<N>(acc, desc_advance(da, kk * 16 * kSwizzleBytes), desc_advance(db, kk * 16 * kSwizzleBytes), kk > 0);
  wgmma_commit();
}

// dQ's partial tiles go to the fp32 accumulator as TMA reductions from shared memory, not as
// reductions from registers: a float2 RED per thread and pair of columns made the accumulator's
// L2 traffic the main kernel's limit (kernels/NOTES.md, "Backward: phase b5 (kernels/phase_b5_wgmma.cu)"). A staging tile holds one 64-column block of dQ, 64 query rows,
// as two halves of 32 fp32 columns (128-byte rows, the TMA box's widest under the 128-byte
// swizzle), each half's row r with its 16-byte chunk c at chunk c ^ (r % 8): a warp's float2
// stores (eight rows, two chunks each) then spread over all eight chunk positions, two
// wavefronts, the fewest 256 bytes take.
constexpr int kDqHalfCols = kSwizzleBytes / int(sizeof(float));  // 32 fp32 columns per half
constexpr int kDqTileFloats = 64 * 64;

// The thread's accumulators (a 64-column block of dQ in wgmma's layout: rows row_lo and
// row_lo + 8, columns 8i + col and 8i + col + 1) into a staging tile.
__device__ __forceinline__ void stage_dq_tile(float* tile, const float (&acc)[32], int row_lo, int col) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = row_lo + 8 * r;
      const int chunk = (2 * (i % 4) + col / 4) ^ (row % 8);
      float* const dst = tile + (i / 4) * 64 * kDqHalfCols + row * kDqHalfCols + chunk * 4 + col % 4;
      *reinterpret_cast<float2*>(dst) = make_float2(acc[4 * i + 2 * r], acc[4 * i + 2 * r + 1]);
    }
}

// One thread adds a staged tile into rows [row0, row0 + 64) and columns [col0, col0 + 64) of
// plane z of the accumulator (tm_dq: fp32 [planes, S, D] in 64 x 32 boxes, 128-byte swizzle;
// rows past S are clipped by the map) and commits the group. The caller has fenced the staging
// writes to the async proxy and met; it waits for the group's reads before writing the tile again.
__device__ __forceinline__ void tma_reduce_dq_tile(const CUtensorMap* tm_dq, const float* tile, int col0, int row0,
                                                   int z) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const std::int32_t coords[3] = {col0 + h * kDqHalfCols, row0, z};
    cuda::ptx::cp_reduce_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, cuda::ptx::op_add, tm_dq,
                                           coords, tile + h * 64 * kDqHalfCols);
  }
  cuda::ptx::cp_async_bulk_commit_group();
}

// The split last round's sums (kernels/phase_b5_kernel.cuh, Consumer::add_part): an fp32 add of
// two adjacent elements, a vector red (sm_90).
__device__ __forceinline__ void red_add_pair(float* at, float a, float b) {
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(at), "f"(a), "f"(b) : "memory");
}

// The deterministic mode's ordered dQ additions: a counter per (head, query block) counts the
// turns taken at adding into those rows. One thread waits until it reads `mine` (spin_turn:
// acquire loads) and, once its additions are done and visible, passes the turn on (advance_turn:
// a release increment). A warpgroup that adds waits as one (wait_turn: its thread 0 spins, then
// the warpgroup meets at `barrier`) and passes as one (pass_turn: every thread of the `threads`
// that share the turn fences its additions, they meet, and the leader increments).
__device__ __forceinline__ void spin_turn(const unsigned* turn, unsigned mine) {
  unsigned now;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(now) : "l"(turn) : "memory");
  } while (now != mine);
}
__device__ __forceinline__ void advance_turn(unsigned* turn) {
  asm volatile("red.release.gpu.global.add.u32 [%0], 1;\n" ::"l"(turn) : "memory");
}
__device__ __forceinline__ void wait_turn(const unsigned* turn, unsigned mine, int tid, int barrier) {
  if (tid == 0) spin_turn(turn, mine);
  named_barrier_sync(barrier, 128);
}
__device__ __forceinline__ void pass_turn(unsigned* turn, bool leader, int barrier, int threads) {
  __threadfence();
  named_barrier_sync(barrier, threads);
  if (leader) advance_turn(turn);
}

}  // namespace attnlab::hopper
