// Phase d4 (latency series): split-KV inside a thread-block cluster, tensor-core matmuls with P
// kept in registers, partial softmax states merged through distributed shared memory.
// Idea: at the latency shape (8 heads x 512 rows) a 64-row query tile gives 64 blocks for 132
// SMs, and d3's scalar FMAs and shared-memory probabilities cost more than the loads. Here the
// C blocks of one cluster take the same 64-row query tile and different 64-key tiles of the
// head (tile r, r + C, ... for rank r, so causal work stays balanced), which multiplies the
// grid by C without a second kernel or a global workspace. Each block issues its Q tile and
// all the K/V tiles that fit its two stages with cp.async before any math; each of its four
// warps computes 16 query rows with mma.sync m16n8k16 (fp16 in, fp32 out; operands by
// ldmatrix from padded rows), an online softmax in registers, and P.V with the score
// accumulators repacked to fp16 as the A fragments of the second mma. At the end each block
// leaves its unnormalised O, row max and row sum in shared memory; after one cluster barrier
// rank r reads rows [r 64/C, (r + 1) 64/C) of every rank's state through DSMEM, rescales them
// to the common max, and writes the normalised rows with 16-byte stores; a second barrier keeps
// every block's shared memory alive until all ranks have read it. C (1, 2, 4 or 8) is chosen
// per shape so that the grid has about one block per SM; C = 1 skips the cluster entirely.
// What it fixes against d3: tensor cores instead of FFMA, every SM busy at the latency shape,
// one launch. Any S (tails zero-filled and masked), causal, GQA, D 64 and 128. Hopper only
// (clusters, distributed shared memory). Its measured effect lives in the run records; what
// limits it (one warp per scheduler issuing every ~5 cycles, a ~600-instruction prologue,
// cluster.sync's GPU-scope fences) is in kernels/NOTES.md.
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/check.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phased4 {
namespace {

namespace cg = cooperative_groups;

constexpr int kRows = 64;  // query rows per block: 16 per warp, the M of one m16n8k16
constexpr int kWarps = kRows / 16;
constexpr int kThreads = kWarps * kWarpSize;
constexpr int kTileK = 64;  // keys per K/V tile
constexpr int kStages = 2;  // K/V tiles in flight; at S = 512 and C >= 4 a block's whole share
constexpr int kMaxCluster = 8;  // the portable cluster size limit

template <int D>
struct Traits {
  // One 16-byte vector of padding per row: the row stride is an odd number of 16-byte units,
  // so the 8 rows one ldmatrix phase reads fall in distinct bank groups.
  static constexpr int kStride = D + kHalvesPerVec;
  static constexpr int kTileHalves = kTileK * kStride;
  static constexpr int kQHalves = kRows * kStride;
  static constexpr std::size_t kStagesBytes = std::size_t(kStages) * 2 * kTileHalves * 2;
  // The merge state, over the stages once they are consumed: fp32 O rows (stride D + 8 floats:
  // the float2 stores of a half-warp hit 32 distinct banks), then the row max and sum.
  static constexpr int kOStride = D + 8;
  static constexpr std::size_t kMergeBytes = (std::size_t(kRows) * kOStride + 2 * kRows) * 4;
  static constexpr std::size_t kSmemBytes =
      std::size_t(kQHalves) * 2 + (kStagesBytes > kMergeBytes ? kStagesBytes : kMergeBytes);

  static_assert(D == 64 || D == 128, "phase d4 is instantiated for head dim 64 and 128");
  static_assert((kStride / kHalvesPerVec) % 2 == 1, "odd vector stride: conflict-free ldmatrix");
  static_assert((std::size_t(kQHalves) * 2) % 16 == 0 && (kOStride * 4) % 16 == 0,
                "16-byte aligned merge rows");
};

// Blocks per SM the register budget must allow. D = 64 with C = 8 asks for 4 (128 registers)
// so that the latency shape's 512 blocks fit in one wave; otherwise 3 at D = 64 and 2 at
// D = 128, which holds its query fragments and 16 output tiles in up to 255 registers.
template <int D, int C>
struct MinBlocks {
  static constexpr int value = D == 64 ? (C == 8 ? 4 : 3) : 2;
};

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Four 8x8 fp16 matrices; lanes 8i..8i+7 give the row addresses of matrix i, register i gets
// its fragment (lane l: row l / 4, columns 2 (l % 4) and + 1). volatile + memory: the data
// comes from cp.async, ordered by the waits and barriers around these loads.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const __half* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p))
               : "memory");
}

