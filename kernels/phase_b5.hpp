// Phase b5: the attention backward on Hopper (kernels/phase_b5_wgmma.cu): a pre-pass for
// delta = rowsum(dO * O), a key-block-major wgmma kernel that keeps dK and dV of a KV head's
// group in registers and adds dQ into an fp32 accumulator, and a post-pass that scales dQ and
// rounds it to fp16. The interface is kernels/backward_problem.hpp's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "common/shape.hpp"
#include "kernels/backward_problem.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase_b5 {

// A one-line reason for a shape the kernels do not cover, or none.
Refusal can_implement(const Shape& s);
// Bytes of BackwardProblem::workspace a launch at s needs (0 for a refused shape): dQ's fp32
// accumulator, the rows' LSE (log2 units) and delta, and the deterministic mode's turn counters.
std::size_t backward_workspace_bytes(const Shape& s);
// Enqueues the three kernels on the stream; throws std::invalid_argument for a refused shape,
// misaligned operands or a missing workspace. Never synchronises.
void launch_backward(const BackwardProblem& p, cudaStream_t stream);
// The same with the main kernel's consumer warpgroups chosen (1: tiles of 64 keys, the simplest
// kernel; 2: 128 keys sharing each query block's loads), so the GPU test checks both. max_blocks
// > 0 caps the main kernel's persistent grid below its block per SM: the GPU test's knob, so that
// at its small shapes a block runs several tiles, as at large ones.
constexpr int kDefaultConsumers = 2;
void launch_backward_with(const BackwardProblem& p, int consumers, cudaStream_t stream, int max_blocks = 0);

}  // namespace attnlab::phase_b5
