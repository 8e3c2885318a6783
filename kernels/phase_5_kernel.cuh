// Phase 5's kernel: the producer warpgroup and the consumer warpgroups of a persistent block
// (kernels/phase_5_wgmma.cu describes the technique and launches it; kernels/phase_5_traits.cuh
// has the tile shapes and the shared-memory layout, kernels/phase_5_work.cuh the parameters and
// work items). Composed from the Hopper parts: the TMA pipeline and the schedulers
// (kernels/tile_pipeline.cuh), the GEMMs, mask, online softmax and epilogue of a consumer
// (kernels/wgmma_tile.cuh), the merge of items split over keys (kernels/softmax_merge.cuh over
// the slots of kernels/key_split.cuh) and the ping-pong turns (kernels/consumer_turns.hpp).
// Included by that file only: its namespace is anonymous, like the rest of a phase's
// translation unit.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cuda/ptx>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "kernels/attention_common.cuh"
#include "kernels/consumer_turns.hpp"
#include "kernels/e4m3_transpose.hpp"
#include "common/hopper.cuh"
#include "kernels/key_split.cuh"
#include "kernels/phase_5_traits.cuh"
#include "kernels/phase_5_work.cuh"
#include "kernels/tile_pipeline.cuh"
#include "kernels/timeline.cuh"
#include "kernels/wgmma_tile.cuh"

