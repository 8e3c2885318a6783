// Phases 3b and 3c: unfused attention. One strided-batched cuBLASLt GEMM writes the scaled
// scores S = scale * Q K^T for every head, a row-softmax kernel turns S into P in place, and a
// second batched GEMM computes O = P V; S and P live in global memory. 3c (traits below) splits
// the PV GEMM, the only GEMM with a long k loop (k = S >= 64), over chunks of keys.
//
// Idea: hand both matmuls to a tuned library and see what materialising the S x S scores
// costs against the fused phases. Fixed relative to the seed (kernels/SEEDS.md): the seed
// called cudaMalloc and the cuBLASLt heuristic inside its timed region and issued one GEMM per
// head; here prepare() builds a plan per shape once (handle, descriptors, heuristic algorithm
// choice, S/P buffer, workspace; 3c's partials, streams and events) and launch() only
// enqueues GEMMs, kernels and event records and waits, so it is capturable in a CUDA graph.
// The seed's 3c also timed synchronising NaN checks; nothing here synchronises. The
// correctness gate, not a NaN check, judges the output. Measured effects live in the run
// records.
//
// Why 3c splits k by hand: cuBLASLt 13.0 on the H100 offered no split-K algorithm for these
// strided-batched PV GEMMs. Measured: the heuristic under every reduction scheme (compute
// type, output type, in place), split counts set on its results and validated with
// cublasLtMatmulAlgoCheck, and every id from cublasLtMatmulAlgoGetIds set up with
// cublasLtMatmulAlgoInit all returned none. So 3c issues one batched GEMM per chunk of keys,
// each writing an fp32 partial O, and a kernel of its own sums the partials in a fixed order.
// The chunk GEMMs run side by side on streams forked from the launch stream and joined back
// (events, so graph capture records the fork), as the blocks of a split-K GEMM would; issued
// one after another they would each fill the device no better than the unsplit GEMM.
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
// - 3c's chunks start at multiples of 8 keys, so every chunk's P columns and V rows stay
//   16-byte aligned. The partials are fp32, the unsplit GEMM's accumulation precision, with
//   O's [B, H, S, D] layout: O is rounded to fp16 once, after the sum. The chunk GEMMs and
//   the sum in chunk order are deterministic, so repeated launches agree bit for bit.
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
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
#include <vector>

#include "kernels/attention_common.cuh"
#include "common/check.hpp"
#include "kernels/cublaslt_plans.hpp"
#include "kernels/registry.hpp"