// The same with each matrix transposed: lane l gets rows 2 (l % 4), + 1 of column l / 4.
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const __half* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p))
               : "memory");
}

// c += a * b, a 16x16 (row), b 16x8 (col), c 16x8 fp32. Lane l = 4 g + t holds c rows g and
// g + 8 at columns 2t, 2t + 1: c[0], c[1] and c[2], c[3].
__device__ __forceinline__ void mma_16816(float (&c)[4], const unsigned (&a)[4], unsigned b0,
                                          unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// One MUFU.EX2; exp2(-inf) = 0.
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&h);
}

template <int D, int C>
__global__ void __launch_bounds__(kThreads, MinBlocks<D, C>::value)
    attention_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                     const __half* __restrict__ v, __half* __restrict__ o, int H, int H_kv, int S,
                     float scale_log2, bool causal) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using T = Traits<D>;
  constexpr int kDTiles = D / 8;    // n-tiles of the output
  constexpr int kDSteps = D / 16;   // k-steps of QK^T
  constexpr int kKeyTiles = kTileK / 8;
  extern __shared__ uint4 smem[];
  __half* const sQ = reinterpret_cast<__half*>(smem);
  __half* const sStages = sQ + T::kQHalves;

  const int tid = int(threadIdx.x);
  const int warp = tid / kWarpSize;
  const int lane = tid % kWarpSize;
  const int g = lane >> 2;  // accumulator row (and row + 8)
  const int t = lane & 3;   // accumulator column pair

  int rank = 0;
  if constexpr (C > 1) rank = int(cg::this_cluster().block_rank());
  const int q0 = int(blockIdx.x / C) * kRows;
  const HeadSlice hs = head_slice(int(blockIdx.y), H, H_kv, S, D);
  q += hs.q;
  o += hs.q;
  k += hs.kv;
  v += hs.kv;

  // Key tiles of this query tile (causal: none wholly above its last row); rank r takes
  // tiles r, r + C, r + 2C, ...
  const int kv_end = causal ? min(S, q0 + kRows) : S;
  const int n_tiles = ceil_div(kv_end, kTileK);
  const int n_mine = rank < n_tiles ? ceil_div(n_tiles - rank, C) : 0;

  // The i-th own tile into stage i % kStages as two commit groups, K then V, so QK^T can
  // start before V lands. Past the last tile the groups are empty, which keeps the wait
  // counts below the same in every iteration.
  auto issue_tile = [&](int i) {
    __half* sk = sStages + (i % kStages) * 2 * T::kTileHalves;
    const int k0 = (rank + i * C) * kTileK;
    if (i < n_mine) load_tile_async<kTileK, D, T::kStride, kThreads>(sk, k, k0, S);
    cp_async_commit();
    if (i < n_mine) load_tile_async<kTileK, D, T::kStride, kThreads>(sk + T::kTileHalves, v, k0, S);
    cp_async_commit();
  };
  // Everything this block reads is requested before any math: Q joins K's first group.
  if (n_mine > 0) load_tile_async<kRows, D, T::kStride, kThreads>(sQ, q, q0, S);
#pragma unroll
  for (int i = 0; i < kStages; ++i) issue_tile(i);

  const int wr0 = q0 + 16 * warp;  // this warp's first query row
  float m[2] = {kNegInf, kNegInf};  // running max of the raw scores, rows g and g + 8
  float l[2] = {0.f, 0.f};          // this lane's share of the row sums
  float acc[kDTiles][4];