namespace attnlab::phase_5 {
namespace {

namespace ptx = cuda::ptx;
using namespace hopper;
using timeline::Span;

// The block's index read afresh where used (a value the producer kept across its loop costs its
// few registers a spill).
__device__ __forceinline__ int block_now() {
  unsigned b;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(b));
  return int(b);
}

// Operands that turn V inside the kernel (T::Ops::kTransposesV; SharedStorage's RawVRing): the
// transposers are the producer warpgroup's warps 1 .. 3, each thread arriving on its own at the
// barriers it passes (its generic loads and stores are then ordered by the barrier itself).
constexpr int kTransposerWarps = 3;
constexpr int kTransposerThreads = kTransposerWarps * kWarpSize;

// The producer thread's copy of V's tile j of the item (ring position pos) as stored into the raw
// ring, with the count of consumer warps that will not read it for the transposers to pass on.
template <class T, class Stamps>
__device__ __forceinline__ void load_raw_v(SharedStorage<T>& sm, const CUtensorMap* tm_v, const Work& t,
                                           KVRing<T> pos, int j, Stamps& tl) {
  tl.wait(Span::kEmptyWait, j, [&] { return sm.raw_pipe.producer_ready(pos); },
          [&] { sm.raw_pipe.producer_acquire(pos); });
  tl.begin(Span::kTmaIssue, j);
  const int key_tile = t.key_tile<T::Mask::kCausal>(j);
  sm.raw_idle[pos.stage()] = TurnsOf<T>::idle(t.q0, t.active, key_tile);
  std::uint64_t* const bar = sm.raw_pipe.producer_expect(pos, T::kKVTileBytes);
  T::Ops::template load_rows<T::kTileK, T::D>(sm.raw_v[pos.stage()], tm_v, key_tile * T::kTileK, t.kv_plane, bar);
  tl.end(Span::kTmaIssue, j);
}
// No tile at pos: the transposers stop there.
template <class T>
__device__ __forceinline__ void end_raw_v(SharedStorage<T>& sm, KVRing<T> pos) {
  sm.raw_pipe.producer_acquire(pos);
  sm.raw_idle[pos.stage()] = -1;
  ptx::mbarrier_arrive(&sm.raw_pipe.full[0][pos.stage()]);
}

// A transposer warp (0 .. kTransposerWarps - 1): for each raw tile in ring order, once V^T's stage
// of the same position is free, its share of the tile's ops (kernels/e4m3_transpose.hpp: an
// ldmatrix.x4.trans of 32 keys by 16 head-dim bytes, two byte permutes per row pair, one
// stmatrix.x4), then the thread's arrivals: V^T's stage written (after the fence that shows
// generic stores to wgmma's async proxy) and the raw stage read.
template <class T>
__device__ __forceinline__ void run_transposer(SharedStorage<T>& sm, unsigned warp, unsigned lane) {
  constexpr unsigned D = T::D;
  constexpr unsigned kBlock = T::Ops::template vt_block_keys<T::kTileK>();
  constexpr unsigned kSteps = unsigned(T::kTileK) / e4m3::kTransposeKeys;
  constexpr unsigned kChunks = D / e4m3::kTransposeBytes;
  // The lane's constants of the walk (kernels/e4m3_transpose.hpp): an op's addresses are these
  // plus the stage's, the chunk's and the step's parts.
  const e4m3::TransposeSelectors sel = e4m3::transpose_selectors(lane);
  const unsigned load_lane = e4m3::transpose_load_base(lane, D);
  const unsigned row_lane = e4m3::transpose_store_row(lane, kBlock);
  const unsigned lane_xor = e4m3::transpose_store_xor(lane, kBlock);
  for (KVRing<T> pos{};; pos = pos + 1) {
    const int stage = pos.stage();
    sm.raw_pipe.consumer_wait(pos);
    const int idle = sm.raw_idle[stage];
    if (idle < 0) return;
    sm.v_pipe.producer_acquire(pos);
    if (warp == 0 && lane == 0 && idle > 0)
      sm.v_pipe.producer_release_for(pos, std::uint32_t(idle) * (kWarpgroupThreads / kWarpSize));
    // Raw stages start at multiples of 1024 bytes (the ring's alignment, whole stages), as
    // transpose_load_chunk asks.
    static_assert(sizeof(sm.raw_v[0]) % 1024 == 0, "a raw stage is whole 1024-byte atoms");
    const unsigned load0 = smem_addr(sm.raw_v[stage]) + load_lane;
    const unsigned row0 = smem_addr(sm.v[stage]) + row_lane;
    // Not unrolled: the warps hold the producer's 24 or 32 registers, and ptxas spilled more of
    // them with the steps unrolled (kernels/NOTES.md, "FP8: phase f8": The transposer's walk).
#pragma unroll 1
    for (unsigned chunk = warp; chunk < kChunks; chunk += kTransposerWarps) {
      unsigned load = e4m3::transpose_load_chunk(load0, chunk);
      const unsigned row = row0 + chunk * e4m3::transpose_chunk_rows_bytes(kBlock);
#pragma unroll 1
      for (unsigned step = 0; step < kSteps; ++step, load += e4m3::transpose_step_bytes(D)) {
        std::uint32_t r[4];
        ldmatrix_x4_trans(load, r);
        const std::uint32_t words[4] = {__byte_perm(r[0], r[1], sel.first), __byte_perm(r[0], r[1], sel.second),
                                        __byte_perm(r[2], r[3], sel.first), __byte_perm(r[2], r[3], sel.second)};
        stmatrix_x4(row + e4m3::transpose_store_step(step, lane_xor, kBlock, T::Ops::template vt_block_rows<T::D>()), words);
      }
    }
    ptx::fence_proxy_async(ptx::space_shared);
    ptx::mbarrier_arrive(&sm.v_pipe.full[0][stage]);
    ptx::mbarrier_arrive(&sm.raw_pipe.empty[stage]);
  }
}

// The producer: one thread issues every copy, in the order the consumers use them (K of tile
// j, then V of tile j-1); a buffer is refilled once every consumer warp has released it. Ring
// positions count Q slots and K/V tiles over all of the block's work items. It alone asks the
// scheduler and passes each unit to the consumers in the Q slot it loads (sm.unit), so a
// dynamic claim is made once per item and block; the unit after the last is n_work.
template <class T, class Sched, class Stamps>
__device__ __forceinline__ void run_producer(SharedStorage<T>& sm, const CUtensorMap* tm_q,
                                             const CUtensorMap* tm_k, const CUtensorMap* tm_v,
                                             const Params<T>& p, Stamps& tl) {
  constexpr int D = T::D;
  const Sched sched(p.split, p.scratch.item_claims);
  KVRing<T> ring{};
  std::int64_t place = sched.start(block_now());
  for (QRing<T> slot{};; slot = slot + 1) {
    const KeySplit::Unit u = sched.unit(block_now(), place);
    const std::int64_t w = u.w;
    tl.wait(Span::kEmptyWait, w, [&] { return sm.q_pipe.producer_ready(slot); },
            [&] { sm.q_pipe.producer_acquire(slot); });
    sm.unit[slot.stage()] = u;
    if (w >= p.split.n_work) {  // none left: the consumers read n_work and stop
      ptx::mbarrier_arrive(&sm.q_pipe.full[0][slot.stage()]);
      if constexpr (T::Ops::kTransposesV) end_raw_v(sm, ring);
      break;
    }
    // A static scheduler's next place is arithmetic, taken now. A dynamic claim waits for the
    // item's last K tile (below): claimed with the item's first copies, every block of a grid of
    // under two rounds claimed its second item at the launch's start, in no order of cost, and
    // a block with a longest item took a short one beside blocks with none (kernels/NOTES.md,
    // "Latency sweep": Phase 5's claims at 4x16x333x128:causal). Before the last K tile the
    // claim's latency still hides behind that tile's copies and the consumers' last tile.
    std::int64_t next = Sched::kClaimsLate ? 0 : sched.advance(block_now(), u);
    const Work t = work_of<T>(p, u);
    tl.begin(Span::kItem, w);
    tl.begin(Span::kTmaIssue, w);
    T::Ops::template load_rows<T::kTileQ, D>(sm.q[slot.stage()], tm_q, t.q0, t.bh,
                                             sm.q_pipe.producer_expect(slot, T::kQBytes));
    tl.end(Span::kTmaIssue, w);
    // The warps of consumers that do not read a K/V tile release it through this thread: each
    // such arrival follows the wait that opened the tile's phase for this item. (They release
    // the Q slot themselves, after reading the item from it.) V's tile: is_v (its layout is the
    // operands', kernels/wgmma_operands.cuh). buf: the ring's first stage, of stage_elems each.
    using Elem = typename T::Elem;
    auto load = [&](Elem* buf, std::size_t stage_elems, TmaPipeline<T::kStages>& pipe, const CUtensorMap* map, int j,
                    bool is_v) {
      const KVRing<T> pos = ring + j;
      tl.wait(Span::kEmptyWait, j, [&] { return pipe.producer_ready(pos); }, [&] { pipe.producer_acquire(pos); });
      tl.producer_delay();  // the what-if's validation only (kernels/timeline.cuh)
      tl.begin(Span::kTmaIssue, j);
      Elem* const dst = buf + pos.stage() * stage_elems;
      const int key_tile = t.key_tile<T::Mask::kCausal>(j);
      const int key0 = key_tile * T::kTileK;
      std::uint64_t* const bar = pipe.producer_expect(pos, T::kKVTileBytes);
      if (is_v)
        T::Ops::template load_v<T::kTileK, D>(dst, map, key0, t.kv_plane, bar);
      else
        T::Ops::template load_rows<T::kTileK, D>(dst, map, key0, t.kv_plane, bar);
      const int idle = TurnsOf<T>::idle(t.q0, t.active, key_tile);
      if (idle > 0) pipe.producer_release_for(pos, std::uint32_t(idle) * (kWarpgroupThreads / kWarpSize));
      tl.end(Span::kTmaIssue, j);
    };
    // (One loop for all of the item's copies: a last V load after it kept n_tiles - 1 live
    // across it, which ptxas spilled at the producer's register budget.)
    const int claim_at = t.n_tiles > 0 ? t.n_tiles - 1 : 0;
    for (int j = 0; j <= t.n_tiles; ++j) {
      if constexpr (Sched::kClaimsLate) {
        if (j == claim_at) next = sched.advance(block_now(), u);
      }
      if (j < t.n_tiles) load(sm.k[0], std::size(sm.k[0]), sm.k_pipe, tm_k, j, false);
      if (j > 0) {
        if constexpr (T::Ops::kTransposesV)
          load_raw_v(sm, tm_v, t, ring + (j - 1), j - 1, tl);
        else
          load(sm.v[0], std::size(sm.v[0]), sm.v_pipe, tm_v, j - 1, true);
      }
    }
    ring = ring + t.n_tiles;
    tl.end(Span::kItem, w);
    place = next;
  }
}

// A consumer warpgroup: 64 query rows of each item, S and O in wgmma accumulators, P in
// registers. Accumulator layout: kernels/wgmma_tile.cuh.
template <class T, class Stamps>
struct Consumer {
  static constexpr int D = T::D;
  SharedStorage<T>& sm;
  const Params<T>& p;
  int consumer, tid, warp, lane;
  int row_in_tile, col_in_chunk;  // the thread's first row and column pair in a tile
  // O's rows, then (T::kSumRows) the PV GEMM's columns of each row's sum of P over one key tile.
  float o_acc[(D + T::kSumRows) / 2];
  float s_acc[T::kTileK / 2];
  std::uint32_t p_frag[T::kPVSteps][4];  // P of the previous tile (T::Ops' format) while PV reads it
  // Q's rows in registers, each QK^T k-step's A fragment, where the traits keep them there.
  std::uint32_t q_frag[T::kQInRegs ? D / 16 : 1][4];
  float m_row[2];  // running max of rows row_lo and row_lo + 8, log2 units
  float l_row[2];  // this thread's share of the running sums
  const typename T::Elem* q_tile = nullptr;  // this consumer's rows of the current item's Q slot
  Work t{};                        // the current work item
  KVRing<T> ring{};                // ring position of its first K/V tile
  int row_lo = 0;

