// Phases 3b and 3c: unfused attention. One strided-batched cuBLASLt GEMM writes the scaled
// scores S = scale * Q K^T for every head, a row-softmax kernel turns S into P in place, and a
// second batched GEMM computes O = P V; S and P live in global memory. 3c is 3b with a split-K
// algorithm for the PV GEMM (traits below), the only GEMM with a long k loop (k = S >= 64).
//
// Idea: hand both matmuls to a tuned library and see what materialising the S x S scores
// costs against the fused phases. Fixed relative to the seed (../shared/SEEDS.md): the seed
// called cudaMalloc and the cuBLASLt heuristic inside its timed region and issued one GEMM per
// head; here prepare() builds a plan per shape once (handle, descriptors, heuristic algorithm
// choice, S/P buffer, workspace) and launch() only enqueues two GEMMs and one kernel, so it is
// capturable in a CUDA graph. The seed's 3c also timed synchronising NaN checks; nothing here
// synchronises. The correctness gate, not a NaN check, judges the output. Measured effects
// live in the run records.
//
// Design:
// - S and P are fp16. The tolerance model's naive implementation rounds the scaled scores
//   and P to fp16 as well, so fp16 S loses nothing the tolerance does not already allow for,
//   and it halves the dominant traffic against fp32 S. Since both are fp16, the softmax
//   writes P over S in place: one B*H*S*ld buffer instead of two. Both GEMMs accumulate in
//   fp32.
// - The softmax scale is the first GEMM's alpha, so S is stored already scaled, like the
//   naive model's fp16(dot * scale).
// - GQA needs no copies: for batch b and kv head g the r = H/H_kv query heads g*r .. g*r+r-1
//   are contiguous in [B, H, S, D], so they form one (r*S) x D matrix with a uniform stride.
//   Both GEMMs batch over the B*H_kv (batch, kv head) pairs; MHA is the case r = 1.
// - Causal: the GEMMs compute all of S and the full P V product (masked P entries are zeros);
//   the mask lives in the softmax kernel. The FLOP count keeps the project's convention.
// - Rows of S/P are padded to a whole number of 16-byte vectors (ld = S rounded up to 8), so
//   the softmax moves only 16-byte vectors and every row and batch of S/P is 16-byte aligned.
//   The softmax writes zeros into the padding; the PV GEMM reads only k = S of each row.
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kernels/attention_common.cuh"
#include "kernels/check.hpp"
#include "kernels/registry.hpp"

namespace attnlab::unfused {
namespace {

// cuBLASLt failures throw like CUDA ones (check.hpp): file, line, the call and the status.
class CublasError : public std::runtime_error {
 public:
  CublasError(cublasStatus_t status, const char* call, const char* file, int line)
      : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                           " failed: " + cublasLtGetStatusName(status) + " (" +
                           cublasLtGetStatusString(status) + ")") {}
};

void cublas_check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw CublasError(status, call, file, line);
}

}  // namespace
}  // namespace attnlab::unfused

