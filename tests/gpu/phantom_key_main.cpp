// attnlab-phase-5 of the phantom-key build (tests/CMakeLists.txt): phase 5's experiment with
// its kernels compiled under -DATTNLAB_PHASE_5_PHANTOM_KEY (key S admitted into the last key
// tile, kernels/phase_5_traits.cuh) and its namespace renamed so that it links beside the
// registry's build. Its default gate must fail: gpu.phantom_key_fails_the_default_gate.
#include "experiments/harness/experiment.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase_5_phantom_key {
Phase declaration();
}

int main(int argc, char** argv) {
  return attnlab::run_experiment(attnlab::phase_5_phantom_key::declaration(), argc, argv);
}
