// Phase 5lse: phase 5's kernels (kernels/phase_5_wgmma.cu: the same traits per shape, the same
// schedulers and key split) that also write each query row's log-sum-exp, the LSE a backward
// pass reads (kernels/backward_problem.hpp), fp32 [B, H, S] in natural-log units into
// Problem::lse. The epilogue writes it from the running maximum and sum the online softmax
// already holds, after the merge of an item split over keys (kernels/phase_5_kernel.cuh,
// store_lse). Its kernels are phase 5's under their own traits type (phase_5::EmitLse), so
// phase 5's kernels are unchanged and this variant is timed on its own. The harness checks the
// LSE beside O against the fp64 reference (experiments/harness/gate.hpp), and the backward gate can
// take O and LSE from it (--forward 5lse of a backward phase's experiment).
// Run it: build/bin/attnlab-phase-5lse --check-only --shape 2x8x1000x128:causal
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "kernels/registry.hpp"

#include "kernels/phase_5_facts.cuh"   // work items, scratch, geometry of the chosen traits
#include "kernels/phase_5_launch.cuh"  // the launch; the kernel, kernels/phase_5_kernel.cuh

namespace attnlab::phase_5lse {
namespace {

// Phase 5's choice of traits at s, emitting the LSE.
struct Pick {
  template <int D, class Fn>
  static auto with(const Shape& s, int sms, Fn&& fn) {
    return phase_5::with_traits<D>(s, sms, [&](auto tag) {
      return fn(phase_5::TraitsTag<phase_5::EmitLse<typename decltype(tag)::type>>{});
    });
  }
};

Refusal can_implement(const Shape& s) { return query_tiled_refusal(s, "phase 5lse"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    constexpr int D = decltype(d)::value;
    Pick::with<D>(p.shape, phase_5::launch_sms<D>(), [&](auto tag) {
      phase_5::launch_with<typename decltype(tag)::type, timeline::NoStamps>(p, nullptr, stream);
    });
  });
}

std::optional<std::int64_t> work_items(const Shape& s, int sms) {
  if (can_implement(s)) return std::nullopt;
  return phase_5::work_items_with<Pick>(s, sms);
}

std::size_t workspace_bytes(const Shape& s) { return can_implement(s) ? 0 : phase_5::workspace_bytes_with<Pick>(s); }

std::optional<LaunchGeometry> launch_geometry(const Shape& s, int sms) {
  if (can_implement(s)) return std::nullopt;
  return phase_5::launch_geometry_with<Pick>(s, sms);
}

}  // namespace
}  // namespace attnlab::phase_5lse

// What does writing the LSE for the backward cost phase 5 (paired: make ab A=5lse B=5)?
ATTNLAB_PHASE(5lse) {
  p.title = "wgmma + TMA, with LSE";
  p.technique =
      "phase 5's kernels (wgmma, TMA K/V ring, warp-specialised, persistent, key split) writing "
      "each row's log-sum-exp (fp32, natural log) for the backward beside O";
  p.required_cc = 90;
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.work_items = &work_items;
  p.launch_geometry = &launch_geometry;
  p.workspace_bytes = &workspace_bytes;
  p.emits_lse = true;
  p.question = "What does writing the backward's LSE cost phase 5's forward kernel?";
  p.default_shapes = {"throughput", "4x16x4096x128", "16x16x2048x64:causal", "4x16x4096x128:causal"};
}