  // O's rows without the sums' columns, for what reads or writes O itself.
  __device__ __forceinline__ float (&o_rows())[D / 2] { return *reinterpret_cast<float(*)[D / 2]>(o_acc); }

  __device__ __forceinline__ Consumer(SharedStorage<T>& s, const Params<T>& params, int warpgroup)
      : sm(s), p(params), consumer(warpgroup - 1), tid(int(threadIdx.x) % kWarpgroupThreads),
        warp(tid / kWarpSize), lane(tid % kWarpSize),
        row_in_tile(consumer * kRowsPerConsumer + warp * 16 + lane / 4), col_in_chunk(2 * (lane % 4)) {}

  // S = Q K^T of tile j into s_acc, issued without waiting. The item's first (`first`): its K
  // tile's landing ends the item's prologue (Span::kPrologue).
  __device__ __forceinline__ void issue_qk(int j, Stamps& tl, bool first = false) {
    const KVRing<T> pos = ring + j;
    tl.wait(Span::kFullWait, j, [&] { return sm.k_pipe.consumer_ready(pos); }, [&] { sm.k_pipe.consumer_wait(pos); });
    if (first) tl.end(Span::kPrologue, j);
    tl.begin(Span::kQkIssue, j);
    if constexpr (T::kQInRegs)
      qk_gemm_rs<T::kTileK, D>(s_acc, q_frag, sm.k[pos.stage()]);
    else
      T::Ops::template qk<T::kTileK, D, T::kTileQ>(s_acc, q_tile, sm.k[pos.stage()]);
    tl.end(Span::kQkIssue, j);
  }
  // O += P V of tile j from p_frag, issued without waiting.
  __device__ __forceinline__ void issue_pv(int j, Stamps& tl) {
    const KVRing<T> pos = ring + j;
    tl.wait(Span::kFullWait, j, [&] { return sm.v_pipe.consumer_ready(pos); }, [&] { sm.v_pipe.consumer_wait(pos); });
    tl.begin(Span::kPvIssue, j);
    T::Ops::template pv<T::kTileK, D>(o_acc, p_frag, sm.v[pos.stage()]);
    tl.end(Span::kPvIssue, j);
  }
  // Q's fragment is read by every QK^T of the item: once one has completed, its registers are
  // pinned there, so none is reused while a wgmma may still read it.
  __device__ __forceinline__ void fence_q() {
    if constexpr (T::kQInRegs) fence_operands(q_frag);
  }
  // Waits for PV of tile j (every GEMM group of the consumer), then gives its V stage back.
  __device__ __forceinline__ void finish_pv(int j, Stamps& tl) {
    tl.begin(Span::kWgmmaWait, j);
    wgmma_wait<0>();
    tl.end(Span::kWgmmaWait, j);
    fence_operands(o_acc);
    fence_operands(p_frag);
    sm.v_pipe.consumer_release(ring + j, lane);
    // Each of a row's four lanes holds the tile's whole sum, so each adds a quarter (exact in
    // binary), and row_sums' shuffles give it back whole, as they do the softmax's shares.
    if constexpr (T::kSumRows > 0) {
      l_row[0] += 0.25f * o_acc[D / 2];
      l_row[1] += 0.25f * o_acc[D / 2 + 2];
    }
  }
  // O (and, where PV sums the rows, the sums so far) to the rows' new maxima. Where PV sums the
  // rows, each PV sums one tile's from zero, and finish_pv adds them to l_row in fp32: run on
  // across a row in the e4m3 GEMM's accumulation, which keeps fewer bits than fp32, the running
  // sum lost the small tiles' bits, and the FP8 gate failed at S 8192. The sums' columns are
  // zeroed here, beside O's multiplies, and by a multiply (the sums are finite): set to a
  // constant zero, before the PV's issue or here, the accumulators made ptxas serialise the
  // kernel's wgmmas (C7511, "insufficient register resources for the wgmma pipeline"), and f8
  // ran 9% slower (kernels/NOTES.md, "FP8: phase f8": Row sums by the PV GEMM).
  __device__ __forceinline__ void rescale(const float (&corr)[2]) {
    rescale_o<D>(o_rows(), corr);
    if constexpr (T::kSumRows > 0) {
      l_row[0] *= corr[0];
      l_row[1] *= corr[1];
#pragma unroll
      for (int i = D / 2; i < (D + T::kSumRows) / 2; ++i) o_acc[i] *= 0.f;
    }
  }
  // Online softmax of tile j in s_acc (in place, log2 units), after T::Mask where the tile may
  // need it (kMayMask); corr: each row's factor for O.
  template <bool kMayMask>
  __device__ __forceinline__ void softmax(int j, float (&corr)[2], Stamps& tl) {
    tl.begin(Span::kSoftmax, j);
    if constexpr (kMayMask)
      mask_tile<typename T::Mask, T::kTileK>(s_acc, t.key_tile<T::Mask::kCausal>(j) * T::kTileK,
                                             t.q0 + consumer * kRowsPerConsumer, row_lo, col_in_chunk, p.S);
    online_softmax<T::kTileK, T::Ops::kPLog2Scale, SoftmaxRows::kInterleaved, T::Ops::template log_linear_p<D>(),
                   T::kSumRows == 0>(
        s_acc, m_row, l_row, corr, p.scale_log2);
    tl.end(Span::kSoftmax, j);
  }
  // Ping-pong (FA3): consumers take turns on the tensor cores, so one's softmax runs while
  // another's GEMMs issue. Consumer c issues its GEMMs after its turn barrier, which the
  // consumer before it in the turn order arrives at once it has issued its own
  // (kernels/consumer_turns.hpp: turn j goes to the consumers that read key tile j, or for the
  // last turn j - 1; the item's last turn hands over to consumer 0 of the next).
  static constexpr int kPairThreads = 2 * kWarpgroupThreads;
  __device__ __forceinline__ void turn_wait(Stamps& tl) {
    tl.begin(Span::kPingPongWait, consumer);
    named_barrier_sync(kTurnBarrier + consumer, kPairThreads);
    tl.end(Span::kPingPongWait, consumer);
  }
  __device__ __forceinline__ void turn_signal(int j) {
    named_barrier_arrive(TurnsOf<T>::signal_to(t.q0, t.active, consumer, t.key_tile<T::Mask::kCausal>(j), p.S),
                         kPairThreads);
  }
  __device__ __forceinline__ void run_tiles(int n_mine, QRing<T> slot, Stamps& tl);
  __device__ __forceinline__ bool merge_split(std::int64_t w, Stamps& tl);
  __device__ __forceinline__ void epilogue(const CUtensorMap* tm_o, Stamps& tl);
  __device__ __forceinline__ void store_lse();
};

// The tiles of the consumer's rows: n_mine turns, each issuing QK^T of tile j and PV of tile
// j - 1, then the last PV. The softmax of tile j comes before the wait for PV in the source, yet
// ptxas puts the wait ahead of it (FA3's intra-warpgroup overlap does not happen; the ping-pong
// overlaps one consumer's softmax with another's GEMMs). Forcing it into the SASS reads slower
// (kernels/NOTES.md, "Why phase 5 and d4 are as they are": the softmax before the PV wait, left
// to ptxas). The Q slot goes back to the producer after the consumer's last QK^T.
template <class T, class Stamps>
__device__ __forceinline__ void Consumer<T, Stamps>::run_tiles(int n_mine, QRing<T> slot, Stamps& tl) {
  auto release = [&](TmaPipeline<T::kStages>& pipe, int j) { pipe.consumer_release(ring + j, lane); };
  // (With Q in registers the slot went back when it was read: run_consumer.)
  auto release_q = [&] {
    if constexpr (!T::kQInRegs) sm.q_pipe.consumer_release(slot, lane);
  };
  float corr[2];
  turn_wait(tl);
  issue_qk(0, tl, true);
  turn_signal(0);
  tl.begin(Span::kWgmmaWait, 0);
  wgmma_wait<0>();
  tl.end(Span::kWgmmaWait, 0);
  fence_operands(s_acc);
  fence_q();
  release(sm.k_pipe, 0);
  if (n_mine == 1) release_q();
  softmax<true>(0, corr, tl);  // O is still zero: no correction
  T::Ops::template pack<T::kTileK, D>(s_acc, p_frag);
  // A turn past the first; mask: whether its tile may need the mask (std::bool_constant).
  auto turn = [&](int j, auto mask) {
    turn_wait(tl);
    issue_qk(j, tl);
    issue_pv(j - 1, tl);
    turn_signal(j);
    tl.begin(Span::kWgmmaWait, j);
    wgmma_wait<1>();  // groups complete in order: QK^T of tile j is done
    tl.end(Span::kWgmmaWait, j);
    fence_operands(s_acc);
    fence_q();
    release(sm.k_pipe, j);
    if (j == n_mine - 1) release_q();
    softmax<decltype(mask)::value>(j, corr, tl);
    finish_pv(j - 1, tl);
    rescale(corr);
    T::Ops::template pack<T::kTileK, D>(s_acc, p_frag);
  };
  // No loop of turns branches round the mask. Without the causal mask the one tile that may need
  // it ran first (Work::key_tile). Under it, the tiles wholly below the consumer's first row and
  // S run first in a loop of their own, then the diagonal's in another; but not on tiles past 128
  // keys, whose turn twice over measured slower than the branch (kernels/NOTES.md, "FP8: phase
  // f8": No branch round the mask).
  int j = 1;
  if constexpr (T::Mask::kCausal && T::kTileK > 128) {
    for (; j < n_mine; ++j) turn(j, std::true_type{});
  } else if constexpr (T::Mask::kCausal) {
    const int first_row = t.q0 + consumer * kRowsPerConsumer;
    const int unmasked = (first_row + 1 < p.S ? first_row + 1 : p.S) / T::kTileK - t.k0;
    for (; j < unmasked && j < n_mine; ++j) turn(j, std::false_type{});
    for (; j < n_mine; ++j) turn(j, std::true_type{});
  } else {
    for (; j < n_mine; ++j) turn(j, std::false_type{});
  }
  // The staging tile's previous store has read it once thread 0 passes this: the whole
  // warpgroup then knows it through the turn's barrier (thread 0's warp arrives after it).
  if (T::kStageO && tid == 0) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  turn_wait(tl);
  issue_pv(n_mine - 1, tl);
  turn_signal(n_mine);
  finish_pv(n_mine - 1, tl);
}

// An item split over keys (KeySplit): the block of its later tiles saves their partial in its
// slot and is done with the item (returns true); the block of its earlier tiles (the one
// before) merges that partial into its own.
template <class T, class Stamps>
__device__ __forceinline__ bool Consumer<T, Stamps>::merge_split(std::int64_t w, Stamps& tl) {
  if (!(T::kSplit && (t.k0 > 0 || t.merges))) return false;
  const int b = int(blockIdx.x) + (t.k0 > 0 ? 0 : 1);
  float4* const part = p.scratch.split_partials + std::size_t(b) * kSlotVectors +
                       consumer * SplitSlot<D, T::kConsumers>::kConsumerVectors;
  static_assert(T::kConsumers <= kMostConsumers, "a ready flag per consumer warp");
  unsigned* const ready = p.scratch.split_ready + (b * kMostConsumers + consumer) * kSplitWarps + warp;
  const SplitTransport<D> slot{part, ready, tid};
  if (t.k0 > 0) {
    slot.send(o_rows(), m_row, l_row);
    tl.end(Span::kItem, w);
    return true;
  }
  slot.merge_into(o_rows(), m_row, l_row);
  return false;
}

// Each of the thread's rows' log-sum-exp in natural-log units, from the running maximum m and
// the row's sum l (both log2 units, l scaled by 2^PLog2Scale): ln(sum_j exp(scale q.k_j)) =
// (m + log2 l - PLog2Scale) ln 2. After merge_split, so a row split over keys has both halves'
// keys. One lane of the row's four writes it; rows at or past S are not written.
template <class T, class Stamps>
__device__ __forceinline__ void Consumer<T, Stamps>::store_lse() {
  constexpr float kLn2 = 0.6931471805599453f;
  float l[2];
  row_sums(l_row, l);
  if (col_in_chunk != 0) return;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = row_lo + 8 * r;
    if (row < p.S)
      p.lse[std::int64_t(t.bh) * p.S + row] = (m_row[r] + log2f(l[r]) - float(T::Ops::kPLog2Scale)) * kLn2;
  }
}

