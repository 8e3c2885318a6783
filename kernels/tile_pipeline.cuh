// Building blocks of the Hopper attention kernels (phases 5 and d4): a position in an mbarrier
// ring and the TMA pipeline it indexes, the schedulers of a persistent grid's work items
// (numbered by kernels/work_order.hpp), chosen at compile time behind one interface, and the
// key mask as a policy.
#pragma once

#include <cuda/ptx>

#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/hopper.cuh"
#include "kernels/work_order.hpp"

namespace attnlab::hopper {

// A position in a ring of Stages buffers, each guarded by a full and an empty mbarrier. It
// counts every use of the ring since the kernel began, so the buffer and the parity of the
// phase to wait for both follow from one integer. A consumer waits full[stage()] with phase();
// the producer waits empty[stage()] with phase() ^ 1, which a fresh barrier passes at once.
template <int Stages>
struct RingPosition {
  int count = 0;
  __device__ int stage() const { return count % Stages; }
  __device__ std::uint32_t phase() const { return std::uint32_t(count / Stages) & 1u; }
  __device__ RingPosition operator+(int n) const { return {count + n}; }
};

// A ring of Stages buffers that TMA fills: per stage, Parts full mbarriers (one per tensor the
// stage holds, each completed by its copies' bytes) and one empty mbarrier, at which every
// consumer warp arrives once it is done with the stage. Positions count every use of the ring
// since the kernel began (RingPosition), so stage and parity follow from one integer.
template <int Stages, int Parts = 1>
struct TmaPipeline {
  using Position = RingPosition<Stages>;
  std::uint64_t full[Parts][Stages];
  std::uint64_t empty[Stages];

  // By one thread, before any use; the caller fences the initialisation (fence_mbarrier_init)
  // and meets the block before the first wait. releases: the arrivals that free a stage, one
  // per consumer warp (consumer_release) or per consumer thread (consumer_release_thread).
  // fills: the arrivals that complete a full barrier's phase, the producer's announcement of
  // the copy's bytes (producer_expect) or, for a stage that threads write, each of theirs.
  __device__ void init(std::uint32_t releases, std::uint32_t fills = 1) {
#pragma unroll
    for (int s = 0; s < Stages; ++s) {
#pragma unroll
      for (int p = 0; p < Parts; ++p) cuda::ptx::mbarrier_init(&full[p][s], fills);
      cuda::ptx::mbarrier_init(&empty[s], releases);
    }
  }
  // Producer: waits until every consumer warp has released p's stage (a fresh ring passes).
  __device__ void producer_acquire(Position p) { wait_barrier(&empty[p.stage()], p.phase() ^ 1); }
  // Producer: whether producer_acquire(p) would pass at once.
  __device__ bool producer_ready(Position p) { return barrier_ready(&empty[p.stage()], p.phase() ^ 1); }
  // Producer: announces `bytes` for part `part` of p's stage; the copies complete on the
  // barrier it returns.
  __device__ std::uint64_t* producer_expect(Position p, std::uint32_t bytes, int part = 0) {
    std::uint64_t* const bar = &full[part][p.stage()];
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                         cuda::ptx::space_shared, bar, bytes);
    return bar;
  }
  // Producer: releases p's stage for `warps` consumer warps that will not read it.
  __device__ void producer_release_for(Position p, std::uint32_t warps) {
    cuda::ptx::mbarrier_arrive(&empty[p.stage()], warps);
  }
  // Consumer: waits until part `part` of p's stage has landed.
  __device__ void consumer_wait(Position p, int part = 0) {
    wait_barrier(&full[part][p.stage()], p.phase());
  }
  // Consumer: whether consumer_wait(p, part) would pass at once.
  __device__ bool consumer_ready(Position p, int part = 0) { return barrier_ready(&full[part][p.stage()], p.phase()); }
  // Consumer: this warp is done with p's stage (its lane 0 arrives for it). For stages that
  // consumers read only through wgmma (the async proxy, whose reads complete at the wgmma wait).
  __device__ void consumer_release(Position p, int lane) {
    __syncwarp();
    if (lane == 0) cuda::ptx::mbarrier_arrive(&empty[p.stage()]);
  }
  // Consumer: this thread is done with p's stage. For stages that consumers also read with
  // generic loads: an arrival releases only its own thread's reads, so the next copy into the
  // stage is ordered after every thread's (racecheck reported lane 0's arrival for the warp as
  // hazards with the copy: kernels/NOTES.md, "Backward: phase b5 (kernels/phase_b5_wgmma.cu)":
  // The sanitizer's hazards).
  __device__ void consumer_release_thread(Position p) { cuda::ptx::mbarrier_arrive(&empty[p.stage()]); }
};

