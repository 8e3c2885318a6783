// Phase 4x: fused attention with both matmuls on the tensor cores (WMMA 16x16x16, fp16 in,
// fp32 accumulate), 64x64 tiles, 8 warps, K/V double-buffered with cp.async.
// Idea: two warps share each 16-row strip of the 64-row query block. QK^T goes fragment ->
// shared memory (fp32 scores); each warp runs the online softmax over 8 whole rows with warp
// shuffles and writes P once as fp16; P V accumulates in fragments that stay in registers
// for the whole key loop, while the next K/V tile streams in with cp.async.
// Fixed relative to the seed: PV was scalar, now WMMA; the "async" K/V loads were plain
// stores, now cp.async.cg with commit/wait groups and two stages; key padding past S was
// unmasked, now masked (and zero-filled, never read from past the tensor); causal masking
// added (tiles above the diagonal skipped); nothing is printed on launch. Its measured effect
// lives in the run records.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/check.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phase_4x {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kMma = 16;  // WMMA tile edge: 16x16x16, fp16 x fp16 -> fp32
using AccFrag = wmma::fragment<wmma::accumulator, kMma, kMma, kMma, float>;

template <int D>
struct Traits {
  static constexpr int kTileQ = 64;  // query rows per block
  static constexpr int kTileK = 64;  // keys per K/V tile
  static constexpr int kWarps = 8;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kStrips = kTileQ / kMma;             // 16-row strips of the block
  static constexpr int kWarpsPerStrip = kWarps / kStrips;   // they split keys, then columns
  static constexpr int kStripThreads = kWarpsPerStrip * kWarpSize;
  static constexpr int kSoftmaxRows = kTileQ / kWarps;      // whole rows per warp
  static constexpr int kDSteps = D / kMma;                  // k-steps of QK^T
  static constexpr int kKeySteps = kTileK / kMma;           // k-steps of PV
  static constexpr int kSFrags = kTileK / (kWarpsPerStrip * kMma);  // score fragments per warp
  static constexpr int kOFrags = D / (kWarpsPerStrip * kMma);       // output fragments per warp
  static constexpr int kVecsPerRow = D / kHalvesPerVec;
  static constexpr int kStages = 2;  // K/V tiles: one computed on, one in flight
  // Two blocks (16 warps) per SM: D=128's shared memory leaves room for no more, and the
  // 128 registers per thread this allows hold both head dims without spills.
  static constexpr int kMinBlocksPerSm = 2;
  // Half tiles: +8 halves (16 bytes) per row. A 16x16 fragment load reads 8 rows of 16
  // bytes at once; with the row stride an odd number of 16-byte units those rows fall on
  // distinct banks. (ldm must be a multiple of 8 halves; the seed's +16 gave an even number.)
  static constexpr int kStride = D + kHalvesPerVec;
  static constexpr int kPStride = kTileK + kHalvesPerVec;
  // fp32 tiles (scores, output staging): +8 floats, so consecutive rows start 8 banks apart
  // and four rows of 8 adjacent floats cover all 32 banks. The accumulator store's access
  // pattern is unspecified; this spreads any that writes short runs of several rows at once.
  static constexpr int kSStride = kTileK + 8;
  static constexpr int kOStride = D + 8;

  // Regions, each a multiple of 128 bytes so that every WMMA pointer is 32-byte aligned.
  static constexpr std::size_t kQBytes = std::size_t(kTileQ) * kStride * sizeof(__half);
  static constexpr std::size_t kTileKBytes = std::size_t(kTileK) * kStride * sizeof(__half);
  static constexpr std::size_t kKVBytes = kStages * 2 * kTileKBytes;  // K and V per stage
  static constexpr std::size_t kSBytes = std::size_t(kTileQ) * kSStride * sizeof(float);
  static constexpr std::size_t kPBytes = std::size_t(kTileQ) * kPStride * sizeof(__half);
  static constexpr std::size_t kRowStateBytes = std::size_t(kTileQ) * sizeof(float);
  static constexpr std::size_t kRowTableBytes = std::size_t(kMma) * kMma * sizeof(__half);
  // The fp32 output tile is staged in the K/V buffers once the key loop is over.
  static constexpr std::size_t kOStageBytes = std::size_t(kTileQ) * kOStride * sizeof(float);
  static constexpr std::size_t kSmemBytes =
      kQBytes + kKVBytes + kSBytes + kPBytes + kRowStateBytes + kRowTableBytes;

