// The FP8 gate (experiments/harness/fp8_inputs.hpp, Grade::kFp8 of experiments/harness/reference.hpp) without a
// GPU: the e4m3 codec and per-tensor scales, and the row rule against CPU emulations of an FP8
// kernel as FlashAttention-3 builds one (e4m3 Q, K, V with descales, fp32 scores, online
// softmax over 64-key tiles, unnormalised P quantised to e4m3 with its scale, fp32
// accumulation): it must pass on every input distribution, and the same kernel with one bug each
// must fail, the FP8 bugs (a descale forgotten) among them.
#include <gtest/gtest.h>

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/shapes.hpp"
#include "experiments/harness/fp8_inputs.hpp"
#include "experiments/harness/reference.hpp"
#include "kernels/e4m3_fragment.hpp"
#include "kernels/host_device.hpp"
#include "record/correctness.hpp"

using namespace attnlab;

namespace {

TEST(Fp8Codec, EveryFiniteCodeRoundTripsAndTheSpacingIsTheGrids) {
  std::vector<double> values;
  for (int c = 0; c < 256; ++c) {
    const auto code = std::uint8_t(c);
    const double x = e4m3_value(code);
    if (!std::isfinite(x)) continue;  // e4m3's NaN codes (0x7f, 0xff)
    if (x == 0) continue;             // +0 and -0
    EXPECT_EQ(to_e4m3(x), code) << c;
    if (x > 0) values.push_back(x);
  }
  std::sort(values.begin(), values.end());
  ASSERT_EQ(values.size(), 126u);  // 7 subnormals and 119 normals, up to 448
  EXPECT_EQ(values.back(), kE4m3Max);
  for (std::size_t i = 0; i + 1 < values.size(); ++i)
    EXPECT_EQ(values[i + 1] - values[i], e4m3_spacing(values[i])) << values[i];
  EXPECT_EQ(to_e4m3(1e6), to_e4m3(kE4m3Max));  // saturating, never inf or NaN
}

TEST(Fp8Inputs, PowerOfTwoScalesFillTheRangeAndDequantiseExactly) {
  EXPECT_EQ(e4m3_scale_for(4.7), 64.0);  // 4.7 * 64 = 300.8 <= 448 < 4.7 * 128
  EXPECT_EQ(e4m3_scale_for(448), 1.0);
  EXPECT_EQ(e4m3_scale_for(0), 1.0);
  for (Inputs dist : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative}) {
    const Shape s = parse_shape("2x4x200x64");
    const HostTensors in = make_inputs(s, 7, dist);
    const Fp8Inputs f = quantize_e4m3(in);
    for (const auto* pair : {&f.q, &f.k, &f.v}) {
      EXPECT_EQ(std::exp2(std::round(std::log2(pair->scale))), pair->scale) << inputs_name(dist);
    }
    double amax = 0;
    for (__half h : in.q) amax = std::max(amax, std::fabs(double(__half2float(h))));
    EXPECT_LE(amax * f.q.scale, kE4m3Max);
    EXPECT_GT(2 * amax * f.q.scale, kE4m3Max);
    // Each dequantised value is its code's value over the scale, within half a grid step of x.
    for (std::size_t i = 0; i < in.q.size(); i += 97) {
      const double x = __half2float(in.q[i]), deq = __half2float(f.dequantised.q[i]);
      EXPECT_EQ(deq, e4m3_value(f.q.codes[i]) / f.q.scale);
      EXPECT_LE(std::fabs(x - deq), e4m3_spacing(x * f.q.scale) / f.q.scale / 2) << x;
    }
  }
}

// Every fp16 value but the NaNs (0x7c01..0x7fff and 0xfc01..0xffff), in bit order.
std::vector<__half> every_fp16_but_nan() {
  std::vector<__half> x;
  for (unsigned b = 0; b < 0x10000; ++b)
    if ((b & 0x7fff) <= 0x7c00) x.push_back(__ushort_as_half(std::uint16_t(b)));
  return x;
}

