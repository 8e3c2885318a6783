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

#include <cstdint>
#include <stdexcept>

#include "kernels/registry.hpp"
#include "kernels/scalar_fused.cuh"

namespace attnlab::phase2 {

namespace {
constexpr int kStages = 2;
}  // namespace

Refusal can_implement(const Shape& s) {
  if (auto r = fp16_head_dim_refusal(s, "phase 2")) return r;
  // Query tiles run along grid x (2^31 - 1 blocks, enough for any int S); heads along y.
  if (std::int64_t(s.B) * s.H > kMaxGridY) return "B*H exceeds the grid's 65535 y-blocks";
  return std::nullopt;
}

void launch(const Problem& p, cudaStream_t stream) {
  if (auto r = can_implement(p.shape)) throw std::invalid_argument(*r);
  require_vector_alignment(p);
  if (p.shape.D == 64)
    scalar_fused::launch<64, kStages>(p, stream);
  else
    scalar_fused::launch<128, kStages>(p, stream);
}

}  // namespace attnlab::phase2