  static_assert(D == 64 || D == 128, "phase 4x is instantiated for head dim 64 and 128");
  static_assert(kTileQ % kMma == 0 && kTileK % kMma == 0 && D % kMma == 0, "whole WMMA tiles");
  static_assert(kWarps % kStrips == 0, "every strip gets the same number of warps");
  static_assert(kTileK % (kWarpsPerStrip * kMma) == 0 && D % (kWarpsPerStrip * kMma) == 0,
                "a strip's warps split its keys and its output columns evenly");
  static_assert(kTileQ % kWarps == 0 && kMma % kSoftmaxRows == 0,
                "a warp's softmax rows lie inside its own strip");
  static_assert(kTileK == 2 * kWarpSize, "softmax: each lane holds two adjacent keys");
  static_assert(kStride % 8 == 0 && kPStride % 8 == 0, "WMMA ldm for halves: multiple of 8");
  static_assert(kSStride % 4 == 0 && kOStride % 4 == 0, "WMMA ldm for floats: multiple of 4");
  static_assert((kStride / kHalvesPerVec) % 2 == 1 && (kPStride / kHalvesPerVec) % 2 == 1,
                "odd vector stride: conflict-free fragment loads");
  static_assert(kQBytes % 128 == 0 && kTileKBytes % 128 == 0 && kSBytes % 128 == 0 &&
                    kPBytes % 128 == 0 && kRowStateBytes % 128 == 0,
                "regions keep the 32-byte alignment WMMA pointers need");
  static_assert(kOStageBytes <= kKVBytes, "the output tile fits in the K/V buffers");
  static_assert((kSoftmaxRows * kVecsPerRow) % kWarpSize == 0, "the output store splits evenly");
};

// Barrier over the two warps of one strip (named barriers 1..kStrips; 0 is __syncthreads).
// Scores, probabilities and rescale factors of a strip are written and read by its own warps
// only, so the four strips need not wait for each other between the matmuls.
template <int Threads>
__device__ __forceinline__ void strip_barrier(int strip) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(strip + 1), "n"(Threads) : "memory");
}

