// FP8 (e4m3) operands for the FP8 gate: per-tensor scaling as cuDNN's and FlashAttention-3's
// FP8 interfaces take it (x8 = e4m3(x * scale), the kernel multiplies by descale = 1 / scale),
// the codec (CUDA's own conversions, cuda_fp8.h: round to nearest even, saturating at 448, so
// host and device agree bit for bit), and the dequantised inputs the fp64 reference reads.
// Host-only.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "experiments/harness/reference.hpp"

namespace attnlab {

constexpr double kE4m3Max = 448.0;  // the largest finite e4m3 value

// The e4m3 code of x (round to nearest even, saturating to +-448) and the value of a code.
std::uint8_t to_e4m3(double x);
double e4m3_value(std::uint8_t code);
// The spacing of the e4m3 grid at |x| (|x| <= 448): 2^(e - 3) in the binade [2^e, 2^(e + 1)),
// and the subnormal spacing 2^-9 below 2^-6.
double e4m3_spacing(double x);

// The scale of a tensor whose largest magnitude is amax: the largest power of two with
// amax * scale <= 448. A power of two, so that every dequantised value (an e4m3 value times
// 1 / scale) is exactly an fp16 value for the scales of the gate's inputs, and the fp64
// reference reads exactly what the kernel computes with.
double e4m3_scale_for(double amax);

struct Fp8Operand {
  std::vector<std::uint8_t> codes;  // e4m3, same layout as the fp16 tensor
  double scale = 1;                 // codes hold x * scale; the kernel's descale is 1 / scale
};

struct Fp8Inputs {
  Fp8Operand q, k, v;
  // What the codes stand for, code value / scale, as fp16 tensors (exact: see e4m3_scale_for);
  // the gate's reference and its naive FP8 yardstick read these.
  HostTensors dequantised;
};

// x quantised at `scale`: each element's code to_e4m3(x * scale), and into `dequantised` its
// value e4m3_value(code) / scale as an fp16 value; throws std::runtime_error (naming the tensor
// `name`) where that value is not exactly an fp16 value: a NaN in x, or at a scale below 2^-7
// or above 2^30 an element whose value leaves fp16's range or grid (from 2^-7 to 2^30 every
// other fp16 value dequantises exactly).
Fp8Operand quantize_at(const std::vector<__half>& x, double scale, std::vector<__half>& dequantised,
                       const char* name);

// Quantises each of Q, K and V with its own scale, e4m3_scale_for its largest magnitude (NaNs
// left out), as quantize_at.
Fp8Inputs quantize_e4m3(const HostTensors& in);

// "fp16" or "e4m3", as records and the console name an InputFormat.
const char* input_format_name(InputFormat f);

// One draw of a gate's inputs for every phase that reads it: the fp16 tensors, and where a phase
// reads e4m3 (Phase::input_format) their quantisation, made once, so that two FP8 phases on one
// draw (an A/B) read the very same codes and are checked against the same dequantised reference.
struct GateInputs {
  HostTensors tensors;           // the draw itself: what an fp16 phase reads, and unquantised
  std::optional<Fp8Inputs> fp8;  // its e4m3 codes, scales and dequantised copies, where wanted
  // What a phase reading `format` takes its operands from: nullptr for kFp16, the quantisation
  // for kE4m3 (std::logic_error where it was not made).
  const Fp8Inputs* operands(InputFormat format) const;
  // What its output is checked against: the draw, or for kE4m3 the dequantised inputs.
  const HostTensors& reference(InputFormat format) const;
};
// make_inputs(s, seed, dist), quantised when any of `formats` is kE4m3.
GateInputs make_gate_inputs(const Shape& s, std::uint64_t seed, Inputs dist,
                            const std::vector<InputFormat>& formats);

}  // namespace attnlab
