// Phase 5: Hopper-native fused attention. wgmma (m64nNk16, fp16 in, fp32 accumulate) for both
// products from 128-byte-swizzled shared memory, P kept in registers for PV (wgmma's register-A
// form), TMA bulk tensor copies of Q and a K/V ring completing on mbarriers, and warp
// specialisation: one producer warpgroup issues the copies with few registers (setmaxnreg.dec),
// three (D = 64; two for a few causal shapes) or two
// (D = 128) consumer warpgroups of 64 query rows each take the rest (setmaxnreg.inc). Consumers
// take turns on the tensor cores (FA3's ping-pong); the source also orders a consumer's softmax
// of key tile j before its wait for PV of tile j-1 (FA3's second overlap), but ptxas schedules
// that wait first (the SASS, kernels/NOTES.md), and forcing the overlap measured slower.
// Persistent: one block per SM walks the work items, statically where
// they cost the same and, under the causal mask or where S leaves a consumer of a head's last
// query block without rows, claiming them longest first from a global counter
// (kernels/tile_pipeline.cuh). Where static items would leave the last round part empty, the
// D = 128 kernels for S >= 2048 split the last items over keys among all blocks and merge the
// partial results (KeySplit, kernels/work_order.hpp and kernels/key_split.cuh).
// The seed's "phase 5" had no wgmma and computed a quarter of each tile; this one is checked
// against the fp64 reference like every phase. Its measured effect lives in the run records
// and kernels/NOTES.md.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cuda/ptx>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/attention_common.cuh"
#include "common/check.hpp"
#include "common/shapes.hpp"
#include "kernels/consumer_turns.hpp"
#include "kernels/hopper.cuh"
#include "kernels/key_split.cuh"
#include "kernels/registry.hpp"
#include "kernels/tile_pipeline.cuh"

#include "kernels/phase_5_kernel.cuh"  // the kernel; its traits, kernels/phase_5_traits.cuh

