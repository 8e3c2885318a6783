// Phase b5's main kernel: the attention backward, key-block-major (FlashAttention-2 and -3's
// structure), on a persistent grid of one block per SM. A tile is a block of keys of one KV head
// of one batch; a block takes tiles in a fixed stride (Schedule) and, per tile, walks the query
// blocks of every query head of the tile's GQA group (under the causal mask only those at or
// below the diagonal): dK and dV of the tile's keys, summed over the group, stay in wgmma
// accumulators and are stored once at the tile's end; dQ is added into an fp32 accumulator in
// the workspace. A producer thread loads each tile's K and V and streams each query block's Q,
// dO, LSE and delta through a TMA ring (kernels/tile_pipeline.cuh) whose position runs on across
// the block's tiles; each consumer warpgroup owns 64 of the tile's keys. Per query block, a
// consumer computes
//   S^T = K Q^T, dP^T = V dO^T          (ss wgmma, keys as M)
//   P^T = exp2(S^T scale - LSE), dS^T = P^T (dP^T - delta)     (registers)
//   dV += P^T dO, dK += dS^T Q          (rs wgmma: P^T and dS^T from registers)
//   dQ += dS K                          (ss wgmma from dS^T staged in shared memory; the fp32
//                                        tile staged and added by a TMA reduction; with two
//                                        consumers over the tile's keys by one of them a step,
//                                        in turn: DqSplit)
// Included by kernels/phase_b5_wgmma.cu only: its namespace is anonymous.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/backward_tile.cuh"
#include "common/hopper.cuh"
#include "kernels/named_barrier.hpp"
#include "kernels/phase_b5_schedule.cuh"
#include "kernels/phase_b5_traits.cuh"
#include "kernels/tile_pipeline.cuh"
#include "kernels/wgmma_tile.cuh"

namespace attnlab::phase_b5 {
namespace {

namespace ptx = cuda::ptx;
using namespace hopper;

// Tiles as TMA writes them (kernels/wgmma_tile.cuh): D/64 column blocks of swizzled 128-byte
// rows; K and V with kTileKeys rows per block, Q and dO with kQueries. ds: each consumer's dS^T
// ([keys][queries], one swizzled row per key) for the dQ GEMM.
template <class T, int D = T::D>
struct alignas(1024) SharedStorage {
  __half k[T::kKvStages][T::kTileKeys * D];
  __half v[T::kKvStages][T::kTileKeys * D];
  __half q[T::kStages][kQueries * D];
  __half d_o[T::kStages][kQueries * D];
  __half ds[T::kConsumers][kKeys * kQueries];
  float dq[T::kDqStagings][T::kDqBlocks][kDqTileFloats];  // dQ's blocks of a step (T::kDqStagings)
  float lse2[T::kStages][kQueries];
  float delta[T::kStages][kQueries];
  // K and V as a ring of T::kKvStages (KvPosition): full once a tile's K and V have landed, empty
  // once every consumer thread has arrived after its own waits for the GEMMs that read them (as
  // it releases a stage of the ring; once a tile, so the 256 arrivals cost next to nothing).
  std::uint64_t kv_full[T::kKvStages];
  std::uint64_t kv_empty[T::kKvStages];
  // The dQ staging tiles between the adding consumer and the reducer (T::kReducer): full once
  // the consumer's 128 threads have staged and fenced them, empty once the reductions have read
  // them. Their phases count the block's steps (a step's dQ is reduced once).
  std::uint64_t dq_full;
  std::uint64_t dq_empty;
  TmaPipeline<T::kStages> pipe;
};

// The position of a block's n-th tile in the ring of K and V: the consumers wait kv_full with
// phase(), the producer waits kv_empty with phase() ^ 1 (which a fresh barrier passes at once, so
// the first tiles do not wait), as for the steps' ring.
template <class T>
using KvPosition = RingPosition<T::kKvStages>;

// The producer: one thread, per tile of the block, loads the tile's K and V once every consumer
// thread has released its buffer's previous tile (kv_empty), then each step's Q, dO (TMA, rows
// past S read as zeros), LSE and delta (bulk copies of the padded rows) into the ring, a stage
// refilled once every consumer thread has released it. The ring's position counts the block's steps over
// all its tiles (ring), so each stage's barriers keep their order of phases.
template <class T>
__device__ __forceinline__ void run_producer(SharedStorage<T>& sm, const CUtensorMap* tm_q, const CUtensorMap* tm_do,
                                             const CUtensorMap* tm_k, const CUtensorMap* tm_v, const Params& p) {
  constexpr int D = T::D;
  // (Copies: cuda::ptx takes sizes by reference, which a static member's would odr-use.)
  const std::uint32_t kv_bytes = T::kKVBytes, vec_bytes = T::kVecBytes;
  int ring = 0;
  int n = 0;  // the block's tiles and parts so far
  for (BlockWork<T> work(p); work.more(ring); ++n, work.advance()) {
    const Schedule<T> w = work.schedule(ring);
    const KvPosition<T> kv{n};
    std::uint64_t* const kv_full = &sm.kv_full[kv.stage()];
    wait_barrier(&sm.kv_empty[kv.stage()], kv.phase() ^ 1u);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, kv_full, kv_bytes);
    tma_load_tile<D>(sm.k[kv.stage()], tm_k, T::kTileKeys, w.key0, w.kv_plane, kv_full);
    tma_load_tile<D>(sm.v[kv.stage()], tm_v, T::kTileKeys, w.key0, w.kv_plane, kv_full);
    StepCursor at = w.first_step();
    for (int i = 0; i < w.steps; ++i, at.advance()) {
      const RingPosition<T::kStages> pos{ring + i};
      sm.pipe.producer_acquire(pos);
      std::uint64_t* const bar = sm.pipe.producer_expect(pos, T::kStageBytes);
      const int bh = at.bh, q0 = at.m * kQueries, stage = pos.stage();
      tma_load_tile<D>(sm.q[stage], tm_q, kQueries, q0, bh, bar);
      tma_load_tile<D>(sm.d_o[stage], tm_do, kQueries, q0, bh, bar);
      const std::size_t row = std::size_t(bh) * p.s_pad + q0;
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, sm.lse2[stage], p.lse2 + row, vec_bytes, bar);
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, sm.delta[stage], p.delta + row, vec_bytes, bar);
    }
    ring += w.steps;
  }
}

