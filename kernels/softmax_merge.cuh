// The merge of online-softmax states that the Hopper kernels share: partial results of the same
// query rows over disjoint key ranges (an unnormalised O, a running maximum m in log2 units and
// a sum l) rescaled to their common maximum and summed (merge_states), with the way the states
// travel as a policy type, the merge's transport:
// - GlobalSlots: a slot of global memory and per-warp ready flags from the caller's workspace,
//   for states that meet between blocks on any SMs (phase 5's key split, kernels/key_split.cuh);
// - ClusterRows: distributed shared memory, st.async completing bytes on the receiving block's
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
// R = TileRows / C, for the merge. Each rank's receive area holds C KW states of its R rows: O
// rows of D floats at a stride of D + 8, and one (m, l) float2 per row; `bar` counts the bytes
// that arrive from the other ranks.
template <int D, int TileRows, int C, int KW>
struct ClusterRows {
  static constexpr int kOStride = D + 8;
  static constexpr int kRowsPerRank = TileRows / C;
  static constexpr int kParts = C * KW;  // partial states per row
  // The bytes a rank receives: the other ranks' rows arrive through st.async; a rank stores its
  // own rows directly.
  static constexpr unsigned kRecvTx = unsigned((C - 1) * KW * kRowsPerRank) * (D * sizeof(float) + sizeof(float2));

  float* recv_o;
  float2* recv_ml;
  std::uint64_t* bar;
  unsigned rank;

  // The receiver's mbarrier expects exactly the bytes of the other ranks (one thread, once the
  // mbarrier's initialisation is visible to the cluster).
  __device__ __forceinline__ void expect() const {
    constexpr unsigned kTx = kRecvTx;  // a local: the wrapper takes it by reference
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         bar, kTx);
  }

  // This thread's partial state of tile rows x0 and x0 + 8 (O in the m16n8 layout, max in log2
  // units, sum; t the lane's column pair) to the rank that owns those rows: row x of warpgroup
  // wg's state goes to rank x / R, slot (rank KW + wg) R + x % R of its receive area; with
  // st.async to another rank (completing bytes on its mbarrier), with plain stores to its own.
  __device__ __forceinline__ void send(const float (&acc)[D / 8][4], const float (&ms)[2], const float (&l)[2],
                                       int x0, int t, int wg) const {
    constexpr int R = kRowsPerRank;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int x = x0 + 8 * r;
      const unsigned dst = unsigned(x / R);  // warp-uniform: a warp's 16 rows have one owner
      const int slot = (int(rank) * KW + wg) * R + x % R;
      if (dst == rank) {
        float* const lo = recv_o + slot * kOStride + 2 * t;
#pragma unroll
        for (int j = 0; j < D / 8; ++j)
          *reinterpret_cast<float2*>(lo + 8 * j) = make_float2(acc[j][2 * r], acc[j][2 * r + 1]);
        if (t == 0) recv_ml[slot] = make_float2(ms[r], l[r]);
      } else {
        const unsigned rbar = map_rank(smem_addr(bar), dst);
        const unsigned ro = map_rank(smem_addr(recv_o + slot * kOStride + 2 * t), dst);
#pragma unroll
        for (int j = 0; j < D / 8; ++j) st_async_f2(ro + 32u * j, acc[j][2 * r], acc[j][2 * r + 1], rbar);
        if (t == 0) st_async_f2(map_rank(smem_addr(recv_ml + slot), dst), ms[r], l[r], rbar);
      }
    }
  }

  // Phase 0 of the mbarrier: every expected byte landed (acquire at cluster scope: the bytes
  // came from the other blocks' st.async).
  __device__ __forceinline__ void wait() const {
#ifdef ATTNLAB_D4_SPIN_GUARD  // scratch builds: a lost transaction traps instead of hanging
    for (long long n = 0; !cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, bar, 0u); ++n)
      if (n > (1ll << 24)) __trap();
#else
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster, bar, 0u)) {
    }
#endif
  }

  // The C KW states of this rank's row lr, columns c0 .. c0 + 7 (one step of two float4), for
  // merge_states<kParts, 1, 1>.
  struct Piece {
    const float* recv_o;
    const float2* recv_ml;
    int lr, c0;
    __device__ __forceinline__ void state(int j, float (&m)[1], float (&l)[1]) const {
      const float2 v = recv_ml[j * kRowsPerRank + lr];  // one 8-byte load, where .x and .y apart made two
      m[0] = v.x;
      l[0] = v.y;
    }
    static constexpr int kWidth = 8;  // two float4 of one row
    __device__ __forceinline__ void o(int j, int i, float (&x)[8]) const {
      const float* const src = recv_o + (j * kRowsPerRank + lr) * kOStride + c0 + 8 * i;
      const float4 a = *reinterpret_cast<const float4*>(src);
      const float4 b = *reinterpret_cast<const float4*>(src + 4);
      x[0] = a.x, x[1] = a.y, x[2] = a.z, x[3] = a.w, x[4] = b.x, x[5] = b.y, x[6] = b.z, x[7] = b.w;
    }
  };
  __device__ __forceinline__ Piece piece(int lr, int c0) const { return {recv_o, recv_ml, lr, c0}; }
};

}  // namespace attnlab::hopper
