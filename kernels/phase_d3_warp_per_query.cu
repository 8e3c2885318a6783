// Phase d3 (latency series): one warp per query row, K/V tiles staged once per block in shared
// memory and read by all of the block's warps.
// Idea: d1 and d2 give a whole head to one block, so the latency shape (8 heads) occupies 8
// SMs. Here a block is kWarps query rows of one head, so the grid spans every SM; the block's
// warps share each 64-key K/V tile, copied in with a two-stage cp.async pipeline. Within a
// warp, lane j scores keys j and j + 32 against the query held in registers, the row max and
// sum come from warp shuffles, and for P.V the lanes split the D output columns, reading each
// probability as a shared-memory broadcast. Fixed relative to the seed: K/V are loaded once
// per block, not once per query; any S (tails zero-filled and masked), causal with tiles above
// the diagonal skipped, D 128, GQA. Its measured effect lives in the run records.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/check.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase_d3 {
namespace {

template <int D>
struct Traits {
  // Query rows (warps) per block. Every lane holds the whole D-float query, so the register
  // budget sets the block: 512 threads leave 128 registers each, enough at D = 64; D = 128
  // needs 256 threads' 255.
  static constexpr int kWarps = D == 64 ? 16 : 8;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kTileK = 2 * kWarpSize;  // keys per tile: lane j scores j and j + 32
  static constexpr int kKeysPerLane = kTileK / kWarpSize;
  static constexpr int kStages = 2;
  static constexpr int kVecsPerRow = D / kHalvesPerVec;
  static constexpr int kCols = D / kWarpSize;  // output columns per lane in P.V, contiguous
  // One extra vector per row makes the stride an odd number of 16-byte units, so 8 lanes
  // reading 8 different K rows at one column hit distinct banks. V rows are read whole by
  // the warp and need no padding; they share the stride so that one loader serves both.
  static constexpr int kStride = D + kHalvesPerVec;
  static constexpr int kStageHalves = 2 * kTileK * kStride;  // a K tile, then a V tile
  static constexpr std::size_t kTileBytes = std::size_t(kStages) * kStageHalves * sizeof(__half);
  // K/V stages, then each warp's kTileK probabilities.
  static constexpr std::size_t kSmemBytes =
      kTileBytes + std::size_t(kWarps) * kTileK * sizeof(float);

