// The merge of online-softmax states that the Hopper kernels share: partial results of the same
// query rows over disjoint key ranges (an unnormalised O, a running maximum m in log2 units and
// a sum l) rescaled to their common maximum and summed (merge_states), with the way the states
// travel as a policy type, the merge's transport:
// - GlobalSlots: a slot of global memory and per-warp ready flags from the caller's workspace,
//   for states that meet between blocks on any SMs (phase 5's key split, kernels/key_split.cuh);
// - ClusterRows: distributed shared memory, bulk copies completing bytes on the receiving block's
//   mbarrier, for states that meet inside a cluster (d4, kernels/phase_d4_merge.cuh).
// A transport sends a thread's state (send), waits until its receiver's states have landed
// (wait), and reads them back as a list of states (a view with state(j, m, l) and o(j, i, x))
// that merge_states takes.
#pragma once

#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

#include "kernels/attention_common.cuh"
#include "common/hopper.cuh"
#include "kernels/wgmma_tile.cuh"

namespace attnlab::hopper {

// The weights that merge N online-softmax states to their common maximum (running maxima m in
// log2 units): w_j = 2^(m_j - M), M the largest m. A state without any key (m = -inf) weighs 0;
// when no state has one, M counts as 0 and every weight is 0. Returns M (-inf when none).
template <int N>
__device__ __forceinline__ float merge_weights(const float (&m)[N], float (&w)[N]) {
  float m_all = kNegInf;
#pragma unroll
  for (int j = 0; j < N; ++j) m_all = fmaxf(m_all, m[j]);
  const float m_use = m_all == kNegInf ? 0.f : m_all;
#pragma unroll
  for (int j = 0; j < N; ++j) w[j] = exp2_approx(m[j] - m_use);
  return m_all;
}

// N partial states of a thread's Rows rows merged into (m, l, o), unnormalised. `parts` is the
// list of states, the transport's view: parts.state(j, m_j, l_j) gives state j's maxima and sums,
// parts.o(j, i, x) its O elements W i .. W i + W - 1 (W = Parts::kWidth), element e of row
// e / (W / Rows). The weights are merge_weights'; l and each O element are sums of one product and
// N - 1 fmas, from the last state to the first (two states: fmaf(x_0, w_0, x_1 w_1)). Every
// state's row statistics are read before any O, and each step's O elements of all states before
// their sums.
template <int N, int Rows, int Vecs, class Parts>
__device__ __forceinline__ void merge_states(const Parts& parts, float (&m)[Rows], float (&l)[Rows],
                                             float (&o)[Parts::kWidth * Vecs]) {
  constexpr int W = Parts::kWidth;
  static_assert(W % Rows == 0, "a step's elements split evenly among the rows");
  constexpr int kPerRow = W / Rows;
  float w[Rows][N];
  {
    float ms[N][Rows], ls[N][Rows];
#pragma unroll
    for (int j = 0; j < N; ++j) parts.state(j, ms[j], ls[j]);
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      float mr[N];
#pragma unroll
      for (int j = 0; j < N; ++j) mr[j] = ms[j][r];
      m[r] = merge_weights(mr, w[r]);
      float sum = ls[N - 1][r] * w[r][N - 1];
#pragma unroll
      for (int j = N - 2; j >= 0; --j) sum = fmaf(ls[j][r], w[r][j], sum);
      l[r] = sum;
    }
  }
#pragma unroll
  for (int i = 0; i < Vecs; ++i) {
    float x[N][W];
#pragma unroll
    for (int j = 0; j < N; ++j) parts.o(j, i, x[j]);
#pragma unroll
    for (int e = 0; e < W; ++e) {
      float sum = x[N - 1][e] * w[e / kPerRow][N - 1];
#pragma unroll
      for (int j = N - 2; j >= 0; --j) sum = fmaf(x[j][e], w[e / kPerRow][j], sum);
      o[W * i + e] = sum;
    }
  }
}

// How long a merging warp waits for a partial in global memory before it traps: a wait this
// long means a sender never ran (its block is not resident, or a bug), and an error beats a hang.
constexpr std::uint32_t kSlotSpinLimit = 1u << 26;

// The transport through global memory: the states of a warpgroup's two rows per thread (the m64nN
// accumulator layout, kernels/wgmma_tile.cuh) meet at the same thread of a warpgroup in another
// block. A slot holds, per thread of the Threads, D / 8 float4 of O and one float4 of (m, m, l,
// l), strided by Threads so that a warp's accesses are contiguous; `ready` is the flag of this
// thread's warp. The receiver merges its own state with the slot's: the list with_own gives.
template <int D, int Threads>
struct GlobalSlots {
  float4* slot;
  unsigned* ready;
  int tid;

