// Phase d4 (latency series): split-KV inside a thread-block cluster and inside the block, on
// Hopper's warpgroup MMA, partial softmax states merged through distributed shared memory.
// Idea: at the latency shape (8 heads x 512 rows) a query-tiled grid has 64 blocks for 132 SMs,
// and d3's scalar FMAs and shared-memory probabilities cost more than the loads. Here the C
// blocks of one cluster take the same 64-row query tile and different key tiles of the head
// (128 keys at D = 64 in a cluster, else 64: keys_per_tile; tile r, r + C, ... for rank r, so causal
// work stays balanced): the grid grows by C without a second kernel or a global workspace. A
// block is KW warpgroups on the same 64 rows (wgmma's M); warpgroup w takes the block's tiles
// w, w + KW, ..., so a block's dependent chain of tiles is KW times shorter (in a cluster, their
// first products in turn). Thread 0 requests Q and the block's first K/V tiles with TMA
// (128-byte swizzle, tails zero-filled) before any math, each tile on its own mbarrier and
// each stage owned by one warpgroup; QK^T (wgmma m64nKk16, both operands from shared memory)
// and PV (P kept in registers as wgmma's A, V MN-major) overlap as in FA3: QK^T of a tile and
// PV of the warpgroup's previous tile are issued together and the softmax runs while PV is in
// flight. The accumulators have mma.sync's m16n8 layout per warp. At the end each warp sends
// its O rows, normalised and in fp16, with each row's weight to the rank that owns those rows
// (rank r owns rows [r R, (r + 1) R), R = 64 / C): by a bulk copy from staging rows to other
// ranks, completing bytes on the owner's mbarrier, and with stmatrix to its own, so the owner
// waits for exactly its data, weighs the C KW partial states and writes its rows with 16-byte
// stores.
// No GPU-scope fence anywhere (a first version's cooperative_groups cluster.sync() compiled to
// MEMBAR.ALL.GPU): the barrier that makes the merge's mbarrier visible is arrived at before
// the loads and waited on after them; a second, relaxed one, arrived at once a block has all
// its bytes and waited on at exit, keeps every block alive until no copy is in flight.
// C (1, 2, 4 or 8) and KW (1, 2 or 4; 1 or 2 at D = 128) per shape (see choose_split());
// C = 1 skips the cluster, C = KW = 1 the merge. Against d3 it fixes: tensor cores instead of
// FFMA, every SM busy at the latency shape, one launch. Any S, causal, GQA, D 64 and 128.
// Hopper only (sm_90a: wgmma, TMA, clusters, bulk copies into the cluster). The merge
// (cluster_merge, called once at the end of the kernel) is in kernels/phase_d4_merge.cuh, on
// the merge of softmax states and its DSMEM transport in kernels/softmax_merge.cuh, whose
// merge phase 5's key split shares. The versions it replaces, and the measured effect of each,
// are in kernels/NOTES.md and the run records.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/attention_common.cuh"
#include "common/check.hpp"
#include "common/hopper.cuh"
#include "kernels/named_barrier.hpp"
#include "kernels/phase_d4_merge.cuh"
#include "kernels/registry.hpp"
#include "kernels/tile_pipeline.cuh"
#include "kernels/timeline_stamped.cuh"
#include "kernels/wgmma_tile.cuh"
#include "kernels/work_order.hpp"

