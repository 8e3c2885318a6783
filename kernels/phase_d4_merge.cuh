// Phase d4's cluster merge, the epilogue of kernels/phase_d4_split_kv.cu when C KW > 1 (that
// file's header tells the whole protocol): the block geometry that kernel and merge share, and
// cluster_merge (its cluster primitives: common/hopper.cuh; its merge of softmax states:
// merge_weights, kernels/wgmma_tile.cuh, which phase 5's key split merges with too). Only that file includes this one; its
// timeline build's -Dphase_d4=phase_d4_timeline renames this namespace with the kernel's.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cuda/ptx>

#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/hopper.cuh"
#include "kernels/timeline.cuh"
#include "kernels/wgmma_tile.cuh"

namespace attnlab::phase_d4 {
namespace {

using timeline::Span;

constexpr int kTileK = 64;      // keys per K/V tile
constexpr int kRows = 64;       // query rows per block: wgmma's M
constexpr int kWgThreads = 128;
constexpr int kMaxCluster = 8;  // the portable cluster size limit
static_assert(kRows == kTileK, "Q, K and V tiles share one box shape");

using hopper::cluster_arrive_relaxed;
using hopper::cluster_wait;
using hopper::map_rank;
using hopper::smem_addr;
using hopper::st_async_f2;

// Waits for phase 0 of the merge's mbarrier: every expected byte landed (acquire at cluster
// scope: the bytes came from the other blocks' st.async).
__device__ __forceinline__ void merge_wait(std::uint64_t* bar) {
#ifdef ATTNLAB_D4_SPIN_GUARD  // scratch builds: a lost transaction traps instead of hanging
  for (long long n = 0; !cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, bar, 0u); ++n)
    if (n > (1ll << 24)) __trap();
#else
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, bar, 0u)) {
  }
#endif
}

// This thread's partial state of tile rows x0 and x0 + 8 (O in the m16n8 layout, max in log2
// units, sum) to the rank that owns those rows: row x of warpgroup wg's partial goes to rank
// x / R, slot (rank KW + wg) R + x % R of its receive area; with st.async to another rank
// (completing bytes on its mbarrier), with plain stores to its own.
template <int D, int C, int KW>
__device__ __forceinline__ void send_partial(const float (&acc)[D / 8][4], const float (&ms)[2],
                                             const float (&l)[2], int x0, int t, int wg, unsigned rank,
                                             float* recvO, float2* recvML, std::uint64_t* bar) {
  constexpr int kOStride = D + 8;
  constexpr int R = kRows / C;  // rows each rank owns in the merge
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int x = x0 + 8 * r;
    const unsigned dst = unsigned(x / R);  // warp-uniform: a warp's 16 rows have one owner
    const int slot = (int(rank) * KW + wg) * R + x % R;
    if (dst == rank) {
      float* const lo = recvO + slot * kOStride + 2 * t;
#pragma unroll
      for (int j = 0; j < D / 8; ++j)
        *reinterpret_cast<float2*>(lo + 8 * j) = make_float2(acc[j][2 * r], acc[j][2 * r + 1]);
      if (t == 0) recvML[slot] = make_float2(ms[r], l[r]);
    } else {
      const unsigned rbar = map_rank(smem_addr(bar), dst);
      const unsigned ro = map_rank(smem_addr(recvO + slot * kOStride + 2 * t), dst);
#pragma unroll
      for (int j = 0; j < D / 8; ++j) st_async_f2(ro + 32u * j, acc[j][2 * r], acc[j][2 * r + 1], rbar);
      if (t == 0) st_async_f2(map_rank(smem_addr(recvML + slot), dst), ms[r], l[r], rbar);
    }
  }
}