// quantize_at reads a tensor through a table of every fp16 value; each element must still get
// what its own conversion gives: the code to_e4m3(x * scale) and the fp16 value of that code
// over the scale. Scales from 2^-7 (65504 / 128 saturates to 448, whose value 57344 is fp16) to
// 2^30 (448 / 2^30 = 7 * 2^-24, fp16's subnormal grid); every dequantised value is exact there.
TEST(Fp8Inputs, QuantizeAtGivesEveryFp16ValueItsOwnConversion) {
  const std::vector<__half> x = every_fp16_but_nan();
  ASSERT_EQ(x.size(), 65536u - 2 * 1023);
  for (const int k : {-7, -2, 0, 3, 6, 10, 15, 16, 24, 30}) {
    const double scale = std::ldexp(1.0, k);
    std::vector<__half> deq;
    const Fp8Operand op = quantize_at(x, scale, deq, "X");
    EXPECT_EQ(op.scale, scale);
    ASSERT_EQ(op.codes.size(), x.size());
    ASSERT_EQ(deq.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::uint8_t code = to_e4m3(double(__half2float(x[i])) * scale);
      const double value = e4m3_value(code) / scale;
      ASSERT_EQ(op.codes[i], code) << "x bits " << std::hex << __half_as_ushort(x[i]) << " scale 2^" << std::dec << k;
      ASSERT_EQ(__half_as_ushort(deq[i]), __half_as_ushort(__double2half(value)))
          << "x bits " << std::hex << __half_as_ushort(x[i]) << " scale 2^" << std::dec << k;
      ASSERT_EQ(double(__half2float(deq[i])), value) << "scale 2^" << k;
    }
  }
  // What the conversion does at the edges, at scale 1: saturation to +-448 (0x7e, 0xfe) of fp16's
  // largest values and of inf, signed zeros, and fp16 subnormals rounding to e4m3's.
  const std::vector<std::pair<std::uint16_t, std::uint8_t>> edges = {
      {0x7bff, 0x7e}, {0xfbff, 0xfe}, {0x7c00, 0x7e}, {0xfc00, 0xfe}, {0x0000, 0x00}, {0x8000, 0x80},
      {0x0001, 0x00}, {0x8001, 0x80}, {0x1800, 0x01} /* 2^-9 */, {0x9e00, 0x83} /* -3 * 2^-9 */};
  std::vector<__half> e;
  for (const auto& [bits, code] : edges) e.push_back(__ushort_as_half(bits));
  std::vector<__half> deq;
  const Fp8Operand op = quantize_at(e, 1, deq, "X");
  for (std::size_t i = 0; i < edges.size(); ++i)
    EXPECT_EQ(int(op.codes[i]), int(edges[i].second)) << "x bits " << std::hex << edges[i].first;
  EXPECT_EQ(__half_as_ushort(deq[0]), __half_as_ushort(__float2half(448.f)));
  EXPECT_EQ(__half_as_ushort(deq[3]), __half_as_ushort(__float2half(-448.f)));
  EXPECT_EQ(__half_as_ushort(deq[5]), 0x8000);  // -0 stays -0
  // The subnormal 2^-24 at scale 2^15 is e4m3's smallest subnormal, 2^-9.
  std::vector<__half> tiny = {__ushort_as_half(0x0001)};
  EXPECT_EQ(int(quantize_at(tiny, 0x1.0p15, deq, "X").codes[0]), 0x01);
  EXPECT_EQ(__half_as_ushort(deq[0]), 0x0001);
}

