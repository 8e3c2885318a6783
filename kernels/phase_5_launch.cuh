// Phase 5's launch (the kernel: kernels/phase_5_kernel.cuh) for any traits, the FP8 phase's
// too (kernels/phase_f8_wgmma.cu): the workspace's layout, the tensor maps of T's operands, the
// work order and the scheduler, chosen per shape. Included by those files only: its namespace is
// anonymous, like the rest of a phase's translation unit.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "kernels/registry.hpp"
#include "kernels/attention_common.cuh"
#include "kernels/consumer_turns.hpp"
#include "common/hopper.cuh"
#include "kernels/key_split.cuh"
#include "kernels/phase_5_kernel.cuh"
#include "kernels/registry.hpp"
#include "kernels/tile_pipeline.cuh"
#include "kernels/wgmma_operands.cuh"

namespace attnlab::phase_5 {
namespace {

// The timeline's name of a warp of the kernel, phase 5's and the FP8 phase's alike: warpgroup 0
// produces, the others consume.
std::string warp_role(std::uint32_t warp) {
  const std::uint32_t wg = warp / 4;
  return wg == 0 ? std::string("producer") : "consumer " + std::to_string(wg - 1);
}

// The workspace of a launch (Scratch, kernels/phase_5_work.cuh): the counter, then the ready
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
// v_operand: what T::Ops reads V from where it is not p.v as stored (e4m3: V^T in the
// workspace, kernels/phase_f8_wgmma.cu); null for fp16.
// The timed kernel, and the stamped one, which takes the timeline buffer's view
// (timeline::with_view); the body is attention_block (kernels/phase_5_kernel.cuh).
template <class T, class Sched, class Stamps, int D = T::D>
__global__ void __launch_bounds__(T::kThreads, 1)
    attention_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                     const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_o,
                     const __grid_constant__ Params<T> p) {
  attention_block<T, Sched, Stamps>(tm_q, tm_k, tm_v, tm_o, p);
}
template <class T, class Sched, class Stamps, int D = T::D>
__global__ void __launch_bounds__(T::kThreads, 1)
    attention_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                     const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_o,
                     const __grid_constant__ Params<T> p, const __grid_constant__ timeline::DeviceView view) {
  attention_block<T, Sched, Stamps>(tm_q, tm_k, tm_v, tm_o, p, timeline::entered(view));
}

template <class T, class Stamps>
void launch_with(const Problem& p, const void* v_operand, cudaStream_t stream) {
  constexpr int D = T::D;
  const Shape& s = p.shape;
  // Before any driver call: a caller that passes no workspace learns it here.
  const ScratchLayout layout = scratch_layout_of<T>(s);
  if (p.workspace == nullptr || p.workspace_bytes < layout.bytes)
    throw std::invalid_argument("phase 5 at " + shape_name(s) + " needs a zeroed workspace of " +
                                std::to_string(layout.bytes) + " bytes (Phase::workspace_bytes), got " +
                                std::to_string(p.workspace ? p.workspace_bytes : 0));
  LseArg<T::kEmitsLse> lse{};
  if constexpr (T::kEmitsLse) {
    if (p.lse == nullptr)
      throw std::invalid_argument("phase 5's kernels that emit the LSE need Problem::lse, [B, H, S] fp32");
    lse.lse = p.lse;
  }
  const OperandMaps maps = T::Ops::template maps<D, T::kTileQ, T::kTileK>(p, v_operand);
  // Read only by kernels that stage O (T::kStageO); the others get an empty map.
  const CUtensorMap tm_o = T::kStageO
                               ? make_tensor_map_sw128(p.o, s.B * s.H, s.S, D, kRowsPerConsumer)
                               : CUtensorMap{};
  const LaunchGeometry g = geometry_of<T>(s, device_sm_count());
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
  const Params<T> params{T::Ops::kernel_args(p), lse, static_cast<__half*>(p.o), s.H, s.H_kv, s.S,
                         T::Ops::score_scale(p) * kLog2e, order, split,
                         Scratch{reinterpret_cast<unsigned long long*>(base),
                                 reinterpret_cast<unsigned*>(base + layout.flags),
                                 reinterpret_cast<float4*>(base + layout.partials)}};
  // The scheduler is a compile-time choice: causal kernels only claim dynamically, and the
  // kernels that may split over keys take KeySplit's stride (with nothing to split, the plain
  // stride).
  auto run = [&](auto tag) {
    timeline::with_view<Stamps>([&](const auto&... view) {
      using Kernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, Params<T>,
                              std::decay_t<decltype(view)>...);
      const Kernel kernel = attention_kernel<T, typename decltype(tag)::type, Stamps>;
      set_dynamic_smem(kernel, g.dynamic_smem_bytes);
      kernel<<<g.grid, g.block, g.dynamic_smem_bytes, stream>>>(maps.q, maps.k, maps.v, tm_o, params, view...);
    });
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
}  // namespace attnlab::phase_5
