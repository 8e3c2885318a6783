// Device and launcher helpers the attention phases share: head-slice addressing with GQA,
// 16-byte tile staging with zero-filled tails, warp reductions, shared-memory opt-in.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/check.hpp"
#include "kernels/host_device.hpp"  // ceil_div, kLog2e
#include "kernels/problem.hpp"

namespace attnlab {

constexpr float kNegInf = -INFINITY;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpSize = 32;
// Halves per 16-byte vector, the unit of every tile load and store.
constexpr int kHalvesPerVec = 8;
// Dynamic shared memory a kernel gets without opting in.
constexpr std::size_t kDefaultSmemLimit = 48 * 1024;


// Element offsets of one (batch, head) slice into q/o and k/v. 64-bit: B*H*S*D passes 2^31
// long before memory runs out.
struct HeadSlice {
  std::int64_t q;
  std::int64_t kv;
};

__device__ __forceinline__ HeadSlice head_slice(int bh, int H, int H_kv, int S, int D) {
  const int b = bh / H;
  const int h = bh - b * H;
  const int kv_head = h / (H / H_kv);  // GQA: H / H_kv consecutive query heads share one
  return {std::int64_t(bh) * S * D, (std::int64_t(b) * H_kv + kv_head) * S * D};
}

// Stages rows [row0, row0 + Rows) of one [S, D] head slice into shared memory with a row
// stride of Stride halves. Rows at or past S become zeros: no read leaves the tensor, and
// the padded lanes feed finite values into dot products that masking then discards.
template <int Rows, int D, int Stride, int Threads>
__device__ __forceinline__ void load_tile(__half* dst, const __half* __restrict__ src, int row0,
                                          int S) {
  static_assert(D % kHalvesPerVec == 0 && Stride % kHalvesPerVec == 0, "rows of whole vectors");
  constexpr int kVecsPerRow = D / kHalvesPerVec;
  static_assert((Rows * kVecsPerRow) % Threads == 0, "every thread copies as many vectors");
  // Loads go out in batches of four per thread: enough in flight to hide latency, while a
  // whole tile at once would park up to 32 vectors in registers beside phase 1's D-float
  // accumulator and spill.
#pragma unroll 4
  for (int it = 0; it < Rows * kVecsPerRow / Threads; ++it) {
    const int i = it * Threads + int(threadIdx.x);
    const int r = i / kVecsPerRow;
    const int c = i % kVecsPerRow;
    uint4 val = make_uint4(0, 0, 0, 0);
    if (row0 + r < S)
      val = *reinterpret_cast<const uint4*>(src + std::int64_t(row0 + r) * D + c * kHalvesPerVec);
    *reinterpret_cast<uint4*>(dst + r * Stride + c * kHalvesPerVec) = val;
  }
}

// cp.async (sm_80+): one 16-byte vector global -> shared without passing through registers;
// it lands asynchronously, so warps compute on one stage while the next streams in. .cg
// caches in L2 only: K/V tiles are reused by other blocks, not by this SM's L1.
// With fill false the source size is 0: nothing is read and the 16 bytes become zeros.
__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* gmem_src, bool fill) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem_src),
               "r"(fill ? 16 : 0)
               : "memory");
}

// Closes the group of cp.async copies this thread issued since the last commit.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Blocks until at most Pending of this thread's committed groups are still in flight. It
// covers only the calling thread's copies: a __syncthreads must follow before other threads
// read the data.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

// load_tile with cp.async: the same rows, stride and zero-filled tail, issued without waiting.
// Rows at or past S copy nothing (source size 0) from the slice's first row, an address that
// always lies inside the tensor (S >= 1).
template <int Rows, int D, int Stride, int Threads>
__device__ __forceinline__ void load_tile_async(__half* dst, const __half* __restrict__ src,
                                                int row0, int S) {
  static_assert(D % kHalvesPerVec == 0 && Stride % kHalvesPerVec == 0, "rows of whole vectors");
  constexpr int kVecsPerRow = D / kHalvesPerVec;
  static_assert((Rows * kVecsPerRow) % Threads == 0, "every thread copies as many vectors");
#pragma unroll
  for (int it = 0; it < Rows * kVecsPerRow / Threads; ++it) {
    const int i = it * Threads + int(threadIdx.x);
    const int r = i / kVecsPerRow;
    const int c = i % kVecsPerRow;
    const bool in_range = row0 + r < S;
    const __half* from = in_range ? src + std::int64_t(row0 + r) * D + c * kHalvesPerVec : src;
    cp_async_16(dst + r * Stride + c * kHalvesPerVec, from, in_range);
  }
}

__device__ __forceinline__ void unpack8(const uint4& v, float (&f)[kHalvesPerVec]) {
  const __half2* h = reinterpret_cast<const __half2*>(&v);
#pragma unroll
  for (int i = 0; i < kHalvesPerVec / 2; ++i) {
    const float2 t = __half22float2(h[i]);
    f[2 * i] = t.x;
    f[2 * i + 1] = t.y;
  }
}