namespace attnlab::unfused {
namespace {

// Phase 3b: the heuristic's best algorithm for both GEMMs, split-K excluded.
struct Unsplit {
  static constexpr const char* kId = "3b";
  static constexpr bool kSplitKPV = false;
};
// Phase 3c: the PV GEMM (k = S) split over chunks of keys into fp32 partials, then summed.
// QK^T stays unsplit: its k is the head dim, one or two k-blocks of any GEMM main loop, so
// splitting it would only add a reduction pass.
struct SplitKPV {
  static constexpr const char* kId = "3c";
  static constexpr bool kSplitKPV = true;
};

// Per shape, the S/P buffer plus the cuBLASLt workspace (plus 3c's fp32 partials) may take at
// most this much: about a tenth of an H100's 80 GB, so that the harness's own buffers (Q, K,
// V, O, the L2 flush) and the plans of further shapes still fit beside it.
constexpr std::int64_t kMemoryBudgetBytes = std::int64_t(8) << 30;
// cuBLAS's recommended workspace for Hopper (cuBLAS API reference, cublasSetWorkspace).
constexpr std::int64_t kGemmWorkspaceBytes = std::int64_t(32) << 20;
// 3c's chunk count: a power of two up to 16, one fp32 partial O each.
constexpr int kMaxSplitK = 16;
// Each chunk should own at least one k-block of the main loop; 32 is the k extent of a
// typical cuBLAS fp16 tile. Below two chunks' worth of keys (S < 64) there is nothing to
// split: 3c then runs the PV GEMM unsplit, exactly as 3b, and its plan line says so.
constexpr int kMinKeysPerSplit = 32;
// 3c's split rule aims one wave of (batch entry, output tile, chunk) work items at the
// H100 SXM's SM count, taking cuBLAS's usual 128 x 128 output tile. Both are assumptions
// about the device and the library's kernels, not measurements: on another GPU the split is
// still correct, only less even. Being constants, they let can_implement size the partials
// exactly, without a device.
constexpr double kTargetSms = 132;
constexpr double kAssumedGemmTile = 128;
// cudaMalloc's alignment, kept by every slice of the workspace that concurrent GEMMs share.
constexpr std::size_t kWorkspaceAlignment = 256;

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
// 3c: the sum of the chunk GEMMs' fp32 partials.

struct ReduceTraits {
  static constexpr int kThreads = 256;  // one 16-byte output vector (8 halves) per thread
  // With a split there are at least two partials inside the memory budget, which bounds the
  // output's vector count, and with it the grid, below the 2^31 - 1 limit of grid x.
  static_assert(kMemoryBudgetBytes / std::int64_t(2 * sizeof(float) * kHalvesPerVec) /
                        kThreads <= INT_MAX,
                "the reduction grid of any admitted shape fits grid x");
};

// partials: `count` fp32 copies of O's layout, `vecs` * 8 floats each, in chunk order; o:
// [B, H, S, D] halves. Every element is summed in chunk order, so the result does not depend
// on scheduling. The partials are dead after this read, hence the streaming loads.
__global__ void __launch_bounds__(ReduceTraits::kThreads)
    reduce_partials_kernel(const float* __restrict__ partials, int count, std::int64_t vecs,
                           __half* __restrict__ o) {
  const std::int64_t i = std::int64_t(blockIdx.x) * ReduceTraits::kThreads + threadIdx.x;
  if (i >= vecs) return;
  const float4* src = reinterpret_cast<const float4*>(partials) + 2 * i;
  const std::int64_t partial_stride = 2 * vecs;  // float4s per partial
  float sum[kHalvesPerVec] = {};
  for (int c = 0; c < count; ++c) {
    const float4 lo = __ldcs(src + c * partial_stride);
    const float4 hi = __ldcs(src + c * partial_stride + 1);
    sum[0] += lo.x;
    sum[1] += lo.y;
    sum[2] += lo.z;
    sum[3] += lo.w;
    sum[4] += hi.x;
    sum[5] += hi.y;
    sum[6] += hi.z;
    sum[7] += hi.w;
  }
  reinterpret_cast<uint4*>(o)[i] = pack8(sum);
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

// How the PV GEMM's k = S keys are cut: `count` chunks, the first count - 1 of `keys` keys
// each and the last of `last_keys`, the remainder. count = 1 is 3b's single GEMM, k = S,
// straight into O.
struct KeySplit {
  int count;
  int keys;
  int last_keys;
};

// 3c's rule, no timing involved. The count: the largest power of two, at least 2 and at
// most min(16, S / 32), for which (batch entries) x (128 x 128 output tiles of O^T, D x rS)
// x (chunks) stays within one wave on 132 SMs. The chunk length: S / count rounded up to a
// multiple of 8, which keeps the longest chunk, the critical path of chunks that run side by
// side, within 7 keys of S / count; where that would leave the last chunk under 32 keys,
// rounded down instead (at least 32, as count <= S / 32), the last taking the remainder.
// Multiples of 8 keys start every chunk 16-byte aligned. In doubles where a product of
// dimensions could overflow before the budget check that calls this refuses the shape.
template <class Traits>
KeySplit key_split(const Shape& s) {
  const int max_count = std::min(kMaxSplitK, s.S / kMinKeysPerSplit);
  if (!Traits::kSplitKPV || max_count < 2) return {1, s.S, s.S};
  const double tiles = double(s.B) * s.H_kv * std::ceil(s.D / kAssumedGemmTile) *
                       std::ceil(double(s.H / s.H_kv) * s.S / kAssumedGemmTile);
  int count = 2;
  while (2 * count <= max_count && tiles * (2 * count) <= kTargetSms) count *= 2;
  int keys = ceil_div(s.S, count * kHalvesPerVec) * kHalvesPerVec;
  if (s.S - (count - 1) * keys < kMinKeysPerSplit)
    keys = s.S / (count * kHalvesPerVec) * kHalvesPerVec;
  return {count, keys, s.S - (count - 1) * keys};
}

std::string gib(double bytes) {
  std::ostringstream os;
  os.precision(3);
  os << bytes / double(std::int64_t(1) << 30) << " GiB";
  return os.str();
}

template <class Traits>
Refusal can_implement_impl(const Shape& s) {
  if (auto r = fp16_head_dim_refusal(s, std::string("phase ") + Traits::kId)) return r;
  // In doubles, so that no product overflows for absurd shapes before the check refuses them.
  const double sp = double(s.B) * s.H * s.S * double(ceil_div(s.S, kHalvesPerVec)) *
                    kHalvesPerVec * sizeof(__half);
  const double ws = double(kGemmWorkspaceBytes);
  const KeySplit split = key_split<Traits>(s);
  const double partials =
      split.count > 1 ? double(split.count) * s.B * s.H * s.S * s.D * sizeof(float) : 0.;
  if (sp + ws + partials > double(kMemoryBudgetBytes))
    return "S/P (" + gib(sp) + ") plus cuBLASLt workspace (" + gib(ws) + ")" +
           (split.count > 1 ? " plus " + std::to_string(split.count) +
                                  " fp32 split-K partials of O (" + gib(partials) + ")"
                            : std::string()) +
           " would exceed the " + gib(double(kMemoryBudgetBytes)) +
           " per-shape memory budget of the unfused phases";
  return std::nullopt;
}

// Everything one shape needs, built once by prepare() and kept until the process ends.
struct Plan {
  LtHandle handle;
  GemmPlan qk;  // S = scale * Q K^T
  // O = P V when unsplit; with a split, one chunk of split.keys keys into an fp32 partial.
  GemmPlan pv;
  // The last chunk, only where its k (split.last_keys) differs from the others'.
  std::optional<GemmPlan> pv_last;
  KeySplit split{};
  DeviceMemory sp;         // S, then P in place: [B*H][S][ld] halves
  DeviceMemory partials;   // split.count fp32 copies of O's layout; none when unsplit
  // QK^T and an unsplit PV use all of it, in stream order. The chunk GEMMs run concurrently,
  // so chunk c uses its own slice [c * chunk_workspace_bytes, (c + 1) * chunk_workspace_bytes).
  DeviceMemory workspace;
  std::size_t workspace_bytes = 0;
  std::size_t chunk_workspace_bytes = 0;
  // Split only: chunk 0 runs on the launch stream, chunk c > 0 on side[c - 1], forked after
  // the softmax and joined before the reduction.
  std::vector<Stream> side;
  Event fork;
  std::vector<Event> join;  // one per side stream
  Geometry geo{};
};

// The two GEMMs in cuBLASLt's column-major terms. A row-major R x C matrix with row stride
// ld is a column-major C x R matrix with the same ld, so with r*S = group_rows:
//   QK^T: S^T (S x rS, ld) = K^T (op T of K's D x S view) * Q^T (D x rS): m = S,  n = rS, k = D
//   PV:   O^T (D x rS)      = V^T (D x S)                   * P^T (S x rS): m = D,  n = rS, k = S
// A chunk of keys [k0, k0 + keys) is the same PV GEMM with k = keys on V^T's columns and P^T's
// rows from k0: launch offsets the A and B pointers, the layouts keep their strides.
GemmSpec qk_spec(const Shape& s, const Geometry& g) {
  const std::int64_t S = s.S, D = s.D;
  return {"QK^T",
          CUBLAS_OP_T,
          CUBLAS_OP_N,
          {CUDA_R_16F, std::uint64_t(D), std::uint64_t(S), D, S * D},  // K
          {CUDA_R_16F, std::uint64_t(D), std::uint64_t(g.group_rows), D, g.group_rows * D},  // Q
          {CUDA_R_16F, std::uint64_t(S), std::uint64_t(g.group_rows), g.ld,
           g.group_rows * g.ld},  // S
          g.batch};
}

// keys: the GEMM's k; out: CUDA_R_16F for O itself, CUDA_R_32F for a chunk's partial.
GemmSpec pv_spec(const char* name, const Shape& s, const Geometry& g, int keys,
                 cudaDataType_t out) {
  const std::int64_t S = s.S, D = s.D;
  return {name,
          CUBLAS_OP_N,
          CUBLAS_OP_N,
          {CUDA_R_16F, std::uint64_t(D), std::uint64_t(keys), D, S * D},  // V
          {CUDA_R_16F, std::uint64_t(keys), std::uint64_t(g.group_rows), g.ld,
           g.group_rows * g.ld},  // P
          {out, std::uint64_t(D), std::uint64_t(g.group_rows), D, g.group_rows * D},  // O
          g.batch};
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

// The PV part of the plan line.
template <class Traits>
std::string describe_pv(const Shape& s, const Plan& plan) {
  const KeySplit& k = plan.split;
  std::ostringstream os;
  if (k.count == 1) {
    os << "PV " << describe(plan.pv.choice);
    if (Traits::kSplitKPV)
      os << ", not split: S = " << s.S << " keys is fewer than two chunks of "
         << kMinKeysPerSplit;
    return os.str();
  }
  os << "PV split into " << k.count << " chunks of k = " << k.keys << " keys";
  if (plan.pv_last) os << " (the last k = " << k.last_keys << ")";
  os << " on " << k.count << " streams, fp32 partials "
     << gib(double(k.count) * double(s.q_elems()) * sizeof(float))
     << " summed in chunk order by reduce_partials_kernel; chunk GEMM "
     << describe(plan.pv.choice);
  if (plan.pv_last) os << ", last chunk GEMM " << describe(plan.pv_last->choice);
  return os.str();
}

template <class Traits>
void prepare_impl(const Shape& s) {
  if (auto r = can_implement_impl<Traits>(s)) throw std::invalid_argument(*r);
  PlanCache& cache = plan_cache<Traits>();
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.plans.count(plan_key(s))) return;

  auto plan = std::make_unique<Plan>();
  plan->geo = geometry(s);
  plan->split = key_split<Traits>(s);
  cublasLtHandle_t raw = nullptr;
  ATTNLAB_CUBLAS_CHECK(cublasLtCreate(&raw));
  plan->handle.reset(raw);
  plan->qk = make_gemm(raw, qk_spec(s, plan->geo), kGemmWorkspaceBytes);
  const KeySplit& split = plan->split;
  if (split.count == 1) {
    plan->pv = make_gemm(raw, pv_spec("PV", s, plan->geo, s.S, CUDA_R_16F), kGemmWorkspaceBytes);
    plan->workspace_bytes =
        std::max(plan->qk.choice.workspace_bytes, plan->pv.choice.workspace_bytes);
  } else {
    // The concurrent chunk GEMMs share the general allowance: a power-of-two fraction of
    // 32 MiB, so every slice stays a multiple of 256 bytes, cudaMalloc's alignment.
    const std::int64_t slice_cap = kGemmWorkspaceBytes / split.count;
    const auto chunk_spec = [&](const char* name, int keys) {
      return pv_spec(name, s, plan->geo, keys, CUDA_R_32F);
    };
    plan->pv = make_gemm(raw, chunk_spec("PV chunk", split.keys), slice_cap);
    if (split.last_keys != split.keys)
      plan->pv_last = make_gemm(raw, chunk_spec("PV last chunk", split.last_keys), slice_cap);
    const std::size_t chunk_ws =
        std::max(plan->pv.choice.workspace_bytes,
                 plan->pv_last ? plan->pv_last->choice.workspace_bytes : std::size_t(0));
    plan->chunk_workspace_bytes =
        chunk_ws == 0 ? 0 : (chunk_ws + kWorkspaceAlignment - 1) / kWorkspaceAlignment *
                                kWorkspaceAlignment;
    plan->workspace_bytes = std::max(plan->qk.choice.workspace_bytes,
                                     std::size_t(split.count) * plan->chunk_workspace_bytes);
    plan->partials = device_alloc(std::int64_t(split.count) * s.q_elems() *
                                  std::int64_t(sizeof(float)));
    plan->fork = make_event();
    for (int c = 1; c < split.count; ++c) {
      plan->side.push_back(make_stream());
      plan->join.push_back(make_event());
    }
  }
  plan->sp = device_alloc(plan->geo.sp_bytes);
  plan->workspace = device_alloc(std::int64_t(plan->workspace_bytes));
  // Once per shape, outside every timed region: which algorithms cuBLASLt picked, and how 3c
  // split the keys, is part of what a reader of the run needs to interpret it.
  std::clog << "attnlab phase " << Traits::kId << " plan " << shape_text(s) << ": QK^T "
            << describe(plan->qk.choice) << ", " << describe_pv<Traits>(s, *plan) << std::endl;
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
              void* d, void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  const float beta = 0.f;
  ATTNLAB_CUBLAS_CHECK(cublasLtMatmul(plan.handle.get(), g.desc.get(), &alpha, a, g.a.get(), b,
                                      g.b.get(), &beta, d, g.d.get(), d, g.d.get(),
                                      &g.choice.algo, workspace, workspace_bytes, stream));
}

// Enqueues one plan's work: QK^T, the softmax, then PV as one GEMM or, split, one GEMM per
// chunk and the reduction. The plan's S/P buffer and partials are shared by every launch of
// its shape, so launches of one shape must be ordered (one stream, as in the harness).
template <class Traits>
void launch_impl(const Problem& p, cudaStream_t stream) {
  if (auto r = can_implement_impl<Traits>(p.shape)) throw std::invalid_argument(*r);
  require_vector_alignment(p);
  const Plan& plan = find_plan<Traits>(p.shape);
  const Shape& s = p.shape;
  __half* sp = static_cast<__half*>(plan.sp.get());

  void* ws = plan.workspace.get();
  run_gemm(plan, plan.qk, p.scale, p.k, p.q, sp, ws, plan.workspace_bytes, stream);
  using T = SoftmaxTraits;
  const unsigned blocks = unsigned((plan.geo.rows + T::kWarps - 1) / T::kWarps);
  softmax_rows_kernel<<<blocks, T::kThreads, 0, stream>>>(sp, plan.geo.rows, s.S,
                                                          int(plan.geo.ld), s.causal);
  ATTNLAB_CHECK_LAUNCH();

  const KeySplit& split = plan.split;
  if (split.count == 1) {
    run_gemm(plan, plan.pv, 1.f, p.v, sp, p.o, ws, plan.workspace_bytes, stream);
    return;
  }
  const std::int64_t o_elems = s.q_elems();
  float* partials = static_cast<float*>(plan.partials.get());
  const __half* v = static_cast<const __half*>(p.v);
  ATTNLAB_CUDA_CHECK(cudaEventRecord(plan.fork.get(), stream));
  for (int c = 0; c < split.count; ++c) {
    cudaStream_t chunk_stream = c == 0 ? stream : plan.side[std::size_t(c - 1)].get();
    if (c > 0) ATTNLAB_CUDA_CHECK(cudaStreamWaitEvent(chunk_stream, plan.fork.get(), 0));
    const GemmPlan& g = c + 1 == split.count && plan.pv_last ? *plan.pv_last : plan.pv;
    const std::int64_t k0 = std::int64_t(c) * split.keys;  // a multiple of 8: 16-byte aligned
    run_gemm(plan, g, 1.f, v + k0 * s.D, sp + k0, partials + c * o_elems,
             static_cast<char*>(ws) + std::size_t(c) * plan.chunk_workspace_bytes,
             plan.chunk_workspace_bytes, chunk_stream);
    if (c > 0) {
      cudaEvent_t joined = plan.join[std::size_t(c - 1)].get();
      ATTNLAB_CUDA_CHECK(cudaEventRecord(joined, chunk_stream));
      ATTNLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, joined, 0));
    }
  }
  using R = ReduceTraits;
  const std::int64_t vecs = o_elems / kHalvesPerVec;  // D is a multiple of 8
  const unsigned reduce_blocks = unsigned((vecs + R::kThreads - 1) / R::kThreads);
  reduce_partials_kernel<<<reduce_blocks, R::kThreads, 0, stream>>>(
      partials, split.count, vecs, static_cast<__half*>(p.o));
  ATTNLAB_CHECK_LAUNCH();
}

}  // namespace
}  // namespace attnlab::unfused

