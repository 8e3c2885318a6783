// The shared harness that runs one phase's experiment: its binary (attnlab-phase-<id>,
// experiments/bin/phase_main.cpp) passes the phase id; what it asks, its default shapes and its claims
// come from the phase's declaration (ATTNLAB_PHASE, kernels/registry.hpp).
// Exit codes: 0 every shape passed (and was timed), 1 a correctness check failed,
// 2 bad command line or unsupported shape, 3 environment problem (no GPU, CUPTI, output).
#pragma once

namespace attnlab {

struct Phase;

enum ExitCode { kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitEnvironment = 3 };

int run_experiment(const char* phase_id, int argc, char** argv);
// The same for a phase outside the registry: a test build of a registered phase (the
// phantom-key build of phase 5, tests/CMakeLists.txt) run as that phase's experiment.
int run_experiment(const Phase& phase, int argc, char** argv);

}  // namespace attnlab