  // This thread's share of the partial, then its warp's flag (release: the stores before it).
  __device__ __forceinline__ void send(const float (&o)[D / 2], const float (&m)[2], const float (&l)[2]) const {
#pragma unroll
    for (int i = 0; i < D / 8; ++i)
      __stcg(&slot[i * Threads + tid], make_float4(o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]));
    __stcg(&slot[(D / 8) * Threads + tid], make_float4(m[0], m[1], l[0], l[1]));
    __threadfence();
    __syncwarp();
    if (tid % 32 == 0) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*ready).store(1u, cuda::memory_order_release);
  }

  // Every lane reads the flag and the warp leaves together (a vote: the loop stays warp-uniform,
  // which keeps ptxas's uniform datapath in the rest of the kernel).
  __device__ __forceinline__ void wait() const {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(*ready);
    std::uint32_t spins = 0;
    while (__any_sync(kFullMask, flag.load(cuda::memory_order_acquire) == 0u)) {
      if (++spins == kSlotSpinLimit) __trap();
      __nanosleep(64);
    }
  }

  // After the merge has read the slot: the flag back to zero for the next launch.
  __device__ __forceinline__ void release() const {
    __syncwarp();
    if (tid % 32 == 0) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*ready).store(0u, cuda::memory_order_relaxed);
  }

  // The receiver's side: waits for the slot, merges it into the receiver's state (o, m, l:
  // state 0, the slot's state 1) and clears the flag.
  __device__ __forceinline__ void merge_into(float (&o)[D / 2], float (&m)[2], float (&l)[2]) const {
    // A local copy of the members: the merge then compiles as if written with plain values
    // (through `this`, the optimiser orders the kernel's blocks otherwise).
    const GlobalSlots s{slot, ready, tid};
    s.wait();
    merge_states<2, 2, D / 8>(s.with_own(m, l, o), m, l, o);
    s.release();
  }

  // The receiver's state (registers) as state 0 and the slot's as state 1, in D / 8 steps of
  // four elements (merge_states<2, 2, D / 8>).
  struct WithOwn {
    const GlobalSlots& in;
    const float (&own_m)[2];
    const float (&own_l)[2];
    const float (&own_o)[D / 2];
    __device__ __forceinline__ void state(int j, float (&m)[2], float (&l)[2]) const {
      if (j == 0) {
        m[0] = own_m[0], m[1] = own_m[1], l[0] = own_l[0], l[1] = own_l[1];
        return;
      }
      const float4 ml = __ldcg(&in.slot[(D / 8) * Threads + in.tid]);
      m[0] = ml.x, m[1] = ml.y, l[0] = ml.z, l[1] = ml.w;
    }
    static constexpr int kWidth = 4;  // one float4: two columns of each row
    __device__ __forceinline__ void o(int j, int i, float (&x)[4]) const {
      const float4 v = j == 0 ? make_float4(own_o[4 * i], own_o[4 * i + 1], own_o[4 * i + 2], own_o[4 * i + 3])
                              : __ldcg(&in.slot[i * Threads + in.tid]);
      x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
    }
  };
  __device__ __forceinline__ WithOwn with_own(const float (&m)[2], const float (&l)[2], const float (&o)[D / 2]) const {
    return {*this, m, l, o};
  }
};

// The transport through distributed shared memory: the C blocks of a cluster (ranks) each hold,
// in KW warpgroups, partial states of the same TileRows rows, and rank r owns rows [r R, (r + 1) R),
// R = TileRows / C, for the merge. A partial travels normalised, as O / l in fp16 (a weighted mean
// of V's rows, so within fp16's range whatever the scores), with its weight folded into one
// float, m + log2 l (-inf without keys): half the bytes of an fp32 O with its max and sum, and
// the merge's weights 2^(m_j + log2 l_j - M) then give O = sum_j w_j (O_j / l_j) / sum_j w_j.
// A row is D halves of O and, in its 16-byte pad, that float: one row every kOStride halves. A
// rank's receive area holds C KW such rows for each of its R rows; a warp writes its 16 rows
// with stmatrix, its own rank's straight into the receive area, the other ranks' into its
// staging rows (the same layout), which one bulk copy per 8 rows then moves into the owner's
// receive area, completing their bytes on the owner's mbarrier (`bar`): a few large transfers
// instead of a store per thread and column pair.
template <int D, int TileRows, int C, int KW>
struct ClusterRows {
  static constexpr int kOStride = D + 8;  // halves: O, then the weight's float and padding
  static constexpr int kRowsPerRank = TileRows / C;
  static constexpr int kParts = C * KW;  // partial states per row
  static constexpr unsigned kRowBytes = unsigned(kOStride * sizeof(__half));
  static_assert(kRowBytes % 16 == 0, "bulk copies move 16-byte multiples from 16-byte-aligned rows");
  static_assert(kRowsPerRank % 8 == 0, "a warp's 8-row half has one owner");
  // The bytes a rank receives: the other ranks' rows arrive through bulk copies; a rank stores
  // its own rows directly.
  static constexpr unsigned kRecvTx = unsigned((C - 1) * KW * kRowsPerRank) * kRowBytes;
  // Halves of the receive area and of the staging rows (every warp's 16 rows; none when C = 1).
  static constexpr int kRecvHalves = KW * TileRows * kOStride;
  static constexpr int kStageHalves = C > 1 ? KW * TileRows * kOStride : 0;

