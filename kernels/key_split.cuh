// The partial results of items split over keys (KeySplit, kernels/work_order.hpp): the block
// that runs an item's later key tiles saves each consumer thread's unnormalised O, running
// maxima and sums in a slot of global memory; the block that runs its earlier tiles, at the end
// of its range, waits for the slot and merges it into its own before the epilogue (the merge and
// its transport through global memory: kernels/softmax_merge.cuh). Every thread of a consumer
// warpgroup keeps its rows and columns of the accumulator layout on both sides (the same kernel,
// the same consumer), so a slot holds them in that layout, thread by thread, and a warp waits
// only for the warp of the same rows. This file sizes the slots.
#pragma once

#include "kernels/softmax_merge.cuh"

namespace attnlab::hopper {

// Slots for one launch: a block saves at most one partial (its range's first unit), in the
// slot of its own index; launches with more blocks than slots do not split.
constexpr int kSplitSlots = 160;
constexpr int kSplitWarps = 4;  // warps of a consumer warpgroup

// One slot per block: for each consumer, D / 8 float4 of O and one float4 of (m, m, l, l) per
// thread of its warpgroup, and a ready flag per warp.
template <int D, int Consumers>
struct SplitSlot {
  static constexpr int kThreads = kSplitWarps * 32;
  static constexpr int kConsumerVectors = (D / 8 + 1) * kThreads;
  static constexpr int kVectors = Consumers * kConsumerVectors;
};

// The merge's transport between the two blocks of a split item (kernels/softmax_merge.cuh): a
// slot's consumer part, strided by a warpgroup's threads. Its wait traps after kSlotSpinLimit
// polls: the partial comes from the first unit of the next block's range, long done when a block
// reaches its range's last unit, so a wait that long means the grid is not resident (launch()
// sizes it to the SMs) or a bug.
template <int D>
using SplitTransport = GlobalSlots<D, kSplitWarps * 32>;

}  // namespace attnlab::hopper
