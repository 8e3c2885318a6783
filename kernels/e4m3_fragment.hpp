// Where P's values go in the register A fragment of the e4m3 PV wgmma (m64nNk32), and the key
// order of V^T that goes with it: host and device code (kernels/wgmma_operands.cuh packs P and
// kernels/phase_f8_wgmma.cu writes V^T with it; tests/cpu/test_e4m3_fragment.cpp checks both
// against the PTX ISA's fragment layouts without a GPU).
//
// In a k-step of 32 keys, a thread (t = lane % 4) holds for each of its two rows the f32 scores of
// keys 8c + 2t + b (chunk c = 0..3, b = 0, 1) from QK^T's accumulator, while the e4m3 A fragment
// asks it for keys 4t + i and 16 + 4t + i (i = 0..3). Rather than trade bytes between the lanes of
// a row, each thread packs its own eight values in order, and V^T's 32 columns of the k-step hold
// the keys in the same order: a product summed over keys does not depend on their order.
#pragma once

#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/host_device.hpp"

namespace attnlab::e4m3 {

constexpr int kStepKeys = 32;  // k of one e4m3 wgmma

// The accumulator (of the 16 a thread holds in a k-step: 4 chunks of 8 columns, 4 each, in the
// m64nN layout's order) that fragment element e takes: register e / 4, byte e % 4 (low first);
// registers 0 and 2 hold the thread's upper row, 1 and 3 its lower (row + 8); registers 0 and 1
// the first four of the row's eight values, 2 and 3 the last four.
ATTNLAB_HOST_DEVICE constexpr int p_source(int e) {
  const int reg = e / 4;
  const int slot = (reg / 2) * 4 + e % 4;  // of the row's eight, in the accumulator's order
  return 4 * (slot / 2) + 2 * (reg % 2) + slot % 2;
}

// The key (of the k-step's 32) that fragment column k stands for: V^T's column k holds it.
ATTNLAB_HOST_DEVICE constexpr int key_of_column(int k) {
  const int t = (k % 16) / 4;
  const int slot = (k / 16) * 4 + k % 4;
  return 8 * (slot / 2) + 2 * t + slot % 2;
}

// Register r (0..3) of a k-step's A fragment from the thread's 16 accumulators of that step:
// fragment element 4r + b as e4m3 (round to nearest even, saturating at 448) in byte b.
ATTNLAB_HOST_DEVICE inline std::uint32_t pack_register(const float* acc, int r) {
  auto two = [](float lo, float hi) {  // lo in the low byte
    return std::uint32_t(__nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E4M3));
  };
  return two(acc[p_source(4 * r)], acc[p_source(4 * r + 1)]) |
         two(acc[p_source(4 * r + 2)], acc[p_source(4 * r + 3)]) << 16;
}

// P's e4m3 codes without an exponential: the log-linear map. An e4m3 code read as an integer is
// 8 (e + 7) + m for the value 2^e (1 + m / 8), so across e4m3's normal range the code of 2^x is
// close to 8 (x + 7): the integer part of x gives the exponent field and its fraction, linearly,
// the three mantissa bits (Mitchell's approximation of 2^f by 1 + f). f8's P at D 128 takes its
// codes from that line on the FMA pipe, two FFMAs a weight, where an exponential costs a MUFU
// operation and the packing an F2FP conversion: at D 128 the MUFU's exponentials took as many
// cycles as the e4m3 GEMMs (kernels/NOTES.md, "FP8: phase f8": P's codes by the log-linear map).
// The first FFMA, saturated to [0, 1], is the code over 128: s * a + b with a the softmax's
// scale_log2 / 16 and b each row's log_linear_offset; the second adds kLogLinearMagic, whose unit
// last place rounds the code to the nearest integer in the sum's low byte. Across e4m3's normal
// range (weights from 2^-14 of the row's largest up) the code is never more than one step from
// the rounding of the exponential (LogLinearCodes.* in tests/cpu/test_e4m3_fragment.cpp); below
// it, in the subnormal codes, weights under 2^-14 of the largest may round further. The PV GEMM
// sums P's rows from the same codes, so O / l weighs the keys by the codes' values throughout.

// 1.5 * 2^23: its last place is 1, and its low byte is zero, so (code + this)'s low byte is the
// code.
constexpr float kLogLinearMagic = 12582912.f;
// Where on the line codes round: 1 + f lies above 2^f by 0.0573 octaves on average over the
// fraction f, 8 * (1.5 - 1 / ln 2) codes; the line is lowered by that much.
constexpr float kLogLinearShift = -8.f * (1.5f - 1.4426950408889634f);

// b of a row whose weights are 2^(s * scale_log2 - m_use): the code over 128 is
// (8 (x + 7) + kLogLinearShift) / 128 for x = s * scale_log2 - m_use.
ATTNLAB_HOST_DEVICE inline float log_linear_offset(float m_use) {
  return (56.f + kLogLinearShift) / 128.f - m_use / 16.f;
}

// The code of score s (a: scale_log2 / 16, b: log_linear_offset) in the low byte of the float's
// bits; -inf (a masked key) and NaN give code 0.
ATTNLAB_HOST_DEVICE inline float log_linear_code(float s, float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(__saturatef(__fmaf_rn(s, a, b)), 128.f, kLogLinearMagic);
#else
  float z = std::fma(s, a, b);
  z = z > 0.f ? (z < 1.f ? z : 1.f) : 0.f;  // NaN to 0 too, as the device's saturation
  return std::fma(z, 128.f, kLogLinearMagic);
#endif
}

ATTNLAB_HOST_DEVICE inline std::uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

// Register r (0..3) of a k-step's A fragment from accumulators holding log_linear_code's results:
// each one's code (its low byte), in pack_register's places.
ATTNLAB_HOST_DEVICE inline std::uint32_t pack_code_register(const float* acc, int r) {
  const std::uint32_t c0 = bits_of(acc[p_source(4 * r)]), c1 = bits_of(acc[p_source(4 * r + 1)]),
                      c2 = bits_of(acc[p_source(4 * r + 2)]), c3 = bits_of(acc[p_source(4 * r + 3)]);
#if defined(__CUDA_ARCH__)
  return __byte_perm(__byte_perm(c0, c1, 0x0040), __byte_perm(c2, c3, 0x0040), 0x5410);
#else
  return (c0 & 0xffu) | (c1 & 0xffu) << 8 | (c2 & 0xffu) << 16 | (c3 & 0xffu) << 24;
#endif
}

}  // namespace attnlab::e4m3
