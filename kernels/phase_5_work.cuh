// Phase 5's launch parameters and work items as the kernel's roles see them
// (kernels/phase_5_kernel.cuh): the launch's scratch, the parameters besides the tensor maps,
// and a work unit's head, rows and key tiles. Included by that file only: its namespace is
// anonymous, like the rest of a phase's translation unit.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/consumer_turns.hpp"
#include "kernels/key_split.cuh"
#include "kernels/phase_5_traits.cuh"
#include "kernels/tile_pipeline.cuh"

namespace attnlab::phase_5 {
namespace {

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

// Where a kernel that emits the rows' log-sum-exp (T::kEmitsLse) writes it ([B, H, S] fp32);
// an empty base of the others' parameters, which then keep their size and layout.
template <bool Emits>
struct LseArg {};
template <>
struct LseArg<true> {
  float* lse;
};

// The kernel's parameters besides the tensor maps, as every role reads them; the operands'
// own (kernels/wgmma_operands.cuh: none for fp16, V's descale for e4m3) and the LSE's
// destination as its bases.
template <class T>
struct Params : T::Ops::KernelArgs, LseArg<T::kEmitsLse> {
  __half* o;
  int H, H_kv, S;
  float scale_log2;
  WorkOrder order;
  KeySplit split;
  Scratch scratch;
};

// A work unit as both roles see it: the item's head, KV plane and first query row, its key
// tiles [k0, k0 + n_tiles), whether its later tiles run elsewhere (KeySplit: it merges their
// partial), and the consumers with rows below S (all but in a head's last block).
struct Work {
  int bh, kv_plane, q0;
  int k0, n_tiles;
  bool merges;
  int active;
  // The key tile that the item's turn j reads. Without the causal mask the item's tiles run
  // last first: the one tile that can hold keys past S is then the item's first, whose softmax
  // runs ahead of the loop of turns, so the loop's softmax carries no mask.
  template <bool Causal>
  __host__ __device__ int key_tile(int j) const {
    return Causal ? k0 + j : k0 + n_tiles - 1 - j;
  }
};

template <class T>
using TurnsOf = ConsumerTurns<T::kConsumers, kRowsPerConsumer, T::kTileK, T::Mask::kCausal>;
template <class T>
using KVRing = RingPosition<T::kStages>;
template <class T>
using QRing = RingPosition<T::kQStages>;

template <class T>
__device__ __forceinline__ Work work_of(const Params<T>& p, const KeySplit::Unit& u) {
  const WorkOrder::Item it = p.order.item(u.w);
  Work t;
  t.bh = it.bh;
  const int b = t.bh / p.H;
  t.kv_plane = b * p.H_kv + (t.bh - b * p.H) / (p.H / p.H_kv);
  t.q0 = it.m_block * T::kTileQ;
  const int all = T::Mask::key_tiles(t.q0, T::kTileQ, p.S, T::kTileK);
  t.k0 = T::kSplit ? u.k0 : 0;
  t.n_tiles = T::kSplit && u.k1 < all ? u.k1 - u.k0 : all - t.k0;
  t.merges = T::kSplit && u.k1 < all;
  t.active = TurnsOf<T>::active(t.q0, p.S);
  return t;
}

}  // namespace
}  // namespace attnlab::phase_5