// O / l of the consumer's rows: staged in shared memory and stored by TMA (rows past S clipped
// by the tensor map) where the traits have room for the staging tile, else from registers.
template <class T, class Stamps>
__device__ __forceinline__ void Consumer<T, Stamps>::epilogue(const CUtensorMap* tm_o, Stamps& tl) {
  float inv_l[2];
  row_inverse_sums(l_row, inv_l);
  T::Ops::scale_output(p, inv_l);
  if constexpr (T::kStageO) {
    // The staging tile is free: its previous store finished reading it before this item's last
    // turn (run_tiles).
    __half* const o_stage = sm.o + consumer * kRowsPerConsumer * kSwizzleHalves;
    stage_o_rows<D, T::kTileQ>(o_stage, o_rows(), inv_l);
    // The copy engine reads what these threads wrote: their generic-proxy writes are made
    // visible to the async proxy, then the warpgroup meets before its thread 0 issues.
    ptx::fence_proxy_async(ptx::space_shared);
    named_barrier_sync(kStoreBarrier + consumer, kWarpgroupThreads);
    if (tid == 0) tma_store_o_rows<D, T::kTileQ>(tm_o, o_stage, t.q0 + consumer * kRowsPerConsumer, t.bh);
  } else {
    store_o_rows<D>(p.o + std::int64_t(t.bh) * p.S * D, o_rows(), inv_l, row_lo, col_in_chunk, p.S);
  }
}

