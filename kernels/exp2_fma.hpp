// exp2 without the MUFU: the floor of x goes into a float's exponent field and a polynomial of
// x's fraction gives the significand, all on the FMA and integer pipes. The FP8 kernel's
// exponentials take as many cycles on the MUFU as its e4m3 GEMMs take on the tensor cores
// (kernels/NOTES.md, "FP8: phase f8": A share of f8's exp2s on the FMA pipe): moving a share of
// them here lets the two overlap better. Host and device compute the same bits (the CPU tests
// and the FP8 gate's emulation use it on the host).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/host_device.hpp"

namespace attnlab {

namespace exp2_fma_detail {

// The minimax cubic of 2^f on [0, 1), relative error 7.5e-5 (fitted by the Remez exchange,
// coefficients rounded to fp32): kCk multiplies f^k. P's e4m3 rounding (steps of up to 6%) is
// far coarser.
constexpr float kC0 = 0x1.fff632p-1f, kC1 = 0x1.64444cp-1f, kC2 = 0x1.cefc4cp-3f, kC3 = 0x1.3f96a4p-4f;

ATTNLAB_HOST_DEVICE inline std::uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

ATTNLAB_HOST_DEVICE inline float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

// 1.5 * 2^23: a float this size has a unit last place, so x + kMagic rounded down holds floor(x)
// in its low significand bits (|x| < 2^22), and its bits times 2^23 are floor(x) << 23 modulo
// 2^32 (kMagic's bits end in nine zeros).
constexpr float kMagic = 12582912.f;

}  // namespace exp2_fma_detail

// Arguments below this give 2^kExp2FmaMinArg (about 1e-38, zero to every use here): -inf, a
// masked key's score, among them. A lower clamp would take the exponent field below zero.
constexpr float kExp2FmaMinArg = -126.f;

// 2^x within the polynomial's relative error for -125 <= x < 64. Below, down to the clamp, a
// significand under 1 makes the result subnormal, off by up to twice that error; -126 and
// anything below it, NaN too, give 2^-126 times the polynomial at 0 (just under 2^-126).
ATTNLAB_HOST_DEVICE inline float exp2_fma(float x) {
  using namespace exp2_fma_detail;
  x = std::fmax(x, kExp2FmaMinArg);
#if defined(__CUDA_ARCH__)
  const float t = __fadd_rd(x, kMagic);
#else
  const float t = std::floor(x) + kMagic;  // exact: the same bits as the device's rounded-down sum
#endif
  const float f = x - (t - kMagic);  // x's fraction, exactly
  const float p = std::fma(std::fma(std::fma(kC3, f, kC2), f, kC1), f, kC0);
  return float_of(bits_of(p) + (bits_of(t) << 23));
}

}  // namespace attnlab
