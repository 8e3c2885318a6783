// The backward's fp64 reference against central finite differences of the loss sum(dO * O)
// (attention written from its definition in fp64), and the sample of rows and keys it checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "common/shapes.hpp"
#include "experiments/harness/backward_reference.hpp"

using namespace attnlab;

namespace {

struct Dense {
  std::vector<double> q, k, v, d_o;
};

std::vector<double> to_double(const std::vector<__half>& t) {
  std::vector<double> out(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) out[i] = __half2float(t[i]);
  return out;
}

// sum(dO * O) with O = softmax(scale Q K^T [causal]) V per head, straight from the definition.
double loss(const Shape& s, const Dense& x, double scale) {
  const int g = s.H / s.H_kv;
  double total = 0;
  for (int b = 0; b < s.B; ++b)
    for (int h = 0; h < s.H; ++h)
      for (int i = 0; i < s.S; ++i) {
        const std::size_t q0 = ((std::size_t(b) * s.H + h) * s.S + i) * s.D;
        const std::size_t kv = (std::size_t(b) * s.H_kv + h / g) * s.S * s.D;
        const int n = s.causal ? i + 1 : s.S;
        std::vector<double> w(static_cast<std::size_t>(n));
        double sum = 0;
        for (int j = 0; j < n; ++j) {
          double dot = 0;
          for (int d = 0; d < s.D; ++d) dot += x.q[q0 + d] * x.k[kv + std::size_t(j) * s.D + d];
          sum += (w[std::size_t(j)] = std::exp(scale * dot));
        }
        for (int d = 0; d < s.D; ++d) {
          double o = 0;
          for (int j = 0; j < n; ++j) o += w[std::size_t(j)] / sum * x.v[kv + std::size_t(j) * s.D + d];
          total += x.d_o[q0 + d] * o;
        }
      }
  return total;
}

double central_difference(const Shape& s, Dense x, std::vector<double> Dense::*t, std::size_t i,
                          double scale) {
  constexpr double kStep = 1e-5;
  const double at = (x.*t)[i];
  (x.*t)[i] = at + kStep;
  const double up = loss(s, x, scale);
  (x.*t)[i] = at - kStep;
  return (up - loss(s, x, scale)) / (2 * kStep);
}

// Every gradient element of a small shape, GQA (two query heads per KV head) and odd S, causal
// and not: the reference's dQ, dK and dV agree with the derivative of the loss.
TEST(BackwardReference, MatchesFiniteDifferences) {
  for (const char* spec : {"2x4x7x8:hkv=2", "1x2x9x4:causal:hkv=1"}) {
    const Shape s = parse_shape(spec);
    const double scale = s.default_scale();
    const BackwardHostInputs in = make_backward_inputs(s, 11, Inputs::kNormal);
    const Dense x{to_double(in.qkv.q), to_double(in.qkv.k), to_double(in.qkv.v), to_double(in.d_o)};
    const BackwardSample all = backward_sample_all(s);
    const GradientSample g = reference_gradients(s, in, scale, all);
    ASSERT_EQ(g.dq.size(), std::size_t(s.q_elems()));  // rows in layout order: the tensor itself
    ASSERT_EQ(g.dk.size(), std::size_t(s.kv_elems()));
    for (std::size_t i = 0; i < g.dq.size(); ++i)
      EXPECT_NEAR(g.dq[i], central_difference(s, x, &Dense::q, i, scale), 1e-7) << spec << " dQ " << i;
    for (std::size_t i = 0; i < g.dk.size(); ++i) {
      EXPECT_NEAR(g.dk[i], central_difference(s, x, &Dense::k, i, scale), 1e-7) << spec << " dK " << i;
      EXPECT_NEAR(g.dv[i], central_difference(s, x, &Dense::v, i, scale), 1e-7) << spec << " dV " << i;
    }
  }
}

// The naive fp16 backward is close to the reference, and not equal to it: it is a yardstick.
TEST(BackwardReference, NaiveIsCloseAndNotExact) {
  const Shape s = parse_shape("1x2x100x64:causal");
  const BackwardHostInputs in = make_backward_inputs(s, 5, Inputs::kNormal);
  const GradientSample g = reference_gradients(s, in, s.default_scale(), backward_sample_all(s));
  double worst = 0, any = 0;
  for (std::size_t i = 0; i < g.dv.size(); ++i) {
    const double e = std::fabs(g.naive_dv[i] - g.dv[i]);
    worst = std::max(worst, e / std::max(1.0, std::fabs(g.dv[i])));
    any = std::max(any, e);
  }
  EXPECT_LT(worst, 1e-2);
  EXPECT_GT(any, 0.0);
}

TEST(BackwardSampleTest, SmallShapesCheckEverything) {
  const Shape s = parse_shape("2x3x100x64:hkv=1");
  const BackwardSample x = backward_sample(s, 1);
  EXPECT_EQ(x.rows.size(), std::size_t(2 * 3 * 100));
  EXPECT_EQ(x.keys.size(), std::size_t(2 * 1 * 100));
}

// At a large shape: every tail row and key of the last 64-row tile, the tile boundaries, the
// first and last query heads, the last KV head; sorted, unique, and within the budget.
TEST(BackwardSampleTest, LargeShapesSampleTailsEdgesAndAffordably) {
  for (const char* spec : {"4x16x4096x128", "4x16x4096x128:causal", "2x8x1000x64:causal:hkv=2", "16x16x2048x64"}) {
    const Shape s = parse_shape(spec);
    const BackwardSample x = backward_sample(s, 42);
    ASSERT_LT(x.rows.size(), std::size_t(s.B) * s.H * s.S) << spec;
    std::set<std::tuple<int, int, int>> rows, keys;
    for (const RowRef& r : x.rows) rows.insert({r.b, r.h, r.row});
    for (const KeyRef& k : x.keys) keys.insert({k.b, k.kvh, k.key});
    EXPECT_EQ(rows.size(), x.rows.size()) << spec;
    EXPECT_TRUE(std::is_sorted(x.keys.begin(), x.keys.end(), [](const KeyRef& a, const KeyRef& b) {
      return std::tie(a.b, a.kvh, a.key) < std::tie(b.b, b.kvh, b.key);
    })) << spec;
    const int tail = (s.S - 1) / 64 * 64;
    for (int i = tail; i < s.S; ++i) {
      EXPECT_TRUE(rows.count({0, 0, i}) && rows.count({s.B - 1, s.H - 1, i})) << spec << " row " << i;
      EXPECT_TRUE(keys.count({s.B - 1, s.H_kv - 1, i})) << spec << " key " << i;
    }
    for (int i : {0, 1, 63, 64, 127, 128}) {
      EXPECT_TRUE(rows.count({0, 0, i})) << spec << " row " << i;
      EXPECT_TRUE(keys.count({s.B - 1, s.H_kv - 1, i})) << spec << " key " << i;
    }
    EXPECT_GE(x.rows.size(), std::size_t(kBackwardSampledRows)) << spec;
    // A few seconds of fp64 on two cores (the naive pass costs about as many fp32 operations).
    EXPECT_LT(backward_sample_cost(s, x), 7e9) << spec;
  }
}

}  // namespace
