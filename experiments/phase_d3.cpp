// Experiment for phase d3, one warp per query with K/V tiles shared in shared memory: does
// spreading a head over many blocks reach the seed's expected 10-20 us at the latency shape?
//   make experiment PHASE=d3           (latency shape)
//   build/bin/attnlab-phase-d3 --shape 1x8x512x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "d3", "One warp per query, K/V tiles staged once per block in shared memory, against d1.",
      {"latency"},
      {{"seed-expectation-latency",
        "At most 20 us at the latency shape, the top of the seed's expected 10-20 us.",
        "/timing/cold/median_ns", "latency", "<=", 20000.0, "", 1.0, 0.0,
        "../shared/SEEDS.md: seed phase d3 expectation (\"10-20 us expected\")"},
       {"faster-than-d1-latency", "Phase d3 is faster than phase d1 at the latency shape.",
        "/timing/cold/median_ns", "latency", "<", std::nullopt, "d1", 1.0, 0.0, ""}}};
  return attnlab::run_experiment(exp, argc, argv);
}