namespace attnlab::phase_5 {
namespace {

// The workspace of a launch (Scratch, kernels/phase_5_kernel.cuh): the counter, then the ready
// flags and the partials of `slots` key-split slots, each part 16-byte aligned.
struct ScratchLayout {
  std::size_t flags, partials, bytes;  // [bytes] offsets of the parts, and the whole
};
constexpr ScratchLayout scratch_layout(std::int64_t slots) {
  const std::size_t flags = 16;
  const std::size_t flag_bytes = std::size_t(slots) * kMostConsumers * kSplitWarps * sizeof(unsigned);
  const std::size_t partials = flags + (flag_bytes + 15) / 16 * 16;
  return {flags, partials, partials + std::size_t(slots) * kSlotVectors * sizeof(float4)};
}
// Slots for every block of a launch that may split: its grid is at most its items, and a launch
// of more blocks than kSplitSlots does not split.
template <class T>
ScratchLayout scratch_layout_of(const Shape& s) {
  const std::int64_t n_work = std::int64_t(ceil_div(s.S, T::kTileQ)) * s.B * s.H;
  return scratch_layout(T::kSplit ? std::min<std::int64_t>(n_work, kSplitSlots) : 0);
}

// One block per SM (shared memory and registers admit no second), each looping over work
// items. Non-causal items cost the same where S fills every query tile, and go head by head
// with a static stride. Causal ones differ in length, and a static stride can hand one block
// only the longest (132 SMs is a multiple of the 11 query blocks of S = 2048;
// kernels/NOTES.md): they are claimed dynamically, longest first within sections of heads whose
// K/V fit in L2. So are non-causal ones where a head's last block leaves a consumer with no
// rows below S (that block is shorter, and the static stride would give all of them to the
// same few blocks), their last blocks at each section's end.
// (The grid: geometry_of in kernels/phase_5_traits.cuh.)
template <class T, class Stamps>
void launch_with(const Problem& p, cudaStream_t stream) {
  constexpr int D = T::D;
  const Shape& s = p.shape;
  // Before any driver call: a caller that passes no workspace learns it here.
  const ScratchLayout layout = scratch_layout_of<T>(s);
  if (p.workspace == nullptr || p.workspace_bytes < layout.bytes)
    throw std::invalid_argument("phase 5 at " + shape_name(s) + " needs a zeroed workspace of " +
                                std::to_string(layout.bytes) + " bytes (Phase::workspace_bytes), got " +
                                std::to_string(p.workspace ? p.workspace_bytes : 0));
  const CUtensorMap tm_q = make_tensor_map_sw128(p.q, s.B * s.H, s.S, D, T::kTileQ);
  const CUtensorMap tm_k = make_tensor_map_sw128(p.k, s.B * s.H_kv, s.S, D, T::kTileK);
  const CUtensorMap tm_v = make_tensor_map_sw128(p.v, s.B * s.H_kv, s.S, D, T::kTileK);
  // Read only by kernels that stage O (T::kStageO); the others get an empty map.
  const CUtensorMap tm_o = T::kStageO
                               ? make_tensor_map_sw128(p.o, s.B * s.H, s.S, D, kRowsPerConsumer)
                               : CUtensorMap{};
  int device = 0, sms = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&device));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const LaunchGeometry g = geometry_of<T>(s, sms);
  const int m_blocks = ceil_div(s.S, T::kTileQ);
  const int heads = s.B * s.H;
  const std::int64_t n_work = std::int64_t(m_blocks) * heads;
  const bool causal = T::Mask::kCausal;
  // Dynamic where items differ: under the mask, or where a head's last block has a consumer
  // with no rows below S (it skips the item).
  using Turns = ConsumerTurns<T::kConsumers, kRowsPerConsumer, T::kTileK, T::Mask::kCausal>;
  const bool dynamic = causal || Turns::active((m_blocks - 1) * T::kTileQ, s.S) < T::kConsumers;
  const WorkOrder order{m_blocks, heads,
                        dynamic ? l2_section_heads(s.S, D, s.H / s.H_kv, heads, causal) : 1, causal};
  // Static items of equal cost whose count leaves the last round part empty: split over keys
  // by the kernels that may (T::kSplit: items long enough that a block's extra unit and the
  // partial's round trip cost less than the empty part of the last round).
  const int tiles = ceil_div(s.S, T::kTileK);
  const KeySplit split = KeySplit::make(
      n_work, int(g.grid.x), tiles, T::kSplit && !dynamic && int(g.grid.x) <= kSplitSlots);
  auto* const base = static_cast<unsigned char*>(p.workspace);
  const Params params{static_cast<__half*>(p.o), s.H, s.H_kv, s.S, p.scale * kLog2e, order, split,
                      Scratch{reinterpret_cast<unsigned long long*>(base),
                              reinterpret_cast<unsigned*>(base + layout.flags),
                              reinterpret_cast<float4*>(base + layout.partials)}};
  // The scheduler is a compile-time choice: causal kernels only claim dynamically, and the
  // kernels that may split over keys take KeySplit's stride (with nothing to split, the plain
  // stride).
  auto run = [&](auto tag) {
    const auto kernel = attention_kernel<T, typename decltype(tag)::type, Stamps>;
    set_dynamic_smem(kernel, g.dynamic_smem_bytes);
    kernel<<<g.grid, g.block, g.dynamic_smem_bytes, stream>>>(tm_q, tm_k, tm_v, tm_o, params);
  };
  if constexpr (T::Mask::kCausal) {
    run(TraitsTag<hopper::DynamicScheduler>{});
  } else if (dynamic) {
    run(TraitsTag<hopper::DynamicScheduler>{});
  } else if constexpr (T::kSplit) {
    run(TraitsTag<hopper::SplitScheduler>{});
  } else {
    run(TraitsTag<hopper::StaticScheduler>{});
  }
  ATTNLAB_CHECK_LAUNCH();
}

}  // namespace

Refusal can_implement(const Shape& s) { return query_tiled_refusal(s, "phase 5"); }

// The timed kernels (no stamps) and the timeline's (kernels/timeline.cuh), one source.
template <class Stamps>
void launch_stamped(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    with_traits<decltype(d)::value>(p.shape, [&](auto tag) {
      launch_with<typename decltype(tag)::type, Stamps>(p, stream);
    });
  });
}

void launch(const Problem& p, cudaStream_t stream) { launch_stamped<timeline::NoStamps>(p, stream); }
void launch_timeline(const Problem& p, cudaStream_t stream) { launch_stamped<timeline::WarpStamps>(p, stream); }

