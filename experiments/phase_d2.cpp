// Experiment for phase d2, d1 with its guards as clamps and predicates: does the SASS lose
// branches, keep free of local memory, and does the time change?
//   make experiment PHASE=d2           (latency shape)
//   build/bin/attnlab-phase-d2 --shape 1x8x512x128:causal
#include "experiments/experiment.hpp"

namespace {
constexpr const char* kNoSpillsClaim = "../shared/SEEDS.md: seed phase d2 claim (\"0 spills\")";
}  // namespace

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "d2", "d1 made branch-free: clamped loads, arithmetic masks, predicated stores.",
      {"latency"},
      {attnlab::claim("fewer-branches-than-d1", "Phase d2's SASS has fewer BRA instructions than d1's.")
           .metric("/static/sass/BRA/total")
           .at("latency")
           .below_phase("d1")
           .source("../shared/SEEDS.md: seed phase d2 claim (\"4 branches\")"),
       attnlab::no_local("d2", false, "latency").source(kNoSpillsClaim),
       attnlab::no_local("d2", true, "latency").source(kNoSpillsClaim)}};
  return attnlab::run_experiment(exp, argc, argv);
}
