// Phase 4: fused tiled attention with warp-cooperative online softmax, still scalar fp32 math.
// Idea: 32x32 tiles, four warps of eight query rows each; a lane scores one key, row max and
// sum come from warp shuffles, and P never leaves registers (shuffled to the lanes that own
// the output columns). Its measured effect lives in the run records.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/check.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase_4 {
namespace {

template <int D>
struct Traits {
  static constexpr int kTileQ = 32;  // query rows per block
  static constexpr int kTileK = 32;  // keys per tile: lane j scores key j
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kRowsPerWarp = kTileQ / kWarps;
  static constexpr int kVecsPerRow = D / kHalvesPerVec;
  // Output columns a lane owns, as half2 pairs at 2*lane + 64*g: each access by the warp then
  // covers 128 contiguous bytes of a row.
  static constexpr int kPairs = D / (2 * kWarpSize);
  // One extra vector per row makes the stride an odd number of 16-byte units, so the 32
  // lanes reading their own K row at the same column hit distinct banks. Q and V reads are
  // broadcasts or contiguous; they share the stride so that one loader serves all tiles.
  static constexpr int kStride = D + kHalvesPerVec;
  static constexpr std::size_t kSmemBytes =
      std::size_t(kTileQ + 2 * kTileK) * kStride * sizeof(__half);