// The reducer (T::kReducer): one thread of the producer warpgroup's second warp walks the block's
// steps as the producer does and adds each step's staged dQ into the accumulator: it waits until
// the adding consumer has staged the tiles (dq_full), issues their TMA reductions, waits for
// their reads and hands the tiles back (dq_empty). Deterministic: the reductions into a query
// block go in the order of the key tiles (Consumer::dq_turn), each completed and made visible
// before the turn passes. Its last wait keeps the block, and so its shared memory, alive until
// every reduction has completed.
template <class T>
__device__ __forceinline__ void run_reducer(SharedStorage<T>& sm, const CUtensorMap* tm_dq, const Params& p) {
  int step = 0;  // the block's steps so far: the barriers' phases
  for (BlockWork<T> work(p); work.more(step); work.advance()) {
    const Schedule<T> w = work.schedule(step);
    StepCursor at = w.first_step();
    for (int i = 0; i < w.steps; ++i, ++step, at.advance()) {
      unsigned* const turn = p.dq_turns + std::size_t(at.bh) * (p.s_pad / kQueries) + at.m;
      if (p.deterministic) spin_turn(turn, unsigned(w.key_tile));
      wait_barrier(&sm.dq_full, unsigned(step) & 1u);
#pragma unroll
      for (int b = 0; b < T::kDqBlocks; ++b)
        tma_reduce_dq_tile(tm_dq, sm.dq[0][b], b * kSwizzleHalves, at.m * kQueries, at.bh);
      ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
      ptx::mbarrier_arrive(&sm.dq_empty);
      if (p.deterministic) {
        // The turn passes once the additions are done and visible to the generic proxy's release.
        ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
        ptx::fence_proxy_async();
        advance_turn(turn);
      }
    }
  }
  ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
}

// A consumer warpgroup: 64 keys of each of the block's tiles, dK and dV in accumulators over
// every step of the tile.
template <class T>
struct Consumer {
  static constexpr int D = T::D;
  SharedStorage<T>& sm;
  const Params& p;
  Schedule<T> w;  // the tile's
  StepCursor at;  // the running step's query head and block (run_tile)
  int ring0;      // the ring position of the tile's first step: the block's steps before it
  int kv_stage;   // the tile's buffer of K and V (KvPosition)
  int consumer, tid, lane;
  int row_in_tile, col;  // the thread's first key row and query column pair in a tile
  float dk[D / 2];
  float dv[D / 2];
  float s[kQueries / 2];   // S^T, then P^T in place (but T::kPDuringDp: step)
  float dp[kQueries / 2];  // dP^T, then dS^T in place
  std::uint32_t k_frag[D / 16][4];  // the consumer's rows of K as S^T's A fragment (T::kKInRegisters)

