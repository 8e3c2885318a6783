// Experiment for phase 1, the scalar fused baseline: is it correct everywhere, and what does
// a kernel without tensor cores or data reuse across threads reach?
//   make experiment PHASE=1            (latency shape)
//   build/bin/attnlab-phase-1 --shape throughput
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "1", "Baseline: the scalar fused kernel every later phase is measured against.",
      {"latency"}};
  return attnlab::run_experiment(exp, argc, argv);
}