// The schedulers of a persistent grid (one block per SM walking work items), one interface,
// chosen at compile time: a block's first place in its sequence, the unit (an item and its key
// tiles) at a place, and the place after a unit. A block's first place is its own index. (Phase
// d4's one item per cluster, ClusterScheduler, is host and device code in kernels/work_order.hpp.)
// A unit of a whole item: its key tiles end at the item's.
__device__ __forceinline__ KeySplit::Unit whole_item(std::int64_t w) { return {w, 0, KeySplit::kToItemEnd}; }

// Items in a fixed stride: block b runs items b, b + grid, ...
struct StaticScheduler {
  static constexpr bool kSplitsKeys = false;
  static constexpr bool kClaimsLate = false;
  __device__ StaticScheduler(const KeySplit&, unsigned long long*) {}
  __device__ std::int64_t start(int block) const { return block; }
  __device__ KeySplit::Unit unit(int, std::int64_t place) const { return whole_item(place); }
  __device__ std::int64_t advance(int, const KeySplit::Unit& u) const { return u.w + gridDim.x; }
};

// Items of unequal cost (FA3's dynamic persistent scheduler): after its first item a block
// claims the lowest unclaimed item with an atomic on a global counter, so blocks that drew
// short items take more. Every block claims once per item it runs, the last claim past the end
// included: n_work claims in all, so the block whose claim is n_work - 1 made the launch's last
// one and sets the counter back to zero for the next launch. Needs gridDim.x <= n_work, and
// launches that share the counter must not overlap (the caller's workspace, one per stream).
// kClaimsLate: the caller claims as late as the claim's latency allows (phase 5's producer:
// before an item's last K tile), so the order of claims follows the blocks' progress; advance
// reads neither argument, so nothing of the item stays live until then.
struct DynamicScheduler {
  static constexpr bool kSplitsKeys = false;
  static constexpr bool kClaimsLate = true;
  unsigned long long* counter;  // zero when the launch begins
  std::int64_t n_work;
  __device__ DynamicScheduler(const KeySplit& split, unsigned long long* claims)
      : counter(claims), n_work(split.n_work) {}
  __device__ std::int64_t start(int block) const { return block; }
  __device__ KeySplit::Unit unit(int, std::int64_t place) const { return whole_item(place); }
  __device__ std::int64_t advance(int, const KeySplit::Unit&) const {
    const auto claim = std::int64_t(atomicAdd(counter, 1ull));
    if (claim == n_work - 1) atomicExch(counter, 0ull);
    return gridDim.x + claim;
  }
};

// The static stride whose last round is cut over keys (KeySplit, kernels/work_order.hpp); with
// nothing to split it is the static stride.
struct SplitScheduler {
  static constexpr bool kSplitsKeys = true;
  static constexpr bool kClaimsLate = false;
  KeySplit split;
  __device__ SplitScheduler(const KeySplit& s, unsigned long long*) : split(s) {}
  __device__ std::int64_t start(int block) const { return split.start(block); }
  __device__ KeySplit::Unit unit(int block, std::int64_t place) const { return split.unit(block, place); }
  __device__ std::int64_t advance(int block, const KeySplit::Unit& u) const { return split.advance(block, u); }
};

// Which keys a query row sees: every key below S, and under the causal mask none past the row.
// Causal is a compile-time choice, so a non-causal kernel carries no causal test at all.
template <bool Causal>
struct KeyMask {
  static constexpr bool kCausal = Causal;
  // Key tiles of tile_k keys that the query rows [q0, q0 + rows) read.
  __host__ __device__ static int key_tiles(int q0, int rows, int S, int tile_k) {
    return ceil_div(Causal ? (q0 + rows < S ? q0 + rows : S) : S, tile_k);
  }
  // Whether the key tile starting at key0 holds a masked key for some row from first_row on:
  // only tiles past S's end or across the diagonal pay for the mask.
  __device__ static bool tile_needs_mask(int key0, int tile_k, int first_row, int S) {
    return key0 + tile_k > S || (Causal && key0 + tile_k - 1 > first_row);
  }
  // The first key that row does not see: one bound, so a score's test is one comparison.
  __host__ __device__ static int key_end(int row, int S) { return Causal && row + 1 < S ? row + 1 : S; }
};

}  // namespace attnlab::hopper
