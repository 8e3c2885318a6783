// Phase d4 (latency series): split-KV inside a thread-block cluster, tensor-core matmuls with P
// kept in registers, partial softmax states pushed to their owner through distributed shared
// memory.
// Idea: at the latency shape (8 heads x 512 rows) a query-tiled grid has 64 blocks for 132 SMs,
// and d3's scalar FMAs and shared-memory probabilities cost more than the loads. Here the C
// blocks of one cluster take the same query tile and different 64-key tiles of the head (tile
// r, r + C, ... for rank r, so causal work stays balanced): the grid grows by C without a
// second kernel or a global workspace. Each block requests its Q tile and every K/V tile its
// stages hold with cp.async before any math; each warp computes 16 query rows with mma.sync
// m16n8k16 (fp16 in, fp32 out; operands by ldmatrix from padded rows), an online softmax in
// registers, P.V with the score accumulators repacked to fp16 as the A fragments of the second
// mma, and the row sums with one more mma against a fragment of ones. At the end each warp
// sends its unnormalised O rows, row max and row sum with st.async to the rank that owns those
// rows (rank r owns rows [r R, (r + 1) R), R = rows / C); the stores complete bytes on the
// owner's mbarrier, so the owner waits for exactly its data, rescales the C partial states to
// the common max and writes its rows with 16-byte stores. No GPU-scope fence anywhere (the
// first version's cooperative_groups cluster.sync() compiled to MEMBAR.ALL.GPU): the barrier
// that makes the mbarriers visible is arrived at before the loads and waited on after them; a
// second, relaxed one, arrived at once a block has all its bytes and waited on at exit, keeps
// every block alive until no st.async is in flight. Query tiles of 64 (or 128) rows and C (1,
// 2, 4 or 8) per shape: about one block per SM (see choose()); C = 1 skips the cluster.
// Against d3 it fixes: tensor cores instead of FFMA, every SM busy at the latency shape, one
// launch. Any S (tails zero-filled and masked), causal, GQA, D 64 and 128. Hopper only
// (clusters, st.async). Its measured effect lives in the run records; what still limits it
// (one or two warps per scheduler, each running its whole dependent chain) is in
// kernels/NOTES.md.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/check.hpp"
#include "kernels/registry.hpp"

namespace attnlab::phased4 {
namespace {

constexpr int kTileK = 64;      // keys per K/V tile
constexpr int kMaxCluster = 8;  // the portable cluster size limit

template <int D, int C, int Rows>
struct Traits {
  static constexpr int kWarps = Rows / 16;  // 16 query rows per warp: the M of one m16n8k16
  static constexpr int kThreads = kWarps * kWarpSize;
  // K/V tiles in flight. At S = 512 a rank's share is 8 / C tiles: D = 64 requests all of them
  // up front; D = 128 keeps two stages, for the shared memory of its larger tiles.
  static constexpr int kStages = D == 64 && C <= 2 ? 4 : 2;
  // One 16-byte vector of padding per row: the row stride is an odd number of 16-byte units,
  // so the 8 rows one ldmatrix phase reads fall in distinct bank groups.
  static constexpr int kStride = D + kHalvesPerVec;
  static constexpr int kTileHalves = kTileK * kStride;
  static constexpr int kQHalves = Rows * kStride;
  static constexpr int kStageHalves = 2 * kTileHalves;  // a K tile, then a V tile
  // The receive area of the merge: C senders x R rows = Rows rows of fp32 O (stride D + 8
  // floats), then one (max, sum) float2 per row, then the mbarrier.
  static constexpr int kOStride = D + 8;
  static constexpr std::size_t kInputBytes =
      (std::size_t(kQHalves) + std::size_t(kStages) * kStageHalves) * sizeof(__half);
  static constexpr std::size_t kRecvOBytes = std::size_t(Rows) * kOStride * sizeof(float);
  static constexpr std::size_t kRecvBytes = kRecvOBytes + std::size_t(Rows) * sizeof(float2) + 16;
  // Bytes every sender's st.async complete on an owner's mbarrier, summed over the C senders.
  static constexpr unsigned kRecvTx = unsigned(Rows) * (D * sizeof(float) + sizeof(float2));

