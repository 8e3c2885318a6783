// The fp64 reference against attention written straight from its definition, the input
// generator, the row sampler and the comparison that gates every phase.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/shapes.hpp"
#include "experiments/harness/reference.hpp"

using namespace attnlab;

namespace {

Shape make_shape(int B, int H, int H_kv, int S, int D, bool causal) {
  Shape s;
  s.B = B;
  s.H = H;
  s.H_kv = H_kv;
  s.S = S;
  s.D = D;
  s.causal = causal;
  return s;
}

// Attention from the definition: full score matrix, softmax as exp/sum without the max
// shift, masked entries contributing exactly zero weight.
std::vector<double> brute_force(const Shape& s, const HostTensors& in, double scale) {
  std::vector<double> out(std::size_t(s.q_elems()));
  auto at = [](const std::vector<__half>& t, std::int64_t i) { return double(__half2float(t[std::size_t(i)])); };
  for (int b = 0; b < s.B; ++b)
    for (int h = 0; h < s.H; ++h) {
      const int g = h / (s.H / s.H_kv);
      for (int i = 0; i < s.S; ++i) {
        std::vector<double> w(std::size_t(s.S), 0.0);
        double z = 0;
        for (int j = 0; j < s.S; ++j) {
          if (s.causal && j > i) continue;
          double dot = 0;
          for (int d = 0; d < s.D; ++d)
            dot += at(in.q, ((std::int64_t(b) * s.H + h) * s.S + i) * s.D + d) *
                   at(in.k, ((std::int64_t(b) * s.H_kv + g) * s.S + j) * s.D + d);
          w[std::size_t(j)] = std::exp(dot * scale);
          z += w[std::size_t(j)];
        }
        for (int d = 0; d < s.D; ++d) {
          double acc = 0;
          for (int j = 0; j < s.S; ++j)
            acc += w[std::size_t(j)] / z * at(in.v, ((std::int64_t(b) * s.H_kv + g) * s.S + j) * s.D + d);
          out[std::size_t(((std::int64_t(b) * s.H + h) * s.S + i) * s.D + d)] = acc;
        }
      }
    }
  return out;
}

std::vector<__half> to_half(const std::vector<double>& x) {
  std::vector<__half> h(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) h[i] = __double2half(x[i]);
  return h;
}

class ReferenceVsDefinition : public ::testing::TestWithParam<Shape> {};

TEST_P(ReferenceVsDefinition, AgreesToRounding) {
  const Shape s = GetParam();
  const HostTensors in = make_inputs(s, 1234);
  const double scale = s.default_scale();
  const auto want = brute_force(s, in, scale);
  std::vector<double> row(std::size_t(s.D));
  for (const RowRef r : rows_to_check(s, 1)) {
    reference_row(s, in, scale, r, row.data());
    for (int d = 0; d < s.D; ++d)
      ASSERT_NEAR(row[std::size_t(d)],
                  want[std::size_t(((std::int64_t(r.b) * s.H + r.h) * s.S + r.row) * s.D + d)], 1e-12)
          << "b=" << r.b << " h=" << r.h << " row=" << r.row << " d=" << d;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, ReferenceVsDefinition,
                         ::testing::Values(make_shape(1, 1, 1, 1, 64, false),
                                           make_shape(2, 3, 3, 17, 64, false),
                                           make_shape(2, 3, 3, 17, 64, true),
                                           make_shape(1, 4, 2, 33, 128, true),
                                           make_shape(1, 4, 1, 20, 64, false)));

}  // namespace

TEST(Inputs, DeterministicFromSeedAndStandardNormal) {
  const Shape s = make_shape(1, 4, 4, 256, 64, false);
  const HostTensors a = make_inputs(s, 7), b = make_inputs(s, 7), c = make_inputs(s, 8);
  ASSERT_EQ(a.q.size(), std::size_t(s.q_elems()));
  double sum = 0, sq = 0;
  bool differs = false;
  for (std::size_t i = 0; i < a.q.size(); ++i) {
    ASSERT_EQ(__half_as_ushort(a.q[i]), __half_as_ushort(b.q[i]));
    differs |= __half_as_ushort(a.q[i]) != __half_as_ushort(c.q[i]);
    const double x = __half2float(a.q[i]);
    sum += x;
    sq += x * x;
  }
  EXPECT_TRUE(differs) << "another seed must give other inputs";
  const double n = double(a.q.size()), mean = sum / n, var = sq / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.02);  // 65536 samples: standard error 0.004
  EXPECT_NEAR(var, 1.0, 0.03);
  // Q, K and V are independent streams, not copies.
  EXPECT_NE(__half_as_ushort(a.q[0]), __half_as_ushort(a.k[0]));
}

