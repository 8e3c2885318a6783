// Experiment for phase d4, split-KV across a thread-block cluster with tensor-core matmuls and
// a DSMEM merge: does filling every SM with mma.sync work bring the latency shape under 5 us
// of kernel time, and ahead of d3?
//   make experiment PHASE=d4           (latency shape and its neighbours)
//   build/bin/attnlab-phase-d4 --shape 1x8x512x128:causal
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "d4",
      "Split-KV inside a thread-block cluster: mma.sync for both GEMMs, P in registers, partial "
      "softmax states merged through distributed shared memory, against d3.",
      // The latency shape and the neighbours issue 10 asks for: longer S, D = 128, GQA, causal.
      {"latency", "1x8x1024x64", "1x8x512x128", "1x32x512x64:hkv=8", "1x8x512x64:causal"},
      {{"target-latency", "At most 5 us of kernel time (cold) at the latency shape.",
        "/timing/cold/median_ns", "latency", "<=", 5000.0, "", 1.0, 0.0,
        "project issue 10: phase d4 target (at most 5.0 us)"},
       {"cudnn-ratio-latency",
        "At most 0.6x the cuDNN SDPA backend's kernel busy time at the latency shape (cold).",
        "/timing/cold/busy_median_ns", "latency", "<=", std::nullopt, "sdpa-cudnn", 0.6, 0.0,
        "project issue 10: phase d4 target (cuDNN measured in the same session by make baseline)"},
       {"faster-than-d3-latency", "Phase d4 is faster than phase d3 at the latency shape.",
        "/timing/cold/median_ns", "latency", "<", std::nullopt, "d3", 1.0, 0.0, ""}}};
  return attnlab::run_experiment(exp, argc, argv);
}