  __half* recv;
  __half* stage;
  std::uint64_t* bar;
  unsigned rank;

  // The receiver's mbarrier expects exactly the bytes of the other ranks (one thread, once the
  // mbarrier's initialisation is visible to the cluster).
  __device__ __forceinline__ void expect() const {
    constexpr unsigned kTx = kRecvTx;  // a local: the wrapper takes it by reference
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         bar, kTx);
  }

  // This warp's partial state of tile rows 16 wq + g and 16 wq + 8 + g (O in the m16n8 layout:
  // acc[j][2 r], acc[j][2 r + 1] are row half r's columns 8 j + 2 t and 8 j + 2 t + 1; max in
  // log2 units; sum) to the rank that owns those rows: row x of warpgroup wg's state goes to
  // rank x / R, slot (rank KW + wg) R + x % R of its receive area.
  __device__ __forceinline__ void send(const float (&acc)[D / 8][4], const float (&ms)[2], const float (&l)[2],
                                       int wq, int lane, int wg) const {
    constexpr int R = kRowsPerRank;
    const int g = lane >> 2;
    const int t = lane & 3;
    __half* half_rows[2];  // each 8-row half's first row: in the receive area or the staging rows
    __half* owner_rows[2];  // and where it lands in its owner's receive area (the same offset in every rank)
    unsigned owner[2];     // warp-uniform
    bool remote[2];
    float inv[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int x = 16 * wq + 8 * r;
      owner[r] = unsigned(x / R);
      remote[r] = owner[r] != rank;
      owner_rows[r] = recv + ((int(rank) * KW + wg) * R + x % R) * kOStride;
      half_rows[r] = remote[r] ? stage + ((wg * 4 + wq) * 16 + 8 * r) * kOStride : owner_rows[r];
      inv[r] = inverse_sum</*Fast=*/true>(l[r]);
      if (t == 0)
        *reinterpret_cast<float*>(half_rows[r] + g * kOStride + D) = l[r] > 0.f ? ms[r] + __log2f(l[r]) : kNegInf;
    }
    // stmatrix .x4: matrices (half 0, block j), (half 1, j), (half 0, j + 1), (half 1, j + 1);
    // lane i gives row i % 8 of matrix i / 8.
    const int mat = lane >> 3;
    const unsigned row_addr = smem_addr((mat & 1 ? half_rows[1] : half_rows[0]) + (lane & 7) * kOStride);
#pragma unroll
    for (int j = 0; j < D / 8; j += 2) {
      const std::uint32_t frag[4] = {pack_half2(acc[j][0] * inv[0], acc[j][1] * inv[0]),
                                     pack_half2(acc[j][2] * inv[1], acc[j][3] * inv[1]),
                                     pack_half2(acc[j + 1][0] * inv[0], acc[j + 1][1] * inv[0]),
                                     pack_half2(acc[j + 1][2] * inv[1], acc[j + 1][3] * inv[1])};
      stmatrix_x4(row_addr + unsigned(8 * (j + (mat >> 1))) * sizeof(__half), frag);
    }
    if constexpr (C > 1) {
      if (remote[0] || remote[1]) {  // warp-uniform
        // The staging rows, written through the generic proxy, visible to the bulk copies.
        fence_proxy_async_shared();
        __syncwarp();
        if (lane == 0) {
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            if (!remote[r]) continue;
            bulk_copy_to_cluster(map_rank(smem_addr(owner_rows[r]), owner[r]), smem_addr(half_rows[r]), 8 * kRowBytes,
                                 map_rank(smem_addr(bar), owner[r]));
          }
        }
      }
    }
  }

  // Phase 0 of the mbarrier: every expected byte landed (acquire at cluster scope: the bytes
  // came from the other blocks' copies).
  __device__ __forceinline__ void wait() const {
#ifdef ATTNLAB_D4_SPIN_GUARD  // scratch builds: a lost transaction traps instead of hanging
    for (long long n = 0; !cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, bar, 0u); ++n)
      if (n > (1ll << 24)) __trap();
#else
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, bar, 0u)) {
    }
#endif
  }

  // The C KW states of this rank's row lr, columns c0 .. c0 + 7 (one 16-byte load each), for
  // merge_states<kParts, 1, 1>: each state's weight is its folded m + log2 l and its sum 1.
  struct Piece {
    const __half* recv;
    int lr, c0;
    __device__ __forceinline__ const __half* row(int j) const { return recv + (j * kRowsPerRank + lr) * kOStride; }
    __device__ __forceinline__ void state(int j, float (&m)[1], float (&l)[1]) const {
      m[0] = *reinterpret_cast<const float*>(row(j) + D);
      l[0] = 1.f;
    }
    static constexpr int kWidth = 8;  // one row's eight halves
    __device__ __forceinline__ void o(int j, int i, float (&x)[8]) const {
      unpack8(*reinterpret_cast<const uint4*>(row(j) + c0 + 8 * i), x);
    }
  };
  __device__ __forceinline__ Piece piece(int lr, int c0) const { return {recv, lr, c0}; }
};

}  // namespace attnlab::hopper