// Where an element's dequantised value is not an fp16 value, quantize_at throws, as each
// element's own check did: a NaN (its code is e4m3's NaN), 65504 at 2^-8 (rounded to 256, whose
// value 65536 is past fp16's range), 448 / 2^31 (7 * 2^-25, off fp16's subnormal grid).
TEST(Fp8Inputs, QuantizeAtRefusesAValueThatIsNotFp16) {
  std::vector<__half> deq;
  std::vector<__half> x = {__float2half(1.f), __ushort_as_half(0x7e00), __float2half(2.f)};
  EXPECT_THROW(quantize_at(x, 1, deq, "Q"), std::runtime_error);
  x = {__float2half(1.f), __ushort_as_half(0x7bff)};
  EXPECT_THROW(quantize_at(x, 0x1.0p-8, deq, "Q"), std::runtime_error);
  EXPECT_THROW(quantize_at(x, 0x1.0p31, deq, "Q"), std::runtime_error);
  EXPECT_NO_THROW(quantize_at(x, 0x1.0p-7, deq, "Q"));
  const std::vector<__half> every = every_fp16_but_nan();
  EXPECT_THROW(quantize_at(every, 0x1.0p-8, deq, "Q"), std::runtime_error);
  EXPECT_THROW(quantize_at(every, 0x1.0p31, deq, "Q"), std::runtime_error);
}

// quantize_e4m3's scale comes from each tensor's largest magnitude, negative values included
// and NaNs left out; an inf makes it 1 (e4m3_scale_for) and saturates.
TEST(Fp8Inputs, TheScaleIsTheLargestMagnitudesOfEachTensor) {
  HostTensors in;
  in.q = {__float2half(0.5f), __float2half(-3.f), __float2half(0.25f)};
  in.k = {__float2half(1.f), __ushort_as_half(0xfc00)};  // -inf
  in.v = {__float2half(-0.f), __float2half(0.f)};
  const Fp8Inputs f = quantize_e4m3(in);
  EXPECT_EQ(f.q.scale, 128.0);  // 3 * 128 = 384 <= 448 < 768
  EXPECT_EQ(f.q.codes, (std::vector<std::uint8_t>{to_e4m3(64), to_e4m3(-384), to_e4m3(32)}));
  EXPECT_EQ(f.k.scale, 1.0);
  EXPECT_EQ(f.k.codes, (std::vector<std::uint8_t>{to_e4m3(1), 0xfe}));
  EXPECT_EQ(f.v.scale, 1.0);
  EXPECT_EQ(f.v.codes, (std::vector<std::uint8_t>{0x80, 0x00}));
  // A NaN is refused, as quantize_at refuses it.
  in.q.push_back(__ushort_as_half(0x7e00));
  EXPECT_THROW(quantize_e4m3(in), std::runtime_error);
}

enum class Bug {
  kNone,
  kNoVDescale,      // V read as its codes' values: its descale forgotten
  kNoPDescale,      // P's e4m3 values not divided by its scale again
  kSkipTailTile,    // keys past the last full 64-key tile ignored
  kNoRescale,       // O and l not rescaled when a later tile raises the row max
  kWrongScale,      // softmax scale 10% off
  kSlightlyWrongScale,  // softmax scale 2% off: below FP8 noise (Fp8GateRule.ResolutionLimit)
  kCausalOffByOne,  // row i also sees key i + 1
  kPhantomKey,      // key S (past the end, zero-filled) in the softmax
  kLogLinearStaleMax,  // log-linear codes taken against the row's maximum before the tile's (with log_linear)
};
constexpr int kTile = 64;

// The value of every e4m3 code, as the emulated tensor cores read them.
float code_value(std::uint8_t code) {
  static const std::vector<float> table = [] {
    std::vector<float> t(256);
    for (int c = 0; c < 256; ++c) t[std::size_t(c)] = float(e4m3_value(std::uint8_t(c)));
    return t;
  }();
  return table[code];
}

