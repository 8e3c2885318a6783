// The correctness gate on the device: operands uploaded once, the phase launched into
// poisoned output twice, and the first result compared with the fp64 reference.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "experiments/device_buffer.hpp"
#include "experiments/reference.hpp"
#include "kernels/registry.hpp"

namespace attnlab {

// Device copies of a problem's operands plus its output buffer, and the phases' workspace
// (Problem::workspace) of `workspace_bytes`, zeroed here once: size it with workspace_bytes()
// of kernels/registry.hpp, the largest of the phases that will run the problem.
class ProblemBuffers {
 public:
  ProblemBuffers(const Shape& s, const HostTensors& in, std::size_t workspace_bytes);
  Problem problem(float scale) const;

 private:
  Shape shape_;
  DeviceBuffer q_, k_, v_, o_;
  std::optional<DeviceBuffer> workspace_;  // none where no phase needs one
};

// Launches once into output poisoned with NaN (0xFFFF in fp16), so any element the phase
// does not write fails the check, and returns the output as the host sees it.
std::vector<__half> launch_poisoned(const Phase& phase, const Problem& p, cudaStream_t stream);

bool same_bits(const std::vector<__half>& a, const std::vector<__half>& b);

struct GateResult {
  CheckResult check;
  bool repeat_identical = false;  // two launches on the same inputs gave the same bits
  bool passed = false;            // check.passed && repeat_identical
  std::vector<__half> output;     // the checked output
  std::string failure;            // why it failed, empty when passed
};

GateResult run_gate(const Phase& phase, const Problem& p, const HostTensors& in,
                    std::uint64_t seed, cudaStream_t stream);

}  // namespace attnlab
