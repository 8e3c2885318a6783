// Experiment for phase d4, split-KV across a thread-block cluster with wgmma and a DSMEM merge:
// does filling every SM with warpgroup MMA work bring the latency shape under 5 us of kernel
// time, and ahead of d3?
//   make experiment PHASE=d4           (latency shape and its neighbours)
//   build/bin/attnlab-phase-d4 --shape 1x8x512x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "d4",
      "Split-KV inside a thread-block cluster: wgmma for both GEMMs (TMA loads, P in registers), "
      "partial softmax states merged through distributed shared memory, against d3.",
      // The latency shape and the neighbours issue 10 asks for: longer S, D = 128, GQA, causal.
      {"latency", "1x8x1024x64", "1x8x512x128", "1x32x512x64:hkv=8", "1x8x512x64:causal"},
      {attnlab::claim("target-latency", "At most 5 us of kernel time (cold) at the latency shape.")
           .metric("/timing/cold/median_ns")
           .at("latency")
           .at_most(5000.0)
           .source("project issue 10: phase d4 target (at most 5.0 us)"),
       attnlab::claim("cudnn-ratio-latency",
                      "At most 0.6x cuDNN's kernel busy time at the latency shape, paired: the "
                      "lower bound of the paired A/B interval of t_cudnn / t_d4 (make ab A=d4 "
                      "B=cudnn, wall time) at least 1/0.6.")
           .at("latency")
           .paired_against("cudnn", 1.0 / 0.6)
           .source("project issue 10: phase d4 target; issue 26: judged on the paired A/B ratio"),
       attnlab::faster_than("d4", "d3", "latency")}};
  return attnlab::run_experiment(exp, argc, argv);
}