#define ATTNLAB_CUBLAS_CHECK(call) \
  ::attnlab::unfused::cublas_check((call), #call, __FILE__, __LINE__)

namespace attnlab::unfused {
namespace {

// Phase 3b: the heuristic's best algorithm for both GEMMs, split-K excluded.
struct Unsplit {
  static constexpr const char* kId = "3b";
  static constexpr bool kSplitKPV = false;
};
// Phase 3c: the PV GEMM (k = S) with a split-K algorithm. QK^T stays unsplit: its k is the
// head dim, one or two k-blocks of any GEMM main loop, so splitting it would only add a
// reduction pass.
struct SplitKPV {
  static constexpr const char* kId = "3c";
  static constexpr bool kSplitKPV = true;
};

// Per shape, the S/P buffer plus the cuBLASLt workspace may take at most this much: about a
// tenth of an H100's 80 GB, so that the harness's own buffers (Q, K, V, O, the L2 flush) and
// the plans of further shapes still fit beside it.
constexpr std::int64_t kMemoryBudgetBytes = std::int64_t(8) << 30;
// cuBLAS's recommended workspace for Hopper (cuBLAS API reference, cublasSetWorkspace).
constexpr std::int64_t kGemmWorkspaceBytes = std::int64_t(32) << 20;
// Split-K with a compute-type reduction keeps one fp32 partial O per split in the workspace;
// the PV GEMM may use up to this many splits' worth.
constexpr int kMaxSplitK = 16;
// Each split should own at least one k-block of the main loop; 32 is the k extent of a
// typical cuBLAS fp16 tile. Below two splits' worth of keys (S < 64) there is nothing to
// split: 3c then runs the PV GEMM unsplit, exactly as 3b, and its plan line says so.
constexpr int kMinKeysPerSplit = 32;
// How many heuristic results 3c inspects for a split-K configuration (best estimate first),
// and how many algorithm ids it enumerates when none of those splits.
constexpr int kHeuristicCandidates = 32;
constexpr int kAlgoIdsQueried = 256;
// Operand pointers are only guaranteed 16-byte aligned (require_vector_alignment); the
// heuristic must not assume cuBLASLt's default of 256.
constexpr std::uint32_t kOperandAlignment = sizeof(uint4);

// ---------------------------------------------------------------------------------------
// Softmax over rows of S, in place.

struct SoftmaxTraits {
  static constexpr int kWarps = 8;  // one row per warp
  static constexpr int kThreads = kWarps * kWarpSize;
  // Keys a warp covers per step: one 16-byte vector per lane.
  static constexpr int kStep = kWarpSize * kHalvesPerVec;
  // The memory budget bounds the row count, and with it the grid, below the 2^31 - 1 limit
  // of grid x: every row takes at least one vector of ld.
  static_assert(kMemoryBudgetBytes / std::int64_t(sizeof(__half) * kHalvesPerVec) / kWarps <=
                    INT_MAX,
                "the softmax grid of any admitted shape fits grid x");
};

__device__ __forceinline__ uint4 pack8(const float (&f)[kHalvesPerVec]) {
  uint4 v;
  __half2* h = reinterpret_cast<__half2*>(&v);
#pragma unroll
  for (int i = 0; i < kHalvesPerVec / 2; ++i) h[i] = __floats2half2_rn(f[2 * i], f[2 * i + 1]);
  return v;
}

// sp: rows of ld halves, each holding S scaled scores; rows: B*H*S. Row r is query r % S of
// its head. Pass 1 folds the row into a running (max, sum) per lane, one warp reduction
// merges the lanes, pass 2 re-reads the row (an L1/L2 hit: it was just read) and writes P.
__global__ void __launch_bounds__(SoftmaxTraits::kThreads)
    softmax_rows_kernel(__half* __restrict__ sp, std::int64_t rows, int S, int ld, bool causal) {
  using T = SoftmaxTraits;
  const int warp = int(threadIdx.x) / kWarpSize;
  const int lane = int(threadIdx.x) % kWarpSize;
  const std::int64_t row = std::int64_t(blockIdx.x) * T::kWarps + warp;
  if (row >= rows) return;  // the whole warp leaves together; the kernel has no block barrier
  __half* p = sp + row * ld;
  // Causal: keys past the query are never read, only overwritten with zeros.
  const int live = causal ? int(row % S) + 1 : S;

  float m = kNegInf;  // this lane's running max of log2-scaled scores
  float l = 0.f;      // this lane's running sum of exp2(score - m)
  for (int c = lane * kHalvesPerVec; c < live; c += T::kStep) {
    float x[kHalvesPerVec];
    unpack8(*reinterpret_cast<const uint4*>(p + c), x);
    float chunk_max = kNegInf;
#pragma unroll
    for (int e = 0; e < kHalvesPerVec; ++e) {
      x[e] = c + e < live ? x[e] * kLog2e : kNegInf;
      chunk_max = fmaxf(chunk_max, x[e]);
    }
    // Key c itself is live, so m_new is finite and no exponent below is -inf - -inf.
    const float m_new = fmaxf(m, chunk_max);
    float sum = 0.f;
#pragma unroll
    for (int e = 0; e < kHalvesPerVec; ++e) sum += exp2f(x[e] - m_new);
    l = l * exp2f(m - m_new) + sum;
    m = m_new;
  }
  const float m_row = warp_max(m);
  // A row with no live key (not reachable in self-attention, kept safe anyway) has m_row
  // = -inf; measuring from 0 then keeps every weight at exp2(-inf) = 0 instead of NaN.
  const float m_ref = m_row == kNegInf ? 0.f : m_row;
  const float l_row = warp_sum(m == kNegInf ? 0.f : l * exp2f(m - m_ref));
  const float inv_l = l_row > 0.f ? 1.f / l_row : 0.f;

  for (int c = lane * kHalvesPerVec; c < ld; c += T::kStep) {
    float x[kHalvesPerVec] = {};
    if (c < live) {
      unpack8(*reinterpret_cast<const uint4*>(p + c), x);
#pragma unroll
      for (int e = 0; e < kHalvesPerVec; ++e)
        x[e] = c + e < live ? exp2f(x[e] * kLog2e - m_ref) * inv_l : 0.f;
    }
    *reinterpret_cast<uint4*>(p + c) = pack8(x);
  }
}

// ---------------------------------------------------------------------------------------
// Geometry shared by can_implement, prepare and launch.

struct Geometry {
  std::int64_t batch;       // B * H_kv: one GEMM batch entry per (batch, kv head)
  std::int64_t group_rows;  // (H / H_kv) * S: query rows of the heads that share a kv head
  std::int64_t ld;          // row stride of S/P in halves: S rounded up to whole vectors
  std::int64_t rows;        // B * H * S: rows of S/P
  std::int64_t sp_bytes;    // the S/P buffer
};

Geometry geometry(const Shape& s) {
  Geometry g;
  g.batch = std::int64_t(s.B) * s.H_kv;
  g.group_rows = std::int64_t(s.H / s.H_kv) * s.S;
  g.ld = std::int64_t(ceil_div(s.S, kHalvesPerVec)) * kHalvesPerVec;
  g.rows = std::int64_t(s.B) * s.H * s.S;
  g.sp_bytes = g.rows * g.ld * std::int64_t(sizeof(__half));
  return g;
}

// The most workspace the heuristic may ask for: the general allowance plus, for split-K,
// kMaxSplitK fp32 partial copies of O. In doubles, like the budget check that uses it, so that
// no product overflows for absurd shapes before the check can refuse them.
template <class Traits>
double workspace_cap(const Shape& s) {
  double cap = double(kGemmWorkspaceBytes);
  if (Traits::kSplitKPV) cap += double(kMaxSplitK) * double(s.q_elems()) * sizeof(float);
  return cap;
}

std::string gib(double bytes) {
  std::ostringstream os;
  os.precision(3);
  os << bytes / double(std::int64_t(1) << 30) << " GiB";
  return os.str();
}

template <class Traits>
Refusal can_implement_impl(const Shape& s) {
  if (auto r = common_shape_refusal(s)) return r;
  if (s.D != 64 && s.D != 128)
    return std::string("phase ") + Traits::kId + " supports head dim 64 and 128 only";
  if (s.dtype != DType::f16)
    return std::string("bf16 not implemented by phase ") + Traits::kId;
  const double sp = double(s.B) * s.H * s.S * double(ceil_div(s.S, kHalvesPerVec)) *
                    kHalvesPerVec * sizeof(__half);
  const double ws = workspace_cap<Traits>(s);
  if (sp + ws > double(kMemoryBudgetBytes))
    return "S/P (" + gib(sp) + ") plus cuBLASLt workspace (" + gib(ws) + ") would pass the " +
           gib(double(kMemoryBudgetBytes)) + " per-shape memory budget of the unfused phases";
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// cuBLASLt resources as RAII. Destructors ignore the status, since they must not throw.
// Preferences die once their heuristic has run; a plan's resources only die when prepare()
// fails halfway, since finished plans live until the process ends.

template <auto Destroy>
struct LtDeleter {
  template <class P>
  void operator()(P p) const noexcept {
    (void)Destroy(p);
  }
};
template <class Raw, auto Destroy>
using LtPtr = std::unique_ptr<std::remove_pointer_t<Raw>, LtDeleter<Destroy>>;
using LtHandle = LtPtr<cublasLtHandle_t, &cublasLtDestroy>;
using LtMatmulDesc = LtPtr<cublasLtMatmulDesc_t, &cublasLtMatmulDescDestroy>;
using LtLayout = LtPtr<cublasLtMatrixLayout_t, &cublasLtMatrixLayoutDestroy>;
using LtPreference = LtPtr<cublasLtMatmulPreference_t, &cublasLtMatmulPreferenceDestroy>;

struct CudaFreeDeleter {
  void operator()(void* p) const noexcept { (void)cudaFree(p); }
};
using DeviceMemory = std::unique_ptr<void, CudaFreeDeleter>;

DeviceMemory device_alloc(std::int64_t bytes) {
  void* p = nullptr;
  if (bytes > 0) ATTNLAB_CUDA_CHECK(cudaMalloc(&p, std::size_t(bytes)));
  return DeviceMemory(p);
}

// One column-major fp16 operand of a batched GEMM, as cuBLASLt sees it.
struct MatrixSpec {
  std::uint64_t rows;
  std::uint64_t cols;
  std::int64_t ld;
  std::int64_t batch_stride;
};

LtLayout make_layout(const MatrixSpec& m, std::int64_t batch) {
  cublasLtMatrixLayout_t raw = nullptr;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&raw, CUDA_R_16F, m.rows, m.cols, m.ld));
  LtLayout layout(raw);
  const std::int32_t count = std::int32_t(batch);
  ATTNLAB_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
      raw, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
  ATTNLAB_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
      raw, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &m.batch_stride, sizeof(m.batch_stride)));
  return layout;
}

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
  std::int64_t k;  // the reduction length, the dimension split-K divides
  bool split_k;
};

