// Phase 1: scalar fused attention, fp32 math on CUDA cores, no tensor cores.
// Idea: one thread per query row holds its 64 tile scores and its D-wide output row in
// registers while 64-key K/V tiles stream through shared memory; online softmax rescales once
// per tile. The kernel is kernels/scalar_fused.cuh with one K/V buffer (phase 2 pipelines it).
// Its measured effect lives in the run records.
#include <cuda_runtime.h>


#include "kernels/registry.hpp"
#include "kernels/scalar_fused.cuh"

namespace attnlab::phase_1 {

Refusal can_implement(const Shape& s) { return query_tiled_refusal(s, "phase 1"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    scalar_fused::launch<decltype(d)::value, 1>(p, stream);
  });
}

}  // namespace attnlab::phase_1

// Is the scalar fused kernel correct everywhere, and what does a kernel without tensor cores or
// data reuse across threads reach? The baseline every later phase is measured against.
ATTNLAB_PHASE(1) {
  p.title = "scalar fused";
  p.technique =
      "one thread per query row, 64x64 K/V tiles in shared memory, online softmax, fp32 math";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.question = "Baseline: the scalar fused kernel every later phase is measured against.";
  p.default_shapes = {"latency"};
}
