// Experiment for phase 3a, WMMA for QK^T with scalar PV: what do tensor cores on one of the
// two matmuls buy over the scalar phases, once the scores are read back correctly?
//   make experiment PHASE=3a           (throughput and latency shapes)
//   build/bin/attnlab-phase-3a --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "3a", "Tensor cores for QK^T only (WMMA), scalar PV, against the scalar phase 1.",
      {"throughput", "latency"},
      {{"faster-than-1-throughput", "Phase 3a is faster than phase 1 at the throughput shape.",
        "/timing/cold/median_ns", "throughput", "<", std::nullopt, "1", 1.0, 0.0, ""},
       {"seed-claim-throughput",
        "Within 10% of the seed's claimed 3.75 TFLOPS at the throughput shape.", "/tflops",
        "throughput", "within_pct", 3.75, "", 1.0, 10.0,
        "../shared/SEEDS.md: seed phase 3a claim"}}};
  return attnlab::run_experiment(exp, argc, argv);
}
