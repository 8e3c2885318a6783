// The attention problem every phase solves: O = softmax(Q K^T * scale [+ causal mask]) V.
// Tensors are contiguous [B, H, S, D] (queries, output) and [B, H_kv, S, D] (keys, values),
// the layout of PyTorch SDPA's inputs; H_kv < H is grouped-query attention.
#pragma once

#include <cstddef>

#include "common/shape.hpp"

namespace attnlab {

// The element type of Q, K and V in device memory. kE4m3: FP8 e4m3 codes under per-tensor
// scaling, as cuDNN's and FlashAttention-3's FP8 interfaces take them (code = e4m3(x * scale));
// the kernel multiplies by Problem's descale factors (1 / scale). O is fp16 in both.
enum class InputFormat { kFp16, kE4m3 };

// Shape plus device operands. Pointers may be null when only the shape is being judged.
struct Problem {
  Shape shape;
  const void* q = nullptr;  // [B, H, S, D]
  const void* k = nullptr;  // [B, H_kv, S, D]
  const void* v = nullptr;  // [B, H_kv, S, D]
  void* o = nullptr;        // [B, H, S, D]
  float scale = 0.125f;     // softmax scale, normally 1/sqrt(D)
  InputFormat format = InputFormat::kFp16;
  float descale_q = 1.f, descale_k = 1.f, descale_v = 1.f;  // kE4m3: x = code * descale
  // The launch's scratch (Phase::workspace_bytes(shape) bytes, zeroed when allocated; null
  // where the phase needs none). Launches in one stream may share it; launches in flight on
  // two streams at once each need their own.
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;  // [bytes]
  // [B, H, S] fp32: each query row's log-sum-exp, natural log, as the backward reads it
  // (BackwardProblem::lse). Written only by a phase that emits it (Phase::emits_lse); null
  // for the others.
  float* lse = nullptr;
};

}  // namespace attnlab
