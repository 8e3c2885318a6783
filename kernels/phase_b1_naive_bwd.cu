// Phase b1: the naive attention backward, fp32 math on CUDA cores, no tensor cores and no
// tiling. Idea: FlashAttention's three steps with the least machinery that is plainly right, so
// that the backward gate, harness and records run end to end without the Hopper kernel:
//   delta pass  one warp per query row: delta = rowsum(dO * O) in fp32 into the workspace;
//   dK/dV pass  one warp per key row (b, kvh, j): for every query row of the KV head's group that
//               sees key j, P = exp(scale q.k - LSE) and dS = P (dO.v - delta) rebuilt in fp32,
//               dV += P dO and dK += dS q in registers (the group's sum in one warp), one store;
//   dQ pass     one warp per query row: dQ = scale sum_j dS_j k_j over its visible keys.
// dQ in its own pass rather than fp32 atomics from the dK/dV pass: every output has one writer,
// so each launch is deterministic whatever BackwardProblem::deterministic says.
// A build with ATTNLAB_PHASE_B1_MASK_DROPPED (tests/CMakeLists.txt) drops the causal mask in the
// backward (every key seen by every row, the forward's LSE still causal): the mutation the gate
// must reject (tests/gpu/test_backward.cpp).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <type_traits>

#include "common/check.hpp"
#include "kernels/backward_problem.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase_b1 {

#ifdef ATTNLAB_PHASE_B1_MASK_DROPPED
constexpr bool kMaskInBackward = false;
#else
constexpr bool kMaskInBackward = true;
#endif

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 4;

