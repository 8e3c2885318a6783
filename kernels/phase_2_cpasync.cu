// Phase 2: phase 1 with a two-stage cp.async pipeline for the K/V tiles.
// Idea: in phase 1 every thread waits at a barrier while the next K/V tile is loaded through
// registers. Here tile j+1 is copied global -> shared with cp.async (16 bytes per copy, no
// registers, tails zero-filled by a source size of 0) into the second buffer while tile j is
// computed; wait_group 0 and one barrier at the top of the next tile hand it over, one barrier
// per tile where phase 1 has two. The kernel is phase 1's (kernels/scalar_fused.cuh) with
// Stages = 2, so the two differ in the loads and barriers alone. Fixed
// relative to the seed: a correctness gate against the fp64 reference, causal tiles above the
// diagonal skipped rather than computed and masked, tails masked, D 128 and GQA supported.
// Its measured effect lives in the run records.
#include <cuda_runtime.h>


#include "kernels/registry.hpp"
#include "kernels/scalar_fused.cuh"

namespace attnlab::phase_2 {

namespace {
constexpr int kStages = 2;
}  // namespace

Refusal can_implement(const Shape& s) { return query_tiled_refusal(s, "phase 2"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    scalar_fused::launch<decltype(d)::value, kStages>(p, stream);
  });
}

}  // namespace attnlab::phase_2

// Does overlapping the next tile's copy with the current tile's math buy anything over phase 1?
ATTNLAB_PHASE(2) {
  p.title = "cp.async fused";
  p.technique =
      "phase 1's kernel with a two-stage cp.async pipeline: K/V tile j+1 copied in while tile j "
      "is computed";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.question = "Phase 1's kernel with K/V tiles double-buffered by cp.async, against phase 1.";
  p.default_shapes = {"throughput", "latency"};
  p.claims = {faster_than(p.id, "1", "throughput"), seed_claim(p.id, "0.59", "throughput")};
}
