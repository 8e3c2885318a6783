// The correctness gate of a backward phase on the device: Q, K, V and dO uploaded once, O and
// LSE made by the gate's fp32 forward (experiments/harness/backward_forward.hpp), the phase launched
// into dQ, dK and dV poisoned with NaN twice, and the first result compared with the fp64
// reference gradients (experiments/harness/backward_reference.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/harness/backward_reference.hpp"
#include "experiments/harness/device_buffer.hpp"
#include "kernels/registry.hpp"
#include "record/correctness.hpp"

namespace attnlab {

// The name of the harness's own fp32 forward among the makers of O and LSE.
inline constexpr const char* kFp32Forward = "fp32";

// The forward phase `id` names to make a backward phase's O and LSE (--forward): one that emits
// the LSE (Phase::emits_lse) and runs every shape; nullptr for an empty id; anything else is a
// std::invalid_argument that says why.
const Phase* lse_forward(const Phase& backward, const std::string& id, const std::vector<Shape>& shapes);

// Device operands of one backward problem and the phase's workspace (zeroed here once). The
// constructor makes O and LSE and waits for them, so that nothing of it falls inside a timed
// region: with the harness's fp32 forward (experiments/harness/backward_forward.hpp), or with
// `forward`, a forward phase that emits the LSE (Phase::emits_lse; anything else is a
// std::invalid_argument), launched once at the problem's default scale.
class BackwardBuffers {
 public:
  BackwardBuffers(const Shape& s, const BackwardHostInputs& in, std::size_t workspace_bytes,
                  const Phase* forward = nullptr);
  BackwardProblem problem(float scale, bool deterministic) const;
  // What made O and LSE: "fp32" or the forward phase's id (the record's correctness.forward).
  const std::string& forward() const { return forward_; }

 private:
  Shape shape_;
  std::string forward_;
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
  std::string forward = kFp32Forward;  // what made O and LSE (BackwardBuffers::forward)
};

// p's operands must be BackwardBuffers made from `in`; the reference's sample comes from seed.
BackwardGateResult run_backward_gate(const Phase& phase, const BackwardProblem& p,
                                     const BackwardHostInputs& in, std::uint64_t seed, cudaStream_t stream);
// The same gate against a sample and its references that an earlier gate on the same inputs
// made (an A/B's second side), without computing them again.
BackwardGateResult run_backward_gate(const Phase& phase, const BackwardProblem& p, const BackwardSample& sample,
                                     const GradientSample& reference, cudaStream_t stream);

// The record's correctness block (rule "backward_row_rms"): the figures of the gradient row
// closest to failing among dQ, dK and dV; rows_checked counts dQ rows and dK/dV key rows.
Correctness backward_correctness_block(const BackwardGateResult& g, const Shape& s, Inputs inputs);

}  // namespace attnlab