  const CUtensorMap* tm_dq;

  __device__ __forceinline__ Consumer(SharedStorage<T>& s, const Params& params, const CUtensorMap* dq_map, int c)
      : sm(s), p(params), w(params, int(blockIdx.x)), ring0(0), kv_stage(0), consumer(c),
        tid(int(threadIdx.x) % kWarpgroupThreads), lane(tid % kWarpSize), row_in_tile(tid / kWarpSize * 16 + lane / 4),
        col(2 * (lane % 4)), tm_dq(dq_map) {}

  // Named barriers (kernels/named_barrier.hpp): slot s's are kBackwardBarrier + 5s + which, and
  // the ids of a consumer's own are in its slot, c. Where a dQ GEMM reads both consumers' dS
  // (DqSplit::kSteps), dS staged and dS free are meetings of both, those about step j's dQ GEMM
  // in slot j % 2, its adding consumer's (why by parity: meet_ds_staged). The turn wait and pass
  // and the dQ staging stay each consumer's own (each reduces its own dQ tile). Ids 1 to 10
  // of the 16, none shared with another role: the producer meets no one by a named barrier, and
  // 0 is __syncthreads'.
  enum Which { kStaged, kFree, kTurnWait, kTurnPass, kDqStaged, kWhichCount };
  static_assert(kBackwardBarrier + int(kWhichCount) * T::kConsumers + 1 <= kNamedBarriers, "ids of the hardware's");
  // Both consumers' meeting at a tile's end where K and V have two buffers (run_tile).
  __device__ static constexpr int tile_end_barrier() { return kBackwardBarrier + int(kWhichCount) * T::kConsumers; }
  __device__ static constexpr bool shared_barrier(Which which) {
    return (which == kStaged || which == kFree) && T::kDqSplit != DqSplit::kOwnKeys;
  }
  // The id of `which`; for a meeting about a dQ GEMM, the one about step j's.
  __device__ int barrier(Which which, int j = 0) const {
    const int slot = shared_barrier(which) ? j % 2 : consumer;
    return kBackwardBarrier + int(kWhichCount) * slot + int(which);
  }
  __device__ int barrier_threads(Which which) const {
    return (shared_barrier(which) ? T::kConsumers : 1) * kWarpgroupThreads;
  }
  // Step i's place in the ring.
  __device__ RingPosition<T::kStages> position(int i) const { return {ring0 + i}; }
  // The consumer's first key, and its rows of K and V (row offset within each column block).
  __device__ int key0() const { return w.key0 + consumer * kKeys; }
  __device__ const __half* k_rows() const { return sm.k[kv_stage] + consumer * kKeys * kSwizzleHalves; }
  __device__ const __half* v_rows() const { return sm.v[kv_stage] + consumer * kKeys * kSwizzleHalves; }
  // Whether the consumer computes and adds dQ at step i: at every step, but by step (kSteps) at
  // the steps of its parity only.
  __device__ bool adds_dq(int i) const { return T::kDqSplit != DqSplit::kSteps || i % 2 == consumer; }
  // The dQ GEMM's keys, as its A (dS^T) and B (K's rows): the consumer's own, or the tile's
  // (the consumers' dS tiles follow one another, as do their rows of K in each column block).
  __device__ const __half* dq_ds() const { return T::kDqSplit == DqSplit::kOwnKeys ? sm.ds[consumer] : sm.ds[0]; }
  __device__ const __half* dq_k_rows() const { return T::kDqSplit == DqSplit::kOwnKeys ? k_rows() : sm.k[kv_stage]; }
  // The fp32 staging tiles the consumer's dQ goes through (T::kDqStagings).
  __device__ float (*dq_staging())[kDqTileFloats] { return sm.dq[T::kDqStagings == 1 ? 0 : consumer]; }
  // The deterministic mode's turn at adding into a query block: a turn per consumer, or one per
  // tile where a step's dQ over the tile's keys is added once, by one of them; the turns of a
  // query block go in the order of the key tiles that reach it.
  // No deadlock: a tile waits for turns only of tiles of its own KV plane with smaller key
  // tiles, so of smaller index t, and a block takes its tiles in increasing order (Schedule).
  // Take the smallest t not finished: its block has finished its earlier tiles, all smaller, so
  // it runs t, and every turn t waits for is one a finished tile has passed, so t finishes too.
  // This needs the grid's blocks resident together, which a grid of at most a block per SM (one
  // fits an SM) is on a device it does not share with a kernel that holds SMs.
  __device__ unsigned dq_turn() const {
    const unsigned kt = unsigned(w.key_tile);
    return T::kDqSplit == DqSplit::kOwnKeys ? kt * T::kConsumers + unsigned(consumer) : kt;
  }