struct AlgoChoice {
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace_bytes = 0;
  float waves = 0.f;   // the heuristic's estimate of device fill, not a measurement
  std::string origin;  // how it was chosen
};

struct GemmPlan {
  LtMatmulDesc desc;
  LtLayout a;
  LtLayout b;
  LtLayout d;
  AlgoChoice choice;
};

template <class T>
T algo_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  T value{};
  std::size_t written = 0;
  ATTNLAB_CUBLAS_CHECK(
      cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof(value), &written));
  return value;
}

template <class T>
T algo_cap(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  T value{};
  std::size_t written = 0;
  ATTNLAB_CUBLAS_CHECK(
      cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &value, sizeof(value), &written));
  return value;
}

std::int32_t split_of(const cublasLtMatmulAlgo_t& algo) {
  return algo_config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
}

std::uint32_t reduction_of(const cublasLtMatmulAlgo_t& algo) {
  return algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
}

LtPreference make_preference(std::int64_t max_workspace, std::uint32_t reduction_mask) {
  cublasLtMatmulPreference_t raw = nullptr;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw));
  LtPreference pref(raw);
  const std::uint64_t ws = std::uint64_t(max_workspace);
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      raw, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reduction_mask, sizeof(reduction_mask)));
  for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
    ATTNLAB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(raw, attr, &kOperandAlignment,
                                                              sizeof(kOperandAlignment)));
  return pref;
}

