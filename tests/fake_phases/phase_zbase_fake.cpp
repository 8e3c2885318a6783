// A fake baseline phase for tests/cpu/test_fake_phase.cpp (host code only): declared before zz,
// listed after it, since the registry puts baselines last.
#include "kernels/registry.hpp"

namespace attnlab::phase_zbase {
Refusal can_implement(const Shape&) { return std::string("a fake baseline runs nothing"); }
void launch(const Problem&, cudaStream_t) {}
}  // namespace attnlab::phase_zbase

ATTNLAB_PHASE(zbase) {
  p.title = "fake baseline";
  p.technique = "a baseline declared once, for the registry's tests";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.baseline = true;
  p.question = "Where does a baseline go?";
}