// One output row as the emulated FP8 kernel computes it from the codes and their descales.
// log_linear: P's codes by the log-linear map (e4m3::log_linear_code, as f8 takes them at D 128)
// and the row sums of the codes' values, as f8's PV GEMM sums them; else P rounded to e4m3 and
// the sums of the unrounded weights (the naive FP8 kernel).
// e4m3_output: O written in e4m3 at scale_v / 2 and converted to fp16, as cuDNN's FP8 forward on
// Hopper and the cudnn_fp8 phase's conversion give it.
void emulated_row(const Shape& s, const Fp8Inputs& f, float scale, RowRef r, Bug bug, __half* out,
                  bool e4m3_output = false, bool log_linear = false) {
  int n = s.causal ? r.row + 1 : s.S;
  const bool phantom = bug == Bug::kPhantomKey && !s.causal;
  if (phantom) n = s.S + 1;
  if (bug == Bug::kCausalOffByOne && s.causal) n = std::min(s.S, r.row + 2);
  if (bug == Bug::kSkipTailTile) n = std::min(n, s.S / kTile * kTile);
  if (bug == Bug::kWrongScale) scale *= 1.10f;
  if (bug == Bug::kSlightlyWrongScale) scale *= 1.02f;
  const int kvh = r.h / (s.H / s.H_kv);
  const std::size_t q0 = ((std::size_t(r.b) * s.H + r.h) * s.S + r.row) * s.D;
  const float qk_descale = float(1 / (f.q.scale * f.k.scale));
  const float v_descale = bug == Bug::kNoVDescale ? 1.f : float(1 / f.v.scale);
  // P's scale: f8's 2^8 where its codes come from the log-linear map, the naive kernel's 448 else.
  const double p_scale = log_linear ? 256.0 : kP8Scale;
  const float p_descale = bug == Bug::kNoPDescale ? 1.f : float(1 / p_scale);
  std::vector<float> o(std::size_t(s.D), 0.f), sc(kTile);
  float m = -std::numeric_limits<float>::infinity(), l = 0;
  for (int t0 = 0; t0 < n; t0 += kTile) {
    const int t1 = std::min(n, t0 + kTile);
    float mt = m;
    for (int j = t0; j < t1; ++j) {
      float dot = 0;  // e4m3 products, accumulated in fp32
      if (!(phantom && j == s.S)) {
        const std::size_t k0 = ((std::size_t(r.b) * s.H_kv + kvh) * s.S + j) * s.D;
        for (int d = 0; d < s.D; ++d)
          dot += code_value(f.q.codes[q0 + d]) * code_value(f.k.codes[k0 + d]);
      }
      sc[std::size_t(j - t0)] = dot * qk_descale * scale;
      mt = std::max(mt, sc[std::size_t(j - t0)]);
    }
    float alpha = std::exp(m - mt);
    if (bug == Bug::kNoRescale) alpha = t0 == 0 ? 0.f : 1.f;
    l *= alpha;
    for (float& x : o) x *= alpha;
    // The log-linear codes' row offset: the weights are 2^(score * log2 e - m_use), m_use the row's
    // maximum in log2 units less P's scale (2^8).
    const float m_codes = bug == Bug::kLogLinearStaleMax && t0 > 0 ? m : mt;
    const float code_b = e4m3::log_linear_offset(m_codes * float(kLog2e) - float(std::log2(p_scale)));
    for (int j = t0; j < t1; ++j) {
      float p8;  // P as the PV MMA reads it
      if (log_linear) {
        const float code = e4m3::log_linear_code(sc[std::size_t(j - t0)], float(kLog2e) / 16, code_b);
        p8 = code_value(std::uint8_t(e4m3::bits_of(code)));
        l += p8 / float(p_scale);
      } else {
        const float p = std::exp(sc[std::size_t(j - t0)] - mt);
        l += p;
        p8 = code_value(to_e4m3(double(p) * kP8Scale));
      }
      if (phantom && j == s.S) continue;  // its value row is zero
      const std::size_t v0 = ((std::size_t(r.b) * s.H_kv + kvh) * s.S + j) * s.D;
      for (int d = 0; d < s.D; ++d) o[std::size_t(d)] += p8 * code_value(f.v.codes[v0 + d]);
    }
    m = mt;
  }
  const double o_scale = f.v.scale / 2;
  for (int d = 0; d < s.D; ++d) {
    const float x = o[std::size_t(d)] * p_descale * v_descale / l;
    out[d] = __float2half(e4m3_output ? float(e4m3_value(to_e4m3(x * o_scale)) / o_scale) : x);
  }
}