  static_assert(D == 64 || D == 128, "phase 4 is instantiated for head dim 64 and 128");
  static_assert(kTileK == kWarpSize, "one key per lane");
  static_assert(kTileQ % kWarps == 0, "warps split the query rows evenly");
  static_assert(D % (2 * kWarpSize) == 0, "lanes split the output columns into half2 pairs");
  static_assert((kStride / kHalvesPerVec) % 2 == 1, "odd vector stride: conflict-free K reads");
};

template <int D>
__global__ void __launch_bounds__(Traits<D>::kThreads)
    attention_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                     const __half* __restrict__ v, __half* __restrict__ o, int H, int H_kv, int S,
                     float scale_log2, bool causal) {
  using T = Traits<D>;
  extern __shared__ uint4 smem[];  // uint4: 16-byte alignment for the vector accesses
  __half* sq = reinterpret_cast<__half*>(smem);
  __half* sk = sq + T::kTileQ * T::kStride;
  __half* sv = sk + T::kTileK * T::kStride;

  const int warp = int(threadIdx.x) / kWarpSize;
  const int lane = int(threadIdx.x) % kWarpSize;
  // Causal blocks far down the diagonal have the most key tiles; issuing them first keeps
  // the grid's tail short.
  const int q_tile = causal ? int(gridDim.x - 1 - blockIdx.x) : int(blockIdx.x);
  const int q0 = q_tile * T::kTileQ;
  const HeadSlice hs = head_slice(int(blockIdx.y), H, H_kv, S, D);
  q += hs.q;
  o += hs.q;
  k += hs.kv;
  v += hs.kv;

  load_tile<T::kTileQ, D, T::kStride, T::kThreads>(sq, q, q0, S);

  const int row0 = q0 + warp * T::kRowsPerWarp;  // this warp's first query row
  const __half* q_rows = sq + warp * T::kRowsPerWarp * T::kStride;
  const __half* k_row = sk + lane * T::kStride;
  // Causal: key tiles wholly above the block's last row are skipped, not computed and masked.
  const int kv_end = causal ? min(S, q0 + T::kTileQ) : S;
  const int num_k_tiles = ceil_div(kv_end, T::kTileK);

  // Row state is replicated across the warp's lanes, except l: each lane sums only its own
  // keys' weights, and one warp_sum at the end replaces a reduction per tile. The lanes'
  // partial sums stay consistent because every lane rescales by the same alpha.
  float m[T::kRowsPerWarp];  // running max of the log2-scaled scores
  float l[T::kRowsPerWarp];  // this lane's share of the running sum of exp2(score - m)
  float2 acc[T::kRowsPerWarp][T::kPairs];
#pragma unroll
  for (int r = 0; r < T::kRowsPerWarp; ++r) {
    m[r] = kNegInf;
    l[r] = 0.f;
#pragma unroll
    for (int g = 0; g < T::kPairs; ++g) acc[r][g] = make_float2(0.f, 0.f);
  }

  for (int kt = 0; kt < num_k_tiles; ++kt) {
    const int k0 = kt * T::kTileK;
    __syncthreads();  // every warp is done with the previous K/V tile before it is replaced
    load_tile<T::kTileK, D, T::kStride, T::kThreads>(sk, k, k0, S);
    load_tile<T::kTileK, D, T::kStride, T::kThreads>(sv, v, k0, S);
    __syncthreads();  // K/V, and on the first pass Q, visible to every warp

    float s[T::kRowsPerWarp];
#pragma unroll
    for (int r = 0; r < T::kRowsPerWarp; ++r) s[r] = 0.f;
#pragma unroll 1
    for (int c = 0; c < T::kVecsPerRow; ++c) {
      float kf[kHalvesPerVec];
      unpack8(*reinterpret_cast<const uint4*>(k_row + c * kHalvesPerVec), kf);
#pragma unroll
      for (int r = 0; r < T::kRowsPerWarp; ++r) {
        float qf[kHalvesPerVec];
        unpack8(*reinterpret_cast<const uint4*>(q_rows + r * T::kStride + c * kHalvesPerVec),
                qf);
#pragma unroll
        for (int e = 0; e < kHalvesPerVec; ++e) s[r] = fmaf(qf[e], kf[e], s[r]);
      }
    }

    const int key = k0 + lane;
    float p[T::kRowsPerWarp];
#pragma unroll
    for (int r = 0; r < T::kRowsPerWarp; ++r) {
      const bool live = key < S && (!causal || key <= row0 + r);
      const float x = live ? s[r] * scale_log2 : kNegInf;
      const float m_new = fmaxf(m[r], warp_max(x));
      // While a row has seen no live key, m_new is -inf; measuring from 0 instead keeps
      // every exponent at -inf (weight 0) where -inf - -inf would be NaN.
      const float m_ref = m_new == kNegInf ? 0.f : m_new;
      const float alpha = exp2f(m[r] - m_ref);
      p[r] = exp2f(x - m_ref);
      l[r] = l[r] * alpha + p[r];
#pragma unroll
      for (int g = 0; g < T::kPairs; ++g) {
        acc[r][g].x *= alpha;
        acc[r][g].y *= alpha;
      }
      m[r] = m_new;
    }

    // P stays in registers: lane j holds p for key j, and a shuffle hands it to every lane.
#pragma unroll
    for (int j = 0; j < T::kTileK; ++j) {
      float2 vf[T::kPairs];
#pragma unroll
      for (int g = 0; g < T::kPairs; ++g)
        vf[g] = __half22float2(*reinterpret_cast<const __half2*>(
            sv + j * T::kStride + g * 2 * kWarpSize + 2 * lane));
#pragma unroll
      for (int r = 0; r < T::kRowsPerWarp; ++r) {
        const float pj = __shfl_sync(kFullMask, p[r], j);
#pragma unroll
        for (int g = 0; g < T::kPairs; ++g) {
          acc[r][g].x = fmaf(pj, vf[g].x, acc[r][g].x);
          acc[r][g].y = fmaf(pj, vf[g].y, acc[r][g].y);
        }
      }
    }
  }

  store_warp_rows<D>(o, row0, S, lane, acc, l);
}

}  // namespace

Refusal can_implement(const Shape& s) { return query_tiled_refusal(s, "phase 4"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    constexpr int D = decltype(d)::value;
    using T = Traits<D>;
    launch_fused(attention_kernel<D>, query_tiled_grid(p.shape, T::kTileQ), T::kThreads,
                 T::kSmemBytes, p, stream);
  });
}

}  // namespace attnlab::phase_4

// What does sharing K/V tiles across a block's warps buy over the scalar phase 1?
ATTNLAB_PHASE(4) {
  p.title = "fused tiled";
  p.technique =
      "32x32 tiles, 128 threads, shared-memory tiles, scalar matmul, online softmax with warp "
      "shuffles";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.question = "Fused tiles in shared memory with warp-shuffle softmax, against the scalar phase 1.";
  p.default_shapes = {"throughput", "latency"};
  p.claims = {faster_than(p.id, "1", "throughput"), faster_than(p.id, "1", "latency"),
              seed_claim(p.id, "6.42", "throughput")};
}