  static_assert(D == 64 || D == 128, "phase d4 is instantiated for head dim 64 and 128");
  static_assert(Rows == 64 || Rows == 128, "query tiles of 4 or 8 warps");
  static_assert((kStride / kHalvesPerVec) % 2 == 1, "odd vector stride: conflict-free ldmatrix");
  static_assert(kRecvTx < (1u << 20), "within the mbarrier's transaction count");
  static_assert(kInputBytes % 16 == 0 && (kOStride * sizeof(float)) % 16 == 0,
                "16-byte aligned receive rows");
};

template <int D, int C, int Rows>
constexpr std::size_t smem_bytes() {
  using T = Traits<D, C, Rows>;
  return T::kInputBytes + (C > 1 ? T::kRecvBytes : 0);
}

// Blocks per SM the register budget must allow: 256 threads' worth, except D = 64 at C = 8,
// capped at 128 registers (two 256-thread blocks per SM) for grids of twice the SM count; it
// spills 44 bytes. choose() picks C = 8 only for grids of at most 16 blocks.
template <int D, int C, int Rows>
constexpr int min_blocks() {
  return (D == 64 && C == 8 ? 2 : 1) * (128 / Rows);
}

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

// Cluster primitives (sm_90).
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// The shared::cluster address of the same shared-memory location in block `rank`.
__device__ __forceinline__ unsigned map_rank(unsigned addr, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
}
// An 8-byte store into another block's shared memory that completes 8 bytes of the
// transaction count of that block's mbarrier.
__device__ __forceinline__ void st_async_f2(unsigned addr, float x, float y, unsigned bar) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];\n" ::"r"(
          addr),
      "f"(x), "f"(y), "r"(bar)
      : "memory");
}
// An mbarrier expecting one arrival, its initialisation made visible to the cluster (the
// remote st.async that complete its transactions) before the cluster barrier.
__device__ __forceinline__ void mbar_init(unsigned bar) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], 1;\n"
      "fence.mbarrier_init.release.cluster;\n" ::"r"(bar)
      : "memory");
}
// The one arrival, announcing the bytes the phase waits for. Remote complete_tx may come
// first (the transaction count may go negative meanwhile); the phase cannot complete before
// this arrival.
__device__ __forceinline__ void mbar_arrive_expect(unsigned bar, unsigned tx_bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
               "r"(tx_bytes)
               : "memory");
}
// Waits for phase 0 of the mbarrier: every expected byte landed (acquire at cluster scope).
__device__ __forceinline__ bool mbar_try_wait_phase0(unsigned bar) {
  unsigned done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar)
      : "memory");
  return done != 0;
}
__device__ __forceinline__ void mbar_wait_phase0(unsigned bar) {
#ifdef ATTNLAB_D4_SPIN_GUARD  // scratch builds: a lost transaction traps instead of hanging
  for (long long n = 0; !mbar_try_wait_phase0(bar); ++n)
    if (n > (1ll << 24)) __trap();
#else
  while (!mbar_try_wait_phase0(bar)) {
  }
#endif
}

// Rows [0, Rows) of a tile starting at `src` (already offset to the tile's first row) into
// shared memory with row stride Stride; rows at or past `valid` copy nothing and become zeros
// (their source is `any`, an address inside the tensor). Unsigned index math: shifts, no
// sign fix-ups.
template <int Rows, int D, int Stride, int Threads>
__device__ __forceinline__ void load_rows_async(__half* dst, const __half* src, int valid,
                                                const __half* any, unsigned tid) {
  constexpr unsigned kVecsPerRow = D / kHalvesPerVec;
  static_assert((Rows * kVecsPerRow) % Threads == 0, "every thread copies as many vectors");
#pragma unroll
  for (unsigned it = 0; it < Rows * kVecsPerRow / Threads; ++it) {
    const unsigned i = it * Threads + tid;
    const unsigned r = i / kVecsPerRow;
    const unsigned c = (i % kVecsPerRow) * kHalvesPerVec;
    const bool in = int(r) < valid;
    cp_async_16(dst + r * Stride + c, in ? src + r * D + c : any, in);
  }
}

