// The unfused phases' (3b, 3c) cuBLASLt set-up: RAII for the library's and CUDA's handles,
// and one batched GEMM planned once (layouts, descriptor, heuristic algorithm) and described.
// Host-only; kernels/phase_3b_unfused.cu builds its per-shape plans from these.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace attnlab::unfused {

// cuBLASLt failures throw like CUDA ones (check.hpp): file, line, the call and the status.
class CublasError : public std::runtime_error {
 public:
  CublasError(cublasStatus_t status, const char* call, const char* file, int line)
      : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                           " failed: " + cublasLtGetStatusName(status) + " (" +
                           cublasLtGetStatusString(status) + ")") {}
};

void cublas_check(cublasStatus_t status, const char* call, const char* file, int line);

}  // namespace attnlab::unfused

#define ATTNLAB_CUBLAS_CHECK(call) \
  ::attnlab::unfused::cublas_check((call), #call, __FILE__, __LINE__)

namespace attnlab::unfused {

// cuBLASLt and CUDA resources as RAII. Destructors ignore the status, since they must not
// throw. Preferences die once their heuristic has run; a plan's resources only die when
// prepare() fails halfway, since finished plans live until the process ends.

template <auto Destroy>
struct HandleDeleter {
  template <class P>
  void operator()(P p) const noexcept {
    (void)Destroy(p);
  }
};
template <class Raw, auto Destroy>
using HandlePtr = std::unique_ptr<std::remove_pointer_t<Raw>, HandleDeleter<Destroy>>;
using LtHandle = HandlePtr<cublasLtHandle_t, &cublasLtDestroy>;
using LtMatmulDesc = HandlePtr<cublasLtMatmulDesc_t, &cublasLtMatmulDescDestroy>;
using LtLayout = HandlePtr<cublasLtMatrixLayout_t, &cublasLtMatrixLayoutDestroy>;
using LtPreference = HandlePtr<cublasLtMatmulPreference_t, &cublasLtMatmulPreferenceDestroy>;
using Stream = HandlePtr<cudaStream_t, &cudaStreamDestroy>;
using Event = HandlePtr<cudaEvent_t, &cudaEventDestroy>;

// Non-blocking: no implicit ordering against the legacy default stream, only the events'.
Stream make_stream();

// Only orders work: no timestamps, so recording it costs nothing.
Event make_event();

struct CudaFreeDeleter {
  void operator()(void* p) const noexcept { (void)cudaFree(p); }
};
using DeviceMemory = std::unique_ptr<void, CudaFreeDeleter>;

DeviceMemory device_alloc(std::int64_t bytes);

// One column-major operand of a batched GEMM, as cuBLASLt sees it.
struct MatrixSpec {
  cudaDataType_t type;
  std::uint64_t rows;
  std::uint64_t cols;
  std::int64_t ld;
  std::int64_t batch_stride;
};

// What a GEMM computes: D = op_a(A) op_b(B), column-major, batched with uniform strides.
// C is D (beta = 0).
struct GemmSpec {
  const char* name;
  cublasOperation_t trans_a;
  cublasOperation_t trans_b;
  MatrixSpec a;
  MatrixSpec b;
  MatrixSpec d;
  std::int64_t batch;
};

struct AlgoChoice {
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace_bytes = 0;
  float waves = 0.f;  // the heuristic's estimate of device fill, not a measurement
};

struct GemmPlan {
  LtMatmulDesc desc;
  LtLayout a;
  LtLayout b;
  LtLayout d;
  AlgoChoice choice;
};

// The descriptor and layouts of `spec` with the heuristic's best algorithm that needs no more
// than max_workspace bytes, no split-K, and only the operands' guaranteed 16-byte alignment.
GemmPlan make_gemm(cublasLtHandle_t handle, const GemmSpec& spec, std::int64_t max_workspace);

// The chosen algorithm's id, tile, stages, workspace and estimated waves, for a plan line.
std::string describe(const AlgoChoice& c);

}  // namespace attnlab::unfused
