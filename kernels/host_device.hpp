// What host and device code share without CUDA's headers: the CPU tests include it too
// (kernels/work_order.hpp, kernels/consumer_turns.hpp and kernels/attention_common.cuh build on it).
#pragma once

#if defined(__CUDACC__)
#define ATTNLAB_HOST_DEVICE __host__ __device__
#else
#define ATTNLAB_HOST_DEVICE
#endif

namespace attnlab {

// exp(x) == exp2(x * log2(e)); folding log2(e) into the softmax scale leaves one native ex2. The
// CPU tests' emulations of the kernels' softmax take the same constant.
constexpr float kLog2e = 1.4426950408889634f;

// Written as a quotient plus a remainder test so that S near INT_MAX cannot overflow.
ATTNLAB_HOST_DEVICE constexpr int ceil_div(int a, int b) { return a / b + (a % b != 0); }

}  // namespace attnlab
