// Building blocks of the warp-specialised, persistent attention kernels (phase 5 uses them;
// written for d4 to adopt): a position in an mbarrier ring, the dynamic scheduler of a
// persistent grid's work items (numbered by kernels/work_order.hpp; the static order with its
// split over keys is KeySplit there), and the key mask as a policy.
#pragma once

#include <cstdint>

#include "kernels/attention_common.cuh"
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

// Persistent grid, items of unequal cost (FA3's dynamic persistent scheduler): after its first
// item (blockIdx.x) a block claims the lowest unclaimed item with an atomic on a global counter,
// so blocks that drew short items take more. Every block claims once per item it runs,
// the last claim past the end included: n_work claims in all, so the block whose claim is
// n_work - 1 made the launch's last one and sets the counter back to zero for the next launch.
// Needs gridDim.x <= n_work, and launches that share the counter must not overlap (one stream).
struct DynamicScheduler {
  unsigned long long* counter;  // zero when the launch begins
  std::int64_t n_work;
  __device__ std::int64_t next(std::int64_t) const {
    const auto claim = std::int64_t(atomicAdd(counter, 1ull));
    if (claim == n_work - 1) atomicExch(counter, 0ull);
    return gridDim.x + claim;
  }
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
  __device__ static bool masked(int key, int row, int S) {
    return key >= S || (Causal && key > row);
  }
};

}  // namespace attnlab::hopper