namespace attnlab::phase_d4 {
namespace {

// K/V tiles in flight with KW warpgroups per block: a multiple of KW, so that a stage stays with
// one warpgroup, and at least 2 KW, so that a warpgroup's next tile is never in the stage its
// previous tile still occupies.
template <int KW>
constexpr int kStages = KW <= 2 ? 4 : 2 * KW;

// Keys per K/V tile: 128 at D = 64 in a cluster (C > 1) of one or two key warpgroups, so that
// a warpgroup's keys at the latency shape take one online softmax and one QK^T-PV round trip
// rather than two; 64 elsewhere. A cluster launch has at most one block per SM at D = 64
// (choose_split), so the larger stages cost no residency there; without a cluster the grid can
// outnumber the SMs, and 64-key stages let two blocks share one (kernels/NOTES.md, "Latency
// sweep": d4's 128-key tiles). At D = 128 and with four key warpgroups 128-key stages would
// not fit the block's shared memory. The split (choose_split) is chosen on 64-key tiles either
// way.
constexpr int keys_per_tile(int D, int C, int KW) { return D == 64 && C > 1 && KW <= 2 ? 2 * kTileK : kTileK; }

// A block's shared memory: Q, and K/V stages in a TMA pipeline whose stage holds K (part 0) and
// V (part 1); a stage is released once PV of its tile has completed in each of its warpgroup's
// 4 warps.
template <int D, int KW, int Keys>
struct alignas(1024) Storage {
  __half q[kRows * D];  // D / 64 column blocks of 64 swizzled 128-byte rows
  __half k[kStages<KW>][Keys * D];
  __half v[kStages<KW>][Keys * D];
  std::uint64_t q_full;
  hopper::TmaPipeline<kStages<KW>, 2> kv;
};

template <int D, int C, int KW>
constexpr std::size_t smem_bytes() {
  using Tr = MergeTransport<D, C, KW>;  // receive rows (C KW partials of 64 / C), staging rows, mbarrier
  constexpr std::size_t recv = C * KW > 1 ? (Tr::kRecvHalves + Tr::kStageHalves) * sizeof(__half) + 16 : 0;
  return sizeof(Storage<D, KW, keys_per_tile(D, C, KW)>) + recv + 1024;  // + alignment slack
}

// The K/V pipeline position of a block's i-th key tile (a stage stays with one warpgroup:
// kStages is a multiple of KW).
template <int KW>
using KVRing = hopper::RingPosition<kStages<KW>>;

// Whether the first round's V tiles wait for warpgroup 0's first QK^T (load_first_v) instead of
// going out with Q and the K tiles: on 128-key tiles, the cluster launch at D 64 where every block
// of the grid asks the L2 for its first tiles at once and a V tile in that burst delays the K
// tiles that the first products wait for, while V is read only after a softmax. The latency shape
// ran faster so, and 64-key tiles at D 128 slower (kernels/NOTES.md, "Latency sweep": d4's first V
// tiles after the first product).
template <int Keys>
constexpr bool late_first_v() { return Keys > kTileK; }

// The block's first K/V tiles (a stage each) and Q, issued by thread 0 before any math; the
// first round's V tiles not where late_first_v.
template <int D, int KW, int Keys, class KeyOf>
__device__ __forceinline__ void load_first(Storage<D, KW, Keys>& sm, const CUtensorMap* tm_q, const CUtensorMap* tm_k,
                                           const CUtensorMap* tm_v, int q0, int q_plane, int kv_plane,
                                           int n_mine, KeyOf key0) {
  namespace ptx = cuda::ptx;
  constexpr std::uint32_t kQBytes = kRows * D * sizeof(__half);    // Q's tile
  constexpr std::uint32_t kTileBytes = Keys * D * sizeof(__half);  // a K or V tile
  if (n_mine > 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &sm.q_full, kQBytes);
    hopper::tma_load_tile<D>(sm.q, tm_q, kRows, q0, q_plane, &sm.q_full);
  }
  // K before V within each round of KW tiles: a warpgroup's first product needs Q and its K
  // tile only, so every warpgroup's first K is issued before the first V (kernels/NOTES.md,
  // "Why phase 5 and d4 are as they are": d4's first loads and softmax order).
  const int first = min(n_mine, kStages<KW>);
  for (int r = 0; r < first; r += KW) {
    const int end = min(first, r + KW);
    for (int i = r; i < end; ++i)
      hopper::tma_load_tile<D>(sm.k[i], tm_k, Keys, key0(i), kv_plane, sm.kv.producer_expect(KVRing<KW>{i}, kTileBytes, 0));
    if (late_first_v<Keys>() && r == 0) continue;
    for (int i = r; i < end; ++i)
      hopper::tma_load_tile<D>(sm.v[i], tm_v, Keys, key0(i), kv_plane, sm.kv.producer_expect(KVRing<KW>{i}, kTileBytes, 1));
  }
}

// The first round's V tiles where late_first_v, issued by thread 0 once its warpgroup's first
// QK^T is out (its K tile has landed).
template <int D, int KW, int Keys, class KeyOf>
__device__ __forceinline__ void load_first_v(Storage<D, KW, Keys>& sm, const CUtensorMap* tm_v, int kv_plane,
                                             int n_mine, KeyOf key0) {
  constexpr std::uint32_t kTileBytes = Keys * D * sizeof(__half);
  const int end = min(n_mine, KW);
  for (int i = 0; i < end; ++i)
    hopper::tma_load_tile<D>(sm.v[i], tm_v, Keys, key0(i), kv_plane, sm.kv.producer_expect(KVRing<KW>{i}, kTileBytes, 1));
}

// Grid x: C blocks per 64-row query tile (a cluster), y: the query heads that share a KV head
// (GQA's `group`), z: the (batch, KV head) plane, so that q_plane = b H + h with
// h = kv_head group + y needs no division. Mask: which keys a row sees (kernels/tile_pipeline.cuh).
// Sched: which query tile and key tiles a block takes (ClusterScheduler, kernels/work_order.hpp).
// View: the stamped kernel's timeline view (timeline::with_view), none in the timed one.
template <int D, int C, int KW, class Mask, class Sched, class Stamps, class... View>
__global__ void __launch_bounds__(kWgThreads * KW, 1)
    attention_kernel(const __grid_constant__ CUtensorMap tm_q,
                     const __grid_constant__ CUtensorMap tm_k,
                     const __grid_constant__ CUtensorMap tm_v, __half* __restrict__ o,
                     int group, int S, float scale_log2, const __grid_constant__ View... view) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const auto entry = timeline::entered(view...);  // first: the clock the timeline starts the block at
  using namespace hopper;
  using timeline::Span;
  namespace ptx = cuda::ptx;
  // The TMA unit reads each descriptor from parameter memory on first use; fetch them now, so
  // that read overlaps the prologue instead of delaying the first copy.
  if (threadIdx.x == 0) {
    prefetch_tensormap(&tm_q);
    prefetch_tensormap(&tm_k);
    prefetch_tensormap(&tm_v);
  }
  constexpr int kDTiles = D / 8;
  constexpr int kStages = phase_d4::kStages<KW>;
  constexpr int kKeys = keys_per_tile(D, C, KW);
  constexpr std::uint32_t kTileBytes = kKeys * D * sizeof(__half);
  extern __shared__ unsigned char smem_raw[];
  // Dynamic shared memory is only 16-byte aligned; swizzle atoms need 1024.
  const unsigned raw = smem_addr(smem_raw);
  unsigned char* const base = smem_raw + ((1024 - raw % 1024) % 1024);
  auto& sm = *reinterpret_cast<Storage<D, KW, kKeys>*>(base);
  using Transport = MergeTransport<D, C, KW>;
  __half* const recv = reinterpret_cast<__half*>(base + sizeof(Storage<D, KW, kKeys>));
  __half* const stage = recv + Transport::kRecvHalves;