// The inverse of unpack8: eight fp32 values rounded to fp16, as one 16-byte vector.
__device__ __forceinline__ uint4 pack8(const float* f) {
  uint4 v;
  __half2* h = reinterpret_cast<__half2*>(&v);
#pragma unroll
  for (int i = 0; i < kHalvesPerVec / 2; ++i) h[i] = __floats2half2_rn(f[2 * i], f[2 * i + 1]);
  return v;
}

// One MUFU.EX2 (approximate, flush-to-zero); exp2(-inf) = 0.
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// Two fp32 values rounded to fp16 in one 32-bit register: the A-fragment element pair of an
// fp16 mma.sync or register-A wgmma.
__device__ __forceinline__ std::uint32_t pack_half2(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const std::uint32_t*>(&h);
}

__device__ __forceinline__ float warp_max(float x) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
    x = fmaxf(x, __shfl_xor_sync(kFullMask, x, offset));
  return x;
}

__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
    x += __shfl_xor_sync(kFullMask, x, offset);
  return x;
}

// Normalises and stores the output rows a warp holds in registers, the layout of phases 3a
// and 4: lane `lane` owns columns 64g + 2 lane and 64g + 2 lane + 1 of row row0 + r in
// acc[r][g], and l[r] is its share of that row's softmax sum (summed across the warp here).
// Each store instruction writes whole contiguous 128-byte row segments; rows at or past S are
// skipped. A row with l == 0 cannot occur (its maximum contributes exp2(0) = 1) but would
// store zeros rather than NaN.
template <int D, int Rows, int Pairs>
__device__ __forceinline__ void store_warp_rows(__half* o, int row0, int S, int lane,
                                                const float2 (&acc)[Rows][Pairs],
                                                const float (&l)[Rows]) {
  static_assert(Pairs * 2 * kWarpSize == D, "a warp's lanes cover the row in pairs");
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    const float l_row = warp_sum(l[r]);
    const float inv_l = l_row > 0.f ? 1.f / l_row : 0.f;
    const int row = row0 + r;
    if (row < S) {
      __half* o_row = o + std::int64_t(row) * D;
#pragma unroll
      for (int g = 0; g < Pairs; ++g)
        *reinterpret_cast<__half2*>(o_row + g * 2 * kWarpSize + 2 * lane) =
            __floats2half2_rn(acc[r][g].x * inv_l, acc[r][g].y * inv_l);
    }
  }
}

template <typename Kernel>
inline void set_dynamic_smem(Kernel kernel, std::size_t bytes) {
  if (bytes > kDefaultSmemLimit)
    ATTNLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            int(bytes)));
}

// Tiles move as 16-byte vectors, so an operand at a misaligned view offset would fault on the
// device; refuse it on the host with a readable reason instead.
inline void require_vector_alignment(const Problem& p) {
  for (const void* ptr : {p.q, p.k, p.v, static_cast<const void*>(p.o)})
    if (reinterpret_cast<std::uintptr_t>(ptr) % sizeof(uint4) != 0)
      throw std::invalid_argument("attention operands must be 16-byte aligned");
}

// The parameter list of every fused phase's kernel: q, k, v, o as [B, H(_kv), S, D] fp16,
// H, H_kv, S, the softmax scale times log2(e), causal.
using FusedKernel = void (*)(const __half*, const __half*, const __half*, __half*, int, int, int,
                             float, bool);

// Enqueues a fused kernel on the problem's tensors and checks the launch.
inline void launch_fused(FusedKernel kernel, dim3 grid, int threads, std::size_t smem_bytes,
                         const Problem& p, cudaStream_t stream) {
  const Shape& s = p.shape;
  set_dynamic_smem(kernel, smem_bytes);
  kernel<<<grid, threads, smem_bytes, stream>>>(
      static_cast<const __half*>(p.q), static_cast<const __half*>(p.k),
      static_cast<const __half*>(p.v), static_cast<__half*>(p.o), s.H, s.H_kv, s.S,
      p.scale * kLog2e, s.causal);
  ATTNLAB_CHECK_LAUNCH();
}

// The grid of the query-tiled phases: blocks of rows_per_block query rows along x (2^31 - 1
// blocks, enough for any int S), one (batch, head) per y (checked by query_tiled_refusal).
inline dim3 query_tiled_grid(const Shape& s, int rows_per_block) {
  return dim3(unsigned(ceil_div(s.S, rows_per_block)), unsigned(s.B * s.H));
}

// The launch entry of every fp16 phase: throws the phase's refusal (the registry's callers
// check can_implement first; this keeps a direct call from launching an unsupported shape),
// requires 16-byte aligned operands, then calls for_head_dim with
// std::integral_constant<int, D> for D = 64 or 128, the head dims can_implement accepts.
template <class ForHeadDim>
void launch_fp16(const Problem& p, const std::optional<std::string>& refusal,
                 ForHeadDim&& for_head_dim) {
  if (refusal) throw std::invalid_argument(*refusal);
  require_vector_alignment(p);
  if (p.shape.D == 64)
    for_head_dim(std::integral_constant<int, 64>{});
  else
    for_head_dim(std::integral_constant<int, 128>{});
}

}  // namespace attnlab
