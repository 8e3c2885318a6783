// Experiment for phase 4, fused 32x32 tiles with warp-shuffle softmax: what does sharing
// K/V tiles across a block's warps buy over the scalar phase 1?
//   make experiment PHASE=4            (throughput and latency shapes)
//   build/bin/attnlab-phase-4 --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "4", "Fused tiles in shared memory with warp-shuffle softmax, against the scalar phase 1.",
      {"throughput", "latency"},
      {attnlab::faster_than("4", "1", "throughput"), attnlab::faster_than("4", "1", "latency"),
       attnlab::seed_claim("4", "6.42", "throughput")}};
  return attnlab::run_experiment(exp, argc, argv);
}