  const unsigned tid = threadIdx.x;
  const int warp = int(tid / kWarpSize);
  const int lane = int(tid % kWarpSize);
  const int wg = warp / 4;  // this warp's warpgroup: the block's key tiles wg, wg + KW, ...
  const int wq = warp % 4;  // and its rows within the 64 of the tile: [16 wq, 16 wq + 16)
  const int g = lane >> 2;
  const int t = lane & 3;
  static_assert(Sched::kKeyStride == C, "the scheduler walks the launch's clusters");
  const Sched sched{C > 1 ? ptx::get_sreg_cluster_ctarank() : 0u, gridDim.x / C};
  const unsigned rank = sched.rank;
  const KeySplit::Unit unit = sched.unit(int(blockIdx.x), sched.start(int(blockIdx.x)));
  const int q0 = int(unit.w) * kRows;
  const int kv_plane = int(blockIdx.z);
  const int q_plane = kv_plane * group + int(blockIdx.y);
  o += std::int64_t(q_plane) * S * D;

  // Every mbarrier of the block (the merge's where C > 1, Q's and the K/V ring's) initialised
  // and fenced once, and the first copies issued, before the first cluster arrive, which only
  // the merge waits on: at the latency shape the launch's first microsecond passes before any
  // tile lands (kernels/NOTES.md, "Why phase 5 and d4 are as they are": d4's first copy sooner).
  std::uint64_t* const merge_bar = reinterpret_cast<std::uint64_t*>(stage + Transport::kStageHalves);
  const int n_mine = Sched::tiles(unit, Mask::key_tiles(q0, kRows, S, kKeys));
  auto key0 = [&](int i) { return Sched::tile(unit, i) * kKeys; };
  if (tid == 0) {
    if constexpr (C > 1) ptx::mbarrier_init(merge_bar, 1);
    ptx::mbarrier_init(&sm.q_full, 1);
    sm.kv.init(kWgThreads / kWarpSize);
    // Visible to the copies' completions and to the cluster (the other blocks' copies that
    // complete the merge's transactions) before either can happen.
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    load_first<D, KW, kKeys>(sm, &tm_q, &tm_k, &tm_v, q0, q_plane, kv_plane, n_mine, key0);
  }
  // The recorder is made once the first copies are out, so that nothing of it delays them. The
  // item's span then begins after their issue, which no stamp covers; the prologue span, to Q's
  // landing, holds their flight.
  Stamps tl{entry};
  tl.begin(Span::kItem, blockIdx.x);
  if constexpr (C > 1) cluster_arrive_relaxed();
  named_barrier_sync(kBlockBarrier);  // the mbarriers are initialised before anyone waits on them

