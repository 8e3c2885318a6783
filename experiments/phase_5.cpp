// Experiment for phase 5, wgmma + TMA with warp specialisation: does the Hopper-native kernel
// beat cuDNN's fused SDPA (paired in one process: make ab A=5 B=cudnn) at the throughput shape and at
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
                      "At least 1.10x the speed of cuDNN's fused SDPA at the throughput shape, "
                      "paired: the lower bound of the paired A/B interval of t_cudnn / t_5 "
                      "(make ab A=5 B=cudnn, wall time) at least 1.10.")
           .at("throughput")
           .paired_against("cudnn", 1.10)
           .source("issue 9: phase 5 target; issue 26: judged on the paired A/B ratio"),
       attnlab::claim("as-fast-as-cudnn-d128",
                      "As fast as cuDNN's fused SDPA at 4x16x4096x128, paired: the lower bound of "
                      "the paired A/B interval of t_cudnn / t_5 (wall time) at least the 0.98 "
                      "non-inferiority margin.")
           .at(kD128)
           .paired_as_fast_as("cudnn")
           .source("issue 9: phase 5 target; issue 26: non-inferiority margin 0.98"),
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
