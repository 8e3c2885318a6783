#include "experiments/harness/fp8_inputs.hpp"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace attnlab {

std::uint8_t to_e4m3(double x) {
  return std::uint8_t(__nv_cvt_double_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
}

double e4m3_value(std::uint8_t code) {
  const __half_raw raw = __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(code), __NV_E4M3);
  return double(__half2float(__half(raw)));
}

double e4m3_spacing(double x) {
  const double a = std::fabs(x);
  if (a < 0x1.0p-6) return 0x1.0p-9;
  int e = 0;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 1 - 3);
}

double e4m3_scale_for(double amax) {
  if (!(amax > 0) || !std::isfinite(amax)) return 1;
  int e = 0;
  std::frexp(kE4m3Max / amax, &e);  // 448 / amax in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 1);
}

namespace {

Fp8Operand quantize(const std::vector<__half>& x, std::vector<__half>& dequantised, const char* name) {
  double amax = 0;
  for (__half h : x) amax = std::max(amax, std::fabs(double(__half2float(h))));
  Fp8Operand op;
  op.scale = e4m3_scale_for(amax);
  op.codes.resize(x.size());
  dequantised.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    op.codes[i] = to_e4m3(double(__half2float(x[i])) * op.scale);
    const double value = e4m3_value(op.codes[i]) / op.scale;
    dequantised[i] = __double2half(value);
    if (double(__half2float(dequantised[i])) != value)
      throw std::runtime_error(std::string("e4m3 ") + name + ": the dequantised value " + std::to_string(value) +
                               " is not an fp16 value (scale " + std::to_string(op.scale) + ")");
  }
  return op;
}

}  // namespace

Fp8Inputs quantize_e4m3(const HostTensors& in) {
  Fp8Inputs f;
  f.q = quantize(in.q, f.dequantised.q, "Q");
  f.k = quantize(in.k, f.dequantised.k, "K");
  f.v = quantize(in.v, f.dequantised.v, "V");
  return f;
}

const char* input_format_name(InputFormat f) { return f == InputFormat::kE4m3 ? "e4m3" : "fp16"; }

const Fp8Inputs* GateInputs::operands(InputFormat format) const {
  if (format == InputFormat::kFp16) return nullptr;
  if (!fp8) throw std::logic_error("a phase reads e4m3 inputs, and these inputs were not quantised");
  return &*fp8;
}

const HostTensors& GateInputs::reference(InputFormat format) const {
  const Fp8Inputs* f = operands(format);
  return f ? f->dequantised : tensors;
}

GateInputs make_gate_inputs(const Shape& s, std::uint64_t seed, Inputs dist,
                            const std::vector<InputFormat>& formats) {
  GateInputs g{make_inputs(s, seed, dist), std::nullopt};
  if (std::find(formats.begin(), formats.end(), InputFormat::kE4m3) != formats.end())
    g.fp8 = quantize_e4m3(g.tensors);
  return g;
}

}  // namespace attnlab