  float o_acc[D / 2];
  float s_acc[kKeys / 2];
  std::uint32_t p_frag[kKeys / 16][4];
  float m_row[2] = {kNegInf, kNegInf};  // running max, log2 units
  float l_row[2] = {0.f, 0.f};          // this thread's share of the row sums
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.f;
  const int row_lo = q0 + 16 * wq + g;
  if (n_mine > 0) {
    tl.wait(Span::kFullWait, 0, [&] { return barrier_ready(&sm.q_full, 0); }, [&] { wait_barrier(&sm.q_full, 0); });
    tl.end(Span::kPrologue, blockIdx.x);  // Q landed: the item's first full-barrier wait
  }

  auto issue_qk = [&](int i) {
    tl.wait(Span::kFullWait, i, [&] { return sm.kv.consumer_ready(KVRing<KW>{i}, 0); },
            [&] { sm.kv.consumer_wait(KVRing<KW>{i}, 0); });
    tl.begin(Span::kQkIssue, i);
    qk_gemm<kKeys, D, kRows, true>(s_acc, sm.q, sm.k[i % kStages]);
    tl.end(Span::kQkIssue, i);
  };
  auto issue_pv = [&](int i) {
    tl.wait(Span::kFullWait, i, [&] { return sm.kv.consumer_ready(KVRing<KW>{i}, 1); },
            [&] { sm.kv.consumer_wait(KVRing<KW>{i}, 1); });
    tl.begin(Span::kPvIssue, i);
    pv_gemm<kKeys, D, true>(o_acc, p_frag, sm.v[i % kStages]);
    tl.end(Span::kPvIssue, i);
  };
  // A thread's two rows one after the other on 64-key tiles, interleaved on 128-key ones, the
  // faster order of each (kernels/NOTES.md, "Latency sweep": d4's 128-key tiles).
  constexpr SoftmaxRows kSoftmaxRows = kKeys > kTileK ? SoftmaxRows::kInterleaved : SoftmaxRows::kOneByOne;
  // Online softmax of tile i in s_acc (in place, log2 units), after Mask; each row's
  // correction for O.
  auto softmax = [&](int i, float (&corr)[2]) {
    tl.begin(Span::kSoftmax, i);
    mask_tile<Mask, kKeys>(s_acc, key0(i), q0 + 16 * wq, row_lo, 2 * t, S);
    online_softmax<kKeys, 0, kSoftmaxRows>(s_acc, m_row, l_row, corr, scale_log2);
    tl.end(Span::kSoftmax, i);
  };
  // Once PV of tile i has completed in every warp of the warpgroup, its stage takes tile
  // i + kStages (the same warpgroup's: kStages is a multiple of KW). Each warp releases the
  // stage and the warpgroup's first thread acquires it for its copies. An mbarrier rather than
  // a named barrier per warpgroup: the warpgroups of a block refill different numbers of times
  // (5 and 4 key tiles of 9, say), and compute-sanitizer's racecheck then misses the
  // block-wide barrier of the merge that follows and reports its shared-memory exchange as
  // hazards (tests/gpu/sanitizer.sh runs such shapes; kernels/NOTES.md, "Why phase 5 and d4
  // are as they are": d4's stage release through per-stage mbarriers).
  auto refill = [&](int i) {
    if (i + kStages < n_mine) {  // warpgroup-uniform
      const KVRing<KW> next{i + kStages};
      sm.kv.consumer_release(KVRing<KW>{i}, lane);
      if (tid == unsigned(wg * kWgThreads)) {
        tl.wait(Span::kEmptyWait, i + kStages, [&] { return sm.kv.producer_ready(next); },
                [&] { sm.kv.producer_acquire(next); });
        tl.begin(Span::kTmaIssue, i + kStages);
        tma_load_tile<D>(sm.k[next.stage()], &tm_k, kKeys, key0(next.count), kv_plane,
                         sm.kv.producer_expect(next, kTileBytes, 0));
        tma_load_tile<D>(sm.v[next.stage()], &tm_v, kKeys, key0(next.count), kv_plane,
                         sm.kv.producer_expect(next, kTileBytes, 1));
        tl.end(Span::kTmaIssue, i + kStages);
      }
    }
  };

