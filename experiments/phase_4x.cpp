// Experiment for phase 4x, WMMA for both matmuls with cp.async double buffering: what do
// tensor cores on QK^T and PV buy over the scalar tiled phase 4?
//   make experiment PHASE=4x           (throughput and latency shapes)
//   build/bin/attnlab-phase-4x --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "4x", "WMMA for QK^T and PV, cp.async double-buffered K/V, against the scalar phase 4.",
      {"throughput", "latency"},
      {{"faster-than-4-throughput", "Phase 4x is faster than phase 4 at the throughput shape.",
        "/timing/cold/median_ns", "throughput", "<", std::nullopt, "4", 1.0, 0.0, ""},
       {"faster-than-4-latency", "Phase 4x is faster than phase 4 at the latency shape.",
        "/timing/cold/median_ns", "latency", "<", std::nullopt, "4", 1.0, 0.0, ""},
       {"seed-speedup-over-4-throughput",
        "At least 1.69x the TFLOPS of phase 4 at the throughput shape, as the seed claimed.",
        "/tflops", "throughput", ">=", std::nullopt, "4", 1.69, 0.0,
        "../shared/SEEDS.md: seed phase 4x claim (10.87 vs 6.42 TFLOPS)"},
       {"seed-claim-throughput",
        "Within 10% of the seed's claimed 10.87 TFLOPS at the throughput shape.", "/tflops",
        "throughput", "within_pct", 10.87, "", 1.0, 10.0,
        "../shared/SEEDS.md: seed phase 4x claim"}}};
  return attnlab::run_experiment(exp, argc, argv);
}
