// Phase 5's kernel: the producer warpgroup and the consumer warpgroups of a persistent block
// (kernels/phase_5_wgmma.cu describes the technique and launches it; kernels/phase_5_traits.cuh
// has the tile shapes and the shared-memory layout). Included by that file only: its
// namespace is anonymous, like the rest of a phase's translation unit.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cuda/ptx>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/consumer_turns.hpp"
#include "kernels/hopper.cuh"
#include "kernels/key_split.cuh"
#include "kernels/phase_5_traits.cuh"
#include "kernels/tile_pipeline.cuh"
#include "kernels/timeline.cuh"
#include "kernels/wgmma_tile.cuh"

namespace attnlab::phase_5 {
namespace {

namespace ptx = cuda::ptx;
using namespace hopper;

// A launch's scratch, in the workspace its caller passes (Problem::workspace, zeroed once when
// allocated; launch_with carves it): the dynamic scheduler's counter, and the partials of items
// split over keys, a slot per block, with their ready flags (kernels/key_split.cuh). Every launch
// leaves the counter and the flags at zero, so launches in one stream share a workspace, and two
// launches in flight at once (two streams) each need their own.
// A slot is sized for the largest of the kernels' consumer counts and tiles (three at D = 64, two
// at 128).
constexpr int kMostConsumers = 3;
constexpr int kSlotVectors = std::max(SplitSlot<64, kMostConsumers>::kVectors, SplitSlot<128, 2>::kVectors);
struct Scratch {
  unsigned long long* item_claims;
  unsigned* split_ready;   // kMostConsumers * kSplitWarps per slot
  float4* split_partials;  // kSlotVectors per slot
};

template <class T, int D = T::D>
__global__ void __launch_bounds__(T::kThreads, 1)
    attention_kernel(const __grid_constant__ CUtensorMap tm_q,
                     const __grid_constant__ CUtensorMap tm_k,
                     const __grid_constant__ CUtensorMap tm_v,
                     const __grid_constant__ CUtensorMap tm_o, __half* __restrict__ o, int H,
                     int H_kv, int S, float scale_log2, WorkOrder order, KeySplit split,
                     bool dynamic, Scratch scratch) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
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
  ATTNLAB_TL_INIT();
  // Persistent: one block per SM walks work items, the first blockIdx.x, the next from the
  // scheduler, so the producer loads the next item's Q and K/V while the consumers finish the
  // current one. The producer alone asks the scheduler and passes each item to the consumers
  // in the Q slot it loads (sm.unit), so a dynamic claim is made once per item and block.
  using Turns = ConsumerTurns<T::kConsumers, kRowsPerConsumer, T::kTileK, T::Mask::kCausal>;
  struct Work {
    int bh, kv_plane, q0;
    int k0, n_tiles;  // the unit's key tiles: [k0, k0 + n_tiles) of the item's
    bool merges;      // the item's later tiles run elsewhere (KeySplit): merge their partial
    int active;       // consumers with rows below S (all but in a head's last block)
  };
  const std::int64_t n_work = split.n_work;
  auto work_item = [&](const KeySplit::Unit& u) {
    const WorkOrder::Item it = order.item(u.w);
    Work t;
    t.bh = it.bh;
    const int b = t.bh / H;
    t.kv_plane = b * H_kv + (t.bh - b * H) / (H / H_kv);
    t.q0 = it.m_block * T::kTileQ;
    const int all = T::Mask::key_tiles(t.q0, T::kTileQ, S, T::kTileK);
    t.k0 = T::kSplit ? u.k0 : 0;
    t.n_tiles = T::kSplit && u.k1 < all ? u.k1 - u.k0 : all - t.k0;
    t.merges = T::kSplit && u.k1 < all;
    t.active = Turns::active(t.q0, S);
    return t;
  };
  using QRing = RingPosition<T::kQStages>;
  using KVRing = RingPosition<T::kStages>;
  constexpr int kConsumerWarps = T::kConsumers * kWarpgroupThreads / kWarpSize;

  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < T::kQStages; ++s) {
      ptx::mbarrier_init(&sm.q_full[s], 1);
      ptx::mbarrier_init(&sm.q_empty[s], kConsumerWarps);
    }
#pragma unroll
    for (int s = 0; s < T::kStages; ++s) {
      ptx::mbarrier_init(&sm.k_full[s], 1);
      ptx::mbarrier_init(&sm.v_full[s], 1);
      ptx::mbarrier_init(&sm.k_empty[s], kConsumerWarps);
      ptx::mbarrier_init(&sm.v_empty[s], kConsumerWarps);
    }
    // The copy engine (async proxy) will complete transactions on these barriers.
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();