// The emulated kernel with `bug` (writing e4m3 O where e4m3_output), judged by the FP8 grade.
CheckResult judge(const std::string& spec, Inputs dist, std::uint64_t seed, Bug bug, bool e4m3_output = false,
                  bool log_linear = false) {
  const Shape s = parse_shape(spec);
  const Fp8Inputs f = quantize_e4m3(make_inputs(s, seed, dist));
  const auto rows = rows_to_check(s, seed);
  std::vector<__half> out(std::size_t(s.q_elems()), __float2half(0.f));
  for (const RowRef& r : rows)
    emulated_row(s, f, float(s.default_scale()), r, bug, &out[((std::size_t(r.b) * s.H + r.h) * s.S + r.row) * s.D],
                 e4m3_output, log_linear);
  return check_output(s, f.dequantised, s.default_scale(), out, rows, Grade::kFp8);
}

const char* kSpecs[] = {"1x4x300x64:causal", "2x2x333x64", "1x2x300x128:causal", "2x2x200x128", "1x4x400x64:hkv=2"};
const Inputs kAllInputs[] = {Inputs::kNormal, Inputs::kWide, Inputs::kNegative};

TEST(Fp8GateRule, Fa3StyleFp8KernelPassesWithMargin) {
  for (const char* spec : kSpecs)
    for (Inputs dist : kAllInputs)
      for (std::uint64_t seed : {1, 2, 3}) {
        const auto c = judge(spec, dist, seed, Bug::kNone);
        EXPECT_TRUE(c.passed) << spec << " " << inputs_name(dist) << ": " << c.first_failure;
        EXPECT_LT(c.row_err_ratio, 0.75) << spec << " " << inputs_name(dist) << " seed " << seed;
      }
}

// A kernel whose O is rounded to e4m3 (cuDNN's FP8 forward on Hopper writes O in e4m3 only;
// the cudnn_fp8 phase converts it to fp16) passes the FP8 grade with margin: O's 4 significant
// bits add less error than P's e4m3 rounding, which sets the bound, so it needs no grade of its own.
TEST(Fp8GateRule, AnE4m3OutputPassesTheFp8Grade) {
  for (const char* spec : kSpecs)
    for (Inputs dist : kAllInputs)
      for (std::uint64_t seed : {1, 2}) {
        const auto c = judge(spec, dist, seed, Bug::kNone, true);
        EXPECT_TRUE(c.passed) << spec << " " << inputs_name(dist) << ": " << c.first_failure;
        EXPECT_LT(c.row_err_ratio, 0.75) << spec << " " << inputs_name(dist) << " seed " << seed;
      }
}

// f8's P at D 128, codes by the log-linear map (within one code of the rounded exponential's) and
// row sums of the codes, passes with margin on every input distribution; the same codes taken
// against a stale row maximum fail, so the emulation does reach them.
TEST(Fp8GateRule, LogLinearCodesPassWithMargin) {
  for (const char* spec : kSpecs)
    for (Inputs dist : kAllInputs)
      for (std::uint64_t seed : {1, 2}) {
        const auto c = judge(spec, dist, seed, Bug::kNone, false, true);
        EXPECT_TRUE(c.passed) << spec << " " << inputs_name(dist) << ": " << c.first_failure;
        EXPECT_LT(c.row_err_ratio, 0.75) << spec << " " << inputs_name(dist) << " seed " << seed;
      }
  for (Inputs dist : {Inputs::kNormal, Inputs::kWide})
    for (std::uint64_t seed : {1, 2}) {
      const auto c = judge("2x2x333x64", dist, seed, Bug::kLogLinearStaleMax, false, true);
      EXPECT_FALSE(c.passed) << inputs_name(dist) << " seed " << seed << " ratio " << c.row_err_ratio;
    }
}