// Warpgroup 0 produces (its first thread issues every copy), the others consume.
std::string warp_role(std::uint32_t warp) {
  const std::uint32_t wg = warp / 4;
  return wg == 0 ? std::string("producer") : "consumer " + std::to_string(wg - 1);
}

std::optional<std::int64_t> work_items(const Shape& s) {
  if (can_implement(s)) return std::nullopt;
  const auto items = [&](auto tag) {
    return std::int64_t(ceil_div(s.S, decltype(tag)::type::kTileQ)) * s.B * s.H;
  };
  return s.D == 64 ? with_traits<64>(s, items) : with_traits<128>(s, items);
}

std::size_t workspace_bytes(const Shape& s) {
  if (can_implement(s)) return 0;
  const auto bytes = [&](auto tag) { return scratch_layout_of<typename decltype(tag)::type>(s).bytes; };
  return s.D == 64 ? with_traits<64>(s, bytes) : with_traits<128>(s, bytes);
}

std::optional<LaunchGeometry> launch_geometry(const Shape& s, int sms) {
  if (can_implement(s)) return std::nullopt;
  const auto geometry = [&](auto tag) { return geometry_of<typename decltype(tag)::type>(s, sms); };
  return s.D == 64 ? with_traits<64>(s, geometry) : with_traits<128>(s, geometry);
}

}  // namespace attnlab::phase_5

// Does the Hopper-native kernel beat cuDNN's fused SDPA (paired in one process: make ab A=5
// B=cudnn) at the throughput shape and at head dim 128, and how far is it past the WMMA phase 4x?
ATTNLAB_PHASE(5) {
  constexpr const char* kD128 = "4x16x4096x128";
  constexpr const char* kTensorPipe =
      "/metrics/tensor/values/sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active/value";
  p.title = "wgmma + TMA";
  p.technique =
      "wgmma for QK^T and PV (P in registers), TMA K/V ring on mbarriers, a producer warpgroup "
      "and 3 (D=64; 2 for a few causal shapes) or 2 (D=128) consumer "
      "warpgroups of 64 rows with setmaxnreg, ping-pong, persistent (causal, and where S leaves "
      "a consumer no rows of a head's last block: items claimed longest first; long non-causal "
      "D=128 items split over keys where the last round would run part empty)";
  p.required_cc = 90;
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.launch_timeline = &launch_timeline;
  p.warp_role = &warp_role;
  p.work_items = &work_items;
  p.launch_geometry = &launch_geometry;
  p.workspace_bytes = &workspace_bytes;
  p.question =
      "wgmma for both products, TMA K/V ring, producer/consumer warpgroups: against cuDNN and 4x.";
  p.default_shapes = {"throughput", kD128, "16x16x2048x64:causal", "4x16x4096x128:causal"};
  p.claims = {
      claim("faster-than-cudnn-throughput",
            "At least 1.10x the speed of cuDNN's fused SDPA at the throughput shape, paired: the "
            "lower bound of the paired A/B interval of t_cudnn / t_5 (make ab A=5 B=cudnn, wall "
            "time) at least 1.10.")
          .at("throughput")
          .paired_against("cudnn", 1.10)
          .source("kernels/TARGETS.md: phase 5 at the throughput shape, paired A/B ratio"),
      claim("as-fast-as-cudnn-d128",
            "As fast as cuDNN's fused SDPA at 4x16x4096x128, paired: the lower bound of the paired "
            "A/B interval of t_cudnn / t_5 (wall time) at least the 0.98 non-inferiority margin.")
          .at(kD128)
          .paired_as_fast_as("cudnn")
          .source("kernels/TARGETS.md: phase 5 at 4x16x4096x128, non-inferiority 0.98"),
      faster_than(p.id, "4x", "throughput"),
      claim("tensor-pipe-60pct",
            "The tensor pipe is active at least 60% of active cycles at the throughput shape.")
          .metric(kTensorPipe)
          .at("throughput")
          .at_least(60.0)
          .source("kernels/TARGETS.md: phase 5, tensor pipe at the throughput shape"),
      no_local(p.id, false, "throughput")};
}