  __device__ __forceinline__ void run();
  __device__ __forceinline__ void run_tile(int n);
  __device__ __forceinline__ void issue_scores(int i);
  __device__ __forceinline__ void wait_scores_ahead(int i);
  __device__ __forceinline__ void wait_ds_free(int i);
  __device__ __forceinline__ void meet_ds_staged(int i);
  __device__ __forceinline__ void release_ds(int i);
  __device__ __forceinline__ void issue_dv_dk(int i, const float (&p_tile)[kQueries / 2],
                                              std::uint32_t (&p_frag)[kQueries / 16][4],
                                              std::uint32_t (&ds_frag)[kQueries / 16][4], const __half* q,
                                              const __half* d_o);
  __device__ __forceinline__ void step(int i);
  __device__ __forceinline__ void add_dq(int i);
  __device__ __forceinline__ void store();
  __device__ __forceinline__ void add_part();
};

// S^T = K Q^T and dP^T = V dO^T of step i into s and dp, once its stage has landed: a group
// each, issued without waiting.
template <class T>
__device__ __forceinline__ void Consumer<T>::issue_scores(int i) {
  const RingPosition<T::kStages> pos = position(i);
  sm.pipe.consumer_wait(pos);
  if constexpr (T::kKInRegisters)
    qk_gemm_rs<kQueries, D, true>(s, k_frag, sm.q[pos.stage()]);
  else
    qk_gemm<kQueries, D, T::kTileKeys, true>(s, k_rows(), sm.q[pos.stage()]);
  qk_gemm<kQueries, D, T::kTileKeys, true>(dp, v_rows(), sm.d_o[pos.stage()]);
}

// Waits for every GEMM group the consumer has issued in step i but, with T::kScoresAhead and a
// next step, first issues that step's score groups (S^T's and dP^T's) and leaves them
// outstanding: groups complete in order, so a wait that leaves the newest N groups pending
// completes all older ones (dV's, dK's, and dQ's where this consumer issued it). s and dp are
// free by then (P^T and dS^T are packed and staged).
template <class T>
__device__ __forceinline__ void Consumer<T>::wait_scores_ahead(int i) {
  if (T::kScoresAhead && i + 1 < w.steps) {
    issue_scores(i + 1);
    wgmma_wait<2>();
  } else {
    wgmma_wait<0>();
  }
}

// The meetings over the dS^T tiles that a dQ GEMM reads, both consumers' (in the one-consumer
// kernel, its own warpgroup's over its own tile). With kOwnKeys both are the warpgroup's own:
// it waits at dS free before it stages its dS^T and at dS staged before the GEMM.
// With kSteps both are one-way, and only step j's adding consumer a = j % 2 waits (b: the other):
//   dS staged (j): b arrives once its dS^T of step j is staged; a waits there before the GEMM.
//   dS free (j): a arrives once the GEMM has completed (release_ds); b, which adds at step j + 1,
//     waits there before it stages its dS^T of step j + 1 (a's own tile is free at step j + 1
//     by a's own wait). A tile's first step waits at no dS free (run_tile: why the tiles are
//     free then), its last step's has no arrival: every phase has its 256 threads and none is
//     left partial at the tile's end.
// bar.arrive makes the arriving thread's prior memory accesses performed for the barrier's
// threads once it completes (PTX ISA, barrier): at dS staged the dS^T stores, fenced for the
// async proxy before the arrival; at dS free the GEMM's reads, complete at its wait.
// Ordering: within a tile a consumer is at most one step ahead (b waits in step j + 1 for a's
// GEMM of step j, a in step j + 2 for b's of step j + 1), and at a tile's end the two are level
// (run_tile). Each id (slot j % 2) has one consumer arriving and the other waiting, and serves
// every other step; a warp arrives for step j + 2 only once every warp
// has reached step j's meeting there, so each phase completes with one step's threads: b arrives
// at dS staged (j + 2) after its wait at dS free (j), which took a's arrivals, each after a's
// warp left dS staged (j); a arrives at dS free (j + 2) after leaving dS staged (j + 2), which
// took b's arrivals, each after b's warp left dS free (j). One id for every step would not do:
// b's arrival at step j and its own wait there as the adder at step j + 1 could complete a phase
// with b's threads alone.
template <class T>
__device__ __forceinline__ void Consumer<T>::meet_ds_staged(int i) {
  if (T::kDqSplit == DqSplit::kSteps && !adds_dq(i))
    named_barrier_arrive(barrier(kStaged, i), barrier_threads(kStaged));
  else
    named_barrier_sync(barrier(kStaged, i), barrier_threads(kStaged));
}