  // In a cluster the key warpgroups take their first QK^T in turn: warpgroup w issues its own
  // once w - 1 has issued its, so the tensor cores finish w - 1's product first and its softmax
  // runs beside w's product instead of every warpgroup's softmax at once on the MUFU (they would
  // otherwise start in step, their first tiles landing together). Without a cluster two blocks
  // can share an SM, and the turn measured slower there (kernels/NOTES.md, "Latency sweep":
  // d4's 128-key tiles). A warpgroup with a tile has a predecessor with one (tiles go to
  // warpgroups in order), so every wait has its arrival.
  constexpr bool kStaggered = KW > 1 && C > 1;
  if (wg < n_mine) {
    float corr[2];
    if constexpr (kStaggered) {
      if (wg > 0) named_barrier_sync(kTurnBarrier + wg, 2 * kWgThreads);
    }
    issue_qk(wg);
    if constexpr (kStaggered) {
      if (wg + 1 < KW && wg + 1 < n_mine) named_barrier_arrive(kTurnBarrier + wg + 1, 2 * kWgThreads);
    }
    if constexpr (late_first_v<kKeys>()) {
      if (tid == 0) load_first_v<D, KW, kKeys>(sm, &tm_v, kv_plane, n_mine, key0);
    }
    tl.begin(Span::kWgmmaWait, wg);
    wgmma_wait<0>();
    tl.end(Span::kWgmmaWait, wg);
    fence_operands(s_acc);
    softmax(wg, corr);  // O is still zero: no correction
    pack_p<kKeys>(s_acc, p_frag);
    // FA3's intra-warpgroup overlap: QK^T of tile i and PV of the previous tile are issued
    // together, and the softmax of tile i runs while that PV is in flight.
    int prev = wg;
    for (int i = wg + KW; i < n_mine; i += KW) {
      issue_qk(i);
      issue_pv(prev);
      tl.begin(Span::kWgmmaWait, i);
      wgmma_wait<1>();  // groups complete in order: QK^T of tile i is done
      tl.end(Span::kWgmmaWait, i);
      fence_operands(s_acc);
      softmax(i, corr);
      tl.begin(Span::kWgmmaWait, prev);
      wgmma_wait<0>();
      tl.end(Span::kWgmmaWait, prev);
      fence_operands(o_acc);
      fence_operands(p_frag);
      refill(prev);
      rescale_o<D>(o_acc, corr);
      pack_p<kKeys>(s_acc, p_frag);
      prev = i;
    }
    issue_pv(prev);
    tl.begin(Span::kWgmmaWait, prev);
    wgmma_wait<0>();
    tl.end(Span::kWgmmaWait, prev);
    fence_operands(o_acc);
    fence_operands(p_frag);
  }
  tl.begin(Span::kEpilogue, blockIdx.x);
  if constexpr (C * KW == 1) {
    float inv_l[2];
    row_inverse_sums</*Fast=*/true>(l_row, inv_l);
    store_o_rows<D>(o, o_acc, inv_l, row_lo, 2 * t, S);
  } else {
    float l[2];
    row_sums(l_row, l);
    const auto& acc = *reinterpret_cast<const float(*)[kDTiles][4]>(&o_acc[0]);
    cluster_merge<D, C, KW, Stamps>(acc, m_row, l, wq, lane, wg, tid, rank, q0, S, o, recv, stage, merge_bar,
                                    tl);
  }
  tl.end(Span::kEpilogue, blockIdx.x);
  tl.end(Span::kItem, blockIdx.x);
#else
  __trap();  // built without sm_90a
#endif
}

