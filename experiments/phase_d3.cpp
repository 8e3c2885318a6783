// Experiment for phase d3, one warp per query with K/V tiles shared in shared memory: does
// spreading a head over many blocks reach the seed's expected 10-20 us at the latency shape?
//   make experiment PHASE=d3           (latency shape)
//   build/bin/attnlab-phase-d3 --shape 1x8x512x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "d3", "One warp per query, K/V tiles staged once per block in shared memory, against d1.",
      {"latency"},
      {attnlab::claim("seed-expectation-latency",
                      "At most 20 us at the latency shape, the top of the seed's expected 10-20 us.")
           .metric("/timing/cold/median_ns")
           .at("latency")
           .at_most(20000.0)
           .source("../shared/SEEDS.md: seed phase d3 expectation (\"10-20 us expected\")"),
       attnlab::faster_than("d3", "d1", "latency")}};
  return attnlab::run_experiment(exp, argc, argv);
}
