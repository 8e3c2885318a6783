// Experiment for phase 5, wgmma + TMA with warp specialisation: does the Hopper-native kernel
// beat PyTorch SDPA's cuDNN backend (make baseline, same GPU) at the throughput shape and at
// head dim 128, and how far is it past the WMMA phase 4x?
//   make experiment PHASE=5            (both target shapes, causal and not)
//   build/bin/attnlab-phase-5 --shape 1x8x1024x128:causal
#include "experiments/experiment.hpp"

namespace {
constexpr const char* kD128 = "4x16x4096x128";
constexpr const char* kTensorPipe =
    "/metrics/tensor/values/sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active/value";
}  // namespace

int main(int argc, char** argv) {
  const attnlab::Experiment exp{
      "5",
      "wgmma for both products, TMA K/V ring, producer/consumer warpgroups: against cuDNN and 4x.",
      {"throughput", kD128, "16x16x2048x64:causal", "4x16x4096x128:causal"},
      {{"faster-than-cudnn-throughput",
        "At least 1.10x the TFLOPS of the cuDNN SDPA backend at the throughput shape.", "/tflops",
        "throughput", ">=", std::nullopt, "sdpa-cudnn", 1.10, 0.0,
        "issue 9: phase 5 target (cuDNN measured in the same session by make baseline)"},
       {"as-fast-as-cudnn-d128", "At least the TFLOPS of the cuDNN SDPA backend at 4x16x4096x128.",
        "/tflops", kD128, ">=", std::nullopt, "sdpa-cudnn", 1.0, 0.0,
        "issue 9: phase 5 target"},
       {"faster-than-4x-throughput", "Phase 5 is faster than phase 4x at the throughput shape.",
        "/timing/cold/median_ns", "throughput", "<", std::nullopt, "4x", 1.0, 0.0, ""},
       {"tensor-pipe-60pct",
        "The tensor pipe is active at least 60% of active cycles at the throughput shape.",
        kTensorPipe, "throughput", ">=", 60.0, "", 1.0, 0.0, "issue 9: phase 5 target"},
       {"no-local-loads", "Phase 5 has no local-memory loads (LDL) in its SASS.",
        "/static/sass/LDL", "throughput", "==", 0.0, "", 1.0, 0.0, ""}}};
  return attnlab::run_experiment(exp, argc, argv);
}
