// The attention backward problem: given the forward's inputs, its output O, the row
// log-sum-exp LSE and the gradient dO of a loss with respect to O, compute dQ, dK and dV.
//   P = exp(Q K^T * scale [+ causal mask] - LSE)     (the forward's softmax, rebuilt per tile)
//   dV = P^T dO      dP = dO V^T      dS = P * (dP - rowsum(dO * O))      dQ = dS K * scale
//   dK = dS^T Q * scale
// With grouped-query attention (H_kv < H), dK and dV of one KV head are summed over the H/H_kv
// query heads that read it. Layouts are those of Problem: contiguous [B, H, S, D] for Q, O, dO and
// dQ, [B, H_kv, S, D] for K, V, dK and dV, all fp16; LSE is fp32 [B, H, S].
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "common/shape.hpp"

namespace attnlab {

struct BackwardProblem {
  Shape shape;
  const void* q = nullptr;    // [B, H, S, D] fp16
  const void* k = nullptr;    // [B, H_kv, S, D] fp16
  const void* v = nullptr;    // [B, H_kv, S, D] fp16
  const void* o = nullptr;    // [B, H, S, D] fp16: the forward's output
  const void* d_o = nullptr;  // [B, H, S, D] fp16: dLoss/dO
  // [B, H, S] fp32: per query row, log(sum_j exp(scale * q.k_j)) over the row's unmasked keys,
  // natural log, as FlashAttention's softmax_lse.
  const float* lse = nullptr;
  void* dq = nullptr;  // [B, H, S, D] fp16
  void* dk = nullptr;  // [B, H_kv, S, D] fp16, summed over each query-head group
  void* dv = nullptr;  // [B, H_kv, S, D] fp16, summed over each query-head group
  float scale = 0.125f;
  // Deterministic: the same inputs give bit-identical gradients on every launch (no
  // floating-point atomics whose order varies between launches).
  bool deterministic = false;
  // The launch's scratch (the phase's backward workspace bytes for the shape, zeroed when
  // allocated; the launch leaves it ready for the next launch or re-zeroes it itself).
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;  // [bytes]
};

using BackwardLaunchFn = void (*)(const BackwardProblem&, cudaStream_t);

// FLOPs of the backward by FlashAttention's convention: 2.5 times the forward's (five GEMMs of
// the forward's two sizes, QK^T recomputed), halved for causal as the forward's are.
inline double backward_flops(const Shape& s) { return 2.5 * s.flops(); }

}  // namespace attnlab
