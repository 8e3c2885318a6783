// The unfused phases' cuBLASLt set-up (cublaslt_plans.hpp): creating handles, planning a
// batched GEMM with the heuristic's algorithm, and describing that choice for the plan line.
#include "kernels/cublaslt_plans.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "common/check.hpp"

namespace attnlab::unfused {
namespace {

// Operand pointers are only guaranteed 16-byte aligned (require_vector_alignment); the
// heuristic must not assume cuBLASLt's default of 256.
constexpr std::uint32_t kOperandAlignment = sizeof(uint4);

LtLayout make_layout(const MatrixSpec& m, std::int64_t batch) {
  cublasLtMatrixLayout_t raw = nullptr;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&raw, m.type, m.rows, m.cols, m.ld));
  LtLayout layout(raw);
  const std::int32_t count = std::int32_t(batch);
  ATTNLAB_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
      raw, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
  ATTNLAB_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
      raw, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &m.batch_stride, sizeof(m.batch_stride)));
  return layout;
}

template <class T>
T algo_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  T value{};
  std::size_t written = 0;
  ATTNLAB_CUBLAS_CHECK(
      cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof(value), &written));
  return value;
}

// The heuristic's best algorithm with no split-K (reduction scheme NONE only), within
// max_workspace bytes and the operands' guaranteed alignment.
AlgoChoice choose_algo(cublasLtHandle_t handle, const GemmPlan& g, const GemmSpec& spec,
                       std::int64_t max_workspace) {
  cublasLtMatmulPreference_t raw = nullptr;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw));
  const LtPreference pref(raw);
  const std::uint64_t ws = std::uint64_t(max_workspace);
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
  const std::uint32_t no_split = CUBLASLT_REDUCTION_SCHEME_NONE;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      raw, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &no_split, sizeof(no_split)));
  for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
    ATTNLAB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, attr, &kOperandAlignment,
                                                              sizeof(kOperandAlignment)));
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(handle, g.desc.get(), g.a.get(),
                                                      g.b.get(), g.d.get(), g.d.get(), raw, 1,
                                                      &result, &returned));
  if (returned == 0 || result.state != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLASLt has no algorithm for the ") + spec.name +
                             " GEMM");
  return {result.algo, result.workspaceSize, result.wavesCount};
}

}  // namespace

void cublas_check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw CublasError(status, call, file, line);
}

Stream make_stream() {
  cudaStream_t raw = nullptr;
  ATTNLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking));
  return Stream(raw);
}

Event make_event() {
  cudaEvent_t raw = nullptr;
  ATTNLAB_CUDA_CHECK(cudaEventCreateWithFlags(&raw, cudaEventDisableTiming));
  return Event(raw);
}

DeviceMemory device_alloc(std::int64_t bytes) {
  void* p = nullptr;
  if (bytes > 0) ATTNLAB_CUDA_CHECK(cudaMalloc(&p, std::size_t(bytes)));
  return DeviceMemory(p);
}

GemmPlan make_gemm(cublasLtHandle_t handle, const GemmSpec& spec, std::int64_t max_workspace) {
  cublasLtMatmulDesc_t raw = nullptr;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulDescCreate(&raw, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  GemmPlan g{LtMatmulDesc(raw), make_layout(spec.a, spec.batch), make_layout(spec.b, spec.batch),
             make_layout(spec.d, spec.batch), {}};
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_TRANSA,
                                                      &spec.trans_a, sizeof(spec.trans_a)));
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_TRANSB,
                                                      &spec.trans_b, sizeof(spec.trans_b)));
  g.choice = choose_algo(handle, g, spec, max_workspace);
  return g;
}

std::string describe(const AlgoChoice& c) {
  std::ostringstream os;
  os << "{algo " << algo_config<std::int32_t>(c.algo, CUBLASLT_ALGO_CONFIG_ID) << ", tile "
     << algo_config<std::uint32_t>(c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID) << ", stages "
     << algo_config<std::uint32_t>(c.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID) << ", workspace "
     << c.workspace_bytes << " B, estimated waves " << c.waves << ", heuristic rank 0}";
  return os.str();
}

}  // namespace attnlab::unfused
