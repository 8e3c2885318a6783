// Phase d4's cluster merge, the epilogue of kernels/phase_d4_split_kv.cu when C KW > 1 (that
// file's header tells the whole protocol): the block geometry that kernel and merge share, the
// cluster and mbarrier primitives, and cluster_merge. Only that file includes this one; its
// timeline build's -Dphase_d4=phase_d4_timeline renames this namespace with the kernel's.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/timeline.cuh"

namespace attnlab::phase_d4 {
namespace {

constexpr int kTileK = 64;      // keys per K/V tile
constexpr int kRows = 64;       // query rows per block: wgmma's M
constexpr int kWgThreads = 128;
constexpr int kMaxCluster = 8;  // the portable cluster size limit
static_assert(kRows == kTileK, "Q, K and V tiles share one box shape");

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Cluster primitives (sm_90).
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// The shared::cluster address of the same shared-memory location in block `rank`.
__device__ __forceinline__ unsigned map_rank(unsigned addr, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
}
// An 8-byte store into another block's shared memory that completes 8 bytes of the
// transaction count of that block's mbarrier.
__device__ __forceinline__ void st_async_f2(unsigned addr, float x, float y, unsigned bar) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];\n" ::"r"(
          addr),
      "f"(x), "f"(y), "r"(bar)
      : "memory");
}
// An mbarrier expecting one arrival, its initialisation made visible to the cluster (the
// remote st.async that complete its transactions) before the cluster barrier.
__device__ __forceinline__ void mbar_init(unsigned bar) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], 1;\n"
      "fence.mbarrier_init.release.cluster;\n" ::"r"(bar)
      : "memory");
}
// The one arrival, announcing the bytes the phase waits for. Remote complete_tx may come
// first (the transaction count may go negative meanwhile); the phase cannot complete before
// this arrival.
__device__ __forceinline__ void mbar_arrive_expect(unsigned bar, unsigned tx_bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
               "r"(tx_bytes)
               : "memory");
}
// Waits for phase 0 of the mbarrier: every expected byte landed (acquire at cluster scope).
__device__ __forceinline__ bool mbar_try_wait_phase0(unsigned bar) {
  unsigned done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar)
      : "memory");
  return done != 0;
}
__device__ __forceinline__ void mbar_wait_phase0(unsigned bar) {
#ifdef ATTNLAB_D4_SPIN_GUARD  // scratch builds: a lost transaction traps instead of hanging
  for (long long n = 0; !mbar_try_wait_phase0(bar); ++n)
    if (n > (1ll << 24)) __trap();
#else
  while (!mbar_try_wait_phase0(bar)) {
  }
#endif
}