// Before the consumer rewrites its dS^T tile at step i: the previous step's dQ GEMM has read it
// once every warp that issued it has passed its wait (meet_ds_staged).
template <class T>
__device__ __forceinline__ void Consumer<T>::wait_ds_free(int i) {
  if constexpr (T::kDqSplit == DqSplit::kSteps) {
    if (adds_dq(i) && i > 0) named_barrier_sync(barrier(kFree, i - 1), barrier_threads(kFree));
  } else {
    named_barrier_sync(barrier(kFree), barrier_threads(kFree));
  }
}

// After the wait that completes the consumer's dQ GEMMs of step i: with kSteps, the other
// consumer may rewrite its dS^T tile at the next step (meet_ds_staged).
template <class T>
__device__ __forceinline__ void Consumer<T>::release_ds(int i) {
  if (T::kDqSplit == DqSplit::kSteps && i + 1 < w.steps)
    named_barrier_arrive(barrier(kFree, i), barrier_threads(kFree));
}

// dV += P^T dO and dK += dS^T Q from P^T (p_tile) and dS^T (dp) packed into p_frag and ds_frag,
// issued without waiting, and dS^T staged for the dQ GEMM once the previous step's has read its
// tile (wait_ds_free).
template <class T>
__device__ __forceinline__ void Consumer<T>::issue_dv_dk(int i, const float (&p_tile)[kQueries / 2],
                                                         std::uint32_t (&p_frag)[kQueries / 16][4],
                                                         std::uint32_t (&ds_frag)[kQueries / 16][4], const __half* q,
                                                         const __half* d_o) {
  pack_p<kQueries>(p_tile, p_frag);
  if constexpr (T::kDvFirst) pv_gemm<kQueries, D, true>(dv, p_frag, d_o);
  pack_p<kQueries>(dp, ds_frag);
  // The previous step's dQ GEMM has read the consumer's dS^T tile (with dQ over the tile's
  // keys, that GEMM may be the other consumer's).
  wait_ds_free(i);
  stage_ds_fragment(sm.ds[consumer], ds_frag, tid / kWarpSize, lane);
  if constexpr (T::kDvFirst) {
    pv_gemm<kQueries, D, true>(dk, ds_frag, q);
    // wgmma reads shared memory through the async proxy: the generic writes are made visible to
    // it before the warpgroup meets and the dQ GEMM is issued.
    ptx::fence_proxy_async(ptx::space_shared);
  } else {
    ptx::fence_proxy_async(ptx::space_shared);
    pv_gemm<kQueries, D, true>(dv, p_frag, d_o);
    pv_gemm<kQueries, D, true>(dk, ds_frag, q);
  }
}