template <int D>
__global__ void __launch_bounds__(Traits<D>::kThreads, Traits<D>::kMinBlocksPerSm)
    attention_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                     const __half* __restrict__ v, __half* __restrict__ o, int H, int H_kv, int S,
                     float scale_log2, bool causal) {
  using T = Traits<D>;
  extern __shared__ __align__(128) unsigned char smem[];
  __half* sq = reinterpret_cast<__half*>(smem);
  __half* skv = reinterpret_cast<__half*>(smem + T::kQBytes);  // stage s: K, then V
  float* ss = reinterpret_cast<float*>(smem + T::kQBytes + T::kKVBytes);
  __half* sp = reinterpret_cast<__half*>(smem + T::kQBytes + T::kKVBytes + T::kSBytes);
  // Per row: the rescale factor of the current tile; after the loop, 1 / row sum.
  float* s_row = reinterpret_cast<float*>(smem + T::kQBytes + T::kKVBytes + T::kSBytes +
                                          T::kPBytes);
  __half* s_row_table = reinterpret_cast<__half*>(s_row + T::kTileQ);
  float* so = reinterpret_cast<float*>(skv);  // output staging, after the key loop

  const int warp = int(threadIdx.x) / kWarpSize;
  const int lane = int(threadIdx.x) % kWarpSize;
  const int strip = warp / T::kWarpsPerStrip;
  const int part = warp % T::kWarpsPerStrip;  // which keys (QK^T) and columns (PV) it takes
  // Causal blocks far down the diagonal have the most key tiles; issuing them first keeps
  // the grid's tail short.
  const int q_tile = causal ? int(gridDim.x - 1 - blockIdx.x) : int(blockIdx.x);
  const int q0 = q_tile * T::kTileQ;
  const HeadSlice hs = head_slice(int(blockIdx.y), H, H_kv, S, D);
  q += hs.q;
  o += hs.q;
  k += hs.kv;
  v += hs.kv;

  // Causal: key tiles wholly above the block's last row are skipped, not computed and masked.
  const int kv_end = causal ? min(S, q0 + T::kTileQ) : S;
  const int num_k_tiles = ceil_div(kv_end, T::kTileK);

  auto stage_k = [&](int stage) { return skv + stage * 2 * T::kTileK * T::kStride; };
  load_tile_async<T::kTileQ, D, T::kStride, T::kThreads>(sq, q, q0, S);
  load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(stage_k(0), k, 0, S);
  load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(stage_k(0) + T::kTileK * T::kStride, v,
                                                         0, S);
  cp_async_commit();

  // PV accumulates in fragments across the key loop, but the online softmax must rescale
  // them row by row, and WMMA does not say which row an accumulator element belongs to. The
  // tensor cores say it instead: rows = A * ones with A[r][0] = r, A[r][c > 0] = 0, gives
  // rows[r][c] = r (small integers, exact in fp16 and fp32), and every accumulator fragment
  // mma_sync produces uses one element layout (mma_sync(acc, a, b, acc) chains rely on it),
  // so element i of rows names the row of element i of every output fragment. No layout is
  // assumed, and the same holds on any GPU the code is compiled for.
  for (int i = int(threadIdx.x); i < kMma * kMma; i += T::kThreads)
    s_row_table[i] = __int2half_rn(i % kMma == 0 ? i / kMma : 0);

  cp_async_wait<0>();
  __syncthreads();  // Q, the first K/V tile and the row table visible to every warp

  int frag_row[AccFrag::num_elements];  // block row of each element of this warp's fragments
  {
    wmma::fragment<wmma::matrix_a, kMma, kMma, kMma, __half, wmma::row_major> table;
    wmma::fragment<wmma::matrix_b, kMma, kMma, kMma, __half, wmma::row_major> ones;
    AccFrag rows;
    wmma::load_matrix_sync(table, s_row_table, kMma);
    wmma::fill_fragment(ones, __float2half(1.f));
    wmma::fill_fragment(rows, 0.f);
    wmma::mma_sync(rows, table, ones, rows);
#pragma unroll
    for (int i = 0; i < AccFrag::num_elements; ++i)
      frag_row[i] = strip * kMma + __float2int_rn(rows.x[i]);
  }

  AccFrag o_frag[T::kOFrags];
#pragma unroll
  for (int j = 0; j < T::kOFrags; ++j) wmma::fill_fragment(o_frag[j], 0.f);

  // Softmax state of this warp's rows, replicated across lanes, except l: each lane sums only
  // its own keys' weights, and one warp_sum at the end replaces a reduction per tile.
  const int srow0 = warp * T::kSoftmaxRows;  // first softmax row, within the block
  float m[T::kSoftmaxRows];  // running max of the log2-scaled scores
  float l[T::kSoftmaxRows];  // this lane's share of the running sum of exp2(score - m)
#pragma unroll
  for (int r = 0; r < T::kSoftmaxRows; ++r) {
    m[r] = kNegInf;
    l[r] = 0.f;
  }

  for (int kt = 0; kt < num_k_tiles; ++kt) {
    const int k0 = kt * T::kTileK;
    // The other stage was last read in iteration kt - 1, which ended with a block barrier.
    if (kt + 1 < num_k_tiles) {
      __half* next = stage_k((kt + 1) % T::kStages);
      load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(next, k, k0 + T::kTileK, S);
      load_tile_async<T::kTileK, D, T::kStride, T::kThreads>(next + T::kTileK * T::kStride, v,
                                                             k0 + T::kTileK, S);
      cp_async_commit();
    }
    const __half* sk = stage_k(kt % T::kStages);
    const __half* sv = sk + T::kTileK * T::kStride;

    // S = Q K^T for this warp's strip and half of the keys. K is stored [key][d], which read
    // column-major is K^T. Q fragments are re-read from shared memory every tile: holding
    // them would take D/4 more registers per thread and cost D=128 its second block per SM.
    // The k-steps are unrolled by two for the same reason: fully unrolled, the compiler
    // hoists every K fragment load and runs out of registers.
    const __half* q_strip = sq + strip * kMma * T::kStride;
#pragma unroll
    for (int n = 0; n < T::kSFrags; ++n) {
      const int key_col = (part * T::kSFrags + n) * kMma;
      AccFrag s_frag;
      wmma::fill_fragment(s_frag, 0.f);
#pragma unroll 2
      for (int d = 0; d < T::kDSteps; ++d) {
        wmma::fragment<wmma::matrix_a, kMma, kMma, kMma, __half, wmma::row_major> q_frag;
        wmma::fragment<wmma::matrix_b, kMma, kMma, kMma, __half, wmma::col_major> k_frag;
        wmma::load_matrix_sync(q_frag, q_strip + d * kMma, T::kStride);
        wmma::load_matrix_sync(k_frag, sk + key_col * T::kStride + d * kMma, T::kStride);
        wmma::mma_sync(s_frag, q_frag, k_frag, s_frag);
      }
      wmma::store_matrix_sync(ss + strip * kMma * T::kSStride + key_col, s_frag, T::kSStride,
                              wmma::mem_row_major);
    }
    strip_barrier<T::kStripThreads>(strip);  // the strip's scores, from both its warps

    // Online softmax over whole rows: lane j takes keys 2j and 2j+1. Scores and the running
    // max and sum stay fp32; P is rounded to fp16 once, as the PV matmul's operand.
    const int key = k0 + 2 * lane;
#pragma unroll
    for (int r = 0; r < T::kSoftmaxRows; ++r) {
      const int srow = srow0 + r;
      const int row = q0 + srow;
      // Keys past S are masked (their zero-filled scores are finite but not keys); causal
      // masks keys after the row. Rows past S keep every real key, so their (never stored)
      // results stay finite.
      const int key_end = causal ? min(S, row + 1) : S;
      const float2 sc = reinterpret_cast<const float2*>(ss + srow * T::kSStride)[lane];
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
      m[r] = m_new;
      reinterpret_cast<__half2*>(sp + srow * T::kPStride)[lane] = __floats2half2_rn(p0, p1);
      if (lane == 0) s_row[srow] = alpha;
    }
    strip_barrier<T::kStripThreads>(strip);  // the strip's P and rescale factors

    // O = diag(alpha) O + P V for this warp's strip and half of the columns.
    float alpha[AccFrag::num_elements];
#pragma unroll
    for (int i = 0; i < AccFrag::num_elements; ++i) alpha[i] = s_row[frag_row[i]];
#pragma unroll
    for (int j = 0; j < T::kOFrags; ++j)
#pragma unroll
      for (int i = 0; i < AccFrag::num_elements; ++i) o_frag[j].x[i] *= alpha[i];
#pragma unroll
    for (int ks = 0; ks < T::kKeySteps; ++ks) {
      wmma::fragment<wmma::matrix_a, kMma, kMma, kMma, __half, wmma::row_major> p_frag;
      wmma::load_matrix_sync(p_frag, sp + strip * kMma * T::kPStride + ks * kMma, T::kPStride);
#pragma unroll
      for (int j = 0; j < T::kOFrags; ++j) {
        wmma::fragment<wmma::matrix_b, kMma, kMma, kMma, __half, wmma::row_major> v_frag;
        wmma::load_matrix_sync(v_frag,
                               sv + ks * kMma * T::kStride + (part * T::kOFrags + j) * kMma,
                               T::kStride);
        wmma::mma_sync(o_frag[j], p_frag, v_frag, o_frag[j]);
      }
    }

    // The next tile has landed and is visible; every warp is done with this stage, which the
    // next iteration refills. After the last tile nothing is in flight and K/V are free.
    cp_async_wait<0>();
    __syncthreads();
  }

#pragma unroll
  for (int j = 0; j < T::kOFrags; ++j)
    wmma::store_matrix_sync(so + strip * kMma * T::kOStride + (part * T::kOFrags + j) * kMma,
                            o_frag[j], T::kOStride, wmma::mem_row_major);
#pragma unroll
  for (int r = 0; r < T::kSoftmaxRows; ++r) {
    const float l_row = warp_sum(l[r]);
    if (lane == 0) s_row[srow0 + r] = l_row > 0.f ? 1.f / l_row : 0.f;
  }
  strip_barrier<T::kStripThreads>(strip);  // the strip's output rows, from both its warps

  // Each warp normalises and stores its own softmax rows: 16-byte vectors, a row's lanes
  // adjacent, so every store instruction writes whole contiguous rows.
#pragma unroll
  for (int it = 0; it < T::kSoftmaxRows * T::kVecsPerRow / kWarpSize; ++it) {
    const int i = it * kWarpSize + lane;
    const int srow = srow0 + i / T::kVecsPerRow;
    const int c = (i % T::kVecsPerRow) * kHalvesPerVec;
    const float inv_l = s_row[srow];
    float f[kHalvesPerVec];
#pragma unroll
    for (int e = 0; e < kHalvesPerVec; e += 4) {
      const float4 x = *reinterpret_cast<const float4*>(so + srow * T::kOStride + c + e);
      f[e] = x.x * inv_l;
      f[e + 1] = x.y * inv_l;
      f[e + 2] = x.z * inv_l;
      f[e + 3] = x.w * inv_l;
    }
    if (q0 + srow < S)
      *reinterpret_cast<uint4*>(o + std::int64_t(q0 + srow) * D + c) = pack8(f);
  }
}

}  // namespace

