// Experiment for phase 3c, phase 3b with a split-K cuBLASLt algorithm for O = P V: does
// splitting the GEMM's k = S loop across more thread blocks pay for its extra reduction?
//   make experiment PHASE=3c           (throughput and latency shapes)
//   build/bin/attnlab-phase-3c --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "3c", "Split-K for the PV GEMM of the unfused phase 3b.",
      {"throughput", "latency"},
      {{"faster-than-3b-throughput", "Phase 3c is faster than phase 3b at the throughput shape.",
        "/timing/cold/median_ns", "throughput", "<", std::nullopt, "3b", 1.0, 0.0, ""},
       {"seed-claim-throughput",
        "Within 10% of the seed's claimed 0.83 TFLOPS at the throughput shape.", "/tflops",
        "throughput", "within_pct", 0.83, "", 1.0, 10.0,
        "../shared/SEEDS.md: seed phase 3c claim"}}};
  return attnlab::run_experiment(exp, argc, argv);
}