// The work unit whose Q the slot holds; item n_work when none is left. Lane 0 of each warp
// reads it, the lane that later releases the slot for the warp, so the read is ordered before
// the producer's next write by the q_empty arrival of the thread that made it.
template <class T, class Stamps>
__device__ __forceinline__ KeySplit::Unit next_unit(SharedStorage<T>& sm, QRing<T> slot, int lane, Stamps& tl) {
  tl.wait(Span::kFullWait, 0, [&] { return sm.q_pipe.consumer_ready(slot); }, [&] { sm.q_pipe.consumer_wait(slot); });
  KeySplit::Unit u{0, 0, 0};
  if (lane == 0) u = sm.unit[slot.stage()];
  u.w = __shfl_sync(kFullMask, u.w, 0);
  if constexpr (T::kSplit) {
    u.k0 = __shfl_sync(kFullMask, u.k0, 0);
    u.k1 = __shfl_sync(kFullMask, u.k1, 0);
  }
  return u;
}

// A consumer's items, until the producer passes n_work. One whose rows all lie past S (in a
// head's last query block where S does not fill the tile) skips the item: it releases the Q
// slot it read the item from, the producer releases its share of the K/V tiles, and the others
// pass the turns among themselves. The last consumer's first turn arrival comes before any
// work; consumer 0 takes the final one with one more wait when no item is left, so every
// barrier is balanced at exit and no consumer needs to know its last item in advance.
template <class T, class Stamps>
__device__ __forceinline__ void run_consumer(SharedStorage<T>& sm, const CUtensorMap* tm_o, const Params<T>& p,
                                             int warpgroup, Stamps& tl) {
  Consumer<T, Stamps> c(sm, p, warpgroup);
  if (c.consumer == T::kConsumers - 1) named_barrier_arrive(kTurnBarrier, Consumer<T, Stamps>::kPairThreads);
  QRing<T> slot{};
  for (KeySplit::Unit u = next_unit(sm, slot, c.lane, tl); u.w < p.split.n_work;
       slot = slot + 1, u = next_unit(sm, slot, c.lane, tl)) {
    [[maybe_unused]] const std::int64_t w = u.w;  // the timeline's stamps
    c.t = work_of<T>(p, u);
    if (c.t.active < T::kConsumers && c.consumer >= c.t.active) {
      sm.q_pipe.consumer_release(slot, c.lane);
      c.ring = c.ring + c.t.n_tiles;
      continue;
    }
    // Without the mask every other consumer reads all of the item's tiles.
    const int n_mine = T::Mask::kCausal ? TurnsOf<T>::tiles(c.t.q0, c.consumer, p.S) : c.t.n_tiles;
    tl.begin(Span::kItem, w);
    c.row_lo = c.t.q0 + c.row_in_tile;
    c.q_tile = sm.q[slot.stage()] + c.consumer * kRowsPerConsumer * T::Ops::template row_elems<T::D>();
    if constexpr (T::kQInRegs) {
      load_q_fragment<T::D, T::kTileQ>(c.q_frag, c.q_tile, c.warp, c.lane);
      sm.q_pipe.consumer_release(slot, c.lane);
    }
#pragma unroll
    for (int i = 0; i < (T::D + T::kSumRows) / 2; ++i) c.o_acc[i] = 0.f;
    c.m_row[0] = c.m_row[1] = kNegInf;
    c.l_row[0] = c.l_row[1] = 0.f;
    c.run_tiles(n_mine, slot, tl);
    c.ring = c.ring + c.t.n_tiles;
    if constexpr (T::kEmitsLse && kLseBeforeMerge) c.store_lse();
    if (c.merge_split(w, tl)) continue;
    tl.begin(Span::kEpilogue, w);
    if constexpr (T::kEmitsLse && !kLseBeforeMerge) c.store_lse();
    c.epilogue(tm_o, tl);
    tl.end(Span::kEpilogue, w);
    tl.end(Span::kItem, w);
  }
  // Shared memory must outlive the reads of the last store.
  if (T::kStageO && c.tid == 0) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
  if (c.consumer == 0) named_barrier_sync(kTurnBarrier, Consumer<T, Stamps>::kPairThreads);  // the last consumer's final arrival
}

