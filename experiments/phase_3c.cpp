// Experiment for phase 3c, phase 3b with a split-K cuBLASLt algorithm for O = P V: does
// splitting the GEMM's k = S loop across more thread blocks pay for its extra reduction?
//   make experiment PHASE=3c           (throughput and latency shapes)
//   build/bin/attnlab-phase-3c --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "3c", "Split-K for the PV GEMM of the unfused phase 3b.",
      {"throughput", "latency"},
      {attnlab::faster_than("3c", "3b", "throughput"),
       attnlab::seed_claim("3c", "0.83", "throughput")}};
  return attnlab::run_experiment(exp, argc, argv);
}
