// Phase b5's traits: what a main kernel instantiation is (head dim, mask, consumers, stages) and
// the choices that follow from it, each with why.
// Included by kernels/phase_b5_kernel.cuh only: its namespace is anonymous.
#pragma once

#include "common/hopper.cuh"
#include "kernels/phase_b5_schedule.cuh"
#include "kernels/tile_pipeline.cuh"

namespace attnlab::phase_b5 {
namespace {

constexpr int kWarpgroupThreads = 128;

// How a block's consumers share dQ = dS K of a step (64 query rows by D columns).
enum class DqSplit {
  // Each consumer: every column over its own 64 keys, its own reduction (one consumer).
  kOwnKeys,
  // Two consumers: consumer (i % 2) computes and reduces all of step i's dQ over the tile's 128
  // keys; the other skips dQ that step and issues the next step's score GEMMs at that point. Half
  // the reductions and fp32 staging; the adding one alone takes the turn; the meetings are one-way
  // (Consumer::meet_ds_staged). At D = 128 a little faster than FA3's split over D, whose two-way
  // meeting at dS staged was the most sampled wait (kernels/NOTES.md, "Backward: phase b5
  // (kernels/phase_b5_wgmma.cu)": D 64: dQ by step parity).
  kSteps,
};

// Consumers: warpgroups of 64 keys each (a tile is 64 * Consumers keys; they share each
// stage's Q and dO). Stages: query blocks in flight.
template <int HeadDim, bool Causal, int Consumers, int Stages = 3>
struct Traits {
  static constexpr int D = HeadDim;
  using Mask = hopper::KeyMask<Causal>;
  static constexpr bool kCausal = Causal;
  static constexpr int kConsumers = Consumers;
  static constexpr int kStages = Stages;
  static constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
  static constexpr int kTileKeys = kConsumers * kKeys;
  static constexpr std::uint32_t kKVBytes = 2u * kTileKeys * D * sizeof(__half);  // K and V
  static constexpr std::uint32_t kRowsBytes = kQueries * D * sizeof(__half);       // Q or dO
  static constexpr std::uint32_t kVecBytes = kQueries * sizeof(float);             // LSE or delta
  static constexpr std::uint32_t kStageBytes = 2 * kRowsBytes + 2 * kVecBytes;
  // One consumer runs on the launch's allocation (at most 255 registers a thread). With two, the
  // 384 threads get 168 each at launch, and setmaxnreg moves the producer's to the consumers
  // (FA3's split): 128 * 24 + 256 * 240 = 64512 of 65536. A consumer holds dK and dV (D), S^T and
  // dP^T (64), and P^T and dS^T as fp16 (32).
  static constexpr bool kMovesRegisters = kConsumers > 1;
  // The next step's score GEMMs issued behind this step's dQ GEMM, so the tensor cores work
  // while dQ is staged: S^T and dP^T at D = 64 with two consumers (64 more live accumulators
  // beside dK, dV and the fragments of P^T and dS^T: 192 of 240). At D = 128 a step issues its
  // own at its start and computes P^T while dP^T's GEMM runs (step), as cuDNN's kernel does: P^T
  // beside S^T, which an S^T issued ahead would keep live to the next step, leaves no room there.
  // The one-consumer kernel stays the plain one.
  static constexpr bool kScoresAhead = kConsumers > 1 && D == 64;
  // P^T computed while dP^T's GEMM runs, where the step issues its scores at its start (two
  // consumers at D = 128). With the scores issued a step ahead both have landed by then, and the
  // same split cost D = 64 about 6% (kernels/NOTES.md, "Backward: phase b5
  // (kernels/phase_b5_wgmma.cu)": cuDNN's order at D 128).
  static constexpr bool kPDuringDp = kConsumers > 1 && !kScoresAhead;
  // dV's GEMM issued as soon as P^T is packed, ahead of dS^T's packing and staging (and the wait
  // for its tile to be free), which then overlap it, as in cuDNN's kernel; at D = 64, with the
  // scores a step ahead, the same order measured about 5% slower.
  static constexpr bool kDvFirst = kPDuringDp;
  // At D = 64 with two consumers, the consumer's rows of K (S^T's A operand all tile long) in 16
  // registers, so that GEMM reads only Q from shared memory, the SM's busiest unit here; V's rows
  // too serialise the wgmmas for want of registers, or cost dP^T's GEMM a step ahead, which is
  // worth more; D = 128 has no room (kernels/NOTES.md, "Backward: phase b5
  // (kernels/phase_b5_wgmma.cu)": Fewer instructions a step).
  static constexpr bool kKInRegisters = kScoresAhead;
  // K's and V's buffers: two under the causal mask at D = 64 with two consumers, so that the
  // producer loads the next tile's K and V, and its first steps' Q and dO, while the consumers
  // finish this tile (a tile of 17 steps on average at 16x16x2048x64:causal); without the mask,
  // 32 steps a tile there, two measured slower; D = 128 has no room (kernels/NOTES.md,
  // "Backward: phase b5 (kernels/phase_b5_wgmma.cu)": Two K/V buffers).
  static constexpr int kKvStages = kScoresAhead && Causal ? 2 : 1;
  // The step's LSE (kLseEarly) and delta (kVecsEarly) loaded into registers ahead of the wait
  // for its score GEMMs (QueryPairs), so that the softmax's first FFMAs do not wait on
  // shared-memory loads issued just before them. At D = 128 with two consumers LSE alone: ptxas
  // spills for both vectors' 32 registers there; the one-consumer kernels follow their D.
  static constexpr bool kVecsEarly = D == 64;
  static constexpr bool kLseEarly = D == 64 || kPDuringDp;
  // How the consumers share dQ (DqSplit): with two, one reduction per key tile, not per consumer.
  static constexpr DqSplit kDqSplit = kConsumers != 2 ? DqSplit::kOwnKeys : DqSplit::kSteps;
  static constexpr int kDqKeys = kDqSplit == DqSplit::kOwnKeys ? kKeys : kTileKeys;  // K of the dQ GEMM
  // dQ's fp32 staging tiles: each consumer's, or with kSteps one set, the step's adding
  // consumer's (Consumer::step), which leaves room for a third stage at D = 128.
  static constexpr int kDqStagings = kDqSplit == DqSplit::kSteps ? 1 : kConsumers;
  // dQ's reductions issued by a thread of the producer warpgroup (run_reducer), as cuDNN's kernel
  // does, where one set of staging tiles serves every step (kSteps): the adding consumer stages
  // its tile, fences and arrives on an mbarrier, and goes on; no warpgroup barrier, no issue of
  // the copies or wait for their reads on a consumer's path. Not at D = 64 without the mask,
  // where it measured about 2% slower, nor in the one-consumer kernel (kernels/NOTES.md,
  // "Backward: phase b5 (kernels/phase_b5_wgmma.cu)": A reducer thread).
  static constexpr bool kReducer = kDqSplit == DqSplit::kSteps && (D == 128 || Causal);
  // The last round split into parts where it is part-empty (Params::whole_tiles, BlockWork;
  // tile_plan decides per launch): two consumers without the mask.
  static constexpr bool kSplitsTail = kConsumers == 2 && !Causal;
  static constexpr int kDqBlocks = D / hopper::kSwizzleHalves;  // dQ's 64-column blocks of a step
  // The columns of one dQ GEMM: at D = 128 with dQ by steps all of them, the adding consumer's 64
  // accumulators taking the registers of the step's scores (free by then: no scores ahead), so
  // the GEMM reads dS^T once where two of 64 columns read it twice (cuDNN's kernel does the same);
  // else 64 (32 accumulators beside the next step's scores at D = 64).
  static constexpr int kDqColumns = kDqSplit == DqSplit::kSteps && D == 128 ? 128 : 64;
  // dV's and dK's GEMMs completed before dQ's is issued, freeing P^T's and dS^T's fragments for
  // dQ's 128 columns of accumulators.
  static constexpr bool kDqAfterDkDv = kDqColumns > 64;
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;
  static_assert(!kMovesRegisters || kWarpgroupThreads * (kProducerRegs + kConsumers * kConsumerRegs) <=
                                        kThreads * (65536 / kThreads / 8 * 8),
                "the block's register allocation holds every warpgroup's");
  static_assert(D == 64 || D == 128, "phase b5 is instantiated for head dim 64 and 128");
};

}  // namespace
}  // namespace attnlab::phase_b5