std::vector<cublasLtMatmulHeuristicResult_t> heuristic(cublasLtHandle_t handle,
                                                       const GemmPlan& g,
                                                       cublasLtMatmulPreference_t pref,
                                                       int count) {
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(count));
  int returned = 0;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(handle, g.desc.get(), g.a.get(),
                                                      g.b.get(), g.d.get(), g.d.get(), pref,
                                                      count, results.data(), &returned));
  results.resize(std::size_t(returned));
  results.erase(std::remove_if(results.begin(), results.end(),
                               [](const auto& r) { return r.state != CUBLAS_STATUS_SUCCESS; }),
                results.end());
  return results;
}

// The heuristic's best algorithm with no split-K (reduction scheme NONE only).
AlgoChoice choose_unsplit(cublasLtHandle_t handle, const GemmPlan& g, const GemmSpec& spec) {
  const LtPreference pref = make_preference(kGemmWorkspaceBytes, CUBLASLT_REDUCTION_SCHEME_NONE);
  const auto results = heuristic(handle, g, pref.get(), 1);
  if (results.empty())
    throw std::runtime_error(std::string("cuBLASLt has no algorithm for the ") + spec.name +
                             " GEMM");
  return {results[0].algo, results[0].workspaceSize, results[0].wavesCount,
          "heuristic rank 0"};
}

