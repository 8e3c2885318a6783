// The correctness gate on the device: operands uploaded once, the phase launched into
// poisoned output twice, and the first result compared with the fp64 reference.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "experiments/device_buffer.hpp"
#include "experiments/reference.hpp"
#include "kernels/registry.hpp"

namespace attnlab {

// Device copies of a problem's operands plus its output buffer.
class ProblemBuffers {
 public:
  ProblemBuffers(const Shape& s, const HostTensors& in);
  Problem problem(float scale) const;

 private:
  Shape shape_;
  DeviceBuffer q_, k_, v_, o_;
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