template <int D, int C, int Rows>
__global__ void __launch_bounds__(Traits<D, C, Rows>::kThreads, (min_blocks<D, C, Rows>()))
    attention_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
                     const __half* __restrict__ v, __half* __restrict__ o, int H, int group,
                     int H_kv, int S, float scale_log2, bool causal) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using T = Traits<D, C, Rows>;
  constexpr int kThreads = T::kThreads;
  constexpr int kStages = T::kStages;
  constexpr int kDTiles = D / 8;   // n-tiles of the output
  constexpr int kDSteps = D / 16;  // k-steps of QK^T
  constexpr int kKeyTiles = kTileK / 8;
  extern __shared__ uint4 smem[];
  __half* const sQ = reinterpret_cast<__half*>(smem);
  __half* const sStages = sQ + T::kQHalves;

  const unsigned tid = threadIdx.x;
  const int warp = int(tid / kWarpSize);
  const int lane = int(tid % kWarpSize);
  const int g = lane >> 2;  // accumulator row (and row + 8)
  const int t = lane & 3;   // accumulator column pair

  const unsigned rank = C > 1 ? cluster_rank() : 0u;
  const int q0 = int(blockIdx.x / C) * Rows;
  const int h = int(blockIdx.y);
  const int b = int(blockIdx.z);
  const int kv_head = int(unsigned(h) / unsigned(group));  // GQA: `group` query heads per KV head
  q += (std::int64_t(b) * H + h) * S * D;
  o += (std::int64_t(b) * H + h) * S * D;
  k += (std::int64_t(b) * H_kv + kv_head) * S * D;
  v += (std::int64_t(b) * H_kv + kv_head) * S * D;

  // The merge's mbarrier: initialised and made visible to the cluster, and the cluster barrier
  // arrived at now, so waiting on it later costs nothing; the bytes all C senders will store
  // are announced after that wait.
  unsigned bar = 0;
  if constexpr (C > 1) {
    bar = smem_addr(reinterpret_cast<char*>(smem) + T::kInputBytes + T::kRecvBytes - 16);
    if (tid == 0) mbar_init(bar);
    cluster_arrive_relaxed();
  }

  // Key tiles of this query tile (causal: none wholly above its last row); rank r takes
  // tiles r, r + C, r + 2C, ...
  const int kv_end = causal ? min(S, q0 + Rows) : S;
  const int n_tiles = ceil_div(kv_end, kTileK);
  const int n_mine = int(rank) < n_tiles ? ceil_div(n_tiles - int(rank), C) : 0;

  // The i-th own tile into stage i % kStages as two commit groups, K then V, so QK^T can start
  // before V lands. Past the last tile the groups are empty, which keeps the wait counts below
  // the same in every iteration.
  auto issue_tile = [&](int i) {
    __half* sk = sStages + (i % kStages) * T::kStageHalves;
    const int k0 = (int(rank) + i * C) * kTileK;
    if (i < n_mine)
      load_rows_async<kTileK, D, T::kStride, kThreads>(sk, k + std::int64_t(k0) * D, S - k0, k,
                                                       tid);
    cp_async_commit();
    if (i < n_mine)
      load_rows_async<kTileK, D, T::kStride, kThreads>(sk + T::kTileHalves,
                                                       v + std::int64_t(k0) * D, S - k0, v, tid);
    cp_async_commit();
  };
  // Everything this block reads is requested before any math: Q joins K's first group.
  if (n_mine > 0)
    load_rows_async<Rows, D, T::kStride, kThreads>(sQ, q + std::int64_t(q0) * D, S - q0, q, tid);
#pragma unroll
  for (int i = 0; i < kStages; ++i) issue_tile(i);

  const int wr0 = q0 + 16 * warp;  // this warp's first query row
  float m[2] = {kNegInf, kNegInf};  // running max of the raw scores, rows g and g + 8
  float acc[kDTiles][4];
  float accl[4] = {0.f, 0.f, 0.f, 0.f};  // row sums: P times a column of ones
#pragma unroll
  for (int j = 0; j < kDTiles; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
  unsigned qa[kDSteps][4];
  constexpr unsigned kOnes = 0x3c003c00u;  // two fp16 1.0

  for (int i = 0; i < n_mine; ++i) {
    const int k0 = (int(rank) + i * C) * kTileK;
    const __half* sk = sStages + (i % kStages) * T::kStageHalves;
    const __half* sv = sk + T::kTileHalves;
    cp_async_wait<2 * kStages - 1>();  // K_i (and Q): the groups after it are V_i and later
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
          unsigned bk[4];  // keys 8j.., columns 32 kk2 + {0, 8, 16, 24}
          ldmatrix_x4(bk, sk + (8 * j + (lane & 7)) * T::kStride + 32 * kk2 + 8 * (lane >> 3));
          mma_16816(s[j], qa[2 * kk2], bk[0], bk[1]);
          mma_16816(s[j], qa[2 * kk2 + 1], bk[2], bk[3]);
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
      }
      // Before a warp's first tile acc and accl are zero and nothing needs rescaling.
      if (i > 0) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const float alpha = exp2_approx(m[r] * scale_log2 - ms[r]);  // m = -inf: 0, acc is 0 then
          accl[2 * r] *= alpha;
          accl[2 * r + 1] *= alpha;
#pragma unroll
          for (int j = 0; j < kDTiles; ++j) {
            acc[j][2 * r] *= alpha;
            acc[j][2 * r + 1] *= alpha;
          }
        }
      }
      m[0] = mx[0];
      m[1] = mx[1];
