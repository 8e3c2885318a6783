#include "experiments/harness/fp8_inputs.hpp"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "experiments/harness/parallel_for.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
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

std::uint16_t half_bits(__half h) { return __half_as_ushort(h); }
__half half_of(std::uint16_t bits) { return __ushort_as_half(bits); }

// The largest |x| of the tensor, NaNs left out: fp16 magnitudes order as their bits with the
// sign cleared, up to inf (0x7c00); above it lie the NaNs.
double amax_of(const std::vector<__half>& x) {
  std::mutex mu;
  std::uint16_t amax = 0;
  parallel_for(std::int64_t(x.size()), [&](std::int64_t b, std::int64_t e) {
    std::uint16_t m = 0;
    for (std::int64_t i = b; i < e; ++i) {
      const std::uint16_t a = half_bits(x[std::size_t(i)]) & 0x7fff;
      if (a <= 0x7c00) m = std::max(m, a);
    }
    const std::lock_guard<std::mutex> lock(mu);
    amax = std::max(amax, m);
  });
  return double(__half2float(half_of(amax)));
}

// One fp16 value's quantisation at one scale: its code, and the code's value over the scale,
// which must be an fp16 value (exact false where it is not). Four bytes, so that a table of
// every fp16 value stays in a core's L2.
struct Quantized {
  std::uint16_t dequantised = 0;  // fp16 bits
  std::uint8_t code = 0;
  bool exact = true;
};
static_assert(sizeof(Quantized) == 4);

// The code's value over the scale, before its conversion to fp16.
double dequantised_value(std::uint8_t code, double scale) { return e4m3_value(code) / scale; }

Quantized quantize_one(__half x, double scale) {
  Quantized q;
  q.code = to_e4m3(double(__half2float(x)) * scale);
  const double value = dequantised_value(q.code, scale);
  const __half h = __double2half(value);
  q.dequantised = half_bits(h);
  q.exact = double(__half2float(h)) == value;
  return q;
}

}  // namespace

Fp8Operand quantize_at(const std::vector<__half>& x, double scale, std::vector<__half>& dequantised,
                       const char* name) {
  // An fp16 tensor holds at most 65536 distinct values: each is converted once, into a table
  // indexed by its bits, and the tensor is read through the table.
  std::vector<Quantized> table(std::size_t(1) << 16);
  parallel_for(std::int64_t(table.size()), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) table[std::size_t(i)] = quantize_one(half_of(std::uint16_t(i)), scale);
  });
  Fp8Operand op;
  op.scale = scale;
  op.codes.resize(x.size());
  dequantised.resize(x.size());
  std::mutex mu;
  std::size_t first_inexact = x.size();
  parallel_for(std::int64_t(x.size()), [&](std::int64_t b, std::int64_t e) {
    std::size_t inexact = x.size();
    for (std::int64_t i = b; i < e; ++i) {
      const Quantized& q = table[half_bits(x[std::size_t(i)])];
      op.codes[std::size_t(i)] = q.code;
      dequantised[std::size_t(i)] = half_of(q.dequantised);
      if (!q.exact && inexact == x.size()) inexact = std::size_t(i);
    }
    const std::lock_guard<std::mutex> lock(mu);
    first_inexact = std::min(first_inexact, inexact);
  });
  if (first_inexact < x.size())
    throw std::runtime_error(std::string("e4m3 ") + name + ": the dequantised value " +
                             std::to_string(dequantised_value(op.codes[first_inexact], scale)) +
                             " is not an fp16 value (scale " + std::to_string(scale) + ")");
  return op;
}

Fp8Inputs quantize_e4m3(const HostTensors& in) {
  Fp8Inputs f;
  f.q = quantize_at(in.q, e4m3_scale_for(amax_of(in.q)), f.dequantised.q, "Q");
  f.k = quantize_at(in.k, e4m3_scale_for(amax_of(in.k)), f.dequantised.k, "K");
  f.v = quantize_at(in.v, e4m3_scale_for(amax_of(in.v)), f.dequantised.v, "V");
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
