// Experiment for phase 3a, WMMA for QK^T with scalar PV: what do tensor cores on one of the
// two matmuls buy over the scalar phases, once the scores are read back correctly?
//   make experiment PHASE=3a           (throughput and latency shapes)
//   build/bin/attnlab-phase-3a --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "3a", "Tensor cores for QK^T only (WMMA), scalar PV, against the scalar phase 1.",
      {"throughput", "latency"},
      {attnlab::faster_than("3a", "1", "throughput"),
       attnlab::seed_claim("3a", "3.75", "throughput")}};
  return attnlab::run_experiment(exp, argc, argv);
}