#pragma unroll
      for (int j = 0; j < kKeyTiles; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[j][e] = exp2_approx(fmaf(s[j][e], scale_log2, -ms[e >> 1]));
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
      for (int ks = 0; ks < kTileK / 16; ++ks) {
#pragma unroll
        for (int jj = 0; jj < D / 16; ++jj) {
          unsigned bv[4];  // keys 16ks + {0..7, 8..15} x columns 16jj + {0..7, 8..15}, transposed
          ldmatrix_x4_trans(bv, sv + (16 * ks + (lane & 7) + 8 * ((lane >> 3) & 1)) * T::kStride +
                                    16 * jj + 8 * (lane >> 4));
          mma_16816(acc[2 * jj], pa[ks], bv[0], bv[1]);
          mma_16816(acc[2 * jj + 1], pa[ks], bv[2], bv[3]);
        }
        mma_16816(accl, pa[ks], kOnes, kOnes);  // every column: the sum of the fp16 P row
      }
    }
    if (i + kStages < n_mine) {  // block-uniform
      __syncthreads();           // every warp is done with this stage
      issue_tile(i + kStages);
    } else {
      cp_async_commit();  // empty groups keep the wait counts uniform
      cp_async_commit();
    }
  }
  const float l[2] = {accl[0], accl[2]};

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
    constexpr int R = Rows / C;  // rows each rank owns in the merge
    float* const recvO = reinterpret_cast<float*>(reinterpret_cast<char*>(smem) + T::kInputBytes);
    float2* const recvML = reinterpret_cast<float2*>(recvO + Rows * T::kOStride);
    cluster_wait();  // every block's mbarrier is initialised (arrived at before the loads)
    if (tid == 0) mbar_arrive_expect(bar, T::kRecvTx);
    // Row x of this tile goes to rank x / R, slot rank * R + x % R of its receive area.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int x = 16 * warp + g + 8 * r;
      const unsigned dst = unsigned(x / R);
      const int slot = int(rank) * R + x % R;
      const unsigned rbar = map_rank(bar, dst);
      const unsigned ro = map_rank(smem_addr(recvO + slot * T::kOStride + 2 * t), dst);
#pragma unroll
      for (int j = 0; j < kDTiles; ++j)
        st_async_f2(ro + 32u * j, acc[j][2 * r], acc[j][2 * r + 1], rbar);
      if (t == 0)
        st_async_f2(map_rank(smem_addr(recvML + slot), dst),
                    m[r] == kNegInf ? kNegInf : m[r] * scale_log2, l[r], rbar);
    }
    cp_async_wait<0>();  // only empty groups remain; none outlives the block
    mbar_wait_phase0(bar);
    // Every block past this arrival has received all its bytes, so once all have arrived no
    // st.async of this block is still in flight; the wait at the end keeps the block until
    // then, and the merge below hides the barrier's latency.
    cluster_arrive_relaxed();

    // This rank's rows: 8 output columns per thread and step, the C partial states rescaled to
    // their common max.
    constexpr int kVecsPerRow = D / kHalvesPerVec;
    for (int vi = int(tid); vi < R * kVecsPerRow; vi += kThreads) {
      const int lr = vi / kVecsPerRow;
      const int c0 = (vi % kVecsPerRow) * kHalvesPerVec;
      float2 ml[C];
#pragma unroll
      for (int j = 0; j < C; ++j) ml[j] = recvML[j * R + lr];
      float mall = kNegInf;
#pragma unroll
      for (int j = 0; j < C; ++j) mall = fmaxf(mall, ml[j].x);
      if (mall == kNegInf) mall = 0.f;  // a row past S that no rank scored: weights 0, unused
      float lsum = 0.f;
      float out[kHalvesPerVec] = {};
#pragma unroll
      for (int j = 0; j < C; ++j) {
        const float w = exp2_approx(ml[j].x - mall);  // a rank without keys for this row: 0
        const float* src = recvO + (j * R + lr) * T::kOStride + c0;
        const float4 a = *reinterpret_cast<const float4*>(src);
        const float4 bb = *reinterpret_cast<const float4*>(src + 4);
        lsum = fmaf(w, ml[j].y, lsum);
        out[0] = fmaf(w, a.x, out[0]);
        out[1] = fmaf(w, a.y, out[1]);
        out[2] = fmaf(w, a.z, out[2]);
        out[3] = fmaf(w, a.w, out[3]);
        out[4] = fmaf(w, bb.x, out[4]);
        out[5] = fmaf(w, bb.y, out[5]);
        out[6] = fmaf(w, bb.z, out[6]);
        out[7] = fmaf(w, bb.w, out[7]);
      }
      const int row = q0 + int(rank) * R + lr;
      if (row < S) {
        const float inv_l = __fdividef(1.f, lsum);
#pragma unroll
        for (int e = 0; e < kHalvesPerVec; ++e) out[e] *= inv_l;
        *reinterpret_cast<uint4*>(o + std::int64_t(row) * D + c0) = pack8(out);
      }
    }
    cluster_wait();
  }
