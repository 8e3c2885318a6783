// The cudnn_bwd baseline's graph choices, for the device probe that compares them
// (experiments/bin/cudnn_bwd_probe.cpp). The phase itself always runs graph_choices()[0]; the
// others stay buildable so that one run on the device can show which node of the graph decides
// whether cuDNN's dQ and dK are right, with nothing rebuilt.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/shape.hpp"
#include "kernels/backward_problem.hpp"

namespace attnlab::phase_cudnn_bwd {

struct GraphChoice {
  std::string name;
  // softmax_sum = reduce(dO * O) * 1 through a by-value scalar, as the frontend's node builds it
  // (its dropout-inverse scale, 1 without dropout); false: the reduction writes softmax_sum.
  bool sum_times_one = true;
  // dQ through the fp32 accumulator in the workspace then an IDENTITY into fp16 dQ (the
  // frontend's default graph); false: dQ straight from its matmul (the frontend's dP-workspace
  // graph, which it builds for the deterministic algorithm).
  bool dq_accumulator = true;
};

// Index 0 is the graph the phase runs.
const std::vector<GraphChoice>& graph_choices();

// The fp32 softmax_sum [B, H, S] at the workspace's start (256-byte aligned size), then the fp32
// dQ accumulator [B, H, S, D].
std::size_t sum_bytes(const Shape& s);
std::size_t workspace_bytes(const Shape& s);

// prepare() and launch() of graph_choices()[choice]; each choice keeps its own plans.
void prepare_choice(const Shape& s, std::size_t choice);
void launch_choice(const BackwardProblem& p, std::size_t choice, cudaStream_t stream);

}  // namespace attnlab::phase_cudnn_bwd
