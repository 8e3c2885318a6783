// Phase 5: Hopper-native fused attention. wgmma (m64nNk16, fp16 in, fp32 accumulate) for both
// products from 128-byte-swizzled shared memory, P kept in registers for PV (wgmma's register-A
// form) and, at D = 128 with 128-key tiles, Q for QK^T too (QInRegisters), TMA bulk tensor copies of Q and a K/V ring completing on mbarriers, and warp
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
#include "common/hopper.cuh"
#include "kernels/key_split.cuh"
#include "kernels/registry.hpp"
#include "kernels/tile_pipeline.cuh"

#include "kernels/phase_5_facts.cuh"   // work items, scratch, geometry of the chosen traits
#include "kernels/phase_5_launch.cuh"  // the launch; the kernel, kernels/phase_5_kernel.cuh
#include "kernels/timeline_stamped.cuh"  // timeline::Stamped, the stamped launch's policy

namespace attnlab::phase_5 {

Refusal can_implement(const Shape& s) { return query_tiled_refusal(s, "phase 5"); }

// The timed kernels (no stamps) and the timeline's (kernels/timeline.cuh), one source.
template <class Stamps>
void launch_stamped(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    constexpr int D = decltype(d)::value;
    with_traits<D>(p.shape, launch_sms<D>(), [&](auto tag) {
      launch_with<typename decltype(tag)::type, Stamps>(p, nullptr, stream);
    });
  });
}

void launch(const Problem& p, cudaStream_t stream) { launch_stamped<timeline::NoStamps>(p, stream); }
void launch_timeline(const Problem& p, cudaStream_t stream) { launch_stamped<timeline::Stamped>(p, stream); }

// The declaration's facts of the traits a shape runs with (kernels/phase_5_facts.cuh).
struct Pick {
  template <int D, class Fn>
  static auto with(const Shape& s, int sms, Fn&& fn) {
    return with_traits<D>(s, sms, fn);
  }
};

// Warpgroup 0 produces (its first thread issues every copy), the others consume.
std::optional<std::int64_t> work_items(const Shape& s, int sms) {
  if (can_implement(s)) return std::nullopt;
  return work_items_with<Pick>(s, sms);
}

std::size_t workspace_bytes(const Shape& s) { return can_implement(s) ? 0 : workspace_bytes_with<Pick>(s); }

std::optional<LaunchGeometry> launch_geometry(const Shape& s, int sms) {
  if (can_implement(s)) return std::nullopt;
  return launch_geometry_with<Pick>(s, sms);
}

std::optional<TensorIssueWork> tensor_issue_work(const Shape& s, int sms) {
  if (can_implement(s)) return std::nullopt;
  return tensor_issue_work_with<Pick>(s, sms);
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
      "wgmma for QK^T and PV (P in registers; Q too at D=128 with 128-key tiles), TMA K/V ring "
      "on mbarriers, a producer warpgroup "
      "and 3 (D=64; 2 for a few causal shapes) or 2 (D=128) consumer "
      "warpgroups of 64 rows with setmaxnreg, ping-pong, persistent (causal, and where S leaves "
      "a consumer no rows of a head's last block: items claimed longest first; long non-causal "
      "D=128 items split over keys where the last round would run part empty)";
  p.required_cc = 90;
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.launch_timeline = &launch_timeline;
  p.warp_role = &warp_role;
  p.tensor_issue_work = &tensor_issue_work;
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