#pragma unroll
  for (int j = 0; j < kDTiles; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  unsigned qa[kDSteps][4];

  for (int i = 0; i < n_mine; ++i) {
    const int k0 = (rank + i * C) * kTileK;
    const __half* sk = sStages + (i % kStages) * 2 * T::kTileHalves;
    const __half* sv = sk + T::kTileHalves;
    // Groups after K_i: V_i, K_{i+1}, V_{i+1}.
    cp_async_wait<2 * kStages - 1>();
    __syncthreads();
    if (i == 0) {
#pragma unroll
      for (int kk = 0; kk < kDSteps; ++kk)
        ldmatrix_x4(qa[kk], sQ + (16 * warp + (lane & 7) + 8 * ((lane >> 3) & 1)) * T::kStride +
                                16 * kk + 8 * (lane >> 4));
    }
    // Warp-uniform: rows past S, or (causal) a tile wholly above this warp's last row, add
    // nothing; the warp still meets every barrier.
    const bool live = wr0 < S && !(causal && k0 > wr0 + 15);

    unsigned pa[kTileK / 16][4];  // P as the A fragments of P.V, one per 16 keys
    if (live) {
      float s[kKeyTiles][4];
#pragma unroll
      for (int j = 0; j < kKeyTiles; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
#pragma unroll
      for (int j = 0; j < kKeyTiles; ++j) {
#pragma unroll
        for (int kk2 = 0; kk2 < kDSteps / 2; ++kk2) {
          unsigned b[4];  // keys 8j.., columns 32 kk2 + {0, 8, 16, 24}
          ldmatrix_x4(b, sk + (8 * j + (lane & 7)) * T::kStride + 32 * kk2 + 8 * (lane >> 3));
          mma_16816(s[j], qa[2 * kk2], b[0], b[1]);
          mma_16816(s[j], qa[2 * kk2 + 1], b[2], b[3]);
        }
      }
      // Keys past S (zero-filled rows) and, causal, past the row: -inf.
      if (k0 + kTileK > S || (causal && k0 + kTileK - 1 > wr0)) {
#pragma unroll
        for (int j = 0; j < kKeyTiles; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int key = k0 + 8 * j + 2 * t + (e & 1);
            const int row = wr0 + g + 8 * (e >> 1);
            const int lim = causal ? min(S, row + 1) : S;
            if (key >= lim) s[j][e] = kNegInf;
          }
      }
      float mx[2] = {m[0], m[1]};
#pragma unroll
      for (int j = 0; j < kKeyTiles; ++j) {
        mx[0] = fmaxf(mx[0], fmaxf(s[j][0], s[j][1]));
        mx[1] = fmaxf(mx[1], fmaxf(s[j][2], s[j][3]));
      }
      float ms[2];  // the new max in log2 units; 0 while the row has seen only masked keys
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(kFullMask, mx[r], 1));
        mx[r] = fmaxf(mx[r], __shfl_xor_sync(kFullMask, mx[r], 2));
        ms[r] = mx[r] == kNegInf ? 0.f : mx[r] * scale_log2;
        const float alpha = ex2(m[r] * scale_log2 - ms[r]);  // 0 on the first live tile
        l[r] *= alpha;
#pragma unroll
        for (int j = 0; j < kDTiles; ++j) {
          acc[j][2 * r] *= alpha;
          acc[j][2 * r + 1] *= alpha;
        }
        m[r] = mx[r];
      }
#pragma unroll
      for (int j = 0; j < kKeyTiles; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          s[j][e] = ex2(fmaf(s[j][e], scale_log2, -ms[e >> 1]));
          l[e >> 1] += s[j][e];
        }
      // The accumulator of key tiles 2ks and 2ks + 1 is, repacked to fp16, the A fragment of
      // keys 16ks..16ks + 15: (row g, keys 2t..), (row g + 8, ..), (row g, keys 8 + 2t..), ...
#pragma unroll
      for (int ks = 0; ks < kTileK / 16; ++ks) {
        pa[ks][0] = pack_half2(s[2 * ks][0], s[2 * ks][1]);
        pa[ks][1] = pack_half2(s[2 * ks][2], s[2 * ks][3]);
        pa[ks][2] = pack_half2(s[2 * ks + 1][0], s[2 * ks + 1][1]);
        pa[ks][3] = pack_half2(s[2 * ks + 1][2], s[2 * ks + 1][3]);
      }
    }

    cp_async_wait<2 * kStages - 2>();  // V_i
    __syncthreads();
    if (live) {
#pragma unroll
      for (int ks = 0; ks < kTileK / 16; ++ks)
#pragma unroll
        for (int jj = 0; jj < D / 16; ++jj) {
          unsigned b[4];  // keys 16ks + {0..7, 8..15} x columns 16jj + {0..7, 8..15}, transposed
          ldmatrix_x4_trans(b, sv + (16 * ks + (lane & 7) + 8 * ((lane >> 3) & 1)) * T::kStride +
                                   16 * jj + 8 * (lane >> 4));
          mma_16816(acc[2 * jj], pa[ks], b[0], b[1]);
          mma_16816(acc[2 * jj + 1], pa[ks], b[2], b[3]);
        }
    }
    __syncthreads();  // every warp is done with this stage
    issue_tile(i + kStages);
  }

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(kFullMask, l[r], 1);
    l[r] += __shfl_xor_sync(kFullMask, l[r], 2);
  }

  if constexpr (C == 1) {
    // The whole key range was this block's: normalise and store from registers.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = wr0 + g + 8 * r;
      if (row < S) {
        const float inv_l = __fdividef(1.f, l[r]);  // l >= 1: the row max contributes 1
        __half* o_row = o + std::int64_t(row) * D + 2 * t;
#pragma unroll
        for (int j = 0; j < kDTiles; ++j)
          *reinterpret_cast<__half2*>(o_row + 8 * j) =
              __floats2half2_rn(acc[j][2 * r] * inv_l, acc[j][2 * r + 1] * inv_l);
      }
    }
  } else {
    cg::cluster_group cluster = cg::this_cluster();
    cp_async_wait<0>();  // only empty groups remain, but none may land on the merge state
    __syncthreads();
    float* const sO = reinterpret_cast<float*>(sStages);
    float* const sM = sO + kRows * T::kOStride;
    float* const sL = sM + kRows;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int lr = 16 * warp + g + 8 * r;
#pragma unroll
      for (int j = 0; j < kDTiles; ++j)
        *reinterpret_cast<float2*>(sO + lr * T::kOStride + 8 * j + 2 * t) =
            make_float2(acc[j][2 * r], acc[j][2 * r + 1]);
      if (t == 0) {
        sM[lr] = m[r] == kNegInf ? kNegInf : m[r] * scale_log2;
        sL[lr] = l[r];
      }
    }
    cluster.sync();  // every rank's state written (release/acquire across the cluster)

    // Rank r merges rows [r R, (r + 1) R), 8 output columns per thread and step.
    constexpr int kR = kRows / C;
    constexpr int kVecsPerRow = D / kHalvesPerVec;
    for (int vi = tid; vi < kR * kVecsPerRow; vi += kThreads) {
      const int lr = rank * kR + vi / kVecsPerRow;
      const int c0 = (vi % kVecsPerRow) * kHalvesPerVec;
      const float* rO[C];
      float mj[C];
#pragma unroll
      for (int j = 0; j < C; ++j) {
        rO[j] = cluster.map_shared_rank(sO, j);
        mj[j] = rO[j][kRows * T::kOStride + lr];
      }
      float mall = kNegInf;
#pragma unroll
      for (int j = 0; j < C; ++j) mall = fmaxf(mall, mj[j]);
      if (mall == kNegInf) mall = 0.f;  // a row past S that no rank scored: weights 0, unused
      float lsum = 0.f;
      float out[kHalvesPerVec] = {};
#pragma unroll
      for (int j = 0; j < C; ++j) {
        const float w = ex2(mj[j] - mall);  // a rank without keys for this row: 0
        const float4 a = *reinterpret_cast<const float4*>(rO[j] + lr * T::kOStride + c0);
        const float4 b = *reinterpret_cast<const float4*>(rO[j] + lr * T::kOStride + c0 + 4);
        lsum = fmaf(w, rO[j][kRows * T::kOStride + kRows + lr], lsum);
        out[0] = fmaf(w, a.x, out[0]);
        out[1] = fmaf(w, a.y, out[1]);
        out[2] = fmaf(w, a.z, out[2]);
        out[3] = fmaf(w, a.w, out[3]);
        out[4] = fmaf(w, b.x, out[4]);
        out[5] = fmaf(w, b.y, out[5]);
        out[6] = fmaf(w, b.z, out[6]);
        out[7] = fmaf(w, b.w, out[7]);
      }
      const int row = q0 + lr;
      if (row < S) {
        const float inv_l = __fdividef(1.f, lsum);
#pragma unroll
        for (int e = 0; e < kHalvesPerVec; ++e) out[e] *= inv_l;
        *reinterpret_cast<uint4*>(o + std::int64_t(row) * D + c0) = pack8(out);
      }
    }
    cluster.sync();  // no block leaves while another may still read its shared memory
  }