template <int N>
using IntTag = std::integral_constant<int, N>;

// The split of a shape: C blocks per query tile (the cluster), KW warpgroups per block.
struct Split {
  int cluster;
  int key_warpgroups;
};

// The split, from an ncu sweep (cold) of every C and KW at the five shapes of the d4
// experiment (kernels/NOTES.md, phase d4). C doubles while every rank keeps at least four key
// tiles and the grid stays within one block per SM at D = 64 (two at D = 128, whose blocks
// have no key warpgroups). At D = 64 the rank's tiles are then shared among warpgroups: four
// when a rank has 16 or more (one block per SM: four warpgroups' stages fill its shared
// memory), else two when it has four or more. Fastest there: C = 2 with KW = 2 at
// 1x8x512x64 and its causal form, C = 1 with KW = 4 at 1x8x1024x64, C = 1 with KW = 2 at
// 1x32x512x64:hkv=8, and C = 2 with KW = 1 at 1x8x512x128; C = 4 and 8 were slower everywhere.
Split choose_split(const Shape& s, int sms) {
  const std::int64_t blocks = std::int64_t(ceil_div(s.S, kRows)) * s.B * s.H;
  const int key_tiles = ceil_div(s.S, kTileK);
  const int per_sm = s.D == 64 ? 1 : 2;
  int c = 1;
  while (c < kMaxCluster && key_tiles >= 4 * 2 * c && blocks * 2 * c <= per_sm * sms)
    c *= 2;
  if (s.D != 64) return {c, 1};
  const int tiles_per_rank = key_tiles / c;
  if (tiles_per_rank >= 16 && blocks * c <= sms) return {c, 4};
  return {c, tiles_per_rank >= 4 ? 2 : 1};
}

// Grid: C blocks per query tile along x, the query heads of one KV head along y, (batch, KV
// head) along z (B H_kv <= B H, which query_tiled_refusal bounds); clusters of C along x.
template <int D, int C, int KW>
LaunchGeometry geometry_of(const Shape& s) {
  static_assert(smem_bytes<D, C, KW>() <= 227 * 1024, "a block's shared memory limit");
  LaunchGeometry g;
  g.grid = dim3(unsigned(ceil_div(s.S, kRows) * C), unsigned(s.H / s.H_kv), unsigned(s.B * s.H_kv));
  g.block = dim3(unsigned(kWgThreads * KW));
  g.cluster = dim3(unsigned(C));
  g.dynamic_smem_bytes = smem_bytes<D, C, KW>();
  return g;
}