// Reduction schemes in order of preference: fp32 partials in the workspace keep the unsplit
// GEMM's accumulation precision; fp16 partials (output type) or in-place accumulation in the
// fp16 output round each split's partial sum once more. cuBLASLt 13 on the H100 offered no
// compute-type split-K algorithm for these GEMMs, so the others stay as fallbacks; which one
// ran is in the plan line, and the correctness gate judges the result either way.
constexpr std::uint32_t kSplitReductions[] = {CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
                                              CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE,
                                              CUBLASLT_REDUCTION_SCHEME_INPLACE};

bool splits_with(const cublasLtMatmulAlgo_t& algo, std::uint32_t scheme) {
  return split_of(algo) > 1 && reduction_of(algo) == scheme;
}

bool can_split_with(const cublasLtMatmulAlgo_t& algo, std::uint32_t scheme) {
  return algo_cap<std::int32_t>(algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0 &&
         (algo_cap<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK) & scheme) != 0;
}

// Statuses of cublasLtMatmulAlgoCheck/Init that mean "not this configuration".
bool unsupported(cublasStatus_t st) {
  return st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_INVALID_VALUE ||
         st == CUBLAS_STATUS_ARCH_MISMATCH;
}

// Power-of-two splits of one configured algorithm, validated by cublasLtMatmulAlgoCheck: the
// smallest that fills the device (estimated waves >= 1), else the largest that validates.
std::optional<AlgoChoice> try_splits(cublasLtHandle_t handle, const GemmPlan& g,
                                     const cublasLtMatmulAlgo_t& base, std::uint32_t scheme,
                                     int max_split, std::int64_t max_workspace,
                                     const std::string& origin) {
  std::optional<AlgoChoice> best;
  for (std::int32_t split = 2; split <= max_split; split *= 2) {
    cublasLtMatmulAlgo_t algo = base;
    ATTNLAB_CUBLAS_CHECK(cublasLtMatmulAlgoConfigSetAttribute(
        &algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split, sizeof(split)));
    ATTNLAB_CUBLAS_CHECK(cublasLtMatmulAlgoConfigSetAttribute(
        &algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof(scheme)));
    cublasLtMatmulHeuristicResult_t check{};
    const cublasStatus_t st = cublasLtMatmulAlgoCheck(handle, g.desc.get(), g.a.get(), g.b.get(),
                                                      g.d.get(), g.d.get(), &algo, &check);
    if (unsupported(st)) continue;
    ATTNLAB_CUBLAS_CHECK(st);
    if (std::int64_t(check.workspaceSize) > max_workspace) continue;
    best = AlgoChoice{algo, check.workspaceSize, check.wavesCount,
                      origin + ", split set and checked"};
    if (check.wavesCount >= 1.f) break;
  }
  return best;
}