#endif
}

// Query rows per block and cluster size.
struct Config {
  int rows;
  int cluster;
};

int sm_count() {
  static const int sms = [] {
    int dev = 0, n = 0;
    ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
    ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  return sms;
}

// Double C while the grid stays within one block per SM and every rank keeps a key tile.
// Measured in scratch at 1x8x512x64 (kernels/NOTES.md, phase d4): 64-row tiles with C = 2
// (128 blocks) were the fastest of the 64/128-row x C = 1, 2, 4, 8 grid; every larger C and
// the 128-row tiles were slower although they divide the work per warp further.
Config choose(const Shape& s) {
  constexpr int kAutoRows = 64;
  const std::int64_t blocks = std::int64_t(ceil_div(s.S, kAutoRows)) * s.B * s.H;
  const int key_tiles = ceil_div(s.S, kTileK);
  int c = 1;
  while (c < kMaxCluster && 2 * c <= key_tiles && blocks * 2 * c <= sm_count()) c *= 2;
  return {kAutoRows, c};
}

template <int D, int C, int Rows>
void launch_config(const Problem& p, cudaStream_t stream) {
  using T = Traits<D, C, Rows>;
  const Shape& s = p.shape;
  const auto kernel = attention_kernel<D, C, Rows>;
  constexpr std::size_t kSmem = smem_bytes<D, C, Rows>();
  set_dynamic_smem(kernel, kSmem);
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned(ceil_div(s.S, Rows) * C), unsigned(s.H), unsigned(s.B));
  cfg.blockDim = dim3(T::kThreads);
  cfg.dynamicSmemBytes = kSmem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = C;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = C > 1 ? 1 : 0;
  ATTNLAB_CUDA_CHECK(cudaLaunchKernelEx(
      &cfg, kernel, static_cast<const __half*>(p.q), static_cast<const __half*>(p.k),
      static_cast<const __half*>(p.v), static_cast<__half*>(p.o), s.H, s.H / s.H_kv, s.H_kv, s.S,
      p.scale * kLog2e, s.causal));
  ATTNLAB_CHECK_LAUNCH();
}

template <int D, int Rows>
void launch_rows(const Problem& p, int c, cudaStream_t stream) {
  switch (c) {
    case 1: return launch_config<D, 1, Rows>(p, stream);
    case 2: return launch_config<D, 2, Rows>(p, stream);
    case 4: return launch_config<D, 4, Rows>(p, stream);
    default: return launch_config<D, 8, Rows>(p, stream);
  }
}

}  // namespace

Refusal can_implement(const Shape& s) {
  if (auto r = query_tiled_refusal(s, "phase d4")) return r;
  // The grid's x holds C blocks per query tile.
  if (std::int64_t(ceil_div(s.S, 64)) * kMaxCluster > 0x7fffffff)
    return "S too large for the grid's x dimension";
  return std::nullopt;
}

// rows 0 / cluster 0 pick automatically; otherwise rows 64 or 128 and cluster 1, 2, 4 or 8
// force the configuration (scratch experiments).
void launch_with(const Problem& p, int rows, int cluster, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    constexpr int D = decltype(d)::value;
    Config cfg = choose(p.shape);
    if (rows > 0) cfg.rows = rows;
    if (cluster > 0) cfg.cluster = cluster;
    if (cfg.rows == 64)
      launch_rows<D, 64>(p, cfg.cluster, stream);
    else
      launch_rows<D, 128>(p, cfg.cluster, stream);
  });
}

void launch(const Problem& p, cudaStream_t stream) { launch_with(p, 0, 0, stream); }

}  // namespace attnlab::phased4
