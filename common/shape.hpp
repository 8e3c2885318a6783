// The attention problem's shape, shared by every layer (kernels, profiler, experiments,
// records, reports): sizes, masking, dtype, and the work and traffic they imply.
#pragma once

#include <cmath>
#include <cstdint>

namespace attnlab {

enum class DType { f16, bf16 };

inline const char* dtype_name(DType t) { return t == DType::f16 ? "fp16" : "bf16"; }

struct Shape {
  int B = 1;
  int H = 1;
  int H_kv = 1;  // key/value heads; H % H_kv == 0. Equal to H for multi-head attention.
  int S = 1;     // sequence length of queries and keys (self-attention)
  int D = 64;    // head dimension
  bool causal = false;
  DType dtype = DType::f16;

  std::int64_t q_elems() const { return std::int64_t(B) * H * S * D; }
  std::int64_t kv_elems() const { return std::int64_t(B) * H_kv * S * D; }

  // FLOPs by the FlashAttention/cuDNN convention: 4*B*H*S^2*D (two GEMMs), halved for
  // causal, softmax not counted. Keeps numbers comparable with published ones.
  double flops() const {
    const double f = 4.0 * B * H * double(S) * S * D;
    return causal ? f / 2 : f;
  }
  // The fewest DRAM bytes any implementation must move: read Q, K, V once, write O once.
  double min_bytes() const { return 2.0 * (2 * q_elems() + 2 * kv_elems()); }
  double default_scale() const { return 1.0 / std::sqrt(double(D)); }
};

}  // namespace attnlab