// One query block: the five GEMMs and the elementwise work between them (dQ's at the steps
// where the consumer adds it, adds_dq), then the stage goes back to the producer. Every GEMM
// group is waited for within the step but, with T::kScoresAhead, the next step's S^T and dP^T
// (issued by wait_scores_ahead, behind the dQ GEMM where there is one; the ring's other stage
// loads meanwhile either way).
template <class T>
__device__ __forceinline__ void Consumer<T>::step(int i) {
  const RingPosition<T::kStages> pos = position(i);
  const int stage = pos.stage();
  const int q0 = at.m * kQueries;
  const __half* const q = sm.q[stage];
  const __half* const d_o = sm.d_o[stage];
  // The step's score GEMMs, unless the step before issued them (T::kScoresAhead).
  if (!T::kScoresAhead || i == 0) issue_scores(i);
  // The thread's LSE and delta of the step, those held in registers (T::kLseEarly,
  // T::kVecsEarly) loaded here, before the wait: the stage has landed (issue_scores waited for
  // it, at this step or the one before).
  const QueryPairs<kQueries, T::kLseEarly> lse2(sm.lse2[stage], col);
  const QueryPairs<kQueries, T::kVecsEarly> delta(sm.delta[stage], col);
  // Only tiles that cross the diagonal or hold keys past S test each score.
  const bool mask = key0() + kKeys > p.S || (T::kCausal && key0() + kKeys - 1 > q0);
  const int key_lo = key0() + row_in_tile;
  float pt[kQueries / 2];  // P^T (T::kPDuringDp; else P^T goes into s in place)
  if constexpr (T::kPDuringDp) {
    // S^T's group is the older of the two (issue_scores issues it first): P^T is computed while
    // dP^T's GEMM runs, then dS^T once it has completed.
    wgmma_wait<1>();
    fence_operands(s);
    if (mask)
      softmax_p_tile<typename T::Mask, kQueries, true>(s, pt, lse2, p.scale_log2, key_lo, q0, col, p.S);
    else
      softmax_p_tile<typename T::Mask, kQueries, false>(s, pt, lse2, p.scale_log2, key_lo, q0, col, p.S);
    wgmma_wait<0>();
    fence_operands(dp);
    grad_tile<kQueries>(pt, dp, delta);
  } else {
    wgmma_wait<0>();
    fence_operands(s);
    fence_operands(dp);
    if (mask)
      softmax_grad_tile<typename T::Mask, kQueries, true>(s, dp, lse2, delta, p.scale_log2, key_lo, q0, col, p.S);
    else
      softmax_grad_tile<typename T::Mask, kQueries, false>(s, dp, lse2, delta, p.scale_log2, key_lo, q0, col, p.S);
  }
  const float(&p_tile)[kQueries / 2] = T::kPDuringDp ? pt : s;
  std::uint32_t p_frag[kQueries / 16][4], ds_frag[kQueries / 16][4];
  issue_dv_dk(i, p_tile, p_frag, ds_frag, q, d_o);
  // Without a reducer the consumer's own dQ reductions have read the staging tiles once its
  // thread 0 passes this wait, before add_dq writes them again (the reducer's are waited for on
  // dq_empty instead).
  if (!T::kReducer && tid == 0) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  // Both consumers' dS are staged before a dQ GEMM over the tile's keys is issued.
  meet_ds_staged(i);
  if constexpr (T::kDqAfterDkDv) {
    // dV's and dK's GEMMs complete before dQ's is issued, so P^T's and dS^T's fragments are free
    // for dQ's accumulators (T::kDqColumns; with them still live ptxas serialises the wgmmas,
    // C7512).
    wgmma_wait<0>();
    fence_operands(dv);
    fence_operands(dk);
    fence_operands(p_frag);
    fence_operands(ds_frag);
  }
  if (adds_dq(i))
    add_dq(i);
  else
    wait_scores_ahead(i);
  if constexpr (!T::kDqAfterDkDv) {
    fence_operands(dv);
    fence_operands(dk);
    fence_operands(p_frag);
    fence_operands(ds_frag);
  }
  // Each thread's own arrival: its reads of the stage's LSE and delta (generic loads) are then
  // ordered before the producer's next bulk copy into it by the barrier itself.
  sm.pipe.consumer_release_thread(pos);
}