// A split-K algorithm whose partial sums are fp32 in the workspace (compute-type reduction):
// the same accumulation precision as the unsplit GEMM, and a separate, deterministic
// reduction step (the in-place scheme would accumulate in the fp16 output). In order of
// preference, with no timing involved:
//   1. the best-ranked heuristic result that already splits k;
//   2. the best-ranked heuristic result that supports split-K, with a split set on it;
//   3. any algorithm id cuBLASLt lists that supports split-K, configured by the heuristic
//      restricted to that id, with a split set on it.
std::optional<AlgoChoice> choose_split_k(cublasLtHandle_t handle, const GemmPlan& g,
                                         const GemmSpec& spec, std::int64_t max_workspace,
                                         std::uint32_t scheme) {
  const LtPreference pref = make_preference(max_workspace, scheme);
  const auto results = heuristic(handle, g, pref.get(), kHeuristicCandidates);
  for (std::size_t i = 0; i < results.size(); ++i)
    if (splits_with(results[i].algo, scheme))
      return AlgoChoice{results[i].algo, results[i].workspaceSize, results[i].wavesCount,
              "heuristic rank " + std::to_string(i)};

  const int max_split = int(std::min<std::int64_t>(kMaxSplitK, spec.k / kMinKeysPerSplit));
  for (std::size_t i = 0; i < results.size(); ++i)
    if (can_split_with(results[i].algo, scheme))
      if (auto c = try_splits(handle, g, results[i].algo, scheme, max_split, max_workspace,
                              "heuristic rank " + std::to_string(i)))
        return *c;

  std::vector<int> ids(kAlgoIdsQueried);
  int n_ids = 0;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulAlgoGetIds(handle, CUBLAS_COMPUTE_32F, CUDA_R_32F,
                                                CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F,
                                                kAlgoIdsQueried, ids.data(), &n_ids));
  const LtPreference by_id = make_preference(max_workspace, scheme);
  const std::uint32_t mode = CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      by_id.get(), CUBLASLT_MATMUL_PREF_SEARCH_MODE, &mode, sizeof(mode)));
  for (int i = 0; i < n_ids; ++i) {
    cublasLtMatmulHeuristicResult_t r{};
    cublasStatus_t st = cublasLtMatmulAlgoInit(handle, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F,
                                               CUDA_R_16F, CUDA_R_16F, CUDA_R_16F,
                                               ids[std::size_t(i)], &r.algo);
    if (unsupported(st)) continue;
    ATTNLAB_CUBLAS_CHECK(st);
    if (!can_split_with(r.algo, scheme)) continue;
    int returned = 0;
    st = cublasLtMatmulAlgoGetHeuristic(handle, g.desc.get(), g.a.get(), g.b.get(), g.d.get(),
                                        g.d.get(), by_id.get(), 1, &r, &returned);
    if (unsupported(st) || returned == 0 || r.state != CUBLAS_STATUS_SUCCESS) continue;
    ATTNLAB_CUBLAS_CHECK(st);
    const std::string origin = "algo id " + std::to_string(ids[std::size_t(i)]) +
                               " configured by the heuristic";
    if (splits_with(r.algo, scheme)) return AlgoChoice{r.algo, r.workspaceSize, r.wavesCount, origin};
    if (auto c = try_splits(handle, g, r.algo, scheme, max_split, max_workspace, origin)) return c;
  }
  return std::nullopt;
}

AlgoChoice choose_split_k(cublasLtHandle_t handle, const GemmPlan& g, const GemmSpec& spec,
                          std::int64_t max_workspace) {
  for (std::uint32_t scheme : kSplitReductions)
    if (auto c = choose_split_k(handle, g, spec, max_workspace, scheme)) return *c;
  throw std::runtime_error(std::string("no cuBLASLt algorithm for the ") + spec.name +
                           " GEMM runs with split-K under any reduction scheme");
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
  g.choice = spec.split_k ? choose_split_k(handle, g, spec, max_workspace)
                          : choose_unsplit(handle, g, spec);
  return g;
}

