// Phase 5's tile shapes and shared-memory layout (Traits, SharedStorage) and the host-side
// choice of the traits a shape runs with (with_traits); kernels/phase_5_wgmma.cu is the kernel.
#pragma once

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/attention_common.cuh"
#include "common/hopper.cuh"
#include "kernels/problem.hpp"
#include "kernels/registry.hpp"
#include "kernels/tile_pipeline.cuh"
#include "kernels/wgmma_operands.cuh"

namespace attnlab::phase_5 {
namespace {

constexpr int kWarpgroupThreads = 128;
constexpr int kRowsPerConsumer = 64;  // wgmma's M

// The key mask. A test-only build (-DATTNLAB_PHASE_5_PHANTOM_KEY, tests/CMakeLists.txt) lets key
// S into the last key tile: TMA fills it with zeros, so it scores 0 against every row, a weight
// below fp16 rounding on N(0,1) inputs at long S. The default gate must still reject it.
#if defined(ATTNLAB_PHASE_5_PHANTOM_KEY)
template <bool Causal>
struct PhantomKeyMask : hopper::KeyMask<Causal> {
  __host__ __device__ static int key_end(int row, int S) { return hopper::KeyMask<Causal>::key_end(row, S + 1); }
};
template <bool Causal>
using KeyMaskOf = PhantomKeyMask<Causal>;
#else
template <bool Causal>
using KeyMaskOf = hopper::KeyMask<Causal>;
#endif

// Where the kernels that emit the LSE (EmitLse below) write it: after the key split's merge. A
// test-only build (-DATTNLAB_PHASE_5_LSE_BEFORE_MERGE, tests/CMakeLists.txt) writes it before,
// from the block's own key tiles only, which the gate must reject where items split.
#if defined(ATTNLAB_PHASE_5_LSE_BEFORE_MERGE)
constexpr bool kLseBeforeMerge = true;
#else
constexpr bool kLseBeforeMerge = false;
#endif

// TileK and Stages: 128 keys in four stages at D = 64; at D = 128, 128 keys in two stages (room
// for a second Q buffer and the O staging tile), except non-causal launches past S = 4096, whose
// long items run faster on fewer, longer tiles (176 keys in two stages; kernels/NOTES.md).
// Consumers: warpgroups of 64 query rows; three at D = 64 (192-row tiles; measured faster than
// two on the H100, kernels/NOTES.md) but for a few causal shapes (two_consumers_at_d64), two at
// D = 128, where three would need 160 registers each for S, O and P and spill.
// Split: the kernel may split items over keys (KeySplit, kernels/work_order.hpp), chosen per
// shape by with_traits; the kernels that never do carry none of its code.
// Ops: the operands' format (kernels/wgmma_operands.cuh): fp16 here, e4m3 in the FP8 phase.
template <int HeadDim, int TileK, int Stages, bool Causal, int Consumers = HeadDim == 64 ? 3 : 2,
          bool Split = false, class Operands = hopper::Fp16Operands>
struct Traits {
  using Ops = Operands;
  using Elem = typename Ops::Elem;
  static constexpr int D = HeadDim;
  static constexpr bool kSplit = Split;
  using Mask = KeyMaskOf<Causal>;
  static constexpr int kConsumers = Consumers;
  // Whether the epilogue also writes each row's log-sum-exp (Problem::lse): only the kernels
  // of EmitLse below, so these kernels carry none of its code.
  static constexpr bool kEmitsLse = false;
  // Whether each consumer holds its rows of Q in registers for QK^T (QInRegisters below).
  static constexpr bool kQInRegs = false;
  static constexpr int kTileQ = kConsumers * kRowsPerConsumer;
  static constexpr int kTileK = TileK;    // keys per K/V tile: QK^T is one m64nTileK per k-step
  // K/V tiles in flight (K and V of a stage: 32 KB at D = 64; 64 or 88 KB at D = 128).
  static constexpr int kStages = Stages;
  static constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
  static constexpr int kQKSteps = D / Ops::kStepK;       // k-steps of QK^T
  static constexpr int kPVSteps = kTileK / Ops::kStepK;  // k-steps of PV
  static constexpr std::uint32_t kQBytes = kTileQ * D * sizeof(Elem);
  static constexpr std::uint32_t kKVTileBytes = kTileK * D * sizeof(Elem);  // what a copy brings
  // Rows of ones under each column block of V's tile, where the PV GEMM sums P's rows
  // (Ops::pv_sum_rows): O's accumulator has as many columns more. A stage of V's ring is then
  // larger than its copy, rounded up to whole 1024-byte swizzle atoms.
  static constexpr int kSumRows = Ops::template pv_sum_rows<D>();
  static constexpr std::uint32_t kVStageBytes =
      kSumRows == 0 ? kKVTileBytes : (kTileK * (D + kSumRows) * sizeof(Elem) + 1023) / 1024 * 1024;
  // Shared memory of a block: 227 KB, less the alignment slack and the barriers.
  static constexpr std::uint32_t kSmemBudget = 227 * 1024 - 2048;
  // O staged in shared memory (one 64-row tile per consumer) and written by a TMA store,
  // where it fits beside two K/V stages and one Q buffer: the epilogue then issues shared
  // stores in place of uncoalesced global ones, whose lg_throttle stalls cuDNN's kernel has
  // not; staged, both the two- and the three-consumer kernels read higher. D = 128 with
  // 176-key tiles has no room: it stores O from registers. The epilogue reads the thread's
  // place afresh, which keeps the three-consumer kernels free of spills with the staging tile
  // (kernels/NOTES.md, "Why phase 5 and d4 are as they are": O staged in shared memory).
  static constexpr std::uint32_t kOBytes = kTileQ * D * sizeof(__half);
  // Operands that turn V inside the kernel (Ops::kTransposesV) hold V's tiles as TMA loads them
  // in a ring of their own, as many stages as K's (RawVRing below).
  static constexpr std::uint32_t kRawVBytes = Ops::kTransposesV ? kStages * kKVTileBytes : 0;
  static constexpr std::uint32_t kKVBytes = kStages * (kKVTileBytes + kVStageBytes);  // both rings
  static constexpr bool kStageO = kQBytes + kKVBytes + kRawVBytes + kOBytes <= kSmemBudget;
  // Two Q buffers where shared memory has room for them (D = 64, causal D = 128), so the
  // producer loads the next item's Q and first K while the consumers still run the current
  // item's last tiles.
  static constexpr int kQStages =
      2 * kQBytes + kKVBytes + kRawVBytes + (kStageO ? kOBytes : 0) <= kSmemBudget ? 2 : 1;
  // The producer keeps few registers; the consumers hold S (kTileK/2), O (D/2) and P as fp16
  // (kTileK/4) each. setmaxnreg moves registers within the block's launch allocation (65536
  // over kThreads, in multiples of 8, per thread): 128 * 24 + 256 * 240 = 64512 of 384 * 168,
  // 128 * 32 + 384 * 160 = 65536 of 512 * 128 (FA3's split).
  static constexpr int kProducerRegs = kConsumers == 2 ? 24 : 32;
  static constexpr int kConsumerRegs = kConsumers == 2 ? 240 : 160;
  static_assert(kWarpgroupThreads * (kProducerRegs + kConsumers * kConsumerRegs) <=
                    kThreads * (65536 / kThreads / 8 * 8),
                "the block's register allocation holds every warpgroup's");
  static_assert(D == 64 || D == 128, "phase 5 is instantiated for head dim 64 and 128");
  static_assert(kTileK % 16 == 0 && D % hopper::kSwizzleHalves == 0, "whole wgmma steps and swizzle rows");
  static_assert(kTileK % 8 == 0 && kTileK <= 256, "wgmma N and the TMA box");
};

// The kernel of traits Base that also writes each row's log-sum-exp (the backward's LSE,
// Problem::lse) in its epilogue. A traits type of its own, so Base's kernels, the ones phase 5
// times, stay what they are; the phase that launches these is 5lse (kernels/phase_5lse_wgmma.cu).
template <class Base>
struct EmitLse : Base {
  static constexpr bool kEmitsLse = true;
};

// The kernel of traits Base whose consumers read their 64 rows of Q into registers once per item
// (D / 4 registers each) and issue QK^T with A from registers, so that each k-step's wgmma reads
// only K from shared memory; the Q slot goes back to the producer as soon as it is read. Used
// at D = 128 with 128-key tiles, causal and not, where it reads faster at the longest items and
// level at short ones. Not at D = 64: its two-consumer kernels, which run the short grids, read
// slower with it (an item's first QK^T waits for the fragment's loads), and the three-consumer
// ones (160 registers) and the 176-key D = 128 ones spill with it (kernels/NOTES.md, "Why phase
// 5 and d4 are as they are": Q in registers at D 128).
template <class Base>
struct QInRegisters : Base {
  static_assert(std::is_same_v<typename Base::Ops, hopper::Fp16Operands>, "Q's fp16 register fragment");
  static constexpr bool kQInRegs = true;
};

// The ring of V's tiles as TMA loads them, for operands that turn V inside the kernel: the
// producer thread fills a stage (V's tile of the K/V ring position with the same count), the
// transposer warps write V^T's stage from it (run_transposer). idle: the consumer warps that will
// not read the tile (the producer's count, which a transposer passes on to V^T's empty barrier
// once it holds the stage), or -1 where the producer has no tile left.
// A base of SharedStorage: empty, it takes no bytes and moves no member.
template <class T, bool = T::Ops::kTransposesV>
struct RawVRing {
  alignas(1024) typename T::Elem raw_v[T::kStages][T::kTileK * T::D];
  int raw_idle[T::kStages];
  hopper::TmaPipeline<T::kStages> raw_pipe;
};
template <class T>
struct RawVRing<T, false> {};

// One tile of R rows and D elements, stored as swizzled rows (kernels/wgmma_operands.cuh): fp16
// as D/64 column blocks of R swizzled 128-byte rows (the layout two TMA boxes of 64 columns
// write); e4m3 as R rows of D bytes, and V transposed.
template <class T, int D = T::D>
struct alignas(1024) SharedStorage : RawVRing<T> {
  typename T::Elem q[T::kQStages][T::kTileQ * D];
  typename T::Elem k[T::kStages][T::kTileK * D];
  typename T::Elem v[T::kStages][T::kVStageBytes / sizeof(typename T::Elem)];
  // Each consumer's rows of O on their way to global memory (a TMA store), where they fit.
  __half o[T::kStageO ? T::kTileQ * D : 8];
  // The work unit whose Q the slot holds (its item, n_work when none is left, and key tiles);
  // written by the producer before it arrives on q_full, so a consumer reads it after its wait.
  KeySplit::Unit unit[T::kQStages];
  // Q slots: a slot is released once every consumer's last QK^T of the item has completed.
  hopper::TmaPipeline<T::kQStages> q_pipe;
  // K and V released separately (K after QK^T, V after PV), so the next K streams in while PV
  // of the previous tile still reads V.
  hopper::TmaPipeline<T::kStages> k_pipe;
  hopper::TmaPipeline<T::kStages> v_pipe;
};

// One block per SM (shared memory and registers admit no second), each looping over work items.
template <class T>
LaunchGeometry geometry_of(const Shape& s, int sms) {
  static_assert(sizeof(SharedStorage<T>) + 1024 <= 227 * 1024, "a block's shared memory limit");
  const std::int64_t n_work = std::int64_t(ceil_div(s.S, T::kTileQ)) * s.B * s.H;
  LaunchGeometry g;
  g.grid = dim3(unsigned(std::min<std::int64_t>(n_work, sms)));
  g.block = dim3(unsigned(T::kThreads));
  g.dynamic_smem_bytes = sizeof(SharedStorage<T>) + 1024;  // + alignment slack
  return g;
}

// A consumer warp's issue spans: its 16 of the warpgroup's 64 rows against one K/V tile of
// kTileK keys, for QK^T (D deep) and PV (kTileK deep) alike.
template <class T>
TensorIssueWork issue_work_of() {
  constexpr double kWarpRows = double(kRowsPerConsumer) / (kWarpgroupThreads / kWarpSize);
  const double flops = 2.0 * kWarpRows * T::kTileK * T::D;
  return {flops, flops};
}

template <class T>
struct TraitsTag {
  using type = T;
};
// At D = 64, three consumers (192-row tiles) read higher than two (128 rows) at every
// non-causal S, also where 192-row tiles pad (S = 512, 1024), because a consumer with no rows
// below S skips the item; and under the causal mask, because the lower consumers stop before
// their fully masked key tiles. Two under the mask where a head's last 192-row tile keeps one
// consumer only (64 rows or fewer below S) and that tile, the head's longest item, is more
// than 1/16 of the head's work (2 * rows / S): one consumer alone has no ping-pong partner, and
// two read higher at S = 1024, three at 4096 where that tile is 1/32 of the head's work
// (kernels/NOTES.md, "Why phase 5 and d4 are as they are": consumers per tile at D 64).
bool two_consumers_at_d64(int S, bool causal) {
  if (!causal) return false;
  const int last_rows = S - (ceil_div(S, 192) - 1) * 192;
  return last_rows <= 64 && 2 * last_rows * 16 > S;
}
// Two also where the grid is short: when 128-row items fill no more rounds of the SMs than
// 192-row ones, a round of two consumers is the shorter (less work per SM, the same number of
// rounds). Over many rounds three win (192 rows in less than 1.5 times a round of 128); over one
// or two, the rounds are what counts: at 1x32x1024x64, 192 items of 192 rows take two rounds of
// 132 SMs, as 256 items of 128 rows do, which is how cuDNN tiles it there (kernels/NOTES.md,
// "Latency sweep").
inline bool short_grid_at_d64(const Shape& s, int sms) {
  const std::int64_t heads = std::int64_t(s.B) * s.H;
  const auto rounds = [&](int rows) { return (ceil_div(s.S, rows) * heads + sms - 1) / sms; };
  return rounds(128) <= rounds(192);
}
// Items of fewer key tiles run whole: at 4 and 8 (S = 512, 1024 at D = 128) the split's extra
// units per block cost more than the part-empty last round saves, at 16 and 32 less
// (kernels/NOTES.md, "Why phase 5 and d4 are as they are": the key split of the last round).
constexpr int kMinSplitTiles = 16;
// The SM count a launch passes with_traits: the device's where it picks the traits (D = 64), none
// asked at D = 128, so that a D = 128 launch without its workspace is refused before any driver
// call (launch_with).
template <int D>
int launch_sms() {
  return D == 64 ? device_sm_count() : 0;
}
// The traits a shape runs with on a GPU of `sms` SMs: the one choice that launch, work_items and
// launch_geometry read.
template <int D, class Fn>
auto with_traits(const Shape& s, int sms, Fn&& fn) {
  const bool causal = s.causal;
  if constexpr (D == 64) {
    if (two_consumers_at_d64(s.S, causal) || short_grid_at_d64(s, sms)) {
      if (causal) return fn(TraitsTag<Traits<64, 128, 4, true, 2>>{});
      return fn(TraitsTag<Traits<64, 128, 4, false, 2>>{});
    }
    if (causal) return fn(TraitsTag<Traits<64, 128, 4, true>>{});
    return fn(TraitsTag<Traits<64, 128, 4, false>>{});
  } else {
    // Causal D = 128: two K/V stages leave room for a second Q buffer, so an item's first QK^T
    // need not wait for its Q; that reads higher than three stages with one Q buffer at every
    // causal D = 128 sweep shape (kernels/NOTES.md, "Why phase 5 and d4 are as they are": D 128
    // tiles, stages and Q buffers).
    if (causal) return fn(TraitsTag<QInRegisters<Traits<128, 128, 2, true>>>{});
    // Non-causal likewise up to S = 4096: 128-key tiles in two stages, with the second Q buffer
    // and O staged for a TMA store, read higher against cuDNN than 176-key tiles at S = 512 ...
    // 4096 (most at short S, where an item is a few tiles) and lower at 8192 (the same entry).
    // Items of at least kMinSplitTiles key tiles (S >= 2048) may split over keys where their
    // count leaves the last round part empty (launch_with).
    if (s.S <= 4096) {
      if (ceil_div(s.S, 128) >= kMinSplitTiles)
        return fn(TraitsTag<QInRegisters<Traits<128, 128, 2, false, 2, true>>>{});
      return fn(TraitsTag<QInRegisters<Traits<128, 128, 2, false>>>{});
    }
    return fn(TraitsTag<Traits<128, 176, 2, false, 2, true>>{});
  }
}

}  // namespace
}  // namespace attnlab::phase_5