__device__ float warp_sum(float x) {
  for (int o = kWarp / 2; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

// A row of D fp16 values, lane l holding elements l, l + 32, ... in fp32.
template <int D>
struct Lanes {
  static constexpr int kPer = D / kWarp;
  float x[kPer];
  __device__ void load(const __half* row, int lane) {
    for (int c = 0; c < kPer; ++c) x[c] = __half2float(row[lane + c * kWarp]);
  }
  __device__ float dot(const Lanes& o) const {
    float s = 0.f;
    for (int c = 0; c < kPer; ++c) s += x[c] * o.x[c];
    return warp_sum(s);
  }
};

// The warp's global index over `count` rows; -1 past the end (the whole warp leaves together).
__device__ long long warp_row(long long count) {
  const long long w = (long long)blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarp;
  return w < count ? w : -1;
}

template <int D>
__global__ void delta_kernel(BackwardProblem p, float* delta) {
  const Shape& s = p.shape;
  const long long r = warp_row((long long)s.B * s.H * s.S);
  if (r < 0) return;
  const int lane = threadIdx.x % kWarp;
  Lanes<D> o, d_o;
  o.load(static_cast<const __half*>(p.o) + r * D, lane);
  d_o.load(static_cast<const __half*>(p.d_o) + r * D, lane);
  const float v = o.dot(d_o);
  if (lane == 0) delta[r] = v;
}

template <int D>
__global__ void dkdv_kernel(BackwardProblem p, const float* delta) {
  const Shape& s = p.shape;
  const long long kr = warp_row((long long)s.B * s.H_kv * s.S);
  if (kr < 0) return;
  const int lane = threadIdx.x % kWarp, j = int(kr % s.S), g = s.H / s.H_kv;
  const long long bkv = kr / s.S;
  const int b = int(bkv / s.H_kv), kvh = int(bkv % s.H_kv);
  Lanes<D> k, v, q, d_o, dk, dv;
  k.load(static_cast<const __half*>(p.k) + kr * D, lane);
  v.load(static_cast<const __half*>(p.v) + kr * D, lane);
  for (int c = 0; c < Lanes<D>::kPer; ++c) dk.x[c] = dv.x[c] = 0.f;
  const int first = s.causal && kMaskInBackward ? j : 0;
  for (int hh = 0; hh < g; ++hh)
    for (int i = first; i < s.S; ++i) {
      const long long r = ((long long)b * s.H + kvh * g + hh) * s.S + i;
      q.load(static_cast<const __half*>(p.q) + r * D, lane);
      d_o.load(static_cast<const __half*>(p.d_o) + r * D, lane);
      const float pr = expf(q.dot(k) * p.scale - p.lse[r]);
      const float ds = pr * (d_o.dot(v) - delta[r]);
      for (int c = 0; c < Lanes<D>::kPer; ++c) {
        dv.x[c] += pr * d_o.x[c];
        dk.x[c] += ds * q.x[c];
      }
    }
  for (int c = 0; c < Lanes<D>::kPer; ++c) {
    static_cast<__half*>(p.dk)[kr * D + lane + c * kWarp] = __float2half(dk.x[c] * p.scale);
    static_cast<__half*>(p.dv)[kr * D + lane + c * kWarp] = __float2half(dv.x[c]);
  }
}

template <int D>
__global__ void dq_kernel(BackwardProblem p, const float* delta) {
  const Shape& s = p.shape;
  const long long r = warp_row((long long)s.B * s.H * s.S);
  if (r < 0) return;
  const int lane = threadIdx.x % kWarp, i = int(r % s.S);
  const long long bh = r / s.S;
  const int b = int(bh / s.H), kvh = int(bh % s.H) / (s.H / s.H_kv);
  const long long kv0 = ((long long)b * s.H_kv + kvh) * s.S;
  Lanes<D> q, d_o, k, v, dq;
  q.load(static_cast<const __half*>(p.q) + r * D, lane);
  d_o.load(static_cast<const __half*>(p.d_o) + r * D, lane);
  for (int c = 0; c < Lanes<D>::kPer; ++c) dq.x[c] = 0.f;
  const float lse = p.lse[r], dlt = delta[r];
  const int n = s.causal && kMaskInBackward ? i + 1 : s.S;
  for (int j = 0; j < n; ++j) {
    k.load(static_cast<const __half*>(p.k) + (kv0 + j) * D, lane);
    v.load(static_cast<const __half*>(p.v) + (kv0 + j) * D, lane);
    const float ds = expf(q.dot(k) * p.scale - lse) * (d_o.dot(v) - dlt);
    for (int c = 0; c < Lanes<D>::kPer; ++c) dq.x[c] += ds * k.x[c];
  }
  for (int c = 0; c < Lanes<D>::kPer; ++c)
    static_cast<__half*>(p.dq)[r * D + lane + c * kWarp] = __float2half(dq.x[c] * p.scale);
}

Refusal can_implement(const Shape& s) { return fp16_head_dim_refusal(s, "phase b1"); }

// delta: one fp32 per query row.
std::size_t workspace_bytes(const Shape& s) { return std::size_t(s.B) * s.H * s.S * sizeof(float); }

unsigned blocks_for(long long warps) { return unsigned((warps + kWarpsPerBlock - 1) / kWarpsPerBlock); }

template <int D>
void launch_d(const BackwardProblem& p, cudaStream_t stream) {
  const Shape& s = p.shape;
  float* delta = static_cast<float*>(p.workspace);
  const long long rows = (long long)s.B * s.H * s.S, keys = (long long)s.B * s.H_kv * s.S;
  constexpr unsigned kThreads = kWarpsPerBlock * kWarp;
  delta_kernel<D><<<blocks_for(rows), kThreads, 0, stream>>>(p, delta);
  ATTNLAB_CUDA_CHECK(cudaGetLastError());
  dkdv_kernel<D><<<blocks_for(keys), kThreads, 0, stream>>>(p, delta);
  ATTNLAB_CUDA_CHECK(cudaGetLastError());
  dq_kernel<D><<<blocks_for(rows), kThreads, 0, stream>>>(p, delta);
  ATTNLAB_CUDA_CHECK(cudaGetLastError());
}

void launch(const BackwardProblem& p, cudaStream_t stream) {
  if (auto why = can_implement(p.shape)) throw std::invalid_argument(*why);
  if (p.workspace_bytes < workspace_bytes(p.shape))
    throw std::invalid_argument("phase b1 needs " + std::to_string(workspace_bytes(p.shape)) +
                                " bytes of workspace for delta, got " + std::to_string(p.workspace_bytes));
  if (p.shape.D == 64)
    launch_d<64>(p, stream);
  else
    launch_d<128>(p, stream);
}

}  // namespace attnlab::phase_b1

// Are the backward's gate, harness and records right end to end, and what does the plainest
// correct backward cost? The baseline every backward kernel here is measured against.
ATTNLAB_PHASE(b1) {
  p.title = "naive backward";
  p.technique =
      "delta pre-pass, one warp per key row for dK/dV and per query row for dQ, fp32 math, no tiling";
  p.can_implement = &can_implement;
  p.launch = nullptr;
  p.direction = Direction::kBackward;
  p.launch_backward = &launch;
  p.backward_workspace_bytes = &workspace_bytes;
  p.question = "Baseline: the plainest correct backward, which every backward phase is measured against.";
  p.default_shapes = {"latency"};
}
