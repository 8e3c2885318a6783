// Phase d1 (latency series): one block per (batch, head), one thread per query row, scalar
// fp32 math, K/V read straight from global memory.
// Idea: the smallest design that is general: a head's rows are walked by the block's
// threads, each holding its D-wide output row in registers and scoring keys 16 at a time with
// an online softmax, so no score array ever grows with S. The kernel is
// kernels/block_per_head.cuh with branches as a straightforward version writes them (d2 turns
// them into predicates). Fixed relative to the seed: S was hard-coded to 512 and every score of
// a row sat in local memory (spills); here any S >= 1 runs, the scores of a chunk stay in
// registers, causal rows stop at the diagonal, and D 128 and GQA are supported. Its measured
// effect lives in the run records.
#include <cuda_runtime.h>


#include "kernels/block_per_head.cuh"
#include "kernels/registry.hpp"

namespace attnlab::phase_d1 {

namespace {
constexpr bool kBranchFree = false;
}  // namespace

Refusal can_implement(const Shape& s) { return block_per_head::shape_refusal(s, "phase d1"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    block_per_head::launch<decltype(d)::value, kBranchFree>(p, stream);
  });
}

}  // namespace attnlab::phase_d1

// The latency series' baseline: what does a kernel that occupies one SM per head reach at the
// latency shape?
ATTNLAB_PHASE(d1) {
  p.title = "block per head";
  p.technique =
      "latency series: one block per (batch, head), one thread per query row, keys in chunks of "
      "16 with online softmax, K/V from global memory, fp32 math";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.question =
      "Latency baseline: one block per (batch, head), scalar fused, K/V from global memory.";
  p.default_shapes = {"latency"};
}
