// The phase table. Each phase's kernel file provides can_implement and launch; this file is
// the only place that lists phases.
#include "kernels/registry.hpp"

#include <algorithm>
#include <cstdint>

namespace attnlab {

// Declared here rather than in per-phase headers: the registry is their only caller.
#define ATTNLAB_DECLARE_PHASE(ns)                  \
  namespace ns {                                   \
  Refusal can_implement(const Shape& s);           \
  void launch(const Problem& p, cudaStream_t stream); \
  }
ATTNLAB_DECLARE_PHASE(phase1)
ATTNLAB_DECLARE_PHASE(phase2)
ATTNLAB_DECLARE_PHASE(phase3a)
ATTNLAB_DECLARE_PHASE(phase3b)
namespace phase3b { void prepare(const Shape& s); }
ATTNLAB_DECLARE_PHASE(phase3c)
namespace phase3c { void prepare(const Shape& s); }
ATTNLAB_DECLARE_PHASE(phase4)
ATTNLAB_DECLARE_PHASE(phase4x)
ATTNLAB_DECLARE_PHASE(phase5)
namespace phase5 {
std::optional<std::int64_t> work_items(const Shape& s);
std::optional<LaunchGeometry> launch_geometry(const Shape& s, int sms);
}
ATTNLAB_DECLARE_PHASE(phased1)
ATTNLAB_DECLARE_PHASE(phased2)
ATTNLAB_DECLARE_PHASE(phased3)
ATTNLAB_DECLARE_PHASE(phased4)
namespace phased4 { std::optional<LaunchGeometry> launch_geometry(const Shape& s, int sms); }
ATTNLAB_DECLARE_PHASE(phasecudnn)
namespace phasecudnn { void prepare(const Shape& s); }
#undef ATTNLAB_DECLARE_PHASE

const std::vector<Phase>& phases() {
  static const std::vector<Phase> table = {
      {"1", "scalar fused",
       "one thread per query row, 64x64 K/V tiles in shared memory, online softmax, fp32 math",
       0, &phase1::can_implement, &phase1::launch, nullptr},
      {"2", "cp.async fused",
       "phase 1's kernel with a two-stage cp.async pipeline: K/V tile j+1 copied in while tile j "
       "is computed",
       0, &phase2::can_implement, &phase2::launch, nullptr},
      {"3a", "WMMA QK^T",
       "WMMA 16x16x16 QK^T per 16-row warp strip, scores via shared memory, online softmax, "
       "scalar fp32 PV",
       0, &phase3a::can_implement, &phase3a::launch, nullptr},
      {"3b", "unfused cuBLAS",
       "strided-batched cuBLASLt GEMM S = QK^T, row-softmax kernel (P over S in place, fp16), "
       "batched GEMM O = PV",
       0, &phase3b::can_implement, &phase3b::launch, &phase3b::prepare},
      {"3c", "unfused split-K",
       "phase 3b with the PV GEMM split over keys when S >= 64: concurrent cuBLASLt GEMMs per "
       "chunk into fp32 partials, summed by a deterministic reduction kernel",
       0, &phase3c::can_implement, &phase3c::launch, &phase3c::prepare},
      {"4", "fused tiled",
       "32x32 tiles, 128 threads, shared-memory tiles, scalar matmul, online softmax with warp "
       "shuffles",
       0, &phase4::can_implement, &phase4::launch, nullptr},
      {"4x", "fused WMMA",
       "64x64 tiles, 8 warps, WMMA for QK^T and PV, cp.async double-buffered K/V, warp-shuffle "
       "softmax, padded shared memory",
       0, &phase4x::can_implement, &phase4x::launch, nullptr},
      {"5", "wgmma + TMA",
       "wgmma for QK^T and PV (P in registers), TMA K/V ring on mbarriers, a producer warpgroup "
       "and 3 (D=64; 2 where 192-row tiles pad S) or 2 (D=128) consumer warpgroups of 64 rows with "
       "setmaxnreg, ping-pong and softmax overlapped with PV, persistent (causal: items claimed "
       "longest first)",
       90, &phase5::can_implement, &phase5::launch, nullptr, false, &phase5::work_items,
       &phase5::launch_geometry},
      {"d1", "block per head",
       "latency series: one block per (batch, head), one thread per query row, keys in chunks of "
       "16 with online softmax, K/V from global memory, fp32 math",
       0, &phased1::can_implement, &phased1::launch, nullptr},
      {"d2", "branch-free",
       "d1 with clamped loads, arithmetic masks and predicated stores in place of branches",
       0, &phased2::can_implement, &phased2::launch, nullptr},
      {"d3", "warp per query",
       "one warp per query row, 64-key K/V tiles shared by the block's warps (cp.async, two "
       "stages), lanes split keys then D, warp-shuffle softmax",
       0, &phased3::can_implement, &phased3::launch, nullptr},
      {"d4", "split-KV DSMEM",
       "wgmma for QK^T and PV (P in registers, TMA loads, QK^T of a tile overlapped with PV of "
       "the last); the blocks of a thread-block cluster and the warpgroups of a block split one "
       "64-row query tile's keys and merge max, sum and O through shared memory and DSMEM",
       90, &phased4::can_implement, &phased4::launch, nullptr, false, nullptr,
       &phased4::launch_geometry},
      {"cudnn", "cuDNN SDPA",
       "baseline, not ours: cuDNN 9's fused flash-attention forward through the backend graph "
       "API (QK^T, scale, causal mask, softmax, PV in one operation graph; the engine cuDNN's "
       "heuristics pick)",
       0, &phasecudnn::can_implement, &phasecudnn::launch, &phasecudnn::prepare, true},
  };
  return table;
}

const Phase* find_phase(std::string_view id) {
  const auto& t = phases();
  auto it = std::find_if(t.begin(), t.end(), [&](const Phase& p) { return id == p.id; });
  return it == t.end() ? nullptr : &*it;
}

std::string phase_ids_joined(const char* sep) {
  std::string out;
  for (const auto& p : phases()) {
    if (!out.empty()) out += sep;
    out += p.id;
  }
  return out;
}

Refusal common_shape_refusal(const Shape& s) {
  if (s.B < 1 || s.H < 1 || s.H_kv < 1 || s.S < 1 || s.D < 1)
    return "every dimension must be at least 1";
  if (s.H % s.H_kv != 0)
    return "H (" + std::to_string(s.H) + ") must be a multiple of H_kv (" +
           std::to_string(s.H_kv) + ")";
  return std::nullopt;
}

Refusal fp16_head_dim_refusal(const Shape& s, const std::string& phase) {
  if (auto r = common_shape_refusal(s)) return r;
  if (s.D != 64 && s.D != 128) return phase + " supports head dim 64 and 128 only";
  if (s.dtype != DType::f16) return "bf16 not implemented by " + phase;
  return std::nullopt;
}

Refusal query_tiled_refusal(const Shape& s, const std::string& phase) {
  if (auto r = fp16_head_dim_refusal(s, phase)) return r;
  constexpr std::int64_t kMaxGridY = 65535;
  if (std::int64_t(s.B) * s.H > kMaxGridY) return "B*H exceeds the grid's 65535 y-blocks";
  return std::nullopt;
}

Refusal device_refusal(const Phase& p, int cc_major, int cc_minor) {
  const int cc = cc_major * 10 + cc_minor;
  // sm_90a code runs only on compute capability 9.0 exactly: arch-specific features such as
  // wgmma are not forward compatible.
  if (p.required_cc == 90 && cc != 90)
    return std::string("phase ") + p.id + " uses Hopper-only instructions (sm_90a) and needs a " +
           "compute capability 9.0 GPU; this one is " + std::to_string(cc_major) + "." +
           std::to_string(cc_minor);
  return std::nullopt;
}

}  // namespace attnlab
