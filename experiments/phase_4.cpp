// Experiment for phase 4, fused 32x32 tiles with warp-shuffle softmax: what does sharing
// K/V tiles across a block's warps buy over the scalar phase 1?
//   make experiment PHASE=4            (throughput and latency shapes)
//   build/bin/attnlab-phase-4 --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "4", "Fused tiles in shared memory with warp-shuffle softmax, against the scalar phase 1.",
      {"throughput", "latency"},
      {{"faster-than-1-throughput", "Phase 4 is faster than phase 1 at the throughput shape.",
        "/timing/cold/median_ns", "throughput", "<", std::nullopt, "1"},
       {"faster-than-1-latency", "Phase 4 is faster than phase 1 at the latency shape.",
        "/timing/cold/median_ns", "latency", "<", std::nullopt, "1"},
       {"seed-claim-throughput", "Within 10% of the seed's claimed 6.42 TFLOPS at the throughput shape.",
        "/tflops", "throughput", "within_pct", 6.42, "", 1.0, 10.0,
        "../shared/SEEDS.md: seed phase 4 claim"}}};
  return attnlab::run_experiment(exp, argc, argv);
}