Refusal can_implement(const Shape& s) { return query_tiled_refusal(s, "phase 4x"); }

void launch(const Problem& p, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    constexpr int D = decltype(d)::value;
    using T = Traits<D>;
    launch_fused(attention_kernel<D>, query_tiled_grid(p.shape, T::kTileQ), T::kThreads,
                 T::kSmemBytes, p, stream);
  });
}

}  // namespace attnlab::phase_4x

// What do tensor cores on QK^T and PV buy over the scalar tiled phase 4?
ATTNLAB_PHASE(4x) {
  p.title = "fused WMMA";
  p.technique =
      "64x64 tiles, 8 warps, WMMA for QK^T and PV, cp.async double-buffered K/V, warp-shuffle "
      "softmax, padded shared memory";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.question = "WMMA for QK^T and PV, cp.async double-buffered K/V, against the scalar phase 4.";
  p.default_shapes = {"throughput", "latency"};
  p.claims = {
      faster_than(p.id, "4", "throughput"), faster_than(p.id, "4", "latency"),
      claim("seed-speedup-over-4-throughput",
            "At least 1.69x the TFLOPS of phase 4 at the throughput shape, as the seed claimed.")
          .metric("/tflops")
          .at("throughput")
          .at_least_phase("4", 1.69)
          .source("kernels/SEEDS.md: seed phase 4x claim (10.87 vs 6.42 TFLOPS)"),
      seed_claim(p.id, "10.87", "throughput")};
}
