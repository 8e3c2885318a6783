// The partial results of items split over keys (KeySplit, kernels/work_order.hpp): the block
// that runs an item's later key tiles saves each consumer thread's unnormalised O, running
// maxima and sums in a slot of global memory; the block that runs its earlier tiles, at the end
// of its range, waits for the slot and merges it into its own before the epilogue. Every
// thread of a consumer warpgroup keeps its rows and columns of the accumulator layout on both
// sides (the same kernel, the same consumer), so a slot holds them in that layout, thread by
// thread, and a warp waits only for the warp of the same rows.
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/wgmma_tile.cuh"

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

// How long a merging warp waits for its partial before it traps: the partial comes from the
// first unit of the next block's range, long done when a block reaches its range's last unit;
// a wait this long means the grid is not resident (launch() sizes it to the SMs) or a bug, and
// an error beats a hang.
constexpr std::uint32_t kSplitSpinLimit = 1u << 26;

// Saves this thread's share of a consumer's partial result: o, m (log2 units) and l as the
// online softmax left them, then marks its warp's part ready (release: the stores before it).
template <int D>
__device__ __forceinline__ void save_partial(float4* slot, unsigned* ready, const float (&o)[D / 2],
                                             const float (&m)[2], const float (&l)[2], int tid) {
  constexpr int kThreads = kSplitWarps * 32;
#pragma unroll
  for (int i = 0; i < D / 8; ++i)
    __stcg(&slot[i * kThreads + tid], make_float4(o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]));
  __stcg(&slot[(D / 8) * kThreads + tid], make_float4(m[0], m[1], l[0], l[1]));
  __threadfence();
  __syncwarp();
  if (tid % 32 == 0) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*ready).store(1u, cuda::memory_order_release);
}

// Waits for the partial of this thread's warp, merges it into o, m and l (two online-softmax
// states rescaled to their common maximum: merge_weights, as the cluster merge of d4 does over
// distributed shared memory) and clears the flag for the next launch.
template <int D>
__device__ __forceinline__ void merge_partial(const float4* slot, unsigned* ready, float (&o)[D / 2],
                                              float (&m)[2], float (&l)[2], int tid) {
  constexpr int kThreads = kSplitWarps * 32;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(*ready);
  // Every lane reads the flag and the warp leaves together (a vote: the loop stays warp-uniform,
  // which keeps ptxas's uniform datapath in the rest of the kernel).
  std::uint32_t spins = 0;
  while (__any_sync(kFullMask, flag.load(cuda::memory_order_acquire) == 0u)) {
    if (++spins == kSplitSpinLimit) __trap();
    __nanosleep(64);
  }
  const float4 ml = __ldcg(&slot[(D / 8) * kThreads + tid]);
  const float m_p[2] = {ml.x, ml.y};
  const float l_p[2] = {ml.z, ml.w};
  float c_own[2], c_p[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float states[2] = {m[r], m_p[r]};
    float w[2];
    m[r] = merge_weights(states, w);
    c_own[r] = w[0];
    c_p[r] = w[1];
    l[r] = l[r] * c_own[r] + l_p[r] * c_p[r];
  }
#pragma unroll
  for (int i = 0; i < D / 8; ++i) {
    const float4 p = __ldcg(&slot[i * kThreads + tid]);
    o[4 * i] = o[4 * i] * c_own[0] + p.x * c_p[0];
    o[4 * i + 1] = o[4 * i + 1] * c_own[0] + p.y * c_p[0];
    o[4 * i + 2] = o[4 * i + 2] * c_own[1] + p.z * c_p[1];
    o[4 * i + 3] = o[4 * i + 3] * c_own[1] + p.w * c_p[1];
  }
  __syncwarp();
  if (tid % 32 == 0) flag.store(0u, cuda::memory_order_relaxed);
}

}  // namespace attnlab::hopper