// The FP8 kernel is far from the fp16 grade: held to the fp16 yardstick it fails, so the
// grade is a rule of its own, not a looser reading of the fp16 one.
TEST(Fp8GateRule, AnFp8KernelFailsTheFp16Yardstick) {
  const Shape s = parse_shape("2x2x333x64");
  const Fp8Inputs f = quantize_e4m3(make_inputs(s, 1, Inputs::kNormal));
  const auto rows = rows_to_check(s, 1);
  std::vector<__half> out(std::size_t(s.q_elems()), __float2half(0.f));
  for (const RowRef& r : rows)
    emulated_row(s, f, float(s.default_scale()), r, Bug::kNone, &out[((std::size_t(r.b) * s.H + r.h) * s.S + r.row) * s.D]);
  EXPECT_TRUE(check_output(s, f.dequantised, s.default_scale(), out, rows, Grade::kFp8).passed);
  EXPECT_FALSE(check_output(s, f.dequantised, s.default_scale(), out, rows, Grade::kFp16).passed);
}

TEST(Fp8GateRule, RejectsEachBrokenKernel) {
  struct Case {
    Bug bug;
    const char* spec;
    std::vector<Inputs> dists;
  };
  const std::vector<Case> cases = {
      {Bug::kNoVDescale, "2x2x333x64", {Inputs::kNormal, Inputs::kWide, Inputs::kNegative}},
      {Bug::kNoPDescale, "1x4x300x64:causal", {Inputs::kNormal, Inputs::kWide, Inputs::kNegative}},
      {Bug::kSkipTailTile, "2x2x333x64", {Inputs::kNormal, Inputs::kWide}},
      {Bug::kNoRescale, "1x4x300x64:causal", {Inputs::kNormal, Inputs::kWide}},
      {Bug::kNoRescale, "2x2x200x128", {Inputs::kNormal, Inputs::kWide}},
      // On wide inputs the softmax is sharp and a 10% scale moves the output less than the
      // weights' e4m3 roundings: normal inputs only.
      {Bug::kWrongScale, "2x2x333x64", {Inputs::kNormal}},
      {Bug::kCausalOffByOne, "1x4x300x64:causal", {Inputs::kNormal, Inputs::kWide}},
      {Bug::kPhantomKey, "2x2x333x64", {Inputs::kNegative}},
      {Bug::kPhantomKey, "1x2x1025x128", {Inputs::kNegative}},
  };
  for (const Case& k : cases)
    for (Inputs dist : k.dists)
      for (std::uint64_t seed : {1, 2, 3}) {
        const auto c = judge(k.spec, dist, seed, k.bug);
        EXPECT_FALSE(c.passed) << "bug " << int(k.bug) << " at " << k.spec << " " << inputs_name(dist)
                               << " seed " << seed << " passed, ratio " << c.row_err_ratio;
        // The same kernel writing e4m3 O.
        const auto e = judge(k.spec, dist, seed, k.bug, true);
        EXPECT_FALSE(e.passed) << "bug " << int(k.bug) << " with e4m3 output at " << k.spec << " "
                               << inputs_name(dist) << " seed " << seed << " passed, ratio " << e.row_err_ratio;
      }
}

// What the FP8 grade cannot see: a softmax scale 2% off moves the output by less than the
// weights' e4m3 roundings do (the fp16 gate rejects it, tests/cpu/test_gate_rule.cpp). The FP8
// scale bugs a kernel is likely to have, a descale forgotten, are factors of 64 or 448.
TEST(Fp8GateRule, ResolutionLimit) {
  EXPECT_TRUE(judge("2x2x333x64", Inputs::kNormal, 1, Bug::kSlightlyWrongScale).passed);
  EXPECT_FALSE(judge("2x2x333x64", Inputs::kNormal, 1, Bug::kWrongScale).passed);
}

