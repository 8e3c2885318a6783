// The scalar fused kernel of phases 1 and 2: one thread per query row, 64-key K/V tiles in
// shared memory, online softmax, fp32 math. Stages = 1 is phase 1; Stages = 2 is phase 2.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/check.hpp"
#include "kernels/problem.hpp"

namespace attnlab::scalar_fused {

// Stages: K/V tile buffers. 1 loads a tile with plain loads between two barriers, so every
// thread waits for it; 2 streams tile j+1 in with cp.async while tile j is computed.
template <int D, int Stages>
struct Traits {
  static constexpr int kTileQ = 64;  // query rows per block, one per thread
  static constexpr int kTileK = 64;  // keys per shared-memory tile: scores a thread holds
  static constexpr int kThreads = kTileQ;
  static constexpr int kStages = Stages;
  static constexpr int kVecsPerRow = D / kHalvesPerVec;
  // One extra vector per row makes the stride an odd number of 16-byte units, so threads
  // reading their own Q row at the same column hit distinct banks. K/V reads are broadcasts
  // and need no padding; they share the stride so that one loader serves all three tiles.
  static constexpr int kStride = D + kHalvesPerVec;
  // Halves from one stage's K tile to the next stage's: a stage is a K tile then a V tile.
  static constexpr int kStageHalves = 2 * kTileK * kStride;
  static constexpr std::size_t kTileBytes =
      std::size_t(kTileQ * kStride + kStages * kStageHalves) * sizeof(__half);
  // Q tile, K/V stages, then one column of kTileK probabilities per thread.
  static constexpr std::size_t kSmemBytes =
      kTileBytes + std::size_t(kTileK) * kThreads * sizeof(float);