TEST(Inputs, NormalGeneratorTails) {
  double mx = 0;
  for (std::uint64_t i = 0; i < 200000; ++i) mx = std::max(mx, std::fabs(normal_from_counter(3, 0, i)));
  EXPECT_GT(mx, 3.5);  // a real normal reaches past 3.5 sigma in 2e5 draws
  EXPECT_LT(mx, 7.0);
}

// The gate checks every distribution unless told otherwise, normal (the timed one) first.
TEST(Inputs, TheGateChecksEveryDistributionByDefault) {
  EXPECT_EQ(inputs_list_name(default_gate_inputs()), "normal,wide,negative");
  EXPECT_EQ(parse_inputs_list("negative,normal"),
            (std::vector<Inputs>{Inputs::kNegative, Inputs::kNormal}));
  EXPECT_EQ(parse_inputs_list(inputs_list_name(default_gate_inputs())), default_gate_inputs());
  EXPECT_THROW(parse_inputs_list(""), std::invalid_argument);
  EXPECT_THROW(parse_inputs_list("normal,"), std::invalid_argument);
  EXPECT_THROW(parse_inputs_list("wide,wide"), std::invalid_argument);
}

TEST(RowsToCheck, AllRowsForSmallShapes) {
  const Shape s = make_shape(2, 3, 3, 100, 64, false);
  EXPECT_EQ(rows_to_check(s, 1).size(), std::size_t(2 * 3 * 100));
}

TEST(RowsToCheck, SampleCoversTailsForLargeShapes) {
  const Shape s = make_shape(16, 16, 16, 2048, 64, false);
  const auto rows = rows_to_check(s, 99);
  EXPECT_GE(rows.size(), std::size_t(kSampledRows));
  EXPECT_LT(rows.size(), std::size_t(1000));
  auto has = [&](int b, int h, int i) {
    for (auto r : rows)
      if (r.b == b && r.h == h && r.row == i) return true;
    return false;
  };
  EXPECT_TRUE(has(0, 0, 0));
  EXPECT_TRUE(has(15, 15, 2047));
  EXPECT_TRUE(has(0, 0, 2047));
  for (auto r : rows) {
    ASSERT_LT(r.b, 16);
    ASSERT_LT(r.h, 16);
    ASSERT_LT(r.row, 2048);
  }
  // Same seed, same sample: reruns check the same rows.
  const auto again = rows_to_check(s, 99);
  ASSERT_EQ(again.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(again[i].row, rows[i].row);
}

class CheckOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    s = make_shape(1, 2, 2, 65, 64, true);
    in = make_inputs(s, 42);
    exact = brute_force(s, in, s.default_scale());
    out = to_half(exact);
    rows = rows_to_check(s, 42);
  }
  Shape s;
  HostTensors in;
  std::vector<double> exact;
  std::vector<__half> out;
  std::vector<RowRef> rows;
};

TEST_F(CheckOutputTest, CorrectlyRoundedOutputPasses) {
  const auto c = check_output(s, in, s.default_scale(), out, rows);
  EXPECT_TRUE(c.passed) << c.first_failure;
  EXPECT_EQ(c.rows_checked, 2 * 65);
  EXPECT_GT(c.naive_max_abs_err, 0.0);
  EXPECT_LE(c.max_abs_err, 1e-3);
  // Exactly rounded output: each row's rms error is at most its rms half-ulp floor.
  EXPECT_LE(c.row_err_ratio, 1.0);
  EXPECT_LE(c.row_rms_err, c.row_tolerance_rms);
  EXPECT_EQ(c.elements_scanned, s.q_elems());
}

TEST_F(CheckOutputTest, OneWrongElementFails) {
  out[77] = __double2half(exact[77] + 0.05);
  const auto c = check_output(s, in, s.default_scale(), out, rows);
  EXPECT_FALSE(c.passed);
  EXPECT_NEAR(c.max_abs_err, 0.05, 1e-3);
  EXPECT_NE(c.first_failure.find("row=1:"), std::string::npos) << c.first_failure;
  EXPECT_NE(c.first_failure.find("d=13"), std::string::npos) << c.first_failure;
}

