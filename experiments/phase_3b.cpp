// Experiment for phase 3b, unfused attention on cuBLASLt: what does writing the S x S scores
// and probabilities to global memory cost, with library GEMMs doing both matmuls?
//   make experiment PHASE=3b           (throughput and latency shapes)
//   build/bin/attnlab-phase-3b --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "3b",
      "Unfused: cuBLASLt GEMMs and a softmax kernel with S and P materialised in global memory.",
      {"throughput", "latency"},
      {attnlab::seed_claim("3b", "0.45", "throughput")}};
  return attnlab::run_experiment(exp, argc, argv);
}