// dQ of step i's query block += dS K, a 64-column block at a time (32 accumulators, not D/2,
// beside dK and dV), over the keys that T::kDqSplit gives the consumer; each block staged in the
// step's fp32 tiles (dq_staging) once its GEMM (and with it the step's dV and dK GEMMs) has
// completed, and all of them added into the workspace's accumulator by one thread's TMA
// reductions. Deterministic: the reductions into these rows go in the order of the key tiles
// (wait_turn / pass_turn, dq_turn), each completed before the turn passes, so every launch sums
// them alike.
template <class T>
__device__ __forceinline__ void Consumer<T>::add_dq(int i) {
  const int bh = at.bh, m = at.m;
  unsigned* const turn = p.dq_turns + std::size_t(bh) * (p.s_pad / kQueries) + m;
  if (!T::kReducer && p.deterministic) wait_turn(turn, dq_turn(), tid, barrier(kTurnWait));
  constexpr int kGemms = D / T::kDqColumns, kBlocksPerGemm = T::kDqColumns / kSwizzleHalves;
#pragma unroll
  for (int g = 0; g < kGemms; ++g) {
    float acc[T::kDqColumns / 2];
    dq_gemm<T::kDqKeys, T::kDqColumns>(acc, dq_ds(), dq_k_rows() + g * kBlocksPerGemm * T::kTileKeys * kSwizzleHalves);
    // The reducer has read the tiles of the block's step before this one (a fresh barrier lets
    // the block's first step through); waited for while the GEMM runs.
    if (T::kReducer && g == 0) wait_barrier(&sm.dq_empty, unsigned(ring0 + i + 1) & 1u);
    // The next step's scores go in behind the first dQ group.
    if (g == 0)
      wait_scores_ahead(i);
    else
      wgmma_wait<0>();
    // The step's dQ GEMMs have read the dS^T tiles once the last one's wait has passed.
    if (g == kGemms - 1) release_ds(i);
    fence_operands(acc);
#pragma unroll
    for (int h = 0; h < kBlocksPerGemm; ++h)
      stage_dq_tile(dq_staging()[g * kBlocksPerGemm + h], *reinterpret_cast<const float(*)[32]>(acc + 32 * h),
                    row_in_tile, col);
  }
  // The TMA reads the tiles through the async proxy.
  ptx::fence_proxy_async(ptx::space_shared);
  if constexpr (T::kReducer) {
    ptx::mbarrier_arrive(&sm.dq_full);
    return;
  }
  named_barrier_sync(barrier(kDqStaged), barrier_threads(kDqStaged));
  if (tid == 0) {
#pragma unroll
    for (int b = 0; b < T::kDqBlocks; ++b)
      tma_reduce_dq_tile(tm_dq, dq_staging()[b], b * kSwizzleHalves, m * kQueries, bh);
    if (p.deterministic) {
      // The turn passes once the additions are done and visible to the generic proxy's release.
      ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
      ptx::fence_proxy_async();
    }
  }
  if (p.deterministic)
    pass_turn(turn, tid == 0, barrier(kTurnPass), barrier_threads(kTurnPass));
}

// dK (times the softmax scale) and dV of the consumer's keys below S, straight from registers.
template <class T>
__device__ __forceinline__ void Consumer<T>::store() {
  if (!w.whole) return add_part();
  const float scales[2] = {p.scale, p.scale};
  const float ones[2] = {1.f, 1.f};
  const std::size_t plane = std::size_t(w.kv_plane) * p.S * D;
  store_o_rows<D>(p.dk + plane, dk, scales, key0() + row_in_tile, col, p.S);
  store_o_rows<D>(p.dv + plane, dv, ones, key0() + row_in_tile, col, p.S);
}

// A part of a split tile (Schedule::whole false): its dK and dV added into the tile's fp32 sums
// (Params::tail_acc, zeroed by the pre-pass; each thread its own elements, a red of two columns
// at a time), which the post-pass scales and stores once every part has added.
template <class T>
__device__ __forceinline__ void Consumer<T>::add_part() {
  float* const k_row = p.tail_acc + (std::size_t(w.tail) * 2 * T::kTileKeys + consumer * kKeys + row_in_tile) * D + col;
  float* const v_row = k_row + std::size_t(T::kTileKeys) * D;
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      red_add_pair(k_row + 8 * r * D + 8 * i, dk[4 * i + 2 * r], dk[4 * i + 2 * r + 1]);
      red_add_pair(v_row + 8 * r * D + 8 * i, dv[4 * i + 2 * r], dv[4 * i + 2 * r + 1]);
    }
}

