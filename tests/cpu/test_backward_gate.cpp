// The backward gate's rule (experiments/harness/backward_reference.hpp) against CPU emulations of
// backward kernels: a FlashAttention-style one (fp32 scores and dP, P and dS rounded to fp16 for
// their GEMMs, fp32 accumulation, O and LSE from an fp32 forward) must pass on every input
// distribution, as must one that rounds its scores to fp16 as the naive does; the same kernel
// with one bug each must fail. tests/gpu/test_backward.cpp runs a broken kernel on the device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/shapes.hpp"
#include "experiments/harness/backward_reference.hpp"

using namespace attnlab;

namespace {

enum class Bug {
  kNone,
  kScoresFp16,    // not a bug: scores rounded to fp16, as the naive yardstick does
  kNoCausalMask,  // the backward sees every key although the forward was causal
  kNoDelta,       // dS = P dP, the rowsum(dO * O) term left out
  kNoGroupSum,    // dK and dV of the group's last query head only, not summed over the group
  kWrongScale,    // the softmax scale 2% off where P is rebuilt
};

float h16(float x) { return __half2float(__float2half(x)); }
float f(const std::vector<__half>& t, std::size_t i) { return __half2float(t[i]); }

struct Gradients {
  std::vector<__half> dq, dk, dv;
};

// LSE (fp32) and O rounded to fp16 of one query row, as an fp32 forward writes them.
float forward_row(const Shape& s, const BackwardHostInputs& in, std::size_t q0, std::size_t kv0,
                  int n, float scale, std::vector<float>& o16) {
  std::vector<float> sc(static_cast<std::size_t>(n));
  float m = -std::numeric_limits<float>::infinity(), l = 0;
  for (int j = 0; j < n; ++j) {
    float dot = 0;
    for (int d = 0; d < s.D; ++d) dot += f(in.qkv.q, q0 + d) * f(in.qkv.k, kv0 + std::size_t(j) * s.D + d);
    m = std::max(m, sc[std::size_t(j)] = dot * scale);
  }
  for (float x : sc) l += std::exp(x - m);
  const float lse = m + std::log(l);
  std::fill(o16.begin(), o16.end(), 0.f);
  for (int j = 0; j < n; ++j)
    for (int d = 0; d < s.D; ++d)
      o16[std::size_t(d)] += std::exp(sc[std::size_t(j)] - lse) * f(in.qkv.v, kv0 + std::size_t(j) * s.D + d);
  for (float& x : o16) x = h16(x);
  return lse;
}

// One query row's contributions: dQ of the row into dq32, dK and dV terms into dk32 and dv32
// (the KV head's [S, D] fp32 accumulators).
void backward_row(const Shape& s, const BackwardHostInputs& in, std::size_t q0, std::size_t kv0,
                  int row, float scale, Bug bug, float* dq32, float* dk32, float* dv32) {
  const int n_fwd = s.causal ? row + 1 : s.S;
  const int n = bug == Bug::kNoCausalMask ? s.S : n_fwd;
  std::vector<float> o16(static_cast<std::size_t>(s.D));
  const float lse = forward_row(s, in, q0, kv0, n_fwd, scale, o16);
  float delta = 0;
  for (int d = 0; d < s.D; ++d) delta += f(in.d_o, q0 + d) * o16[std::size_t(d)];
  if (bug == Bug::kNoDelta) delta = 0;
  const float p_scale = bug == Bug::kWrongScale ? scale * 1.02f : scale;
  for (int j = 0; j < n; ++j) {
    const std::size_t k0 = kv0 + std::size_t(j) * s.D;
    float dot = 0, dp = 0;
    for (int d = 0; d < s.D; ++d) {
      dot += f(in.qkv.q, q0 + d) * f(in.qkv.k, k0 + d);
      dp += f(in.d_o, q0 + d) * f(in.qkv.v, k0 + d);
    }
    float sc = dot * p_scale;
    if (bug == Bug::kScoresFp16) sc = h16(sc);
    const float p = std::exp(sc - lse);
    const float ds16 = h16(p * (dp - delta)), p16 = h16(p);
    for (int d = 0; d < s.D; ++d) {
      dq32[d] += ds16 * f(in.qkv.k, k0 + d);
      dk32[std::size_t(j) * s.D + d] += ds16 * f(in.qkv.q, q0 + d);
      dv32[std::size_t(j) * s.D + d] += p16 * f(in.d_o, q0 + d);
    }
  }
}

// The whole backward as the emulated kernel computes it, one KV head's group at a time.
Gradients emulate(const Shape& s, const BackwardHostInputs& in, Bug bug) {
  const float scale = float(s.default_scale());
  const int g = s.H / s.H_kv;
  Gradients out{std::vector<__half>(std::size_t(s.q_elems())), std::vector<__half>(std::size_t(s.kv_elems())),
                std::vector<__half>(std::size_t(s.kv_elems()))};
  std::vector<float> dq32(static_cast<std::size_t>(s.D));
  for (int b = 0; b < s.B; ++b)
    for (int kvh = 0; kvh < s.H_kv; ++kvh) {
      const std::size_t kv0 = (std::size_t(b) * s.H_kv + kvh) * s.S * s.D;
      std::vector<float> dk32(std::size_t(s.S) * s.D, 0.f), dv32(dk32.size(), 0.f);
      for (int hh = 0; hh < g; ++hh) {
        if (bug == Bug::kNoGroupSum) std::fill(dk32.begin(), dk32.end(), 0.f), std::fill(dv32.begin(), dv32.end(), 0.f);
        for (int i = 0; i < s.S; ++i) {
          const std::size_t q0 = ((std::size_t(b) * s.H + kvh * g + hh) * s.S + i) * s.D;
          std::fill(dq32.begin(), dq32.end(), 0.f);
          backward_row(s, in, q0, kv0, i, scale, bug, dq32.data(), dk32.data(), dv32.data());
          for (int d = 0; d < s.D; ++d) out.dq[q0 + d] = __float2half(dq32[std::size_t(d)] * scale);
        }
      }
      for (std::size_t x = 0; x < dk32.size(); ++x) {
        out.dk[kv0 + x] = __float2half(dk32[x] * scale);
        out.dv[kv0 + x] = __float2half(dv32[x]);
      }
    }
  return out;
}

struct Verdict {
  BackwardCheck check;
  std::string what;
};

Verdict judge(const std::string& spec, Inputs dist, std::uint64_t seed, Bug bug) {
  const Shape s = parse_shape(spec);
  const BackwardHostInputs in = make_backward_inputs(s, seed, dist);
  const BackwardSample x = backward_sample(s, seed);
  const GradientSample ref = reference_gradients(s, in, s.default_scale(), x);
  const Gradients g = emulate(s, in, bug);
  Verdict v{check_gradients(s, x, ref, g.dq, g.dk, g.dv), ""};
  v.what = spec + " " + inputs_name(dist) + " seed " + std::to_string(seed) + " bug " +
           std::to_string(int(bug)) + ": ratio " + std::to_string(v.check.worst_ratio) + " (dQ " +
           std::to_string(v.check.dq.worst_ratio) + ", dK " + std::to_string(v.check.dk.worst_ratio) +
           ", dV " + std::to_string(v.check.dv.worst_ratio) + ") " + v.check.first_failure;
  return v;
}

const char* kSpecs[] = {"1x4x150x64:causal:hkv=2", "2x2x133x64", "1x2x130x128:causal", "1x4x97x128:hkv=1"};
const Inputs kAllInputs[] = {Inputs::kNormal, Inputs::kWide, Inputs::kNegative};

TEST(BackwardGateRule, FlashStyleKernelsPassWithMargin) {
  for (Bug bug : {Bug::kNone, Bug::kScoresFp16})
    for (const char* spec : kSpecs)
      for (Inputs dist : kAllInputs)
        for (std::uint64_t seed : {1, 2}) {
          const Verdict v = judge(spec, dist, seed, bug);
          EXPECT_TRUE(v.check.passed) << v.what;
          // Room for real kernels, which differ from this emulation in summation order.
          EXPECT_LT(v.check.worst_ratio, 0.75) << v.what;
        }
}

TEST(BackwardGateRule, RejectsEachBrokenKernel) {
  struct Case {
    Bug bug;
    const char* spec;
  };
  const Case cases[] = {
      {Bug::kNoCausalMask, "1x4x150x64:causal:hkv=2"}, {Bug::kNoCausalMask, "1x2x130x128:causal"},
      {Bug::kNoDelta, "2x2x133x64"},                   {Bug::kNoDelta, "1x2x130x128:causal"},
      {Bug::kNoGroupSum, "1x4x150x64:causal:hkv=2"},   {Bug::kNoGroupSum, "1x4x97x128:hkv=1"},
      {Bug::kWrongScale, "2x2x133x64"},                {Bug::kWrongScale, "1x2x130x128:causal"},
  };
  for (const Case& k : cases)
    for (Inputs dist : kAllInputs) {
      const Verdict v = judge(k.spec, dist, 3, k.bug);
      EXPECT_FALSE(v.check.passed) << v.what;
      EXPECT_GT(v.check.worst_ratio, 5.0) << v.what;
    }
}

// A gradient element left as the poison the gate writes first fails, however close the rest.
TEST(BackwardGateRule, NonFiniteGradientFails) {
  const Shape s = parse_shape("1x2x40x64");
  const BackwardHostInputs in = make_backward_inputs(s, 4, Inputs::kNormal);
  const BackwardSample x = backward_sample(s, 4);
  const GradientSample ref = reference_gradients(s, in, s.default_scale(), x);
  Gradients g = emulate(s, in, Bug::kNone);
  ASSERT_TRUE(check_gradients(s, x, ref, g.dq, g.dk, g.dv).passed);
  __half_raw nan;
  nan.x = 0xFFFF;
  g.dv.back() = __half(nan);
  const BackwardCheck c = check_gradients(s, x, ref, g.dq, g.dk, g.dv);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.nonfinite, 1);
  EXPECT_NE(c.first_failure.find("NaN/inf"), std::string::npos);
}

}  // namespace
