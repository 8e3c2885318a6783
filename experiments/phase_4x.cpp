// Experiment for phase 4x, WMMA for both matmuls with cp.async double buffering: what do
// tensor cores on QK^T and PV buy over the scalar tiled phase 4?
//   make experiment PHASE=4x           (throughput and latency shapes)
//   build/bin/attnlab-phase-4x --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "4x", "WMMA for QK^T and PV, cp.async double-buffered K/V, against the scalar phase 4.",
      {"throughput", "latency"},
      {attnlab::faster_than("4x", "4", "throughput"), attnlab::faster_than("4x", "4", "latency"),
       attnlab::claim("seed-speedup-over-4-throughput",
                      "At least 1.69x the TFLOPS of phase 4 at the throughput shape, as the seed "
                      "claimed.")
           .metric("/tflops")
           .at("throughput")
           .at_least_phase("4", 1.69)
           .source("../shared/SEEDS.md: seed phase 4x claim (10.87 vs 6.42 TFLOPS)"),
       attnlab::seed_claim("4x", "10.87", "throughput")}};
  return attnlab::run_experiment(exp, argc, argv);
}