// One draw for the phases that read it (GateInputs): quantised only where an e4m3 phase takes
// part, then its codes are those quantize_e4m3 makes of the draw, and the reference an e4m3
// phase is checked against is their dequantised copy.
TEST(GateInputs, QuantisedOnlyForAnE4m3PhaseAndFromTheDrawItself) {
  const Shape s = parse_shape("1x2x100x64:hkv=1");
  for (Inputs dist : kAllInputs) {
    const GateInputs fp16 = make_gate_inputs(s, 5, dist, {InputFormat::kFp16});
    EXPECT_FALSE(fp16.fp8.has_value());
    EXPECT_EQ(fp16.operands(InputFormat::kFp16), nullptr);
    EXPECT_EQ(&fp16.reference(InputFormat::kFp16), &fp16.tensors);
    EXPECT_THROW(fp16.operands(InputFormat::kE4m3), std::logic_error);

    const GateInputs both = make_gate_inputs(s, 5, dist, {InputFormat::kFp16, InputFormat::kE4m3});
    ASSERT_TRUE(both.fp8.has_value());
    const HostTensors draw = make_inputs(s, 5, dist);
    const Fp8Inputs want = quantize_e4m3(draw);
    EXPECT_EQ(both.fp8->q.codes, want.q.codes) << inputs_name(dist);
    EXPECT_EQ(both.fp8->k.codes, want.k.codes) << inputs_name(dist);
    EXPECT_EQ(both.fp8->v.codes, want.v.codes) << inputs_name(dist);
    EXPECT_EQ(both.fp8->q.scale, want.q.scale);
    EXPECT_EQ(both.operands(InputFormat::kE4m3), &*both.fp8);
    EXPECT_EQ(&both.reference(InputFormat::kE4m3), &both.fp8->dequantised);
    EXPECT_EQ(&both.reference(InputFormat::kFp16), &both.tensors);
    ASSERT_EQ(both.tensors.q.size(), draw.q.size());
    for (std::size_t i = 0; i < draw.q.size(); ++i)
      ASSERT_EQ(__half_as_ushort(both.tensors.q[i]), __half_as_ushort(draw.q[i])) << i;
  }
  EXPECT_STREQ(input_format_name(InputFormat::kFp16), "fp16");
  EXPECT_STREQ(input_format_name(InputFormat::kE4m3), "e4m3");
}

// The error against the unquantised inputs (rms_error on the draw): an output exact on the
// dequantised inputs is near 0 against them and shows the quantisation against the draw; an
// offset d on every checked element reads as d; a NaN as inf.
TEST(RmsError, MeasuresTheQuantisationAgainstTheDraw) {
  const Shape s = parse_shape("2x2x200x64:causal");
  const GateInputs in = make_gate_inputs(s, 3, Inputs::kNormal, {InputFormat::kE4m3});
  const auto rows = rows_to_check(s, 3);
  std::vector<__half> exact(std::size_t(s.q_elems()), __float2half(0.f));
  std::vector<double> ref(std::size_t(s.D));
  for (const RowRef& r : rows) {
    reference_row(s, in.fp8->dequantised, s.default_scale(), r, ref.data());
    for (int d = 0; d < s.D; ++d)
      exact[((std::size_t(r.b) * s.H + r.h) * s.S + r.row) * s.D + std::size_t(d)] = __double2half(ref[std::size_t(d)]);
  }
  const double on_dequantised = rms_error(s, in.fp8->dequantised, s.default_scale(), exact, rows);
  const double on_draw = rms_error(s, in.tensors, s.default_scale(), exact, rows);
  EXPECT_LT(on_dequantised, 1e-3);  // the output's own fp16 rounding
  EXPECT_GT(on_draw, 4 * on_dequantised);
  EXPECT_LT(on_draw, 0.05);  // e4m3's 3 mantissa bits: a few percent of N(0,1) values, averaged

  std::vector<__half> shifted = exact;
  for (__half& h : shifted) h = __float2half(__half2float(h) + 0.25f);
  EXPECT_NEAR(rms_error(s, in.fp8->dequantised, s.default_scale(), shifted, rows), 0.25, 2e-3);

  shifted[((std::size_t(rows.front().b) * s.H + rows.front().h) * s.S + rows.front().row) * s.D] =
      __float2half(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isinf(rms_error(s, in.tensors, s.default_scale(), shifted, rows)));
}