  static_assert(D == 64 || D == 128, "instantiated for head dim 64 and 128");
  static_assert(Stages == 1 || Stages == 2, "one buffer, or a two-stage cp.async pipeline");
  static_assert(kThreads % kWarpSize == 0, "whole warps");
  static_assert((kStride / kHalvesPerVec) % 2 == 1, "odd vector stride: conflict-free row reads");
  static_assert((kTileQ * kVecsPerRow) % kThreads == 0, "the output store splits evenly");
  static_assert(kTileBytes % sizeof(float) == 0, "the probability columns start aligned");
};

// load_tile_async with the copy loop rolled. The copies of tile j+1 are issued while the
// D-float accumulator is live; unrolled, their per-copy addresses are computed all at once and
// at D = 128 push the kernel past 255 registers into spills (ptxas -v).
template <int Rows, int D, int Stride, int Threads>
__device__ __forceinline__ void load_tile_async_rolled(__half* dst, const __half* __restrict__ src,
                                                       int row0, int S) {
  constexpr int kVecsPerRow = D / kHalvesPerVec;
  static_assert((Rows * kVecsPerRow) % Threads == 0, "every thread copies as many vectors");
#pragma unroll 1
  for (int it = 0; it < Rows * kVecsPerRow / Threads; ++it) {
    const int i = it * Threads + int(threadIdx.x);
    const int r = i / kVecsPerRow;
    const int c = i % kVecsPerRow;
    const bool in_range = row0 + r < S;
    // Out-of-range rows read nothing (source size 0) from the slice's first row, an address
    // inside the tensor.
    const __half* from = in_range ? src + std::int64_t(row0 + r) * D + c * kHalvesPerVec : src;
    cp_async_16(dst + r * Stride + c * kHalvesPerVec, from, in_range);
  }
}

template <int D, int Stages>
__global__ void __launch_bounds__(Traits<D, Stages>::kThreads)
    attention_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                     const __half* __restrict__ v, __half* __restrict__ o, int H, int H_kv, int S,
                     float scale_log2, bool causal) {
  using T = Traits<D, Stages>;
  extern __shared__ uint4 smem[];  // uint4: 16-byte alignment for the vector accesses
  __half* sq = reinterpret_cast<__half*>(smem);
  __half* sk0 = sq + T::kTileQ * T::kStride;  // stage 0's K tile; its V tile follows
  float* p_col = reinterpret_cast<float*>(sk0 + T::kStages * T::kStageHalves) + threadIdx.x;

  // Causal blocks far down the diagonal have the most key tiles; issuing them first keeps
  // the grid's tail short.
  const int q_tile = causal ? int(gridDim.x - 1 - blockIdx.x) : int(blockIdx.x);
  const int q0 = q_tile * T::kTileQ;
  const HeadSlice hs = head_slice(int(blockIdx.y), H, H_kv, S, D);
  q += hs.q;
  o += hs.q;
  k += hs.kv;
  v += hs.kv;

  if constexpr (T::kStages == 1) {
    load_tile<T::kTileQ, D, T::kStride, T::kThreads>(sq, q, q0, S);
  } else {
    // Prologue: Q and the first K/V tile form the first group of copies.
    load_tile_async<T::kTileQ, D, T::kStride, T::kThreads>(sq, q, q0, S);
    load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(sk0, k, 0, S);
    load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(sk0 + T::kTileK * T::kStride, v, 0, S);
    cp_async_commit();
  }

  const int row = q0 + int(threadIdx.x);
  // Keys at or past key_end are masked. Rows past S keep every real key, so their
  // (never stored) results stay finite.
  const int key_end = causal ? min(S, row + 1) : S;
  // Causal: key tiles wholly above the block's last row are skipped, not computed and masked.
  const int kv_end = causal ? min(S, q0 + T::kTileQ) : S;
  const int num_k_tiles = ceil_div(kv_end, T::kTileK);
  __half* q_row = sq + threadIdx.x * T::kStride;

  float acc[D];
#pragma unroll
  for (int d = 0; d < D; ++d) acc[d] = 0.f;
  float m_run = kNegInf;  // running max of the log2-scaled scores
  float l_run = 0.f;      // running sum of exp2(score - m_run)

  for (int kt = 0; kt < num_k_tiles; ++kt) {
    const int k0 = kt * T::kTileK;
    const __half* sk = sk0 + (kt % T::kStages) * T::kStageHalves;
    const __half* sv = sk + T::kTileK * T::kStride;
    if constexpr (T::kStages == 1) {
      __syncthreads();  // every thread is done with the previous K/V tile before it is replaced
      load_tile<T::kTileK, D, T::kStride, T::kThreads>(sk0, k, k0, S);
      load_tile<T::kTileK, D, T::kStride, T::kThreads>(sk0 + T::kTileK * T::kStride, v, k0, S);
      __syncthreads();  // K/V, and on the first pass Q, visible to every thread
    } else {
      cp_async_wait<0>();  // this thread's copies of tile kt (and on the first pass Q) landed
      // Everyone's copies visible; and everyone is done with tile kt - 1, so its buffer can
      // take tile kt + 1. One barrier per tile where phase 1 needs two.
      __syncthreads();
      if (kt + 1 < num_k_tiles) {
        __half* nk = sk0 + ((kt + 1) % T::kStages) * T::kStageHalves;
        load_tile_async_rolled<T::kTileK, D, T::kStride, T::kThreads>(nk, k, k0 + T::kTileK, S);
        load_tile_async_rolled<T::kTileK, D, T::kStride, T::kThreads>(
            nk + T::kTileK * T::kStride, v, k0 + T::kTileK, S);
        cp_async_commit();
      }
    }

    float s[T::kTileK];
#pragma unroll
    for (int j = 0; j < T::kTileK; ++j) s[j] = 0.f;
    // Rolled over vectors, unrolled over keys: s[] sees compile-time indices only, which
    // keeps it in registers.
#pragma unroll 1
    for (int c = 0; c < T::kVecsPerRow; ++c) {
      float qf[kHalvesPerVec];
      unpack8(*reinterpret_cast<const uint4*>(q_row + c * kHalvesPerVec), qf);
#pragma unroll
      for (int j = 0; j < T::kTileK; ++j) {
        float kf[kHalvesPerVec];
        unpack8(*reinterpret_cast<const uint4*>(sk + j * T::kStride + c * kHalvesPerVec), kf);
#pragma unroll
        for (int e = 0; e < kHalvesPerVec; ++e) s[j] = fmaf(qf[e], kf[e], s[j]);
      }
    }

    float m_tile = kNegInf;
#pragma unroll
    for (int j = 0; j < T::kTileK; ++j) {
      s[j] = k0 + j < key_end ? s[j] * scale_log2 : kNegInf;
      m_tile = fmaxf(m_tile, s[j]);
    }
    const float m_new = fmaxf(m_run, m_tile);
    // While a row has seen no live key, m_new is -inf; measuring from 0 instead keeps every
    // exponent at -inf (weight 0) where -inf - -inf would be NaN.
    const float m_ref = m_new == kNegInf ? 0.f : m_new;
    const float alpha = exp2f(m_run - m_ref);
    l_run *= alpha;
#pragma unroll
    for (int d = 0; d < D; ++d) acc[d] *= alpha;

    // The probabilities go through this thread's own column of shared memory so that the key
    // loop below can stay rolled: unrolled over every key and vector it grows past the
    // instruction cache. A private column needs no barrier, and a warp's accesses to it fill
    // 32 distinct banks.
#pragma unroll
    for (int j = 0; j < T::kTileK; ++j) {
      const float p = exp2f(s[j] - m_ref);
      l_run += p;
      p_col[j * T::kThreads] = p;
    }
#pragma unroll 1
    for (int j = 0; j < T::kTileK; ++j) {
      const float p = p_col[j * T::kThreads];
#pragma unroll
      for (int c = 0; c < T::kVecsPerRow; ++c) {
        float vf[kHalvesPerVec];
        unpack8(*reinterpret_cast<const uint4*>(sv + j * T::kStride + c * kHalvesPerVec), vf);
#pragma unroll
        for (int e = 0; e < kHalvesPerVec; ++e)
          acc[c * kHalvesPerVec + e] = fmaf(p, vf[e], acc[c * kHalvesPerVec + e]);
      }
    }
    m_run = m_new;
  }

  const float inv_l = l_run > 0.f ? 1.f / l_run : 0.f;
#pragma unroll
  for (int d = 0; d < D; ++d) acc[d] *= inv_l;
  // The thread's own Q row is read by no one else, so it can take the output row without a
  // barrier; staging it lets the store below write whole rows, coalesced. (With two stages no
  // copy into it is pending: Q came with the first group, complete before the first tile.)
#pragma unroll
  for (int c = 0; c < T::kVecsPerRow; ++c)
    *reinterpret_cast<uint4*>(q_row + c * kHalvesPerVec) = pack8(acc + c * kHalvesPerVec);
  __syncthreads();

#pragma unroll
  for (int it = 0; it < T::kTileQ * T::kVecsPerRow / T::kThreads; ++it) {
    const int i = it * T::kThreads + int(threadIdx.x);
    const int r = i / T::kVecsPerRow;
    const int c = i % T::kVecsPerRow;
    if (q0 + r < S)
      *reinterpret_cast<uint4*>(o + std::int64_t(q0 + r) * D + c * kHalvesPerVec) =
          *reinterpret_cast<const uint4*>(sq + r * T::kStride + c * kHalvesPerVec);
  }
}

// Enqueues the kernel for a shape that the calling phase's can_implement accepted.
template <int D, int Stages>
void launch(const Problem& p, cudaStream_t stream) {
  using T = Traits<D, Stages>;
  launch_fused(attention_kernel<D, Stages>, query_tiled_grid(p.shape, T::kTileQ), T::kThreads,
               T::kSmemBytes, p, stream);
}

}  // namespace attnlab::scalar_fused
