// Phase d4's cluster merge, the epilogue of kernels/phase_d4_split_kv.cu when C KW > 1 (that
// file's header tells the whole protocol): the block geometry that kernel and merge share, and
// cluster_merge: the merge of softmax states that phase 5's key split uses too, over its
// distributed-shared-memory transport (kernels/softmax_merge.cuh), between the cluster barriers
// (common/hopper.cuh). Only that file includes this one.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/hopper.cuh"
#include "kernels/named_barrier.hpp"
#include "kernels/softmax_merge.cuh"
#include "kernels/timeline.cuh"
#include "kernels/wgmma_tile.cuh"

namespace attnlab::phase_d4 {
namespace {

using timeline::Span;

constexpr int kTileK = 64;      // keys per K/V tile where keys_per_tile does not double it; the split's unit
constexpr int kRows = 64;       // query rows per block: wgmma's M
constexpr int kWgThreads = 128;
constexpr int kMaxCluster = 8;  // the portable cluster size limit

using hopper::cluster_arrive_relaxed;
using hopper::cluster_wait;

// The merge's transport in d4 (kernels/softmax_merge.cuh): the C blocks of a cluster share a
// 64-row query tile, each in KW warpgroups.
template <int D, int C, int KW>
using MergeTransport = hopper::ClusterRows<D, kRows, C, KW>;

// This rank's R rows from the C KW partial states in its receive area, 8 output columns per
// thread and step: the states merged (merge_states; a state without keys for a row weighs 0),
// O / l stored with 16-byte stores, rows at or past S not written.
template <int D, int C, int KW>
__device__ __forceinline__ void merge_rows(const MergeTransport<D, C, KW>& tr, unsigned tid, int q0, int S,
                                           __half* o) {
  constexpr int R = MergeTransport<D, C, KW>::kRowsPerRank;
  constexpr int kVecsPerRow = D / kHalvesPerVec;
  const auto step = [&](int vi) {
    const int lr = vi / kVecsPerRow;
    const int c0 = (vi % kVecsPerRow) * kHalvesPerVec;
    float m[1], l[1];
    float out[kHalvesPerVec];
    hopper::merge_states<C * KW, 1, 1>(tr.piece(lr, c0), m, l, out);
    const int row = q0 + int(tr.rank) * R + lr;
    if (row < S) {
      const float inv_l = hopper::inverse_sum</*Fast=*/true>(l[0]);
#pragma unroll
      for (int e = 0; e < kHalvesPerVec; ++e) out[e] *= inv_l;
      *reinterpret_cast<uint4*>(o + std::int64_t(row) * D + c0) = pack8(out);
    }
  };
  // Two states per row make a small step, unrolled twice, as the compiler unrolls a small loop
  // by itself (the merge runs on the kernel's tail); larger steps run one at a time.
  if constexpr (C * KW == 2) {
#pragma unroll 2
    for (int vi = int(tid); vi < R * kVecsPerRow; vi += kWgThreads * KW) step(vi);
  } else {
    for (int vi = int(tid); vi < R * kVecsPerRow; vi += kWgThreads * KW) step(vi);
  }
}

// The cluster's merge: each warp sends its partial states to the ranks that own its rows
// (MergeTransport::send); each rank waits on its mbarrier for exactly its bytes, then merges its
// rows (merge_rows). The mbarrier was initialised and the first cluster barrier arrived at
// before the loads.
template <int D, int C, int KW, class Stamps>
__device__ __forceinline__ void cluster_merge(const float (&acc)[D / 8][4], const float (&ms)[2],
                                             const float (&l)[2], int wq, int lane, int wg,
                                             unsigned tid, unsigned rank, int q0, int S,
                                             __half* o, __half* recv, __half* stage,
                                             std::uint64_t* bar, Stamps& tl) {
  const MergeTransport<D, C, KW> tr{recv, stage, bar, rank};
  if constexpr (C > 1) {
    tl.begin(Span::kClusterWait, 0);
    cluster_wait();  // every block's mbarrier is initialised (arrived at after its first copies)
    tl.end(Span::kClusterWait, 0);
    if (tid == 0) tr.expect();
  }
  tr.send(acc, ms, l, wq, lane, wg);
  hopper::named_barrier_sync(kBlockBarrier);  // the own rows are visible to every thread of the merge below
  if constexpr (C > 1) {
    tl.begin(Span::kMergeWait, rank);
    tr.wait();
    tl.end(Span::kMergeWait, rank);
    // Every block past this arrival has received all its bytes, so once all have arrived no
    // copy from this block's staging rows is still in flight; the wait at the end keeps the
    // block until then, and the merge below hides the barrier's latency.
    cluster_arrive_relaxed();
  }
  merge_rows<D, C, KW>(tr, tid, q0, S, o);
  if constexpr (C > 1) {
    tl.begin(Span::kClusterWait, 1);
    cluster_wait();
    tl.end(Span::kClusterWait, 1);
  }
}

}  // namespace
}  // namespace attnlab::phase_d4
