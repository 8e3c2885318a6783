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

#include <cstdint>

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

}  // namespace attnlab::e4m3
