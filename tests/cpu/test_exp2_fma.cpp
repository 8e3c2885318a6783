// exp2 on the FMA pipe (kernels/exp2_fma.hpp) on the host, whose bits are the device's: its
// error against std::exp2 over the softmax's range, the exponent field taken from the floor, and
// what the clamp gives below it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/exp2_fma.hpp"

namespace {

using namespace attnlab;

std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// The largest relative error against std::exp2 over [-125, 64), where every result is normal:
// every 1/64 step (integers and their neighbours among them) and a million random arguments.
double worst_relative_error() {
  double worst = 0;
  auto at = [&](float x) {
    const double want = std::exp2(double(x));
    worst = std::max(worst, std::fabs(double(exp2_fma(x)) - want) / want);
  };
  for (int i = -125 * 64; i < 64 * 64; ++i) {
    const float x = float(i) / 64;
    at(x);
    at(std::nextafter(x, -1000.f));
  }
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-125.f, 64.f);
  for (int i = 0; i < 1000000; ++i) at(u(gen));
  return worst;
}

// The Remez fit's error (about 7.5e-5) and fp32's rounding of the Horner steps.
TEST(Exp2Fma, RelativeErrorIsThePolynomialsOver189Octaves) {
  const double worst = worst_relative_error();
  EXPECT_LT(worst, 8e-5);
  EXPECT_GT(worst, 7e-5);  // the fit's equioscillation, reached: the polynomial is the one evaluated
}

// floor(x) lands in the exponent field and nowhere else: 2^(k + f) has 2^f's significand bits for
// every k of the range, negative k and the fraction's rounding-down included (fractions that
// every k + f holds exactly).
TEST(Exp2Fma, TheFloorGoesIntoTheExponentField) {
  for (const float f : {0.f, 0.25f, 0.5f, 0.9921875f}) {
    const std::uint32_t base = bits(exp2_fma(f));
    for (int k = -126; k < 64; ++k) {
      const float x = float(k) + f;
      ASSERT_EQ(bits(exp2_fma(x)), base + (std::uint32_t(k) << 23)) << "x " << x;
    }
  }
}

// -inf (a masked key), anything below -126 and NaN give 2^-126 times the polynomial at 0:
// nothing beside a row's weight of 1, and zero once rounded to e4m3 or fp16.
TEST(Exp2Fma, BelowTheClampTheSmallestNormalScale) {
  const float floor_value = exp2_fma(-126.f);
  EXPECT_LE(floor_value, 0x1.01p-126f);
  EXPECT_GE(floor_value, 0.f);
  for (const float x : {-std::numeric_limits<float>::infinity(), -1e30f, -127.f, -126.5f,
                        std::numeric_limits<float>::quiet_NaN()})
    EXPECT_EQ(bits(exp2_fma(x)), bits(floor_value)) << x;
}

}  // namespace