  if (warpgroup == 0) {
    // Producer: one thread issues every copy, in the order the consumers use them (K of tile
    // j, then V of tile j-1); a buffer is refilled once every consumer warp has released it.
    // Ring positions count Q slots and K/V tiles over all of the block's work items.
    setmaxnreg_dec<T::kProducerRegs>();
    if (threadIdx.x == 0) {
      const DynamicScheduler claims{scratch.item_claims, n_work};
      // A claimed item runs whole: its unit's key tiles end at the item's.
      auto whole = [](std::int64_t w) { return KeySplit::Unit{w, 0, 1 << 30}; };
      KVRing ring{};
      // The block's index read afresh where used (a value kept across the loop costs this
      // thread's few registers a spill), and its place: the item claimed, or its place in the
      // static sequence (KeySplit).
      auto block = [] {
        unsigned b;
        asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(b));
        return int(b);
      };
      std::int64_t place = dynamic || !T::kSplit ? block() : split.start(block());
      for (QRing slot{};; slot = slot + 1) {
        const int qs = slot.stage();
        const KeySplit::Unit u = dynamic || !T::kSplit ? whole(place) : split.unit(block(), place);
        const std::int64_t w = u.w;
        ATTNLAB_TL_BEGIN(kEmptyWait, w);
        wait_barrier(&sm.q_empty[qs], slot.phase() ^ 1);
        ATTNLAB_TL_END(kEmptyWait, w);
        sm.unit[qs] = u;
        if (w >= n_work) {  // none left: the consumers read n_work and stop
          ptx::mbarrier_arrive(&sm.q_full[qs]);
          break;
        }
        // Claimed now, used after this item's copies: the atomic's latency hides behind them.
        const std::int64_t next = dynamic     ? claims.next(w)
                                  : T::kSplit ? split.advance(block(), u)
                                              : w + gridDim.x;
        const Work t = work_item(u);
        ATTNLAB_TL_BEGIN(kItem, w);
        ATTNLAB_TL_BEGIN(kTmaIssue, w);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                       &sm.q_full[qs], std::uint32_t{T::kQBytes});
        tma_load_tile<D>(sm.q[qs], &tm_q, T::kTileQ, t.q0, t.bh, &sm.q_full[qs]);
        ATTNLAB_TL_END(kTmaIssue, w);
        // The warps of consumers that do not read a K/V tile release it through this thread:
        // each such arrival follows the wait that opened the tile's phase for this item. (They
        // release the Q slot themselves, after reading the item from it.)
        auto idle_warps = [&](int j) {
          return std::uint32_t(Turns::idle(t.q0, t.active, t.k0 + j)) * (kWarpgroupThreads / kWarpSize);
        };
        auto load = [&](__half (&buf)[T::kStages][T::kTileK * D], std::uint64_t* full,
                        std::uint64_t* empty, const CUtensorMap* map, int j) {
          const KVRing pos = ring + j;
          const int s = pos.stage();
          ATTNLAB_TL_BEGIN(kEmptyWait, j);
          wait_barrier(&empty[s], pos.phase() ^ 1);
          ATTNLAB_TL_END(kEmptyWait, j);
          ATTNLAB_TL_BEGIN(kTmaIssue, j);
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                         &full[s], std::uint32_t{T::kKVTileBytes});
          tma_load_tile<D>(buf[s], map, T::kTileK, (t.k0 + j) * T::kTileK, t.kv_plane, &full[s]);
          if (const std::uint32_t idle = idle_warps(j); idle > 0) ptx::mbarrier_arrive(&empty[s], idle);
          ATTNLAB_TL_END(kTmaIssue, j);
        };
        // (One loop for all of the item's copies: a last V load after it kept n_tiles - 1 live
        // across it, which ptxas spilled at the producer's register budget.)
        for (int j = 0; j <= t.n_tiles; ++j) {
          if (j < t.n_tiles) load(sm.k, sm.k_full, sm.k_empty, &tm_k, j);
          if (j > 0) load(sm.v, sm.v_full, sm.v_empty, &tm_v, j - 1);
        }
        ring = ring + t.n_tiles;
        ATTNLAB_TL_END(kItem, w);
        place = next;
      }
    }
    return;
  }

  setmaxnreg_inc<T::kConsumerRegs>();
  const int consumer = warpgroup - 1;
  const int tid = int(threadIdx.x) % kWarpgroupThreads;
  const int warp = tid / kWarpSize;
  const int lane = tid % kWarpSize;
  // The thread's first row and column pair in the accumulator layout (kernels/wgmma_tile.cuh).
  const int row_in_tile = consumer * kRowsPerConsumer + warp * 16 + lane / 4;
  const int col_in_chunk = 2 * (lane % 4);

  float o_acc[D / 2];
  float s_acc[T::kTileK / 2];
  std::uint32_t p_frag[T::kPVSteps][4];  // P of the previous tile, fp16, while PV reads it
  float m_row[2];  // running max of rows row_lo and row_lo + 8, log2 units
  float l_row[2];  // this thread's share of the running sums
  const __half* q_tile = nullptr;  // this consumer's rows of the current item's Q slot
  Work t{};                        // the current work item
  KVRing ring{};                   // ring position of its first K/V tile
  int row_lo = 0;

  // S = Q K^T for tile j into s_acc, issued without waiting. Q and K are both K-major (D
  // contiguous); a k-step is 16 halves = 32 bytes inside a 128-byte swizzle row, the next
  // column block after four steps.
  auto issue_qk = [&](int j) {
    const KVRing pos = ring + j;
    const int s = pos.stage();
    ATTNLAB_TL_BEGIN(kFullWait, j);
    wait_barrier(&sm.k_full[s], pos.phase());
    ATTNLAB_TL_END(kFullWait, j);
    ATTNLAB_TL_BEGIN(kQkIssue, j);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < T::kQKSteps; ++kk) {
      const int cb = kk / 4;
      const int within = (kk % 4) * 16;
      const std::uint64_t da = smem_desc_sw128(q_tile + cb * T::kTileQ * kSwizzleHalves + within,
                                               16, kSwizzleAtomBytes);
      const std::uint64_t db = smem_desc_sw128(sm.k[s] + cb * T::kTileK * kSwizzleHalves + within,
                                               16, kSwizzleAtomBytes);
      wgmma_ss<T::kTileK>(s_acc, da, db, kk > 0);
    }
    wgmma_commit();
    ATTNLAB_TL_END(kQkIssue, j);
  };
  // O += P V for tile j from p_frag, issued without waiting. V is [keys][D], MN-major for this
  // product; a k-step is 16 keys = two swizzle atoms.
  auto issue_pv = [&](int j) {
    const KVRing pos = ring + j;
    const int s = pos.stage();
    ATTNLAB_TL_BEGIN(kFullWait, j);
    wait_barrier(&sm.v_full[s], pos.phase());
    ATTNLAB_TL_END(kFullWait, j);
    ATTNLAB_TL_BEGIN(kPvIssue, j);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < T::kPVSteps; ++kk) {
      const std::uint64_t db = smem_desc_sw128(sm.v[s] + kk * 16 * kSwizzleHalves,
                                               T::kTileK * kSwizzleBytes, kSwizzleAtomBytes);
      wgmma_rs_mn<D>(o_acc, p_frag[kk], db, 1);
    }
    wgmma_commit();
    ATTNLAB_TL_END(kPvIssue, j);
  };
  // Once a GEMM of tile j has completed, the buffer it read goes back to the producer.
  auto release = [&](std::uint64_t* bar) {
    __syncwarp();
    if (lane == 0) ptx::mbarrier_arrive(bar);
  };
  auto release_k = [&](int j) { release(&sm.k_empty[(ring + j).stage()]); };
  auto release_v = [&](int j) { release(&sm.v_empty[(ring + j).stage()]); };
  // Online softmax of tile j in s_acc (in place, log2 units): masks what T::Mask hides (keys
  // past S, causal: keys after the row) on the tiles that hold such keys for this consumer's
  // rows; returns each row's correction factor for O.
  auto softmax = [&](int j, float (&corr)[2]) {
    ATTNLAB_TL_BEGIN(kSoftmax, j);
    const int key0 = (t.k0 + j) * T::kTileK;
    if (T::Mask::tile_needs_mask(key0, T::kTileK, t.q0 + consumer * kRowsPerConsumer, S)) {
#pragma unroll
      for (int i = 0; i < T::kTileK / 8; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int key = key0 + 8 * i + col_in_chunk + (e & 1);
          const int row = row_lo + 8 * (e >> 1);
          if (T::Mask::masked(key, row, S)) s_acc[4 * i + e] = kNegInf;
        }
    }
    online_softmax<T::kTileK>(s_acc, m_row, l_row, corr, scale_log2);
    ATTNLAB_TL_END(kSoftmax, j);
  };
  // P as fp16 in the register-A layout of the PV wgmma: for keys 16kk..16kk+15 it is the
  // accumulator chunks 2kk and 2kk+1 (rows lo, hi of each), which is the same ownership.
  auto pack_p = [&] {
#pragma unroll
    for (int kk = 0; kk < T::kPVSteps; ++kk)
#pragma unroll
      for (int x = 0; x < 4; ++x)
        p_frag[kk][x] = pack_half2(s_acc[8 * kk + 2 * x], s_acc[8 * kk + 2 * x + 1]);
  };

  // Ping-pong (FA3): consumers take turns on the tensor cores, so one's softmax runs while
  // another's GEMMs issue. Consumer c issues its GEMMs after named barrier 1 + c, which the
  // consumer before it in the turn order arrives at once it has issued its own. A consumer
  // that reads n of the item's key tiles issues n + 1 times (tile 0's QK^T, n - 1 overlapped
  // pairs, the last PV); turn j goes to the consumers that have it, in consumer order
  // (kernels/consumer_turns.hpp), and the item's last turn hands over to consumer 0 of the
  // next. The last consumer's first arrival comes before any work; consumer 0 takes the final
  // one with one more wait when no item is left, so every barrier is balanced at exit and no
  // consumer needs to know its last item in advance.
  constexpr int kPairThreads = 2 * kWarpgroupThreads;
  auto sched_wait = [&] { named_barrier_sync(1 + consumer, kPairThreads); };
  // Turn j of an item belongs to the consumers whose rows read key tile j (or, for the last
  // turn, j - 1), in consumer order (kernels/consumer_turns.hpp).
  auto sched_signal = [&](int j) {
    named_barrier_arrive(Turns::signal_to(t.q0, t.active, consumer, t.k0 + j, S), kPairThreads);
  };
  if (consumer == T::kConsumers - 1) named_barrier_arrive(1, kPairThreads);

  // The work unit whose Q the slot holds; item n_work when none is left. Lane 0 of each warp
  // reads it, the lane that later releases the slot for the warp, so the read is ordered before
  // the producer's next write by the q_empty arrival of the thread that made it.
  auto next_unit = [&](QRing slot) {
    ATTNLAB_TL_BEGIN(kFullWait, 0);
    wait_barrier(&sm.q_full[slot.stage()], slot.phase());
    ATTNLAB_TL_END(kFullWait, 0);
    KeySplit::Unit u{0, 0, 0};
    if (lane == 0) u = sm.unit[slot.stage()];
    u.w = __shfl_sync(kFullMask, u.w, 0);
    if constexpr (T::kSplit) {
      u.k0 = __shfl_sync(kFullMask, u.k0, 0);
      u.k1 = __shfl_sync(kFullMask, u.k1, 0);
    }
    return u;
  };
  QRing slot{};
  for (KeySplit::Unit u = next_unit(slot); u.w < n_work; slot = slot + 1, u = next_unit(slot)) {
    [[maybe_unused]] const std::int64_t w = u.w;  // the timeline's stamps
    t = work_item(u);
    // A consumer whose rows all lie past S (in a head's last query block where S does not fill
    // the tile) skips the item: it releases the Q slot it read the item from, the producer
    // releases its share of the K/V tiles, and the others pass the turns among themselves.
    if (t.active < T::kConsumers && consumer >= t.active) {
      release(&sm.q_empty[slot.stage()]);
      ring = ring + t.n_tiles;
      continue;
    }
    // Without the mask every other consumer reads all of the item's tiles.
    const int n_mine = T::Mask::kCausal ? Turns::tiles(t.q0, consumer, S) : t.n_tiles;
    ATTNLAB_TL_BEGIN(kItem, w);
    row_lo = t.q0 + row_in_tile;
    q_tile = sm.q[slot.stage()] + consumer * kRowsPerConsumer * kSwizzleHalves;
    std::uint64_t* const q_empty = &sm.q_empty[slot.stage()];
#pragma unroll
    for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.f;
    m_row[0] = m_row[1] = kNegInf;
    l_row[0] = l_row[1] = 0.f;

    float corr[2];
    ATTNLAB_TL_BEGIN(kPingPongWait, consumer);
    sched_wait();
    ATTNLAB_TL_END(kPingPongWait, consumer);
    issue_qk(0);
    sched_signal(0);
    ATTNLAB_TL_BEGIN(kWgmmaWait, 0);
    wgmma_wait<0>();
    ATTNLAB_TL_END(kWgmmaWait, 0);
    fence_operands(s_acc);
    release_k(0);
    if (n_mine == 1) release(q_empty);
    softmax(0, corr);  // O is still zero: no correction
    pack_p();
    // QK^T of tile j and PV of tile j-1 issue in one turn. The softmax of tile j comes before
    // the wait for PV in the source, yet ptxas puts the wait ahead of it (FA3's intra-warpgroup
    // overlap does not happen; the ping-pong overlaps one consumer's softmax with another's GEMMs).
    // Forcing it into the SASS reads slower (kernels/NOTES.md, "Why phase 5 and d4 are as they
    // are": the softmax before the PV wait, left to ptxas).
    for (int j = 1; j < n_mine; ++j) {
      ATTNLAB_TL_BEGIN(kPingPongWait, consumer);
      sched_wait();
      ATTNLAB_TL_END(kPingPongWait, consumer);
      issue_qk(j);
      issue_pv(j - 1);
      sched_signal(j);
      ATTNLAB_TL_BEGIN(kWgmmaWait, j);
      wgmma_wait<1>();  // groups complete in order: QK^T of tile j is done
      ATTNLAB_TL_END(kWgmmaWait, j);
      fence_operands(s_acc);
      release_k(j);
      if (j == n_mine - 1) release(q_empty);  // the producer may refill the Q slot
      softmax(j, corr);
      ATTNLAB_TL_BEGIN(kWgmmaWait, j - 1);
      wgmma_wait<0>();
      ATTNLAB_TL_END(kWgmmaWait, j - 1);
      fence_operands(o_acc);
      fence_operands(p_frag);
      release_v(j - 1);
#pragma unroll
      for (int i = 0; i < D / 8; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) o_acc[4 * i + e] *= corr[e >> 1];
      pack_p();
    }
    // The staging tile's previous store has read it once thread 0 passes this: the whole
    // warpgroup then knows it through the turn's barrier (thread 0's warp arrives after it).
    if (T::kStageO && tid == 0) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
    ATTNLAB_TL_BEGIN(kPingPongWait, consumer);
    sched_wait();
    ATTNLAB_TL_END(kPingPongWait, consumer);
    issue_pv(n_mine - 1);
    sched_signal(n_mine);
    ATTNLAB_TL_BEGIN(kWgmmaWait, n_mine - 1);
    wgmma_wait<0>();
    ATTNLAB_TL_END(kWgmmaWait, n_mine - 1);
    fence_operands(o_acc);
    fence_operands(p_frag);
    release_v(n_mine - 1);
    ring = ring + t.n_tiles;
    // An item split over keys (KeySplit): the block of its later tiles saves their partial in
    // its slot, and the block of its earlier tiles (the one before) merges it.
    if (T::kSplit && (t.k0 > 0 || t.merges)) {
      const int b = int(blockIdx.x) + (t.k0 > 0 ? 0 : 1);
      float4* const part = scratch.split_partials + std::size_t(b) * kSlotVectors +
                           consumer * SplitSlot<D, T::kConsumers>::kConsumerVectors;
      static_assert(T::kConsumers <= kMostConsumers, "a ready flag per consumer warp");
      unsigned* const ready = scratch.split_ready + (b * kMostConsumers + consumer) * kSplitWarps + warp;
      if (t.k0 > 0) {
        save_partial<D>(part, ready, o_acc, m_row, l_row, tid);
        ATTNLAB_TL_END(kItem, w);
        continue;
      }
      merge_partial<D>(part, ready, o_acc, m_row, l_row, tid);
    }

    // Epilogue: whole-row sums from the row's four lanes, then O / l.
    ATTNLAB_TL_BEGIN(kEpilogue, w);
    float inv_l[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float l = l_row[r];
      l += __shfl_xor_sync(kFullMask, l, 1);
      l += __shfl_xor_sync(kFullMask, l, 2);
      inv_l[r] = l > 0.f ? 1.f / l : 0.f;
    }
    if constexpr (T::kStageO) {
      // Into this consumer's 64 rows of the staging tile, then one thread stores the tile; rows
      // past S are clipped by the tensor map. The staging tile is free: its previous store
      // finished reading it before this item's last turn (below, issue_pv).
      __half* const o_stage = sm.o + consumer * kRowsPerConsumer * kSwizzleHalves;
      stage_o_rows<D, T::kTileQ>(o_stage, o_acc, inv_l);
      // The copy engine reads what these threads wrote: their generic-proxy writes are made
      // visible to the async proxy, then the warpgroup meets before its thread 0 issues.
      ptx::fence_proxy_async(ptx::space_shared);
      named_barrier_sync(1 + T::kConsumers + consumer, kWarpgroupThreads);
      if (tid == 0) {
#pragma unroll
        for (int cb = 0; cb < D / kSwizzleHalves; ++cb) {
          const std::int32_t coords[3] = {cb * kSwizzleHalves,
                                          t.q0 + consumer * kRowsPerConsumer, t.bh};
          ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &tm_o, coords,
                                    o_stage + cb * T::kTileQ * kSwizzleHalves);
        }
        ptx::cp_async_bulk_commit_group();
      }
    } else {
      // Straight from registers.
      const std::int64_t o_base = std::int64_t(t.bh) * S * D;
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int row = row_lo + 8 * r;
        if (row < S) {
          __half* o_row = o + o_base + std::int64_t(row) * D;
#pragma unroll
          for (int i = 0; i < D / 8; ++i)
            *reinterpret_cast<__half2*>(o_row + 8 * i + col_in_chunk) = __floats2half2_rn(
                o_acc[4 * i + 2 * r] * inv_l[r], o_acc[4 * i + 2 * r + 1] * inv_l[r]);
        }
      }
    }
    ATTNLAB_TL_END(kEpilogue, w);
    ATTNLAB_TL_END(kItem, w);
  }
  // Shared memory must outlive the reads of the last store.
  if (T::kStageO && tid == 0) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
  if (consumer == 0) sched_wait();  // the last consumer's final arrival
#else
  __trap();  // built without sm_90a: launch() refuses before getting here
#endif
}

}  // namespace
}  // namespace attnlab::phase_5