// Persistent: one block per SM walks work items, the first its own index, the next from the
// scheduler Sched (kernels/tile_pipeline.cuh), so the producer loads the next item's Q and K/V
// while the consumers finish the current one. The kernels' body (kernels/phase_5_launch.cuh):
// `entry`, the stamped kernel's (timeline::KernelEntry), none in the timed one.
template <class T, class Sched, class Stamps, class... Entry>
__device__ __forceinline__ void attention_block(const CUtensorMap& tm_q, const CUtensorMap& tm_k,
                                                const CUtensorMap& tm_v, const CUtensorMap& tm_o, const Params<T>& p,
                                                const Entry&... entry) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(Sched::kSplitsKeys == T::kSplit || !Sched::kSplitsKeys, "only split kernels split");
  extern __shared__ unsigned char smem_raw[];
  // Dynamic shared memory is only 16-byte aligned; swizzle atoms need 1024.
  const auto raw = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  auto& sm = *reinterpret_cast<SharedStorage<T>*>(smem_raw + ((1024 - raw % 1024) % 1024));

  // Broadcast from lane 0, so ptxas knows it is warp-uniform: branches on it (the producer, a
  // consumer's idle items) then keep the consumers' loop-carried values (ring positions,
  // addresses, wgmma descriptors) in uniform registers. Computed from threadIdx.x alone, a
  // branch on it inside the item loop costs those registers and reads slower (kernels/NOTES.md,
  // "Why phase 5 and d4 are as they are": the warpgroup index broadcast from lane 0).
  const int warpgroup = __shfl_sync(kFullMask, int(threadIdx.x) / kWarpgroupThreads, 0);
  constexpr int kConsumerWarps = T::kConsumers * kWarpgroupThreads / kWarpSize;
  if constexpr (T::kSumRows > 0) {
    // V^T's rows of ones (Ops::pv_sum_rows), shown to wgmma's async proxy before the barrier.
    for (int stage = 0; stage < T::kStages; ++stage)
      T::Ops::template write_sum_rows<T::kTileK, T::D>(sm.v[stage], int(threadIdx.x), T::kThreads);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  if (threadIdx.x == 0) {
    sm.q_pipe.init(kConsumerWarps);
    sm.k_pipe.init(kConsumerWarps);
    // V^T's stages: written by TMA (one announcement of the bytes) or by the transposers.
    sm.v_pipe.init(kConsumerWarps, T::Ops::kTransposesV ? kTransposerThreads : 1);
    if constexpr (T::Ops::kTransposesV) sm.raw_pipe.init(kTransposerThreads);
    // The copy engine (async proxy) will complete transactions on these barriers.
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();

  // The recorders are made past the block barrier, so that nothing of theirs delays the
  // producer's first copy (timeline::ProducerStamps: none for a producer whose policy stamps no
  // copies).
  if (warpgroup == 0) {
    setmaxnreg_dec<T::kProducerRegs>();
    timeline::ProducerStamps<Stamps> tl{entry...};
    if (threadIdx.x == 0) run_producer<T, Sched, decltype(tl)>(sm, &tm_q, &tm_k, &tm_v, p, tl);
    if constexpr (T::Ops::kTransposesV) {
      const int warp = int(threadIdx.x) / kWarpSize;
      if (warp > 0) run_transposer<T>(sm, unsigned(warp - 1), threadIdx.x % kWarpSize);
    }
    return;
  }
  setmaxnreg_inc<T::kConsumerRegs>();
  Stamps tl{entry...};
  run_consumer<T, Stamps>(sm, &tm_o, p, warpgroup, tl);
#else
  __trap();  // built without sm_90a: launch() refuses before getting here
#endif
}

}  // namespace
}  // namespace attnlab::phase_5