template <int D, int C, int KW, class Stamps>
void launch_config(const Problem& p, cudaStream_t stream) {
  const Shape& s = p.shape;
  const CUtensorMap tm_q = hopper::make_tensor_map_sw128(p.q, s.B * s.H, s.S, D, kRows);
  const CUtensorMap tm_k = hopper::make_tensor_map_sw128(p.k, s.B * s.H_kv, s.S, D, keys_per_tile(D, C, KW));
  const CUtensorMap tm_v = hopper::make_tensor_map_sw128(p.v, s.B * s.H_kv, s.S, D, keys_per_tile(D, C, KW));
  const LaunchGeometry g = geometry_of<D, C, KW>(s);
  // The mask and the scheduler are compile-time policies: a kernel without the causal mask
  // carries no causal test.
  using Sched = ClusterScheduler<C>;
  // The stamped kernel takes the view as its last parameter (timeline::with_view).
  const auto go = [&](const auto&... view) {
    using Kernel =
        void (*)(CUtensorMap, CUtensorMap, CUtensorMap, __half*, int, int, float, std::decay_t<decltype(view)>...);
    const Kernel kernel =
        s.causal ? attention_kernel<D, C, KW, hopper::KeyMask<true>, Sched, Stamps, std::decay_t<decltype(view)>...>
                 : attention_kernel<D, C, KW, hopper::KeyMask<false>, Sched, Stamps, std::decay_t<decltype(view)>...>;
    set_dynamic_smem(kernel, g.dynamic_smem_bytes);
    const hopper::ClusterLaunchConfig cfg(g.grid, g.block, g.cluster, g.dynamic_smem_bytes, stream);
    ATTNLAB_CUDA_CHECK(cudaLaunchKernelEx(&cfg.config, kernel, tm_q, tm_k, tm_v, static_cast<__half*>(p.o),
                                          int(g.grid.y), s.S, p.scale * kLog2e, view...));
    ATTNLAB_CHECK_LAUNCH();
  };
  timeline::with_view<Stamps>(go);
}

// Calls fn(IntTag<C>, IntTag<KW>) for cluster C (1, 2, 4 or 8) and KW key warpgroups (1, 2, or
// 4 at D = 64; 4 falls back to 1 at D = 128): the one dispatch that launch and
// launch_geometry share.
template <int D, class Fn>
auto with_split(int cluster, int key_warpgroups, Fn&& fn) {
  const auto with_cluster = [&](auto kw) {
    switch (cluster) {
      case 1: return fn(IntTag<1>{}, kw);
      case 2: return fn(IntTag<2>{}, kw);
      case 4: return fn(IntTag<4>{}, kw);
      default: return fn(IntTag<8>{}, kw);
    }
  };
  switch (key_warpgroups) {
    case 2: return with_cluster(IntTag<2>{});
    case 4:
      if constexpr (D == 64) return with_cluster(IntTag<4>{});
      [[fallthrough]];
    default: return with_cluster(IntTag<1>{});
  }
}

}  // namespace

Refusal can_implement(const Shape& s) {
  if (auto r = query_tiled_refusal(s, "phase d4")) return r;
  // The grid's x holds C blocks per query tile.
  if (std::int64_t(ceil_div(s.S, kRows)) * kMaxCluster > 0x7fffffff)
    return "S too large for the grid's x dimension";
  return std::nullopt;
}

// Zeros pick the split automatically; cluster 1, 2, 4 or 8 and key_warpgroups 1, 2 or 4 (2 at
// most at D = 128) force it (scratch experiments). Stamps: the timed kernels' (none) or the
// timeline's (kernels/timeline.cuh), one source.
template <class Stamps = timeline::NoStamps>
void launch_with(const Problem& p, int cluster, int key_warpgroups, cudaStream_t stream) {
  launch_fp16(p, can_implement(p.shape), [&](auto d) {
    constexpr int D = decltype(d)::value;
    const Split auto_split = choose_split(p.shape, device_sm_count());
    with_split<D>(cluster > 0 ? cluster : auto_split.cluster,
                  key_warpgroups > 0 ? key_warpgroups : auto_split.key_warpgroups, [&](auto c, auto kw) {
                    launch_config<D, decltype(c)::value, decltype(kw)::value, Stamps>(p, stream);
                  });
  });
}

