// Phase d2 (latency series): d1 with its branches turned into clamps and predicates.
// Idea: same math and loop nest as d1 (kernels/block_per_head.cuh, kBranchFree = true), with
// every guard rewritten: key loads use a clamped index and the mask discards their scores,
// the P.V loop always runs the whole chunk (masked weights are exactly 0), every thread makes
// the same number of row passes, and the output store is a predicated instruction. What is
// left are the loops' back edges. Fixed relative to the seed: its "4 branches" missed the @!P
// forms and its "0 spills" was false (../shared/SEEDS.md); here the scores of a chunk stay in
// registers, and both counts are read from the SASS into the run record. Its measured effect
// lives in the run records.
#include <cuda_runtime.h>


#include "kernels/block_per_head.cuh"
#include "kernels/registry.hpp"

namespace attnlab::phased2 {

namespace {
constexpr bool kBranchFree = true;
}  // namespace

Refusal can_implement(const Shape& s) { return block_per_head::shape_refusal(s, "phase d2"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    block_per_head::launch<decltype(d)::value, kBranchFree>(p, stream);
  });
}

}  // namespace attnlab::phased2