// The FA3-style emulation against the draw: its error there is the quantisation's, well above
// its error against the dequantised inputs the gate judges it on.
TEST(RmsError, AnFp8KernelsErrorAgainstTheDrawIncludesTheQuantisation) {
  const Shape s = parse_shape("2x2x333x64");
  const GateInputs in = make_gate_inputs(s, 1, Inputs::kNormal, {InputFormat::kE4m3});
  const auto rows = rows_to_check(s, 1);
  std::vector<__half> out(std::size_t(s.q_elems()), __float2half(0.f));
  for (const RowRef& r : rows)
    emulated_row(s, *in.fp8, float(s.default_scale()), r, Bug::kNone,
                 &out[((std::size_t(r.b) * s.H + r.h) * s.S + r.row) * s.D]);
  const double on_draw = rms_error(s, in.tensors, s.default_scale(), out, rows);
  EXPECT_TRUE(std::isfinite(on_draw));
  EXPECT_GT(on_draw, rms_error(s, in.fp8->dequantised, s.default_scale(), out, rows));
}

// The record of an FP8 gate: its format, scales and error against the draw, in the block and in
// each check, through the JSON text and back.
TEST(Fp8Record, FormatScalesAndUnquantisedErrorRoundTrip) {
  Correctness c;
  c.passed = true;
  c.inputs = "normal";
  c.input_format = "e4m3";
  c.input_scales = InputScales{64, 128, 32};
  c.rmse_unquantised = 0.0123;
  Correctness wide = c;
  wide.inputs = "wide";
  wide.input_scales = InputScales{4, 128, 32};
  wide.rmse_unquantised = std::numeric_limits<double>::infinity();  // a NaN output
  const Correctness block = with_checks(c, {input_check(c), input_check(wide)});
  const nlohmann::ordered_json written = nlohmann::ordered_json::parse(to_json(block).dump());
  EXPECT_EQ(written["input_format"], "e4m3");
  EXPECT_EQ(written["input_scales"]["k"], 128);
  EXPECT_TRUE(written["checks"][1]["rmse_unquantised"].is_null());
  const Correctness back = read_correctness(nlohmann::ordered_json{{"c", written}}, "/c");
  EXPECT_EQ(back.input_format, "e4m3");
  ASSERT_TRUE(back.input_scales && back.rmse_unquantised);
  EXPECT_EQ(back.input_scales->v, 32);
  EXPECT_EQ(*back.rmse_unquantised, 0.0123);
  ASSERT_EQ(back.checks.size(), 2u);
  ASSERT_TRUE(back.checks[1].input_scales && back.checks[1].rmse_unquantised);
  EXPECT_EQ(back.checks[1].input_scales->q, 4);
  EXPECT_TRUE(std::isinf(*back.checks[1].rmse_unquantised));
  // An fp16 record of before the FP8 path says none of it.
  const Correctness old = read_correctness(nlohmann::ordered_json{{"c", to_json(Correctness{})}}, "/c");
  EXPECT_FALSE(old.input_format || old.input_scales || old.rmse_unquantised);
}

// An e4m3 run holds the codes besides the fp16 draw, and on the host the dequantised copies.
TEST(Fp8Footprint, CountsTheCodesAndTheDequantisedCopies) {
  const Shape s = parse_shape("1x2x64x64:hkv=1");
  const std::uint64_t q = 2 * 64 * 64, kv = 64 * 64;
  const Footprint plain = footprint(s), fp8 = footprint(s, true);
  EXPECT_EQ(fp8.device_bytes, plain.device_bytes + q + 2 * kv);
  EXPECT_EQ(fp8.host_bytes, plain.host_bytes + 3 * (q + 2 * kv));
}

}  // namespace