std::string describe(const char* name, const AlgoChoice& c) {
  std::ostringstream os;
  os << name << " {algo " << algo_config<std::int32_t>(c.algo, CUBLASLT_ALGO_CONFIG_ID)
     << ", tile " << algo_config<std::uint32_t>(c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID)
     << ", stages " << algo_config<std::uint32_t>(c.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID)
     << ", split-K " << split_of(c.algo) << ", reduction scheme " << reduction_of(c.algo)
     << ", workspace " << c.workspace_bytes << " B, estimated waves " << c.waves << ", "
     << c.origin << "}";
  return os.str();
}

// Everything one shape needs, built once by prepare() and kept until the process ends.
struct Plan {
  LtHandle handle;
  GemmPlan qk;  // S = scale * Q K^T
  GemmPlan pv;  // O = P V
  DeviceMemory sp;         // S, then P in place: [B*H][S][ld] halves
  DeviceMemory workspace;  // shared by the two GEMMs, which run in stream order
  std::size_t workspace_bytes = 0;
  Geometry geo{};
};

// The two GEMMs in cuBLASLt's column-major terms. A row-major R x C matrix with row stride
// ld is a column-major C x R matrix with the same ld, so with r*S = group_rows:
//   QK^T: S^T (S x rS, ld) = K^T (op T of K's D x S view) * Q^T (D x rS): m = S,  n = rS, k = D
//   PV:   O^T (D x rS)      = V^T (D x S)                   * P^T (S x rS): m = D,  n = rS, k = S
GemmSpec qk_spec(const Shape& s, const Geometry& g) {
  const std::int64_t S = s.S, D = s.D;
  return {"QK^T",
          CUBLAS_OP_T,
          CUBLAS_OP_N,
          {std::uint64_t(D), std::uint64_t(S), D, S * D},                       // K
          {std::uint64_t(D), std::uint64_t(g.group_rows), D, g.group_rows * D},  // Q
          {std::uint64_t(S), std::uint64_t(g.group_rows), g.ld, g.group_rows * g.ld},  // S
          g.batch,
          D,
          false};
}

template <class Traits>
GemmSpec pv_spec(const Shape& s, const Geometry& g) {
  const std::int64_t S = s.S, D = s.D;
  return {"PV",
          CUBLAS_OP_N,
          CUBLAS_OP_N,
          {std::uint64_t(D), std::uint64_t(S), D, S * D},                              // V
          {std::uint64_t(S), std::uint64_t(g.group_rows), g.ld, g.group_rows * g.ld},  // P
          {std::uint64_t(D), std::uint64_t(g.group_rows), D, g.group_rows * D},        // O
          g.batch,
          S,
          Traits::kSplitKPV && S >= 2 * kMinKeysPerSplit};
}

// The plan depends on the dimensions only: causal and non-causal launches share one.
using PlanKey = std::tuple<int, int, int, int, int>;
PlanKey plan_key(const Shape& s) { return {s.B, s.H, s.H_kv, s.S, s.D}; }

struct PlanCache {
  std::mutex mutex;
  std::map<PlanKey, std::unique_ptr<Plan>> plans;
};

// Deliberately never destroyed: destructors running after the CUDA runtime has shut down at
// exit would free into a dead context. The driver reclaims everything when the process ends.
template <class Traits>
PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache;
  return *cache;
}

std::string shape_text(const Shape& s) {
  return std::to_string(s.B) + "x" + std::to_string(s.H) + "x" + std::to_string(s.S) + "x" +
         std::to_string(s.D) + (s.H_kv != s.H ? ":hkv=" + std::to_string(s.H_kv) : "");
}

