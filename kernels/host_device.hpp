// What host and device code share without CUDA's headers: the CPU tests include it too
// (kernels/work_order.hpp, kernels/consumer_turns.hpp and kernels/attention_common.cuh build on it).
#pragma once

#if defined(__CUDACC__)
#define ATTNLAB_HOST_DEVICE __host__ __device__
#else
#define ATTNLAB_HOST_DEVICE
#endif

namespace attnlab {

// Written as a quotient plus a remainder test so that S near INT_MAX cannot overflow.
ATTNLAB_HOST_DEVICE constexpr int ceil_div(int a, int b) { return a / b + (a % b != 0); }

}  // namespace attnlab