  static_assert(D == 64 || D == 128, "phase d3 is instantiated for head dim 64 and 128");
  static_assert(kTileK % kWarpSize == 0, "whole keys per lane");
  static_assert(kTileK % 4 == 0, "probabilities are read four at a time");
  static_assert(kCols == 2 || kCols == 4, "a lane's columns are one half2 or one 8-byte pair");
  static_assert((kStride / kHalvesPerVec) % 2 == 1, "odd vector stride: conflict-free K reads");
  static_assert((kTileK * kVecsPerRow) % kThreads == 0, "every thread copies as many vectors");
  static_assert(kTileBytes % sizeof(float4) == 0, "the probability rows start aligned");
};

// A lane's kCols contiguous halves of a row, widened to fp32 (loads: one 4- or 8-byte access).
template <int kCols>
__device__ __forceinline__ void load_cols(const __half* src, float (&f)[kCols]) {
  if constexpr (kCols == 2) {
    const float2 t = __half22float2(*reinterpret_cast<const __half2*>(src));
    f[0] = t.x;
    f[1] = t.y;
  } else {
    const uint2 u = *reinterpret_cast<const uint2*>(src);
    const float2 a = __half22float2(*reinterpret_cast<const __half2*>(&u.x));
    const float2 b = __half22float2(*reinterpret_cast<const __half2*>(&u.y));
    f[0] = a.x;
    f[1] = a.y;
    f[2] = b.x;
    f[3] = b.y;
  }
}

template <int kCols>
__device__ __forceinline__ void store_cols(__half* dst, const float (&f)[kCols], float scale) {
  if constexpr (kCols == 2) {
    *reinterpret_cast<__half2*>(dst) = __floats2half2_rn(f[0] * scale, f[1] * scale);
  } else {
    uint2 u;
    *reinterpret_cast<__half2*>(&u.x) = __floats2half2_rn(f[0] * scale, f[1] * scale);
    *reinterpret_cast<__half2*>(&u.y) = __floats2half2_rn(f[2] * scale, f[3] * scale);
    *reinterpret_cast<uint2*>(dst) = u;
  }
}

template <int D>
__global__ void __launch_bounds__(Traits<D>::kThreads)
    attention_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                     const __half* __restrict__ v, __half* __restrict__ o, int H, int H_kv, int S,
                     float scale_log2, bool causal) {
  using T = Traits<D>;
  extern __shared__ uint4 smem[];  // uint4: 16-byte alignment for the vector accesses
  __half* stage0 = reinterpret_cast<__half*>(smem);
  const int warp = int(threadIdx.x) / kWarpSize;
  const int lane = int(threadIdx.x) % kWarpSize;
  float* p_warp = reinterpret_cast<float*>(stage0 + T::kStages * T::kStageHalves) +
                  warp * T::kTileK;

  // Causal blocks far down the diagonal have the most key tiles; issuing them first keeps
  // the grid's tail short.
  const int q_tile = causal ? int(gridDim.x - 1 - blockIdx.x) : int(blockIdx.x);
  const int q0 = q_tile * T::kWarps;
  const HeadSlice hs = head_slice(int(blockIdx.y), H, H_kv, S, D);
  q += hs.q;
  o += hs.q;
  k += hs.kv;
  v += hs.kv;

  // Causal: key tiles wholly above the block's last row are never loaded.
  const int kv_end = causal ? min(S, q0 + T::kWarps) : S;
  const int num_k_tiles = ceil_div(kv_end, T::kTileK);
  load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(stage0, k, 0, S);
  load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(stage0 + T::kTileK * T::kStride, v, 0,
                                                         S);
  cp_async_commit();

  const int row = q0 + warp;
  // A warp past the last row still copies tiles and meets every barrier; it computes nothing
  // and stores nothing. Its query loads read row S - 1, which exists.
  const bool active = row < S;
  const int key_end = causal ? min(S, row + 1) : S;  // keys at or past key_end are masked

  // The whole query row in every lane: each lane dots it with its own keys. The lanes read the
  // same addresses, so each load is one broadcast.
  float qf[D];
  const __half* q_row = q + std::int64_t(min(row, S - 1)) * D;
#pragma unroll
  for (int c = 0; c < T::kVecsPerRow; ++c) {
    float f[kHalvesPerVec];
    unpack8(*reinterpret_cast<const uint4*>(q_row + c * kHalvesPerVec), f);
#pragma unroll
    for (int e = 0; e < kHalvesPerVec; ++e) qf[c * kHalvesPerVec + e] = f[e];
  }

  // m is the same in every lane; l is this lane's share of the row sum, its own keys' weights.
  // The shares stay consistent because every lane rescales by the same alpha, and one warp_sum
  // at the end replaces a reduction per tile.
  float m = kNegInf;  // running max of the log2-scaled scores
  float l = 0.f;
  float acc[T::kCols];
#pragma unroll
  for (int i = 0; i < T::kCols; ++i) acc[i] = 0.f;

  for (int kt = 0; kt < num_k_tiles; ++kt) {
    cp_async_wait<0>();  // this thread's copies of tile kt landed
    // Everyone's copies visible; everyone is done with tile kt - 1, so its buffer can take
    // tile kt + 1 (and each warp's probabilities can be overwritten).
    __syncthreads();
    if (kt + 1 < num_k_tiles) {
      __half* next = stage0 + ((kt + 1) % T::kStages) * T::kStageHalves;
      const int k1 = (kt + 1) * T::kTileK;
      load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(next, k, k1, S);
      load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(next + T::kTileK * T::kStride, v,
                                                             k1, S);
      cp_async_commit();
    }

    const int k0 = kt * T::kTileK;
    // Warp-uniform: a tile that starts past this row's last key (causal) or a row past S adds
    // nothing. Otherwise key k0 is live, so m becomes finite here: no -inf - -inf below.
    if (!active || k0 >= key_end) continue;
    const __half* sk = stage0 + (kt % T::kStages) * T::kStageHalves;
    const __half* sv = sk + T::kTileK * T::kStride;

    float s[T::kKeysPerLane];
#pragma unroll
    for (int t = 0; t < T::kKeysPerLane; ++t) s[t] = 0.f;
#pragma unroll
    for (int c = 0; c < T::kVecsPerRow; ++c) {
#pragma unroll
      for (int t = 0; t < T::kKeysPerLane; ++t) {
        float kf[kHalvesPerVec];
        unpack8(*reinterpret_cast<const uint4*>(sk + (lane + t * kWarpSize) * T::kStride +
                                                c * kHalvesPerVec),
                kf);
#pragma unroll
        for (int e = 0; e < kHalvesPerVec; ++e)
          s[t] = fmaf(qf[c * kHalvesPerVec + e], kf[e], s[t]);
      }
    }

    float m_tile = kNegInf;
#pragma unroll
    for (int t = 0; t < T::kKeysPerLane; ++t) {
      s[t] = k0 + lane + t * kWarpSize < key_end ? s[t] * scale_log2 : kNegInf;
      m_tile = fmaxf(m_tile, s[t]);
    }
    const float m_new = fmaxf(m, warp_max(m_tile));
    const float alpha = exp2f(m - m_new);
    l *= alpha;
#pragma unroll
    for (int i = 0; i < T::kCols; ++i) acc[i] *= alpha;
#pragma unroll
    for (int t = 0; t < T::kKeysPerLane; ++t) {
      const float p = exp2f(s[t] - m_new);  // masked keys: exp2(-inf) = 0
      l += p;
      p_warp[lane + t * kWarpSize] = p;
    }
    m = m_new;
    __syncwarp();  // the warp's probabilities visible to all its lanes

    // P.V: every lane needs every key's probability; one float4 broadcast from shared memory
    // serves four keys, where shuffles would take four instructions.
    const __half* v_cols = sv + lane * T::kCols;
#pragma unroll 4
    for (int j = 0; j < T::kTileK; j += 4) {
      const float4 p4 = *reinterpret_cast<const float4*>(p_warp + j);
      const float p[4] = {p4.x, p4.y, p4.z, p4.w};
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        float vf[T::kCols];
        load_cols<T::kCols>(v_cols + (j + u) * T::kStride, vf);
#pragma unroll
        for (int i = 0; i < T::kCols; ++i) acc[i] = fmaf(p[u], vf[i], acc[i]);
      }
    }
    // The next write of p_warp comes after the next iteration's __syncthreads, which also
    // orders it after these reads.
  }

  const float l_row = warp_sum(l);
  if (active) {
    // l_row >= 1 (the row's maximum contributes exp2(0)); the fast reciprocal is accurate there
    // and has no slow path.
    store_cols<T::kCols>(o + std::int64_t(row) * D + lane * T::kCols, acc,
                         __fdividef(1.f, l_row));
  }
}

}  // namespace

Refusal can_implement(const Shape& s) { return query_tiled_refusal(s, "phase d3"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    constexpr int D = decltype(d)::value;
    using T = Traits<D>;
    launch_fused(attention_kernel<D>, query_tiled_grid(p.shape, T::kWarps), T::kThreads,
                 T::kSmemBytes, p, stream);
  });
}

}  // namespace attnlab::phase_d3

// Does spreading a head over many blocks reach the seed's expected 10-20 us at the latency shape?
ATTNLAB_PHASE(d3) {
  p.title = "warp per query";
  p.technique =
      "one warp per query row, 64-key K/V tiles shared by the block's warps (cp.async, two "
      "stages), lanes split keys then D, warp-shuffle softmax";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.question = "One warp per query, K/V tiles staged once per block in shared memory, against d1.";
  p.default_shapes = {"latency"};
  p.claims = {
      claim("seed-expectation-latency",
            "At most 20 us at the latency shape, the top of the seed's expected 10-20 us.")
          .metric("/timing/cold/median_ns")
          .at("latency")
          .at_most(20000.0)
          .source("kernels/SEEDS.md: seed phase d3 expectation (\"10-20 us expected\")"),
      faster_than(p.id, "d1", "latency")};
}
