// Experiment for phase d2, d1 with its guards as clamps and predicates: does the SASS lose
// branches, keep free of local memory, and does the time change?
//   make experiment PHASE=d2           (latency shape)
//   build/bin/attnlab-phase-d2 --shape 1x8x512x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "d2", "d1 made branch-free: clamped loads, arithmetic masks, predicated stores.",
      {"latency"},
      {{"fewer-branches-than-d1", "Phase d2's SASS has fewer BRA instructions than d1's.",
        "/static/sass/BRA/total", "latency", "<", std::nullopt, "d1", 1.0, 0.0,
        "../shared/SEEDS.md: seed phase d2 claim (\"4 branches\")"},
       {"no-local-loads", "Phase d2 has no local-memory loads (LDL) in its SASS.",
        "/static/sass/LDL", "latency", "==", 0.0, "", 1.0, 0.0,
        "../shared/SEEDS.md: seed phase d2 claim (\"0 spills\")"},
       {"no-local-stores", "Phase d2 has no local-memory stores (STL) in its SASS.",
        "/static/sass/STL", "latency", "==", 0.0, "", 1.0, 0.0,
        "../shared/SEEDS.md: seed phase d2 claim (\"0 spills\")"}}};
  return attnlab::run_experiment(exp, argc, argv);
}
