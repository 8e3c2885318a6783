// Phase 3a: fused attention with tensor cores for QK^T only (WMMA 16x16x16, fp16 in, fp32
// accumulate); softmax and PV stay scalar fp32 on the CUDA cores.
// Idea: each of four warps owns a 16-row strip of a 64-row query block: it multiplies its
// strip of Q (held in fragments for the whole kernel) by each 64-key K tile on the tensor
// cores, stores the 16x64 score strip to shared memory with store_matrix_sync, and from there
// runs the online softmax and the PV product one lane per pair of output columns.
// Fixed relative to the seed: the seed read accumulator fragments through an invented
// element-to-(row, column) mapping, which WMMA leaves unspecified, so its scores landed in the
// wrong places. Here no fragment element is ever indexed: scores reach the softmax only
// through store_matrix_sync. Its measured effect lives in the run records.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/check.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase_3a {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kMma = 16;  // WMMA tile edge: 16x16x16, fp16 x fp16 -> fp32

template <int D>
struct Traits {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kTileQ = kWarps * kMma;  // one 16-row strip per warp
  static constexpr int kTileK = 64;             // keys per K/V tile
  static constexpr int kKeyBlocks = kTileK / kMma;  // score fragments per strip
  static constexpr int kDSteps = D / kMma;          // k-steps of QK^T, Q fragments held
  // Output columns a lane owns, as half2 pairs at 2*lane + 64*g: each access by the warp
  // covers 128 contiguous bytes of a row.
  static constexpr int kPairs = D / (2 * kWarpSize);
  // Keys per step of the PV loop: one 16-byte read of P per row feeds four keys.
  static constexpr int kPvKeys = 4;
  // Half tiles: +8 halves (16 bytes) per row. A 16x16 fragment load reads 8 rows of 16
  // bytes at once; with the row stride an odd number of 16-byte units those rows fall on
  // distinct banks. (ldm must be a multiple of 8 halves; the seed's +16 gave an even number.)
  static constexpr int kStride = D + kHalvesPerVec;
  // Score strip, fp32: +8 floats per row, so consecutive rows start 8 banks apart and four
  // rows of 8 adjacent floats cover all 32 banks. The accumulator store's access pattern is
  // unspecified; this spreads any that writes short runs of several rows at once.
  static constexpr int kSStride = kTileK + 8;
  static constexpr std::size_t kTileBytes =
      std::size_t(kTileQ + 2 * kTileK) * kStride * sizeof(__half);
  static constexpr std::size_t kSmemBytes =
      kTileBytes + std::size_t(kTileQ) * kSStride * sizeof(float);

  static_assert(D == 64 || D == 128, "phase 3a is instantiated for head dim 64 and 128");
  static_assert(D % kMma == 0 && kTileK % kMma == 0, "whole WMMA tiles");
  static_assert(kStride % 8 == 0 && kSStride % 4 == 0, "WMMA ldm: 16-byte multiples");
  static_assert((kStride / kHalvesPerVec) % 2 == 1, "odd vector stride: conflict-free fragments");
  // WMMA pointers must be 32-byte aligned: every fragment starts at a multiple of 16 rows and
  // 16 columns, and every region below is a multiple of 32 bytes.
  static_assert((kTileQ * kStride * sizeof(__half)) % 32 == 0, "regions keep 32-byte alignment");
  static_assert(kTileK == 2 * kWarpSize, "softmax: each lane holds two adjacent keys");
  static_assert(kTileK % kPvKeys == 0, "PV steps split the tile evenly");
  static_assert(D % (2 * kWarpSize) == 0, "lanes split the output columns into half2 pairs");
};

