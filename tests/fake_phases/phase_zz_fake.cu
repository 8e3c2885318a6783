// A fake phase for tests/cpu/test_fake_phase.cpp: a kernel file that declares itself and is
// named nowhere else, built into a registry of its own (never into attnlab_kernels). It uses the
// Hopper helpers, so the test lists must count it Hopper-only; its kernel never runs.
#include <cuda_runtime.h>

#include "common/check.hpp"
#include "kernels/hopper.cuh"
#include "kernels/registry.hpp"

namespace attnlab::phase_zz {
namespace {
__global__ void fake_kernel() {}
}  // namespace

Refusal can_implement(const Shape& s) { return fp16_head_dim_refusal(s, "phase zz"); }

void launch(const Problem&, cudaStream_t stream) {
  fake_kernel<<<1, 1, 0, stream>>>();
  ATTNLAB_CHECK_LAUNCH();
}
}  // namespace attnlab::phase_zz

ATTNLAB_PHASE(zz) {
  p.title = "fake";
  p.technique = "a phase declared once, for the registry's tests";
  p.required_cc = 90;
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.question = "Does one declaration put a phase everywhere?";
  p.default_shapes = {"latency"};
  p.claims = {faster_than(p.id, "zbase", "latency")};
}
