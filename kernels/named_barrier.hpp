// The named-barrier ids of the Hopper kernels, one enum (FA3's named_barrier.hpp): host and
// device code (kernels/consumer_turns.hpp computes turn ids from it, which its CPU test checks).
#pragma once

namespace attnlab {

// kNamedBarriers hardware barriers per block; the ids a kernel uses lie below it. kBlockBarrier
// (0) is __syncthreads', every thread of the block: phase 5 and d4 meet there after initialising
// their mbarriers, d4 again before its merge reads the rows the block's warpgroups stored. Phase
// 5's consumer c takes its turn on the tensor cores at kTurnBarrier + c and meets its own
// warpgroup before a TMA store at kStoreBarrier + c (at most three consumers); d4's key
// warpgroup w > 0 waits for its first turn at kTurnBarrier + w (w < 4). The backward
// kernel (b5) numbers its consumers' barriers from kBackwardBarrier (kernels/phase_b5_kernel.cuh).
enum NamedBarrier : int {
  kBlockBarrier = 0,
  kTurnBarrier = 1,
  kStoreBarrier = kTurnBarrier + 3,
  kBackwardBarrier = 1,
  kNamedBarriers = 16
};

}  // namespace attnlab
