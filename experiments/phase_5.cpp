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
      {attnlab::claim("faster-than-cudnn-throughput",
                      "At least 1.10x the TFLOPS of the cuDNN SDPA backend at the throughput shape.")
           .metric("/tflops")
           .at("throughput")
           .at_least_phase("sdpa-cudnn", 1.10)
           .source("issue 9: phase 5 target (cuDNN measured in the same session by make baseline)"),
       attnlab::claim("as-fast-as-cudnn-d128",
                      "At least the TFLOPS of the cuDNN SDPA backend at 4x16x4096x128.")
           .metric("/tflops")
           .at(kD128)
           .at_least_phase("sdpa-cudnn")
           .source("issue 9: phase 5 target"),
       attnlab::faster_than("5", "4x", "throughput"),
       attnlab::claim("tensor-pipe-60pct",
                      "The tensor pipe is active at least 60% of active cycles at the throughput "
                      "shape.")
           .metric(kTensorPipe)
           .at("throughput")
           .at_least(60.0)
           .source("issue 9: phase 5 target"),
       attnlab::no_local("5", false, "throughput")}};
  return attnlab::run_experiment(exp, argc, argv);
}