// The block's n-th tile (w): its steps, then K and V go back to the producer and dK and dV are
// stored.
// K and V are released (kv_empty) by each thread after its last step, when every GEMM group it
// issued in the tile has completed: the last step's waits leave none pending (wait_scores_ahead
// issues the next step's scores only within the tile), so the score GEMMs' and the dQ GEMMs'
// reads of K and V are done. The stores read registers only and overlap the next K and V's load.
// The meetings across a tile boundary: with one K/V buffer the next tile's kv_full completes
// only after the producer has passed kv_empty, so after both consumers' 256 arrivals, each made
// after that thread's last named barrier of this tile; with two (the next tile's K and V loaded
// meanwhile) both consumers meet at the tile's end instead (tile_end_barrier). Either way neither
// consumer starts the next tile's first step before the other has left this tile's last meeting:
// at the boundary the consumers are level, no phase of dS staged or dS free is left partial (the
// last step's dS free has no arrival), and the next tile's step numbering, by which
// meet_ds_staged picks its ids and adds_dq its consumer, starts afresh; within the tile a
// consumer stays at most a step ahead (meet_ds_staged). The same chain orders a dS^T tile's
// rewrite at the next tile's first step, where no consumer waits at dS free, after the last dQ
// GEMM that read it: its issuer waited for it before its arrival or the meeting.
template <class T>
__device__ __forceinline__ void Consumer<T>::run_tile(int n) {
#pragma unroll
  for (int i = 0; i < D / 2; ++i) dk[i] = dv[i] = 0.f;
  const KvPosition<T> kv{n};
  kv_stage = kv.stage();
  wait_barrier(&sm.kv_full[kv_stage], kv.phase());
  // The previous tile's GEMMs have all completed (its last step waits for every group), so the
  // fragment is free to take this tile's rows.
  if constexpr (T::kKInRegisters) load_q_fragment<D, T::kTileKeys>(k_frag, k_rows(), tid / kWarpSize, lane);
  at = w.first_step();
  for (int i = 0; i < w.steps; ++i, at.advance()) step(i);
  ptx::mbarrier_arrive(&sm.kv_empty[kv_stage]);
  store();
  if constexpr (T::kKvStages > 1) named_barrier_sync(tile_end_barrier(), T::kConsumers * kWarpgroupThreads);
}

// The block's tiles in the grid's stride (Schedule), the ring's position running on across them.
// A staging tile of dQ is rewritten only after its last reductions have read it at every adding
// step, the first of a tile included (step), so the one wait for the reductions' completion is
// at the block's end.
template <class T>
__device__ __forceinline__ void Consumer<T>::run() {
  int n = 0;  // the block's tiles and parts so far
  for (BlockWork<T> work(p); work.more(ring0); ++n, work.advance()) {
    w = work.schedule(ring0);
    run_tile(n);
    ring0 += w.steps;
  }
  // The block's shared memory outlives its last reductions' reads (the reducer waits for its own).
  if (!T::kReducer && tid == 0) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
}

// A persistent grid: each block runs its tiles in increasing order (Schedule, tile_of_block), as
// the deterministic mode's turns need (Consumer::dq_turn).
template <class T>
__global__ void __launch_bounds__(T::kThreads, 1)
    backward_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_do,
                    const __grid_constant__ CUtensorMap tm_k, const __grid_constant__ CUtensorMap tm_v,
                    const __grid_constant__ CUtensorMap tm_dq, const __grid_constant__ Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ unsigned char smem_raw[];
  // Dynamic shared memory is only 16-byte aligned; swizzle atoms need 1024.
  const auto raw = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  auto& sm = *reinterpret_cast<SharedStorage<T>*>(smem_raw + ((1024 - raw % 1024) % 1024));
  // Warp-uniform for ptxas (kernels/phase_5_kernel.cuh does the same).
  const int warpgroup = __shfl_sync(kFullMask, int(threadIdx.x) / kWarpgroupThreads, 0);
  if (threadIdx.x == 0) {
    sm.pipe.init(T::kConsumers * kWarpgroupThreads);  // every consumer thread releases (step)
    for (int s = 0; s < T::kKvStages; ++s) {
      ptx::mbarrier_init(&sm.kv_full[s], 1);
      ptx::mbarrier_init(&sm.kv_empty[s], T::kConsumers * kWarpgroupThreads);  // and K and V (run_tile)
    }
    if constexpr (T::kReducer) {
      ptx::mbarrier_init(&sm.dq_full, kWarpgroupThreads);
      ptx::mbarrier_init(&sm.dq_empty, 1);
    }
    // The copy engine (async proxy) completes transactions on these barriers.
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (warpgroup == 0) {
    if constexpr (T::kMovesRegisters) setmaxnreg_dec<T::kProducerRegs>();
    if (threadIdx.x == 0) run_producer<T>(sm, &tm_q, &tm_do, &tm_k, &tm_v, p);
    if (T::kReducer && threadIdx.x == kWarpSize) run_reducer<T>(sm, &tm_dq, p);
    return;
  }
  if constexpr (T::kMovesRegisters) setmaxnreg_inc<T::kConsumerRegs>();
  Consumer<T> c(sm, p, &tm_dq, warpgroup - 1);
  c.run();
#else
  __trap();  // built without sm_90a: the registry refuses the phase before a launch
#endif
}

}  // namespace
}  // namespace attnlab::phase_b5
