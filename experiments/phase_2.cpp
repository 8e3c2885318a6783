// Experiment for phase 2, phase 1 with a two-stage cp.async pipeline for K/V: does overlapping
// the next tile's copy with the current tile's math buy anything over phase 1?
//   make experiment PHASE=2            (throughput and latency shapes)
//   build/bin/attnlab-phase-2 --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "2", "Phase 1's kernel with K/V tiles double-buffered by cp.async, against phase 1.",
      {"throughput", "latency"},
      {attnlab::faster_than("2", "1", "throughput"),
       attnlab::seed_claim("2", "0.59", "throughput")}};
  return attnlab::run_experiment(exp, argc, argv);
}
