// The correctness gate of a backward phase on the device: Q, K, V and dO uploaded once, O and
// LSE made by the gate's fp32 forward (experiments/backward_forward.hpp), the phase launched
// into dQ, dK and dV poisoned with NaN twice, and the first result compared with the fp64
// reference gradients (experiments/backward_reference.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/backward_reference.hpp"
#include "experiments/device_buffer.hpp"
#include "kernels/registry.hpp"
#include "record/correctness.hpp"

namespace attnlab {

// Device operands of one backward problem and the phase's workspace (zeroed here once). The
// constructor runs the fp32 forward for O and LSE and waits for it, so that nothing of it falls
// inside a timed region.
class BackwardBuffers {
 public:
  BackwardBuffers(const Shape& s, const BackwardHostInputs& in, std::size_t workspace_bytes);
  BackwardProblem problem(float scale, bool deterministic) const;

 private:
  Shape shape_;
  DeviceBuffer q_, k_, v_, o_, d_o_, lse_, dq_, dk_, dv_;
  std::optional<DeviceBuffer> workspace_;
};

struct Gradients {
  std::vector<__half> dq, dk, dv;
};

// Launches once into dQ, dK and dV poisoned with NaN (0xFFFF in fp16), so any element the
// phase does not write fails the check, and returns them as the host sees them.
Gradients launch_backward_poisoned(const Phase& phase, const BackwardProblem& p, cudaStream_t stream);
bool same_bits(const Gradients& a, const Gradients& b);

struct BackwardGateResult {
  BackwardCheck check;
  bool repeat_identical = false;  // two launches on the same inputs gave the same bits
  // check.passed, and for a deterministic launch repeat_identical too: without the flag a phase
  // may add dQ with floating-point atomics, whose order (and last bits) vary between launches.
  bool passed = false;
  Gradients output;     // the checked gradients
  std::string failure;  // why it failed, empty when passed
  BackwardSample sample;      // what was checked, and its references: a later launch's
  GradientSample reference;   // gradients are checked on them without recomputing
};

// p's operands must be BackwardBuffers made from `in`; the reference's sample comes from seed.
BackwardGateResult run_backward_gate(const Phase& phase, const BackwardProblem& p,
                                     const BackwardHostInputs& in, std::uint64_t seed, cudaStream_t stream);

// The record's correctness block (rule "backward_row_rms"): the figures of the gradient row
// closest to failing among dQ, dK and dV; rows_checked counts dQ rows and dK/dV key rows.
Correctness backward_correctness_block(const BackwardGateResult& g, const Shape& s, Inputs inputs);

}  // namespace attnlab