// The cluster's merge: this thread's partial state of tile rows x and x + 8 (O in the m16n8
// layout, max in log2 units, sum) goes with st.async to the rank that owns those rows; each
// rank waits on its mbarrier `bar` for exactly its bytes, rescales the C partial states to
// their common max and writes its rows with 16-byte stores. The mbarrier was initialised and
// the first cluster barrier arrived at before the loads.
template <int D, int C, int KW>
__device__ __forceinline__ void cluster_merge(const float (&acc)[D / 8][4], const float (&ms)[2],
                                             const float (&l)[2], int x0, int t, int wg,
                                             unsigned tid, unsigned rank, int q0, int S,
                                             __half* o, float* recvO, float2* recvML,
                                             unsigned bar ATTNLAB_TL_PARAM) {
  constexpr int kDTiles = D / 8;
  constexpr int kOStride = D + 8;
  constexpr int kThreads = kWgThreads * KW;
  constexpr int R = kRows / C;   // rows each rank owns in the merge
  constexpr int kParts = C * KW;  // partial states per row
  // The other ranks' rows arrive through st.async; a rank stores its own rows directly.
  constexpr unsigned kRecvTx =
      unsigned((C - 1) * KW * R) * (D * sizeof(float) + sizeof(float2));
  if constexpr (C > 1) {
    ATTNLAB_TL_BEGIN(kClusterWait, 0);
    cluster_wait();  // every block's mbarrier is initialised (arrived at before the loads)
    ATTNLAB_TL_END(kClusterWait, 0);
    if (tid == 0) mbar_arrive_expect(bar, kRecvTx);
  }
  // Row x of warpgroup wg's partial goes to rank x / R, slot (rank KW + wg) R + x % R of its
  // receive area.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int x = x0 + 8 * r;
    const unsigned dst = unsigned(x / R);  // warp-uniform: a warp's 16 rows have one owner
    const int slot = (int(rank) * KW + wg) * R + x % R;
    if (dst == rank) {
      float* const lo = recvO + slot * kOStride + 2 * t;
#pragma unroll
      for (int j = 0; j < kDTiles; ++j)
        *reinterpret_cast<float2*>(lo + 8 * j) = make_float2(acc[j][2 * r], acc[j][2 * r + 1]);
      if (t == 0) recvML[slot] = make_float2(ms[r], l[r]);
    } else {
      const unsigned rbar = map_rank(bar, dst);
      const unsigned ro = map_rank(smem_addr(recvO + slot * kOStride + 2 * t), dst);
#pragma unroll
      for (int j = 0; j < kDTiles; ++j)
        st_async_f2(ro + 32u * j, acc[j][2 * r], acc[j][2 * r + 1], rbar);
      if (t == 0) st_async_f2(map_rank(smem_addr(recvML + slot), dst), ms[r], l[r], rbar);
    }
  }
  __syncthreads();  // the own rows are visible to every thread of the merge below
  if constexpr (C > 1) {
    ATTNLAB_TL_BEGIN(kMergeWait, rank);
    mbar_wait_phase0(bar);
    ATTNLAB_TL_END(kMergeWait, rank);
    // Every block past this arrival has received all its bytes, so once all have arrived no
    // st.async of this block is still in flight; the wait at the end keeps the block until
    // then, and the merge below hides the barrier's latency.
    cluster_arrive_relaxed();
  }

  // This rank's rows: 8 output columns per thread and step, the partial states rescaled to
  // their common max.
  constexpr int kVecsPerRow = D / kHalvesPerVec;
  for (int vi = int(tid); vi < R * kVecsPerRow; vi += kThreads) {
    const int lr = vi / kVecsPerRow;
    const int c0 = (vi % kVecsPerRow) * kHalvesPerVec;
    float2 ml[kParts];
#pragma unroll
    for (int j = 0; j < kParts; ++j) ml[j] = recvML[j * R + lr];
    float mall = kNegInf;
#pragma unroll
    for (int j = 0; j < kParts; ++j) mall = fmaxf(mall, ml[j].x);
    if (mall == kNegInf) mall = 0.f;  // a row past S that no rank scored: weights 0, unused
    float lsum = 0.f;
    float out[kHalvesPerVec] = {};
#pragma unroll
    for (int j = 0; j < kParts; ++j) {
      const float w = exp2_approx(ml[j].x - mall);  // a rank without keys for this row: 0
      const float* src = recvO + (j * R + lr) * kOStride + c0;
      const float4 a = *reinterpret_cast<const float4*>(src);
      const float4 bb = *reinterpret_cast<const float4*>(src + 4);
      lsum = fmaf(w, ml[j].y, lsum);
      out[0] = fmaf(w, a.x, out[0]);
      out[1] = fmaf(w, a.y, out[1]);
      out[2] = fmaf(w, a.z, out[2]);
      out[3] = fmaf(w, a.w, out[3]);
      out[4] = fmaf(w, bb.x, out[4]);
      out[5] = fmaf(w, bb.y, out[5]);
      out[6] = fmaf(w, bb.z, out[6]);
      out[7] = fmaf(w, bb.w, out[7]);
    }
    const int row = q0 + int(rank) * R + lr;
    if (row < S) {
      const float inv_l = __fdividef(1.f, lsum);
#pragma unroll
      for (int e = 0; e < kHalvesPerVec; ++e) out[e] *= inv_l;
      *reinterpret_cast<uint4*>(o + std::int64_t(row) * D + c0) = pack8(out);
    }
  }
  if constexpr (C > 1) {
    ATTNLAB_TL_BEGIN(kClusterWait, 1);
    cluster_wait();
    ATTNLAB_TL_END(kClusterWait, 1);
  }
}

}  // namespace
}  // namespace attnlab::phase_d4
