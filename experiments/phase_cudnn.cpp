// Experiment for the cudnn baseline phase: cuDNN's fused flash-attention forward measured by
// the very harness that measures our phases, so that a comparison with them is one yardstick
// (same process layout, gate, regimes, counters and NVML clocks) instead of two tools.
// Claim-free: it is the yardstick. PyTorch SDPA's cuDNN backend (make baseline) runs the same
// engines, so its records should read the same times at the same shapes.
//   make experiment PHASE=cudnn        (seed shapes and 4x16x4096x128, causal and not)
//   build/bin/attnlab-phase-cudnn --shape 1x8x1024x128:causal:hkv=2
#include "experiments/experiment.hpp"

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "cudnn",
      "Baseline: cuDNN's fused SDPA forward (backend graph API, heuristics' engine) in our harness.",
      {"throughput", "latency", "4x16x4096x128", "16x16x2048x64:causal", "1x8x512x64:causal",
       "4x16x4096x128:causal"},
      {}};
  return attnlab::run_experiment(exp, argc, argv);
}
