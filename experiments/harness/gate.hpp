// The correctness gate on the device: operands uploaded once, the phase launched into
// poisoned output twice, and the first result compared with the fp64 reference. A phase that
// reads e4m3 (Phase::input_format) gets the codes of its inputs with their descales, and is
// checked on the dequantised inputs with the FP8 rule (experiments/harness/fp8_inputs.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "experiments/harness/device_buffer.hpp"
#include "experiments/harness/fp8_inputs.hpp"
#include "experiments/harness/reference.hpp"
#include "kernels/registry.hpp"
#include "record/correctness.hpp"

namespace attnlab {

// Device copies of a problem's operands in `format` (the fp16 draw, or its e4m3 codes and
// their descales) plus its output buffer, and the phases' workspace (Problem::workspace) of
// `workspace_bytes`, zeroed here once: size it with workspace_bytes() of kernels/registry.hpp,
// the largest of the phases that will run the problem. with_lse: an LSE buffer too
// (Problem::lse), for a phase that emits it (Phase::emits_lse).
class ProblemBuffers {
 public:
  ProblemBuffers(const Shape& s, const GateInputs& in, InputFormat format, std::size_t workspace_bytes,
                 bool with_lse = false);
  Problem problem(float scale) const;

 private:
  Shape shape_;
  InputFormat format_;
  float descale_q_ = 1, descale_k_ = 1, descale_v_ = 1;
  DeviceBuffer q_, k_, v_, o_;
  std::optional<DeviceBuffer> workspace_;  // none where no phase needs one
  std::optional<DeviceBuffer> lse_;        // none where no phase emits it
};

// Launches once into output poisoned with NaN (0xFFFF in fp16; the LSE too where p has one),
// so any element the phase does not write fails the check, and returns the output as the host
// sees it.
std::vector<__half> launch_poisoned(const Phase& phase, const Problem& p, cudaStream_t stream);
// p's LSE ([B, H, S] fp32) as the host sees it, after a launch has finished.
std::vector<float> read_lse(const Problem& p);

bool same_bits(const std::vector<__half>& a, const std::vector<__half>& b);

struct GateResult {
  CheckResult check;
  bool repeat_identical = false;  // two launches on the same inputs gave the same bits
  bool passed = false;            // check.passed && repeat_identical
  std::vector<__half> output;     // the checked output
  std::string failure;            // why it failed, empty when passed
  InputFormat format = InputFormat::kFp16;  // what the phase read
  std::optional<InputScales> scales;        // kE4m3: its inputs' quantisation scales
  double rmse_unquantised = 0;  // rms error against the fp64 reference on the unquantised draw
  // A phase that emits the LSE (Phase::emits_lse): its check on the same rows, which passed
  // needs too (and repeat_identical covers its bits), and the checked LSE.
  std::optional<LseCheck> lse;
  std::vector<float> lse_output;
};

// p's operands must be in the phase's input format, made from `in` (ProblemBuffers), and p has
// an LSE buffer where the phase emits one; anything else is a std::logic_error.
GateResult run_gate(const Phase& phase, const Problem& p, const GateInputs& in,
                    std::uint64_t seed, cudaStream_t stream);

// One more launch into fresh poison gives the gate's result bit for bit: O, and the LSE where
// the phase emits it (the check after timing: the timed launches rewrote both many times).
bool same_result_again(const Phase& phase, const Problem& p, const GateResult& g, cudaStream_t stream);

}  // namespace attnlab
