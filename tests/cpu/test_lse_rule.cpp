// The LSE's rule (experiments/harness/reference.hpp, check_lse) against CPU emulations of a kernel that
// emits it: phase 5lse's arithmetic (fp32 scores, running maximum and sum in log2 units over
// 128-key tiles, exp2, (m + log2 l) ln 2) must pass on every input distribution, causal and not,
// with grouped KV heads and odd S; the same kernel with one bug each must fail, and so must a
// poisoned (NaN) row. The LSE a GPU phase writes goes through the same function in the gate
// (experiments/harness/gate.cpp); tests/gpu/test_lse.cpp runs phase 5lse's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/shapes.hpp"
#include "experiments/harness/reference.hpp"
#include "kernels/host_device.hpp"

using namespace attnlab;

namespace {

enum class Bug {
  kNone,
  kOneLaneOfFour,  // the row sum of one lane's columns only, without the reduction over the four
  kUnmergedSplit,  // the LSE of a row's first half of keys only (a key split's partial not merged)
  kLog2,           // m + log2 l, without the factor ln 2
  kMaskDropped,    // every key of a causal row, past the diagonal too
};
constexpr int kTile = 128;

// One row's LSE as the emulated kernel computes it.
float emulated_lse(const Shape& s, const HostTensors& in, float scale, RowRef r, Bug bug) {
  int n = s.causal && bug != Bug::kMaskDropped ? r.row + 1 : s.S;
  if (bug == Bug::kUnmergedSplit) n = std::max(1, (n + 1) / 2);
  const int kvh = r.h / (s.H / s.H_kv);
  const __half* q = &in.q[((std::size_t(r.b) * s.H + r.h) * s.S + r.row) * s.D];
  const float scale_log2 = scale * kLog2e;
  float m = -std::numeric_limits<float>::infinity(), l = 0;
  for (int t0 = 0; t0 < n; t0 += kTile) {
    const int t1 = std::min(n, t0 + kTile);
    std::vector<float> sc;
    float mt = m;
    for (int j = t0; j < t1; ++j) {
      const __half* k = &in.k[((std::size_t(r.b) * s.H_kv + kvh) * s.S + j) * s.D];
      float dot = 0;
      for (int d = 0; d < s.D; ++d) dot += __half2float(q[d]) * __half2float(k[d]);
      sc.push_back(dot * scale_log2);
      mt = std::max(mt, sc.back());
    }
    l *= std::exp2(m - mt);
    for (int j = t0; j < t1; ++j)
      // A lane holds columns 8i + 2 (lane % 4) and the one after.
      if (bug != Bug::kOneLaneOfFour || (j % 8) / 2 == 0) l += std::exp2(sc[std::size_t(j - t0)] - mt);
    m = mt;
  }
  const float log2_lse = m + std::log2(l);
  return bug == Bug::kLog2 ? log2_lse : log2_lse * 0.6931471805599453f;
}

std::vector<float> emulated(const Shape& s, const HostTensors& in, float scale, Bug bug) {
  std::vector<float> lse(std::size_t(s.B) * s.H * s.S);
  for (int b = 0; b < s.B; ++b)
    for (int h = 0; h < s.H; ++h)
      for (int i = 0; i < s.S; ++i)
        lse[(std::size_t(b) * s.H + h) * s.S + i] = emulated_lse(s, in, scale, RowRef{b, h, i}, bug);
  return lse;
}

LseCheck check(const std::string& spec, Inputs dist, Bug bug) {
  const Shape s = parse_shape(spec);
  const std::uint64_t seed = 17;
  const HostTensors in = make_inputs(s, seed, dist);
  const float scale = float(s.default_scale());
  return check_lse(s, in, scale, emulated(s, in, scale, bug), rows_to_check(s, seed));
}

const char* kShapes[] = {"1x2x257x64", "1x4x333x128:causal:hkv=2", "1x2x1000x64:causal"};

}  // namespace

TEST(LseRule, TheKernelsArithmeticPassesOnEveryDistribution) {
  for (const char* spec : kShapes)
    for (Inputs dist : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative}) {
      const LseCheck c = check(spec, dist, Bug::kNone);
      EXPECT_TRUE(c.passed) << spec << " " << inputs_name(dist) << ": " << c.first_failure;
      // Far inside the bound: a kernel right to fp32 arithmetic leaves the rule its margin.
      EXPECT_LT(c.worst_ratio, 0.25) << spec << " " << inputs_name(dist);
      EXPECT_EQ(c.rows_checked, std::int64_t(parse_shape(spec).B) * parse_shape(spec).H * parse_shape(spec).S);
    }
}

TEST(LseRule, EachBugFailsOnEveryDistribution) {
  for (Bug bug : {Bug::kOneLaneOfFour, Bug::kUnmergedSplit, Bug::kLog2})
    for (const char* spec : kShapes)
      for (Inputs dist : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative}) {
        const LseCheck c = check(spec, dist, bug);
        EXPECT_FALSE(c.passed) << spec << " " << inputs_name(dist) << " bug " << int(bug);
        EXPECT_GT(c.worst_ratio, 5.0) << spec << " " << inputs_name(dist) << " bug " << int(bug);
        EXPECT_NE(c.first_failure.find("worst row"), std::string::npos);
      }
}

TEST(LseRule, ADroppedCausalMaskFails) {
  for (Inputs dist : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative}) {
    const LseCheck c = check("1x4x333x128:causal:hkv=2", dist, Bug::kMaskDropped);
    EXPECT_FALSE(c.passed) << inputs_name(dist);
  }
}

TEST(LseRule, APoisonedRowFailsWhereverItIs) {
  const Shape s = parse_shape("1x2x257x64");
  const HostTensors in = make_inputs(s, 5, Inputs::kNormal);
  const float scale = float(s.default_scale());
  std::vector<float> lse = emulated(s, in, scale, Bug::kNone);
  // A row the check does not sample still counts: every element is scanned.
  const std::vector<RowRef> one_row{RowRef{0, 0, 0}};
  ASSERT_TRUE(check_lse(s, in, scale, lse, one_row).passed);
  lse.back() = std::numeric_limits<float>::quiet_NaN();
  const LseCheck c = check_lse(s, in, scale, lse, one_row);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.nonfinite, 1);
  EXPECT_NE(c.first_failure.find("NaN/inf"), std::string::npos);
}

TEST(LseRule, TheReferenceIsTheRowsLogSumExp) {
  // Row 0 against two keys: q.k = 8 and 0 at D = 64 (scale 1/8), so lse = ln(e^1 + e^0).
  const Shape s = parse_shape("1x1x2x64");
  HostTensors in;
  in.q.assign(64, __float2half(0.f));
  in.k.assign(128, __float2half(0.f));
  in.v.assign(128, __float2half(0.f));
  in.q[0] = __float2half(2.f);
  in.k[0] = __float2half(4.f);
  EXPECT_NEAR(reference_lse_row(s, in, 0.125, RowRef{0, 0, 0}), std::log(std::exp(1.0) + 1.0), 1e-12);
}
