// Experiment for phase d1, the latency series' baseline: one block per head, one thread per
// query row, scalar math. What does a kernel that occupies one SM per head reach at the
// latency shape?
//   make experiment PHASE=d1           (latency shape)
//   build/bin/attnlab-phase-d1 --shape 1x8x512x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "d1", "Latency baseline: one block per (batch, head), scalar fused, K/V from global memory.",
      {"latency"}};
  return attnlab::run_experiment(exp, argc, argv);
}