template <int D>
__global__ void __launch_bounds__(Traits<D>::kThreads)
    attention_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                     const __half* __restrict__ v, __half* __restrict__ o, int H, int H_kv, int S,
                     float scale_log2, bool causal) {
  using T = Traits<D>;
  extern __shared__ __align__(128) unsigned char smem[];
  __half* sq = reinterpret_cast<__half*>(smem);
  __half* sk = sq + T::kTileQ * T::kStride;
  __half* sv = sk + T::kTileK * T::kStride;
  float* ss = reinterpret_cast<float*>(sv + T::kTileK * T::kStride);

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

  const int row0 = q0 + warp * kMma;  // this warp's first query row
  // The warp's strip of scores, then of probabilities: written and read by this warp only.
  float* s_strip = ss + warp * kMma * T::kSStride;

  load_tile<T::kTileQ, D, T::kStride, T::kThreads>(sq, q, q0, S);
  __syncthreads();
  // The warp's Q strip stays in fragments for every key tile.
  wmma::fragment<wmma::matrix_a, kMma, kMma, kMma, __half, wmma::row_major> q_frag[T::kDSteps];
#pragma unroll
  for (int d = 0; d < T::kDSteps; ++d)
    wmma::load_matrix_sync(q_frag[d], sq + warp * kMma * T::kStride + d * kMma, T::kStride);

  // Causal: key tiles wholly above the block's last row are skipped, not computed and masked.
  const int kv_end = causal ? min(S, q0 + T::kTileQ) : S;
  const int num_k_tiles = ceil_div(kv_end, T::kTileK);

  // Row state is replicated across the warp's lanes, except l: each lane sums only its own
  // keys' weights, and one warp_sum at the end replaces a reduction per tile. The lanes'
  // partial sums stay consistent because every lane rescales by the same alpha.
  float m[kMma];  // running max of the log2-scaled scores
  float l[kMma];  // this lane's share of the running sum of exp2(score - m)
  float2 acc[kMma][T::kPairs];
#pragma unroll
  for (int r = 0; r < kMma; ++r) {
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
    __syncthreads();  // K/V visible to every warp

    // S_strip = Q_strip K^T: K is stored [key][d], which read column-major is K^T.
#pragma unroll
    for (int n = 0; n < T::kKeyBlocks; ++n) {
      wmma::fragment<wmma::accumulator, kMma, kMma, kMma, float> s_frag;
      wmma::fill_fragment(s_frag, 0.f);
#pragma unroll
      for (int d = 0; d < T::kDSteps; ++d) {
        wmma::fragment<wmma::matrix_b, kMma, kMma, kMma, __half, wmma::col_major> k_frag;
        wmma::load_matrix_sync(k_frag, sk + n * kMma * T::kStride + d * kMma, T::kStride);
        wmma::mma_sync(s_frag, q_frag[d], k_frag, s_frag);
      }
      // The only way scores leave a fragment: its element layout is unspecified.
      wmma::store_matrix_sync(s_strip + n * kMma, s_frag, T::kSStride, wmma::mem_row_major);
    }
    __syncwarp();  // the strip's lanes read scores other lanes stored

    // Lane j handles keys 2j and 2j+1 of every row and writes their weights back in place;
    // each lane rewrites only the two scores it read itself.
    const int key = k0 + 2 * lane;
#pragma unroll
    for (int r = 0; r < kMma; ++r) {
      const int row = row0 + r;
      // Keys past S are masked; causal masks keys after the row. Rows past S keep every
      // real key, so their (never stored) results stay finite.
      const int key_end = causal ? min(S, row + 1) : S;
      float2* sp = reinterpret_cast<float2*>(s_strip + r * T::kSStride) + lane;
      const float2 sc = *sp;
      const float x0 = key < key_end ? sc.x * scale_log2 : kNegInf;
      const float x1 = key + 1 < key_end ? sc.y * scale_log2 : kNegInf;
      const float m_new = fmaxf(m[r], warp_max(fmaxf(x0, x1)));
      // While a row has seen no live key, m_new is -inf; measuring from 0 instead keeps
      // every exponent at -inf (weight 0) where -inf - -inf would be NaN.
      const float m_ref = m_new == kNegInf ? 0.f : m_new;
      const float alpha = exp2f(m[r] - m_ref);
      const float p0 = exp2f(x0 - m_ref);
      const float p1 = exp2f(x1 - m_ref);
      l[r] = l[r] * alpha + (p0 + p1);
#pragma unroll
      for (int g = 0; g < T::kPairs; ++g) {
        acc[r][g].x *= alpha;
        acc[r][g].y *= alpha;
      }
      m[r] = m_new;
      *sp = make_float2(p0, p1);
    }
    __syncwarp();  // every lane reads every key's weight below

    // PV on the CUDA cores, P in fp32: four keys per step, so one 16-byte broadcast read of P
    // per row feeds 4 * kPairs * 2 FMAs. Rolled over keys to stay within the instruction
    // cache; the row loop is unrolled so that acc[] sees compile-time indices only.
#pragma unroll 1
    for (int j = 0; j < T::kTileK; j += T::kPvKeys) {
      float2 vf[T::kPvKeys][T::kPairs];
#pragma unroll
      for (int t = 0; t < T::kPvKeys; ++t)
#pragma unroll
        for (int g = 0; g < T::kPairs; ++g)
          vf[t][g] = __half22float2(*reinterpret_cast<const __half2*>(
              sv + (j + t) * T::kStride + g * 2 * kWarpSize + 2 * lane));
#pragma unroll
      for (int r = 0; r < kMma; ++r) {
        const float4 p = *reinterpret_cast<const float4*>(s_strip + r * T::kSStride + j);
        const float pt[T::kPvKeys] = {p.x, p.y, p.z, p.w};
#pragma unroll
        for (int t = 0; t < T::kPvKeys; ++t)
#pragma unroll
          for (int g = 0; g < T::kPairs; ++g) {
            acc[r][g].x = fmaf(pt[t], vf[t][g].x, acc[r][g].x);
            acc[r][g].y = fmaf(pt[t], vf[t][g].y, acc[r][g].y);
          }
      }
    }
  }

  store_warp_rows<D>(o, row0, S, lane, acc, l);
}

}  // namespace

Refusal can_implement(const Shape& s) { return query_tiled_refusal(s, "phase 3a"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    constexpr int D = decltype(d)::value;
    using T = Traits<D>;
    launch_fused(attention_kernel<D>, query_tiled_grid(p.shape, T::kTileQ), T::kThreads,
                 T::kSmemBytes, p, stream);
  });
}

}  // namespace attnlab::phase_3a

// What do tensor cores on one of the two matmuls buy over the scalar phases, once the scores are
// read back correctly?
ATTNLAB_PHASE(3a) {
  p.title = "WMMA QK^T";
  p.technique =
      "WMMA 16x16x16 QK^T per 16-row warp strip, scores via shared memory, online softmax, "
      "scalar fp32 PV";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.question = "Tensor cores for QK^T only (WMMA), scalar PV, against the scalar phase 1.";
  p.default_shapes = {"throughput", "latency"};
  p.claims = {faster_than(p.id, "1", "throughput"), seed_claim(p.id, "3.75", "throughput")};
}
