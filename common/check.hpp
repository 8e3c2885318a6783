// Error checking for CUDA runtime calls and kernel launches: every failure throws with the
// file, line and the stringified call, so no return code is ever dropped silently.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace attnlab {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* call, const char* file, int line)
      : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                           " failed: " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
                           ")"),
        code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {
inline void cuda_check(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw CudaError(code, call, file, line);
}
}  // namespace detail

}  // namespace attnlab

#define ATTNLAB_CUDA_CHECK(call) ::attnlab::detail::cuda_check((call), #call, __FILE__, __LINE__)

// After every kernel launch: catches bad configurations (too much shared memory, no image
// for this GPU) at the launch site instead of at some later synchronisation.
#define ATTNLAB_CHECK_LAUNCH() \
  ::attnlab::detail::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
