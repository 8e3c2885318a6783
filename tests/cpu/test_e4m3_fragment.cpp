// P's e4m3 register fragment and V^T's key order (kernels/e4m3_fragment.hpp) against the PTX
// ISA's register fragment layouts, without a GPU: the f32 accumulator of wgmma m64nN ("Matrix
// fragments for wgmma .m64nNk16", accumulator D) and the register A operand of wgmma m64nNk32
// with .e4m3 (the same per warp as mma.m16n8k32's 8-bit A, four elements per .b32, low byte
// first), each written here from the ISA's formulas, not from the header.
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "kernels/e4m3_fragment.hpp"

namespace {

using namespace attnlab;

struct Place {
  int row, col;
};
// Thread t of the warpgroup (warp t / 32), accumulator element i of m64nN, f32: row
// 16 * warp + groupID (+ 8 for i % 4 >= 2), column 8 * (i / 4) + 2 * threadID_in_group + i % 2.
Place accumulator(int t, int i) {
  const int warp = t / 32, lane = t % 32;
  return {16 * warp + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2};
}
// Thread t, element a_i (i = 0..15) of the register A fragment of m64nNk32, 8-bit types: row
// 16 * warp + groupID for i in 0..3 and 8..11, + 8 otherwise; column 4 * threadID_in_group +
// (i & 3), + 16 for i >= 8. Element i is byte i % 4 (low first) of register i / 4.
Place a_fragment(int t, int i) {
  const int warp = t / 32, lane = t % 32;
  const int row = 16 * warp + lane / 4 + ((i >= 4 && i < 8) || i >= 12 ? 8 : 0);
  return {row, 4 * (lane % 4) + (i & 3) + (i >= 8 ? 16 : 0)};
}

TEST(E4m3Fragment, KeyOrderIsAPermutationOfTheStep) {
  std::set<int> keys;
  for (int k = 0; k < e4m3::kStepKeys; ++k) keys.insert(e4m3::key_of_column(k));
  EXPECT_EQ(keys.size(), std::size_t(e4m3::kStepKeys));
  EXPECT_EQ(*keys.begin(), 0);
  EXPECT_EQ(*keys.rbegin(), e4m3::kStepKeys - 1);
  // Columns 0..15 hold keys 0..15: a step's first half is its first half, reordered.
  for (int k = 0; k < 16; ++k) EXPECT_LT(e4m3::key_of_column(k), 16) << k;
}

TEST(E4m3Fragment, EachAccumulatorOfAStepGoesToOneFragmentElement) {
  std::set<int> sources;
  for (int e = 0; e < 16; ++e) sources.insert(e4m3::p_source(e));
  EXPECT_EQ(sources.size(), 16u);
  EXPECT_EQ(*sources.rbegin(), 15);
}

// Every thread's fragment element stands for the score it takes: the same row, and the key
// V^T's column gives it.
TEST(E4m3Fragment, FragmentElementsHoldTheirColumnsKeysFromTheThreadsOwnAccumulators) {
  constexpr int kTileK = 128;
  for (int t = 0; t < 128; ++t)
    for (int kk = 0; kk < kTileK / e4m3::kStepKeys; ++kk)
      for (int e = 0; e < 16; ++e) {
        const Place src = accumulator(t, 16 * kk + e4m3::p_source(e));
        const Place dst = a_fragment(t, e);
        EXPECT_EQ(src.row, dst.row) << "thread " << t << " element " << e;
        EXPECT_EQ(src.col, e4m3::kStepKeys * kk + e4m3::key_of_column(dst.col)) << "thread " << t << " element " << e;
      }
}

// The whole product: P V from the packed fragments and V^T in the pre-pass's order equals P V.
TEST(E4m3Fragment, PermutedProductEqualsThePlainOne) {
  constexpr int kRows = 64, kKeys = 128, kD = 16;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<int> p(kRows * kKeys), v(kKeys * kD);
  for (int& x : p) x = small(rng);
  for (int& x : v) x = small(rng);
  // A as the wgmma reads it: element (row, k) from thread t's fragment; B = V^T's column k is
  // key (k / 32) * 32 + key_of_column(k % 32), as the pre-pass writes it.
  std::vector<int> a(kRows * kKeys, 0);
  for (int t = 0; t < 128; ++t)
    for (int kk = 0; kk < kKeys / e4m3::kStepKeys; ++kk)
      for (int e = 0; e < 16; ++e) {
        const Place src = accumulator(t, 16 * kk + e4m3::p_source(e));
        const Place dst = a_fragment(t, e);
        a[dst.row * kKeys + e4m3::kStepKeys * kk + dst.col] = p[src.row * kKeys + src.col];
      }
  for (int r = 0; r < kRows; ++r)
    for (int n = 0; n < kD; ++n) {
      long plain = 0, permuted = 0;
      for (int k = 0; k < kKeys; ++k) {
        plain += long(p[r * kKeys + k]) * v[k * kD + n];
        const int key = k / e4m3::kStepKeys * e4m3::kStepKeys + e4m3::key_of_column(k % e4m3::kStepKeys);
        permuted += long(a[r * kKeys + k]) * v[key * kD + n];
      }
      ASSERT_EQ(plain, permuted) << "row " << r << " column " << n;
    }
}

// The packing itself: every thread's four registers per k-step, read back through the ISA's A
// layout, hold the e4m3 codes of P at V^T's key order.
TEST(E4m3Fragment, PackedRegistersHoldPsCodesWhereTheWgmmaReadsThem) {
  constexpr int kRows = 64, kKeys = 128, kAcc = kKeys / 2;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> weight(0.f, 256.f);
  std::vector<float> p(kRows * kKeys);
  for (float& x : p) x = weight(rng);
  for (int t = 0; t < 128; ++t) {
    std::array<float, kAcc> acc{};
    for (int i = 0; i < kAcc; ++i) acc[i] = p[accumulator(t, i).row * kKeys + accumulator(t, i).col];
    for (int kk = 0; kk < kKeys / e4m3::kStepKeys; ++kk)
      for (int r = 0; r < 4; ++r) {
        const std::uint32_t reg = e4m3::pack_register(acc.data() + 16 * kk, r);
        for (int b = 0; b < 4; ++b) {
          const Place at = a_fragment(t, 4 * r + b);
          const int key = e4m3::kStepKeys * kk + e4m3::key_of_column(at.col);
          const auto want = __nv_cvt_float_to_fp8(p[at.row * kKeys + key], __NV_SATFINITE, __NV_E4M3);
          ASSERT_EQ((reg >> (8 * b)) & 0xffu, std::uint32_t(want)) << "thread " << t << " k-step " << kk;
        }
      }
  }
}

// The conversion the packing uses puts the pair's first value in the low byte, which the
// fragment reads first (e4m3: 1.0 = 0x38, 2.0 = 0x40), and saturates at 448 (0x7e).
TEST(E4m3Fragment, PairConversionPutsTheFirstValueLow) {
  EXPECT_EQ(__nv_cvt_float2_to_fp8x2(make_float2(1.f, 2.f), __NV_SATFINITE, __NV_E4M3), 0x4038);
  EXPECT_EQ(__nv_cvt_float2_to_fp8x2(make_float2(1e4f, 0.f), __NV_SATFINITE, __NV_E4M3), 0x007e);
}

// The code of 2^x by the log-linear map (kernels/e4m3_fragment.hpp), x = score / 16 * 16 with
// the row offset of m_use = 0: a = 1 / 16 turns x straight into the map's argument.
int log_linear_code_of(float x) {
  return int(e4m3::bits_of(e4m3::log_linear_code(x, 1.f / 16.f, e4m3::log_linear_offset(0.f))) & 0xffu);
}
int rounded_code_of(float x) { return int(__nv_cvt_float_to_fp8(std::exp2(x), __NV_SATFINITE, __NV_E4M3)); }

// Across e4m3's normal range (2^-6 to P's largest weight, 2^8) the map's code is the rounded
// exponential's or one of its neighbours, and about a third of the weights differ from it at all.
TEST(LogLinearCodes, WithinOneCodeOfTheRoundedExponential) {
  int differ = 0, n = 0;
  for (float x = -6.f; x <= 8.f; x += 1.f / 1024.f, ++n) {
    const int got = log_linear_code_of(x), want = rounded_code_of(x);
    ASSERT_LE(std::abs(got - want), 1) << "x " << x << " code " << got << " rounded " << want;
    differ += got != want;
  }
  EXPECT_GT(differ, n / 10);
  EXPECT_LT(differ, n / 2);
}

// P's largest weight (x = 8, a key at the row's maximum) is 256 exactly, code 0x78; weights far
// below e4m3's range, a masked key (-inf) and NaN are code 0, never e4m3's negative zero (0x80)
// or NaN (0x7f): the saturation keeps every code in [0, 128] and x <= 8 keeps it at most 0x78.
TEST(LogLinearCodes, TheRowMaximumIsExactAndMaskedKeysAreZero) {
  EXPECT_EQ(log_linear_code_of(8.f), 0x78);
  EXPECT_EQ(log_linear_code_of(-20.f), 0);
  EXPECT_EQ(log_linear_code_of(-std::numeric_limits<float>::infinity()), 0);
  EXPECT_EQ(log_linear_code_of(std::numeric_limits<float>::quiet_NaN()), 0);
  for (float x = -20.f; x <= 8.f; x += 1.f / 64.f) EXPECT_LE(log_linear_code_of(x), 0x78) << x;
}

// The row offset folds the maximum in: the code of score s against m_use, with the softmax's
// scale, is the code of s * scale - m_use within one step (the two round differently).
TEST(LogLinearCodes, TheRowOffsetFoldsTheMaximumIn) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> score(-30.f, 30.f), max(-10.f, 40.f);
  const float scale_log2 = 0.1275f;
  for (int i = 0; i < 10000; ++i) {
    const float m_use = max(rng) - 8.f, s = score(rng);
    const float x = s * scale_log2 - m_use;
    if (x > 8.f) continue;  // above the row's maximum: not a weight of this row
    const auto got = e4m3::bits_of(e4m3::log_linear_code(s, scale_log2 / 16.f, e4m3::log_linear_offset(m_use))) & 0xffu;
    EXPECT_LE(std::abs(int(got) - log_linear_code_of(x)), 1) << "s " << s << " m_use " << m_use;
  }
}

// Codes packed from the map's results land where pack_register puts the same values' codes.
TEST(LogLinearCodes, PackedWhereTheRoundedWeightsArePacked) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> x(-8.f, 8.f);
  for (int trial = 0; trial < 100; ++trial) {
    std::array<float, 16> codes{}, values{};
    for (int i = 0; i < 16; ++i) {
      codes[i] = e4m3::log_linear_code(x(rng), 1.f / 16.f, e4m3::log_linear_offset(0.f));
      __nv_fp8_e4m3 v;
      v.__x = __nv_fp8_storage_t(e4m3::bits_of(codes[i]) & 0xffu);
      values[i] = float(v);  // exactly representable: packing rounds it to its own code
    }
    for (int r = 0; r < 4; ++r)
      ASSERT_EQ(e4m3::pack_code_register(codes.data(), r), e4m3::pack_register(values.data(), r)) << r;
  }
}

}  // namespace
