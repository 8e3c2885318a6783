// Experiment for phase 2, phase 1 with a two-stage cp.async pipeline for K/V: does overlapping
// the next tile's copy with the current tile's math buy anything over phase 1?
//   make experiment PHASE=2            (throughput and latency shapes)
//   build/bin/attnlab-phase-2 --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "2", "Phase 1's kernel with K/V tiles double-buffered by cp.async, against phase 1.",
      {"throughput", "latency"},
      {{"faster-than-1-throughput", "Phase 2 is faster than phase 1 at the throughput shape.",
        "/timing/cold/median_ns", "throughput", "<", std::nullopt, "1", 1.0, 0.0, ""},
       {"seed-claim-throughput",
        "Within 10% of the seed's claimed 0.59 TFLOPS at the throughput shape.", "/tflops",
        "throughput", "within_pct", 0.59, "", 1.0, 10.0,
        "../shared/SEEDS.md: seed phase 2 claim"}}};
  return attnlab::run_experiment(exp, argc, argv);
}