#endif
}

// Cluster size for a shape: double C while the grid stays within one block per SM and every
// rank still has a key tile. Measured in scratch at 1x8x512x64 (D 64 and 128, causal and not):
// C = 2 (128 blocks) beat C = 4 (256 blocks, two per SM) and C = 8 (512 blocks, more than the
// 62 clusters of 8 that fit at once): the extra cluster barriers and merge work cost more than
// the second block per SM hides. See kernels/NOTES.md, phase d4.
int choose_cluster(const Shape& s) {
  static const int sms = [] {
    int dev = 0, n = 0;
    ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
    ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  const std::int64_t blocks = std::int64_t(ceil_div(s.S, kRows)) * s.B * s.H;
  const int key_tiles = ceil_div(s.S, kTileK);
  int c = 1;
  while (c < kMaxCluster && 2 * c <= key_tiles && blocks * 2 * c <= std::int64_t(sms)) c *= 2;
  return c;
}

template <int D, int C>
void launch_cluster(const Problem& p, cudaStream_t stream) {
  using T = Traits<D>;
  const Shape& s = p.shape;
  const auto kernel = attention_kernel<D, C>;
  const dim3 grid(unsigned(ceil_div(s.S, kRows) * C), unsigned(s.B * s.H));
  if constexpr (C == 1) {
    launch_fused(kernel, grid, kThreads, T::kSmemBytes, p, stream);
  } else {
    set_dynamic_smem(kernel, T::kSmemBytes);
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = T::kSmemBytes;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = C;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    ATTNLAB_CUDA_CHECK(cudaLaunchKernelEx(
        &cfg, kernel, static_cast<const __half*>(p.q), static_cast<const __half*>(p.k),
        static_cast<const __half*>(p.v), static_cast<__half*>(p.o), s.H, s.H_kv, s.S,
        p.scale * kLog2e, s.causal));
    ATTNLAB_CHECK_LAUNCH();
  }
}

template <int D>
void launch_d(const Problem& p, int c, cudaStream_t stream) {
  switch (c) {
    case 1: return launch_cluster<D, 1>(p, stream);
    case 2: return launch_cluster<D, 2>(p, stream);
    case 4: return launch_cluster<D, 4>(p, stream);
    default: return launch_cluster<D, 8>(p, stream);
  }
}

}  // namespace

Refusal can_implement(const Shape& s) {
  if (auto r = query_tiled_refusal(s, "phase d4")) return r;
  // The grid's x holds C blocks per 64-row query tile.
  if (std::int64_t(ceil_div(s.S, kRows)) * kMaxCluster > 0x7fffffff)
    return "S too large for the grid's x dimension";
  return std::nullopt;
}

// With c = 0 the cluster size comes from choose_cluster; 1, 2, 4 or 8 force it (scratch
// experiments).
void launch_with_cluster(const Problem& p, int c, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    constexpr int D = decltype(d)::value;
    launch_d<D>(p, c > 0 ? c : choose_cluster(p.shape), stream);
  });
}

void launch(const Problem& p, cudaStream_t stream) { launch_with_cluster(p, 0, stream); }

}  // namespace attnlab::phased4
