// Phase 1: scalar fused attention, fp32 math on CUDA cores, no tensor cores.
// Idea: one thread per query row holds its 64 tile scores and its D-wide output row in
// registers while 64-key K/V tiles stream through shared memory; online softmax rescales once
// per tile. The kernel is kernels/scalar_fused.cuh with one K/V buffer (phase 2 pipelines it).
// Its measured effect lives in the run records.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "kernels/registry.hpp"
#include "kernels/scalar_fused.cuh"

namespace attnlab::phase1 {

Refusal can_implement(const Shape& s) {
  if (auto r = fp16_head_dim_refusal(s, "phase 1")) return r;
  // Query tiles run along grid x (2^31 - 1 blocks, enough for any int S); heads along y.
  if (std::int64_t(s.B) * s.H > kMaxGridY) return "B*H exceeds the grid's 65535 y-blocks";
  return std::nullopt;
}

void launch(const Problem& p, cudaStream_t stream) {
  if (auto r = can_implement(p.shape)) throw std::invalid_argument(*r);
  require_vector_alignment(p);
  if (p.shape.D == 64)
    scalar_fused::launch<64, 1>(p, stream);
  else
    scalar_fused::launch<128, 1>(p, stream);
}

}  // namespace attnlab::phase1
