// attnlab-phase-<id>: one phase's experiment, built once for every ATTNLAB_PHASE declaration
// (experiments/CMakeLists.txt, ATTNLAB_PHASE_ID); its question, default shapes and claims are
// the declaration's, next to the phase's kernel in kernels/phase_<id>_*.
//   make experiment PHASE=4x                                (its default shapes)
//   build/bin/attnlab-phase-4x --shape 1x8x1024x128:causal
#include "experiments/harness/experiment.hpp"

int main(int argc, char** argv) { return attnlab::run_experiment(ATTNLAB_PHASE_ID, argc, argv); }