void launch(const Problem& p, cudaStream_t stream) { launch_with(p, 0, 0, stream); }
void launch_timeline(const Problem& p, cudaStream_t stream) {
  launch_with<timeline::Stamped>(p, 0, 0, stream);
}

// Every warpgroup takes its own key tiles; its first thread also refills its stages.
std::string warp_role(std::uint32_t warp) { return "key warpgroup " + std::to_string(warp / 4); }

std::optional<LaunchGeometry> launch_geometry(const Shape& s, int sms) {
  if (can_implement(s)) return std::nullopt;
  const Split split = choose_split(s, sms);
  const auto geometry = [&](auto d) {
    constexpr int D = decltype(d)::value;
    return with_split<D>(split.cluster, split.key_warpgroups, [&](auto c, auto kw) {
      return geometry_of<D, decltype(c)::value, decltype(kw)::value>(s);
    });
  };
  return s.D == 64 ? geometry(IntTag<64>{}) : geometry(IntTag<128>{});
}

// A warp's issue spans: its 16 of the tile's 64 rows against one K/V tile (of the split's keys
// per tile), for QK^T and PV alike.
std::optional<TensorIssueWork> tensor_issue_work(const Shape& s, int sms) {
  if (can_implement(s)) return std::nullopt;
  const Split split = choose_split(s, sms);
  const int keys = keys_per_tile(s.D, split.cluster, split.key_warpgroups);
  const double flops = 2.0 * (double(kRows) / (kWgThreads / kWarpSize)) * keys * s.D;
  return TensorIssueWork{flops, flops};
}

}  // namespace attnlab::phase_d4

// Does filling every SM with warpgroup MMA work bring the latency shape under 5 us of kernel
// time, and ahead of d3?
ATTNLAB_PHASE(d4) {
  p.title = "split-KV DSMEM";
  p.technique =
      "wgmma for QK^T and PV (P in registers, TMA loads, QK^T of a tile overlapped with PV of "
      "the last); the blocks of a thread-block cluster and the warpgroups of a block split one "
      "64-row query tile's keys and merge max, sum and O through shared memory and DSMEM";
  p.required_cc = 90;
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.launch_timeline = &launch_timeline;
  p.warp_role = &warp_role;
  p.tensor_issue_work = &tensor_issue_work;
  p.launch_geometry = &launch_geometry;
  p.question =
      "Split-KV inside a thread-block cluster: wgmma for both GEMMs (TMA loads, P in registers), "
      "partial softmax states merged through distributed shared memory, against d3.";
  // The latency shape and its neighbours (kernels/TARGETS.md): longer S, D = 128, GQA, causal.
  p.default_shapes = {"latency", "1x8x1024x64", "1x8x512x128", "1x32x512x64:hkv=8",
                      "1x8x512x64:causal"};
  p.claims = {
      claim("target-latency", "At most 5 us of kernel time (cold) at the latency shape.")
          .metric("/timing/cold/median_ns")
          .at("latency")
          .at_most(5000.0)
          .source("kernels/TARGETS.md: phase d4 at the latency shape (at most 5.0 us)"),
      claim("cudnn-ratio-latency",
            "At most 0.6x cuDNN's kernel busy time at the latency shape, paired: the lower bound "
            "of the paired A/B interval of t_cudnn / t_d4 (make ab A=d4 B=cudnn, wall time) at "
            "least 1/0.6.")
          .at("latency")
          .paired_against("cudnn", 1.0 / 0.6)
          .source("kernels/TARGETS.md: phase d4 at the latency shape, paired A/B ratio"),
      faster_than(p.id, "d3", "latency")};
}