// This rank's R rows from the C KW partial states in its receive area, 8 output columns per
// thread and step: the states rescaled to their common max (merge_weights), O / l stored with
// 16-byte stores, rows at or past S not written.
template <int D, int C, int KW>
__device__ __forceinline__ void merge_rows(unsigned tid, unsigned rank, int q0, int S, __half* o,
                                           const float* recvO, const float2* recvML) {
  constexpr int kOStride = D + 8;
  constexpr int R = kRows / C;
  constexpr int kParts = C * KW;  // partial states per row
  constexpr int kVecsPerRow = D / kHalvesPerVec;
  for (int vi = int(tid); vi < R * kVecsPerRow; vi += kWgThreads * KW) {
    const int lr = vi / kVecsPerRow;
    const int c0 = (vi % kVecsPerRow) * kHalvesPerVec;
    float2 ml[kParts];  // one 8-byte load per state, where .x and .y apart made two
    float m[kParts], w[kParts];
#pragma unroll
    for (int j = 0; j < kParts; ++j) {
      ml[j] = recvML[j * R + lr];
      m[j] = ml[j].x;
    }
    hopper::merge_weights(m, w);  // a rank without keys for this row weighs 0
    float lsum = 0.f;
    float out[kHalvesPerVec] = {};
#pragma unroll
    for (int j = 0; j < kParts; ++j) {
      const float* src = recvO + (j * R + lr) * kOStride + c0;
      const float4 a = *reinterpret_cast<const float4*>(src);
      const float4 bb = *reinterpret_cast<const float4*>(src + 4);
      lsum = fmaf(w[j], ml[j].y, lsum);
      const float x[kHalvesPerVec] = {a.x, a.y, a.z, a.w, bb.x, bb.y, bb.z, bb.w};
#pragma unroll
      for (int e = 0; e < kHalvesPerVec; ++e) out[e] = fmaf(w[j], x[e], out[e]);
    }
    const int row = q0 + int(rank) * R + lr;
    if (row < S) {
      const float inv_l = hopper::inverse_sum</*Fast=*/true>(lsum);
#pragma unroll
      for (int e = 0; e < kHalvesPerVec; ++e) out[e] *= inv_l;
      *reinterpret_cast<uint4*>(o + std::int64_t(row) * D + c0) = pack8(out);
    }
  }
}

// The cluster's merge: each thread sends its partial state to the rank that owns its rows
// (send_partial); each rank waits on its mbarrier `bar` for exactly its bytes, then merges its
// rows (merge_rows). The mbarrier was initialised and the first cluster barrier arrived at
// before the loads.
template <int D, int C, int KW, class Stamps>
__device__ __forceinline__ void cluster_merge(const float (&acc)[D / 8][4], const float (&ms)[2],
                                             const float (&l)[2], int x0, int t, int wg,
                                             unsigned tid, unsigned rank, int q0, int S,
                                             __half* o, float* recvO, float2* recvML,
                                             std::uint64_t* bar, Stamps& tl) {
  constexpr int R = kRows / C;
  // The other ranks' rows arrive through st.async; a rank stores its own rows directly.
  constexpr unsigned kRecvTx = unsigned((C - 1) * KW * R) * (D * sizeof(float) + sizeof(float2));
  if constexpr (C > 1) {
    tl.begin(Span::kClusterWait, 0);
    cluster_wait();  // every block's mbarrier is initialised (arrived at before the loads)
    tl.end(Span::kClusterWait, 0);
    if (tid == 0)
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                           cuda::ptx::space_shared, bar, kRecvTx);
  }
  send_partial<D, C, KW>(acc, ms, l, x0, t, wg, rank, recvO, recvML, bar);
  __syncthreads();  // the own rows are visible to every thread of the merge below
  if constexpr (C > 1) {
    tl.begin(Span::kMergeWait, rank);
    merge_wait(bar);
    tl.end(Span::kMergeWait, rank);
    // Every block past this arrival has received all its bytes, so once all have arrived no
    // st.async of this block is still in flight; the wait at the end keeps the block until
    // then, and the merge below hides the barrier's latency.
    cluster_arrive_relaxed();
  }
  merge_rows<D, C, KW>(tid, rank, q0, S, o, recvO, recvML);
  if constexpr (C > 1) {
    tl.begin(Span::kClusterWait, 1);
    cluster_wait();
    tl.end(Span::kClusterWait, 1);
  }
}

}  // namespace
}  // namespace attnlab::phase_d4
