// Phase d2 (latency series): d1 with its branches turned into clamps and predicates.
// Idea: same math and loop nest as d1 (kernels/block_per_head.cuh, kBranchFree = true), with
// every guard rewritten: key loads use a clamped index and the mask discards their scores,
// the P.V loop always runs the whole chunk (masked weights are exactly 0), every thread makes
// the same number of row passes, and the output store is a predicated instruction. What is
// left are the loops' back edges. Fixed relative to the seed: its "4 branches" missed the @!P
// forms and its "0 spills" was false (kernels/SEEDS.md); here the scores of a chunk stay in
// registers, and both counts are read from the SASS into the run record. Its measured effect
// lives in the run records.
#include <cuda_runtime.h>


#include "kernels/block_per_head.cuh"
#include "kernels/registry.hpp"

namespace attnlab::phase_d2 {

namespace {
constexpr bool kBranchFree = true;
}  // namespace

Refusal can_implement(const Shape& s) { return block_per_head::shape_refusal(s, "phase d2"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    block_per_head::launch<decltype(d)::value, kBranchFree>(p, stream);
  });
}

}  // namespace attnlab::phase_d2

// Does the SASS lose branches, keep free of local memory, and does the time change?
ATTNLAB_PHASE(d2) {
  constexpr const char* kNoSpillsClaim = "kernels/SEEDS.md: seed phase d2 claim (\"0 spills\")";
  p.title = "branch-free";
  p.technique = "d1 with clamped loads, arithmetic masks and predicated stores in place of branches";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.question = "d1 made branch-free: clamped loads, arithmetic masks, predicated stores.";
  p.default_shapes = {"latency"};
  p.claims = {
      claim("fewer-branches-than-d1", "Phase d2's SASS has fewer BRA instructions than d1's.")
          .metric("/static/sass/BRA/total")
          .at("latency")
          .below_phase("d1")
          .source("kernels/SEEDS.md: seed phase d2 claim (\"4 branches\")"),
      no_local(p.id, false, "latency").source(kNoSpillsClaim),
      no_local(p.id, true, "latency").source(kNoSpillsClaim)};
}
