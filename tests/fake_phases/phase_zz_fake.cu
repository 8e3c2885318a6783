// A fake phase for tests/cpu/test_fake_phase.cpp: a kernel file that declares itself and is
// named nowhere else, built into a registry of its own (never into attnlab_kernels). It uses the
// Hopper helpers, so the test lists must count it Hopper-only; its kernel never runs. It is
// instrumented: its kernel takes the stamp policy (kernels/timeline.cuh), and its declaration
// gives the stamped launch and its warps' roles, which is all the timeline tool needs.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "common/check.hpp"
#include "common/hopper.cuh"
#include "kernels/registry.hpp"
#include "kernels/timeline_stamped.cuh"

namespace attnlab::phase_zz {
namespace {
template <class Stamps, class... View>
__global__ void fake_kernel(const __grid_constant__ View... view) {
  Stamps tl{timeline::entered(view)...};
  tl.begin(timeline::Span::kItem, 0);
  tl.end(timeline::Span::kItem, 0);
}

template <class Stamps>
void launch_stamped(cudaStream_t stream) {
  timeline::with_view<Stamps>(
      [&](const auto&... view) { fake_kernel<Stamps, std::decay_t<decltype(view)>...><<<1, 32, 0, stream>>>(view...); });
  ATTNLAB_CHECK_LAUNCH();
}
}  // namespace

Refusal can_implement(const Shape& s) { return fp16_head_dim_refusal(s, "phase zz"); }

void launch(const Problem&, cudaStream_t stream) { launch_stamped<timeline::NoStamps>(stream); }
void launch_timeline(const Problem&, cudaStream_t stream) { launch_stamped<timeline::Stamped>(stream); }
std::string warp_role(std::uint32_t) { return "the fake warp"; }
}  // namespace attnlab::phase_zz

ATTNLAB_PHASE(zz) {
  p.title = "fake";
  p.technique = "a phase declared once, for the registry's tests";
  p.required_cc = 90;
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.launch_timeline = &launch_timeline;
  p.warp_role = &warp_role;
  p.question = "Does one declaration put a phase everywhere?";
  p.default_shapes = {"latency"};
  p.claims = {faster_than(p.id, "zbase", "latency")};
}