namespace attnlab::phase_3b {
Refusal can_implement(const Shape& s) { return unfused::can_implement_impl<unfused::Unsplit>(s); }
void prepare(const Shape& s) { unfused::prepare_impl<unfused::Unsplit>(s); }
void launch(const Problem& p, cudaStream_t stream) {
  unfused::launch_impl<unfused::Unsplit>(p, stream);
}
}  // namespace attnlab::phase_3b

namespace attnlab::phase_3c {
Refusal can_implement(const Shape& s) { return unfused::can_implement_impl<unfused::SplitKPV>(s); }
void prepare(const Shape& s) { unfused::prepare_impl<unfused::SplitKPV>(s); }
void launch(const Problem& p, cudaStream_t stream) {
  unfused::launch_impl<unfused::SplitKPV>(p, stream);
}
}  // namespace attnlab::phase_3c

// What does writing the S x S scores and probabilities to global memory cost, with library GEMMs
// doing both matmuls?
ATTNLAB_PHASE(3b) {
  p.title = "unfused cuBLAS";
  p.technique =
      "strided-batched cuBLASLt GEMM S = QK^T, row-softmax kernel (P over S in place, fp16), "
      "batched GEMM O = PV";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.prepare = &prepare;
  p.question =
      "Unfused: cuBLASLt GEMMs and a softmax kernel with S and P materialised in global memory.";
  p.default_shapes = {"throughput", "latency"};
  p.claims = {seed_claim(p.id, "0.45", "throughput")};
}

// Does splitting the PV GEMM's k = S loop across more thread blocks pay for its extra reduction?
ATTNLAB_PHASE(3c) {
  p.title = "unfused split-K";
  p.technique =
      "phase 3b with the PV GEMM split over keys when S >= 64: concurrent cuBLASLt GEMMs per "
      "chunk into fp32 partials, summed by a deterministic reduction kernel";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.prepare = &prepare;
  p.question = "Split-K for the PV GEMM of the unfused phase 3b.";
  p.default_shapes = {"throughput", "latency"};
  p.claims = {faster_than(p.id, "3b", "throughput"), seed_claim(p.id, "0.83", "throughput")};
}