TEST_F(CheckOutputTest, PoisonOutsideTheCheckedRowsFails) {
  // Only row 0 of each head is checked; an unwritten element elsewhere still fails.
  std::vector<RowRef> first_rows = {{0, 0, 0}, {0, 1, 0}};
  out[std::size_t(s.q_elems() / 2 + 5)] = __ushort_as_half(0xFFFF);
  const auto c = check_output(s, in, s.default_scale(), out, first_rows);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.nonfinite, 1);
  EXPECT_NE(c.first_failure.find("1 NaN/inf"), std::string::npos) << c.first_failure;
}

TEST_F(CheckOutputTest, SmallErrorInALongRowFailsUnderTheRowRule) {
  // 1% of the value in every element of the last (longest causal) row: far below a global
  // bound set by the short rows' fp16 error, far above this row's own fp16 noise.
  const std::size_t last = std::size_t(((s.H - 1) * s.S + s.S - 1) * s.D);
  for (int d = 0; d < s.D; ++d)
    out[last + std::size_t(d)] = __double2half(exact[last + std::size_t(d)] * 1.01);
  const auto c = check_output(s, in, s.default_scale(), out, rows);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.first_failure.find("row=64:"), std::string::npos) << c.first_failure;
}

TEST_F(CheckOutputTest, UnwrittenPoisonFails) {
  out.back() = __ushort_as_half(0xFFFF);  // the NaN the harness poisons outputs with
  const auto c = check_output(s, in, s.default_scale(), out, rows);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.nonfinite, 1);
}

TEST_F(CheckOutputTest, IgnoringCausalMaskFails) {
  Shape full = s;
  full.causal = false;
  out = to_half(brute_force(full, in, s.default_scale()));
  EXPECT_FALSE(check_output(s, in, s.default_scale(), out, rows).passed);
}

TEST_F(CheckOutputTest, UniformSoftmaxIsNotAccepted) {
  // What a kernel that forgot the scores would produce: the mean of the visible values.
  for (int h = 0; h < s.H; ++h)
    for (int i = 0; i < s.S; ++i)
      for (int d = 0; d < s.D; ++d) {
        double m = 0;
        for (int j = 0; j <= i; ++j) m += __half2float(in.v[std::size_t(((h * s.S) + j) * s.D + d)]);
        out[std::size_t((h * s.S + i) * s.D + d)] = __double2half(m / (i + 1));
      }
  EXPECT_FALSE(check_output(s, in, s.default_scale(), out, rows).passed);
}

// A shape that cannot fit is refused with the numbers before anything is allocated.
TEST(MemoryRefusal, CountsOperandsOnDeviceAndCopiesOnHost) {
  const Footprint f = footprint(parse_shape("1x2x64x64:hkv=1"));
  const std::uint64_t q = 2 * 64 * 64, kv = 64 * 64;
  EXPECT_EQ(f.device_bytes, (2 * q + 2 * kv) * 2);
  EXPECT_EQ(f.host_bytes, (q + 2 * kv + 3 * q) * 2);
}

TEST(MemoryRefusal, SaysWhatItNeedsAndWhatThereIs) {
  constexpr std::uint64_t kGiB = 1ull << 30;
  const Shape huge = parse_shape("64x64x32768x128");  // 32 GiB per tensor
  const auto dev = memory_refusal(huge, 79 * kGiB, 1000 * kGiB);
  ASSERT_TRUE(dev);
  EXPECT_NE(dev->find("needs 128.0 GiB of device memory"), std::string::npos) << *dev;
  EXPECT_NE(dev->find("the GPU has 79.0 GiB free"), std::string::npos) << *dev;
  const auto host = memory_refusal(huge, 1000 * kGiB, 100 * kGiB);
  ASSERT_TRUE(host);
  EXPECT_NE(host->find("needs 192.0 GiB of host memory"), std::string::npos) << *host;
  EXPECT_FALSE(memory_refusal(parse_shape("16x16x2048x64"), 79 * kGiB, 100 * kGiB));
}

TEST(MemoryRefusal, HostAvailableIsPositive) { EXPECT_GT(host_available_bytes(), 0u); }