template <class Traits>
void prepare_impl(const Shape& s) {
  if (auto r = can_implement_impl<Traits>(s)) throw std::invalid_argument(*r);
  PlanCache& cache = plan_cache<Traits>();
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.plans.count(plan_key(s))) return;

  auto plan = std::make_unique<Plan>();
  plan->geo = geometry(s);
  cublasLtHandle_t raw = nullptr;
  ATTNLAB_CUBLAS_CHECK(cublasLtCreate(&raw));
  plan->handle.reset(raw);
  const auto cap = std::int64_t(workspace_cap<Traits>(s));
  plan->qk = make_gemm(raw, qk_spec(s, plan->geo), cap);
  const GemmSpec pv = pv_spec<Traits>(s, plan->geo);
  plan->pv = make_gemm(raw, pv, cap);
  if (Traits::kSplitKPV && !pv.split_k)
    plan->pv.choice.origin += "; not split: k = S is shorter than two k-blocks";
  plan->workspace_bytes =
      std::max(plan->qk.choice.workspace_bytes, plan->pv.choice.workspace_bytes);
  plan->sp = device_alloc(plan->geo.sp_bytes);
  plan->workspace = device_alloc(std::int64_t(plan->workspace_bytes));
  // Once per shape, outside every timed region: which algorithms cuBLASLt picked is part of
  // what a reader of the run needs to interpret it.
  std::clog << "attnlab phase " << Traits::kId << " plan " << shape_text(s) << ": "
            << describe("QK^T", plan->qk.choice) << ", " << describe("PV", plan->pv.choice)
            << std::endl;
  cache.plans.emplace(plan_key(s), std::move(plan));
}

template <class Traits>
const Plan& find_plan(const Shape& s) {
  PlanCache& cache = plan_cache<Traits>();
  const std::lock_guard<std::mutex> lock(cache.mutex);
  const auto it = cache.plans.find(plan_key(s));
  if (it == cache.plans.end())
    throw std::logic_error(std::string("phase ") + Traits::kId + ": prepare() was not called " +
                           "for shape " + shape_text(s) + " (launch never allocates)");
  return *it->second;
}

void run_gemm(const Plan& plan, const GemmPlan& g, float alpha, const void* a, const void* b,
              void* d, cudaStream_t stream) {
  const float beta = 0.f;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmul(plan.handle.get(), g.desc.get(), &alpha, a, g.a.get(), b,
                                      g.b.get(), &beta, d, g.d.get(), d, g.d.get(),
                                      &g.choice.algo, plan.workspace.get(),
                                      plan.workspace_bytes, stream));
}

// Enqueues the three steps of one plan. The plan's S/P buffer is shared by every launch of
// its shape, so launches of one shape must be ordered (one stream, as in the harness).
template <class Traits>
void launch_impl(const Problem& p, cudaStream_t stream) {
  if (auto r = can_implement_impl<Traits>(p.shape)) throw std::invalid_argument(*r);
  require_vector_alignment(p);
  const Plan& plan = find_plan<Traits>(p.shape);
  const Shape& s = p.shape;
  __half* sp = static_cast<__half*>(plan.sp.get());

  run_gemm(plan, plan.qk, p.scale, p.k, p.q, sp, stream);
  using T = SoftmaxTraits;
  const unsigned blocks = unsigned((plan.geo.rows + T::kWarps - 1) / T::kWarps);
  softmax_rows_kernel<<<blocks, T::kThreads, 0, stream>>>(sp, plan.geo.rows, s.S,
                                                          int(plan.geo.ld), s.causal);
  ATTNLAB_CHECK_LAUNCH();
  run_gemm(plan, plan.pv, 1.f, p.v, sp, p.o, stream);
}

}  // namespace
}  // namespace attnlab::unfused

namespace attnlab::phase3b {
Refusal can_implement(const Shape& s) { return unfused::can_implement_impl<unfused::Unsplit>(s); }
void prepare(const Shape& s) { unfused::prepare_impl<unfused::Unsplit>(s); }
void launch(const Problem& p, cudaStream_t stream) {
  unfused::launch_impl<unfused::Unsplit>(p, stream);
}
}  // namespace attnlab::phase3b

namespace attnlab::phase3c {
Refusal can_implement(const Shape& s) { return unfused::can_implement_impl<unfused::SplitKPV>(s); }
void prepare(const Shape& s) { unfused::prepare_impl<unfused::SplitKPV>(s); }
void launch(const Problem& p, cudaStream_t stream) {
  unfused::launch_impl<unfused::SplitKPV>(p, stream);
}
}  // namespace attnlab::phase3c
