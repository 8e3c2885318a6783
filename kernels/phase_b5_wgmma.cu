// Phase b5: the attention backward on Hopper, three kernels on one stream:
//   a pre-pass: per query row, delta = rowsum(dO * O) in fp32 and the forward's LSE in log2
//     units, both padded to whole query blocks, and dQ's fp32 accumulator zeroed;
//   the main kernel (kernels/phase_b5_kernel.cuh): key-block-major wgmma on a persistent grid,
//     dK and dV of a KV head's group summed in registers, dQ added into the accumulator;
//   a post-pass: dQ = accumulator * scale, rounded to fp16.
// Deterministic (BackwardProblem::deterministic): the main kernel's dQ additions into a query
// block go in key-tile order, one key tile's at a time (kernels/backward_tile.cuh, wait_turn),
// so the fp32 sums are the same on every launch; dK and dV never use atomics.
// Its own GPU test: attnlab_bwd_gpu_tests (tests/gpu/test_bwd.cpp).
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "kernels/attention_common.cuh"
#include "common/hopper.cuh"
#include "kernels/phase_b5.hpp"
#include "kernels/registry.hpp"
#include "kernels/split_round.hpp"

#include "kernels/phase_b5_kernel.cuh"

namespace attnlab::phase_b5 {
namespace {

constexpr int kPassThreads = 256;

// The split last round (Params::whole_tiles, kernels/split_round.hpp): a grid of at most
// kMaxTailTiles blocks splits it (the workspace holds the sums of that many tiles).
constexpr int kMaxTailTiles = 256;
constexpr int kSplitTileKeys = 2 * kKeys;  // the two-consumer kernels' tiles, the only ones split

// The workspace: dQ's accumulator first, then the padded per-row vectors, the turns and the
// split tiles' sums ([tile][dK, dV][keys][D] floats), each 256-byte aligned (the bulk copies
// need 16).
struct WorkspaceLayout {
  std::size_t lse2, delta, turns, tail, bytes;  // [bytes]
  int s_pad;
};
// The floats of the split tiles' sums, for `tiles` tiles.
std::size_t tail_words(int tiles, int D) { return std::size_t(tiles) * 2 * kSplitTileKeys * D; }
WorkspaceLayout workspace_layout(const Shape& s) {
  auto aligned = [](std::size_t b) { return (b + 255) / 256 * 256; };
  const std::size_t planes = std::size_t(s.B) * s.H;
  const int s_pad = ceil_div(s.S, kQueries) * kQueries;
  WorkspaceLayout w{};
  w.s_pad = s_pad;
  w.lse2 = aligned(planes * s.S * s.D * sizeof(float));
  w.delta = w.lse2 + aligned(planes * s_pad * sizeof(float));
  w.turns = w.delta + aligned(planes * s_pad * sizeof(float));
  w.tail = w.turns + aligned(planes * (s_pad / kQueries) * sizeof(unsigned));
  // Room for the sums where a launch can split (tile_plan: never under the mask).
  const int tiles = s.causal ? 0 : std::min(ceil_div(s.S, kSplitTileKeys) * s.H_kv * s.B, kMaxTailTiles);
  w.bytes = w.tail + aligned(tail_words(tiles, s.D) * sizeof(float));
  return w;
}

// How a launch of the main kernel takes its tiles of tile_keys keys (Params): blocks, and where
// the last round is split (`splits`: the two-consumer kernels), the whole tiles before it and its
// parts. Split where the round is part-empty, the launch is not deterministic (a part's sums
// would go in any order) and not under the mask (whose tiles are unequal and already balanced by
// tile_of_block's order).
struct TilePlan {
  int tiles, blocks, whole_tiles, tile_steps, tail_blocks, tail_quot, tail_rem;
};
TilePlan tile_plan(const Shape& s, int tile_keys, bool splits, bool deterministic, int max_blocks) {
  TilePlan t{};
  t.tiles = ceil_div(s.S, tile_keys) * s.H_kv * s.B;  // below 2^30 (can_implement)
  t.blocks = std::min(device_sm_count(), t.tiles);
  if (max_blocks > 0) t.blocks = std::min(t.blocks, max_blocks);
  t.whole_tiles = t.tiles;
  // The split round's steps are counted in an int on the device.
  constexpr std::int64_t kStepsLimit = std::int64_t(1) << 30;
  const std::int64_t tile_steps = std::int64_t(s.H / s.H_kv) * ceil_div(s.S, kQueries);
  if (!splits || deterministic || s.causal || t.blocks > kMaxTailTiles || tile_steps >= kStepsLimit) return t;
  const split_round::Plan sp = split_round::plan(t.tiles, t.blocks, int(tile_steps), kStepsLimit);
  t.whole_tiles = sp.whole_tiles;
  t.tile_steps = int(tile_steps);
  t.tail_blocks = sp.ranges;
  t.tail_quot = sp.quot;
  t.tail_rem = sp.rem;
  return t;
}

// D / 8 threads per padded row (bh, i), 16 bytes of O and of dO each: delta and LSE * log2(e)
// for rows below S, 0 and +inf past it (P of a padded row is then exactly 0); dQ's row zeroed;
// the row's query block's turn counter reset by the block's first row. The split tiles' sums
// (tail_words words) zeroed by the grid's threads in a stride. Whole 16-byte loads, since a
// warp per row loaded 4 bytes a lane at D 64, where the pass ran at half the HBM's rate
// (kernels/NOTES.md, "Backward: phase b5 (kernels/phase_b5_wgmma.cu)": the pre-pass's loads).
template <int D>
__global__ void __launch_bounds__(kPassThreads)
    prepass_kernel(const __half* __restrict__ o, const __half* __restrict__ d_o, const float* __restrict__ lse,
                   float* __restrict__ lse2, float* __restrict__ delta, float* __restrict__ dq_accum,
                   unsigned* __restrict__ turns, unsigned* __restrict__ tail, std::int64_t tail_words, int S,
                   int s_pad, std::int64_t padded_rows) {
  constexpr int kRowThreads = D / 8;  // a row's threads: consecutive lanes of one warp
  static_assert(kWarpSize % kRowThreads == 0 && kPassThreads % kRowThreads == 0, "rows within warps and blocks");
  for (std::int64_t i = std::int64_t(blockIdx.x) * kPassThreads + threadIdx.x; i < tail_words;
       i += std::int64_t(gridDim.x) * kPassThreads)
    tail[i] = 0u;
  const std::int64_t t = std::int64_t(blockIdx.x) * kPassThreads + threadIdx.x;
  const std::int64_t r = t / kRowThreads;
  const int part = int(t % kRowThreads);  // the thread's 8 columns of the row
  if (r >= padded_rows) return;
  const std::int64_t bh = r / s_pad;
  const int i = int(r - bh * s_pad);
  if (part == 0 && i % kQueries == 0) turns[r / kQueries] = 0u;
  if (i >= S) {
    if (part == 0) {
      lse2[r] = INFINITY;
      delta[r] = 0.f;
    }
    return;
  }
  const std::int64_t row = bh * S + i;
  const uint4 a = *reinterpret_cast<const uint4*>(o + row * D + part * 8);
  const uint4 b = *reinterpret_cast<const uint4*>(d_o + row * D + part * 8);
  const std::uint32_t av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
  float sum = 0.f;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const float2 x = __half22float2(*reinterpret_cast<const __half2*>(&av[j]));
    const float2 y = __half22float2(*reinterpret_cast<const __half2*>(&bv[j]));
    sum = fmaf(x.x, y.x, fmaf(x.y, y.y, sum));
  }
  // The row's threads only: those of a row past S have returned.
  const int lane = int(threadIdx.x % kWarpSize);
  const unsigned row_lanes = ((1u << kRowThreads) - 1u) << (lane - part);
#pragma unroll
  for (int m = kRowThreads / 2; m > 0; m /= 2) sum += __shfl_xor_sync(row_lanes, sum, m);
  float4* const acc = reinterpret_cast<float4*>(dq_accum + row * D + part * 8);
  acc[0] = make_float4(0.f, 0.f, 0.f, 0.f);
  acc[1] = make_float4(0.f, 0.f, 0.f, 0.f);
  if (part == 0) {
    delta[r] = sum;
    lse2[r] = lse[row] * kLog2e;
  }
}

// Four floats times a scale as four halves.
__device__ __forceinline__ uint2 scaled_halves(float4 a, float scale) {
  const __half2 lo = __floats2half2_rn(a.x * scale, a.y * scale), hi = __floats2half2_rn(a.z * scale, a.w * scale);
  return make_uint2(*reinterpret_cast<const std::uint32_t*>(&lo), *reinterpret_cast<const std::uint32_t*>(&hi));
}

// Where the split last round's sums go (Params::tail_acc): tile whole_tiles + u's keys in K's
// and V's layout ([plane][S][D]), dK times the softmax scale.
struct TailOut {
  const float4* sums;
  uint2* dk;
  uint2* dv;
  std::int64_t n4;  // float4s of the sums: split tiles * 2 * kSplitTileKeys * D / 4
  int whole_tiles, key_tiles, S, D;
};

// dQ = accumulator * scale as fp16, four elements per thread and iteration; then the split
// tiles' dK and dV from their sums, keys past S left out.
__global__ void __launch_bounds__(kPassThreads)
    postpass_kernel(const float4* __restrict__ acc, uint2* __restrict__ dq, float scale, std::int64_t n4,
                    TailOut tail) {
  const std::int64_t stride = std::int64_t(gridDim.x) * kPassThreads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kPassThreads + threadIdx.x; i < n4; i += stride)
    dq[i] = scaled_halves(acc[i], scale);
  const std::int64_t per_tile = std::int64_t(2) * kSplitTileKeys * tail.D / 4, per_half = per_tile / 2;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kPassThreads + threadIdx.x; i < tail.n4; i += stride) {
    const std::int64_t u = i / per_tile, in_tile = i - u * per_tile;
    const bool is_v = in_tile >= per_half;
    const std::int64_t in_half = in_tile - (is_v ? per_half : 0);  // key * D / 4 + column / 4
    const int t = tail.whole_tiles + int(u);
    const int key = t % tail.key_tiles * kSplitTileKeys + int(in_half / (tail.D / 4));
    if (key >= tail.S) continue;
    const std::int64_t out = (std::int64_t(t / tail.key_tiles) * tail.S + key) * (tail.D / 4) + in_half % (tail.D / 4);
    if (is_v)
      tail.dv[out] = scaled_halves(tail.sums[i], 1.f);
    else
      tail.dk[out] = scaled_halves(tail.sums[i], scale);
  }
}

// A persistent grid, as phase 5's (kernels/phase_5_launch.cuh): plan's blocks, one per SM (no
// second fits) or one per tile where there are fewer, each taking tiles in the kernel's stride
// (Schedule), and where plan splits the last round, its parts (BlockWork).
template <class T>
void launch_main(const BackwardProblem& p, float* dq_accum, Params params, const TilePlan& plan, cudaStream_t stream) {
  constexpr int D = T::D;
  const Shape& s = p.shape;
  const CUtensorMap tm_q = make_tensor_map_sw128(p.q, s.B * s.H, s.S, D, kQueries);
  const CUtensorMap tm_do = make_tensor_map_sw128(p.d_o, s.B * s.H, s.S, D, kQueries);
  const CUtensorMap tm_k = make_tensor_map_sw128(p.k, s.B * s.H_kv, s.S, D, T::kTileKeys);
  const CUtensorMap tm_v = make_tensor_map_sw128(p.v, s.B * s.H_kv, s.S, D, T::kTileKeys);
  // dQ's fp32 accumulator, reduced into in boxes of 64 rows by 32 columns (stage_dq_tile's halves).
  const CUtensorMap tm_dq = make_tensor_map(dq_accum, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, int(sizeof(float)), s.B * s.H,
                                            s.S, D, D, kQueries, kDqHalfCols, CU_TENSOR_MAP_SWIZZLE_128B);
  const std::size_t smem = sizeof(SharedStorage<T>) + 1024;  // + alignment slack
  static_assert(sizeof(SharedStorage<T>) + 1024 <= 227 * 1024, "a block's shared memory limit");
  params.key_tiles = ceil_div(s.S, T::kTileKeys);
  params.tiles = plan.tiles;
  params.whole_tiles = plan.whole_tiles;
  params.tile_steps = plan.tile_steps;
  params.tail_blocks = plan.tail_blocks;
  params.tail_quot = plan.tail_quot;
  params.tail_rem = plan.tail_rem;
  const auto kernel = backward_kernel<T>;
  set_dynamic_smem(kernel, smem);
  kernel<<<unsigned(plan.blocks), T::kThreads, smem, stream>>>(tm_q, tm_do, tm_k, tm_v, tm_dq, params);
  ATTNLAB_CHECK_LAUNCH();
}

template <int D, int Consumers>
void launch_main_for(const BackwardProblem& p, float* dq_accum, const Params& params, const TilePlan& plan,
                     cudaStream_t stream) {
  if (p.shape.causal)
    launch_main<Traits<D, true, Consumers>>(p, dq_accum, params, plan, stream);
  else
    launch_main<Traits<D, false, Consumers>>(p, dq_accum, params, plan, stream);
}

void require_alignment(const BackwardProblem& p) {
  const std::initializer_list<const void*> operands = {p.q, p.k, p.v, p.o, p.d_o, p.lse, p.dq, p.dk, p.dv, p.workspace};
  for (const void* ptr : operands)
    if (reinterpret_cast<std::uintptr_t>(ptr) % sizeof(uint4) != 0)
      throw std::invalid_argument("phase b5's operands and workspace must be 16-byte aligned");
}

}  // namespace

Refusal can_implement(const Shape& s) {
  if (auto r = fp16_head_dim_refusal(s, "phase b5")) return r;
  // The main kernel numbers its tiles (64 or 128 keys, KV head, batch) with an int, stepping by
  // the grid past the last.
  if (std::int64_t(ceil_div(s.S, kKeys)) * s.H_kv * s.B >= (std::int64_t(1) << 30))
    return "phase b5 takes fewer than 2^30 key tiles of 64 (S/64 * H_kv * B)";
  // The pre-pass's grid: D / 8 threads a padded query row, at most 2^31 - 1 blocks of 256.
  if (std::int64_t(ceil_div(s.S, kQueries)) * kQueries * s.H * s.B >= (std::int64_t(1) << 35))
    return "phase b5 takes fewer than 2^35 query rows (S padded to 64, times H * B)";
  return std::nullopt;
}

std::size_t backward_workspace_bytes(const Shape& s) { return can_implement(s) ? 0 : workspace_layout(s).bytes; }

void launch_backward(const BackwardProblem& p, cudaStream_t stream) { launch_backward_with(p, kDefaultConsumers, stream); }

void launch_backward_with(const BackwardProblem& p, int consumers, cudaStream_t stream, int max_blocks) {
  if (consumers != 1 && consumers != 2) throw std::invalid_argument("phase b5 runs one or two consumer warpgroups");
  const Shape& s = p.shape;
  if (auto why = can_implement(s)) throw std::invalid_argument(*why);
  require_alignment(p);
  const WorkspaceLayout w = workspace_layout(s);
  if (p.workspace == nullptr || p.workspace_bytes < w.bytes)
    throw std::invalid_argument("phase b5 at " + shape_name(s) + " needs a workspace of " + std::to_string(w.bytes) +
                                " bytes, got " + std::to_string(p.workspace ? p.workspace_bytes : 0));
  auto* const base = static_cast<unsigned char*>(p.workspace);
  auto* const dq_accum = reinterpret_cast<float*>(base);
  auto* const lse2 = reinterpret_cast<float*>(base + w.lse2);
  auto* const delta = reinterpret_cast<float*>(base + w.delta);
  auto* const turns = reinterpret_cast<unsigned*>(base + w.turns);
  auto* const tail = reinterpret_cast<unsigned*>(base + w.tail);
  // The main kernel's tiles (kKeys keys a consumer); the split tiles' sums, zeroed by the
  // pre-pass, as many as the plan splits (only the two-consumer kernels split).
  const TilePlan plan = tile_plan(s, consumers * kKeys, consumers == 2, p.deterministic, max_blocks);
  const int split_tiles = plan.tiles - plan.whole_tiles;
  const auto words = std::int64_t(tail_words(split_tiles, s.D));
  const auto* const o = static_cast<const __half*>(p.o);
  const auto* const d_o = static_cast<const __half*>(p.d_o);

  const std::int64_t padded_rows = std::int64_t(s.B) * s.H * w.s_pad;
  // D / 8 threads a row (prepass_kernel): below 2^31 blocks (can_implement).
  const auto pre_blocks = unsigned((padded_rows * (s.D / 8) + kPassThreads - 1) / kPassThreads);
  if (s.D == 64)
    prepass_kernel<64><<<pre_blocks, kPassThreads, 0, stream>>>(o, d_o, p.lse, lse2, delta, dq_accum, turns, tail,
                                                                 words, s.S, w.s_pad, padded_rows);
  else
    prepass_kernel<128><<<pre_blocks, kPassThreads, 0, stream>>>(o, d_o, p.lse, lse2, delta, dq_accum, turns, tail,
                                                                  words, s.S, w.s_pad, padded_rows);
  ATTNLAB_CHECK_LAUNCH();

  Params params{lse2, delta, turns, static_cast<__half*>(p.dk), static_cast<__half*>(p.dv),
                s.H, s.H_kv, s.S, w.s_pad, p.scale * kLog2e, p.scale, p.deterministic ? 1 : 0};
  params.tail_acc = reinterpret_cast<float*>(tail);
  if (s.D == 64)
    consumers == 1 ? launch_main_for<64, 1>(p, dq_accum, params, plan, stream)
                   : launch_main_for<64, 2>(p, dq_accum, params, plan, stream);
  else
    consumers == 1 ? launch_main_for<128, 1>(p, dq_accum, params, plan, stream)
                   : launch_main_for<128, 2>(p, dq_accum, params, plan, stream);

  const std::int64_t n4 = s.q_elems() / 4;
  const auto post_blocks = unsigned(std::min<std::int64_t>((n4 + kPassThreads - 1) / kPassThreads, 65536));
  const TailOut tail_out{reinterpret_cast<const float4*>(tail), static_cast<uint2*>(p.dk), static_cast<uint2*>(p.dv),
                         words / 4, plan.whole_tiles, ceil_div(s.S, kSplitTileKeys), s.S, s.D};
  postpass_kernel<<<post_blocks, kPassThreads, 0, stream>>>(reinterpret_cast<const float4*>(dq_accum),
                                                            static_cast<uint2*>(p.dq), p.scale, n4, tail_out);
  ATTNLAB_CHECK_LAUNCH();
}

}  // namespace attnlab::phase_b5

// How close does a key-block-major wgmma backward (FA2's and FA3's structure: dK and dV of a KV
// head's group in registers, dQ through an fp32 accumulator) come to cuDNN's fused backward?
ATTNLAB_PHASE(b5) {
  p.title = "backward, wgmma + TMA";
  p.technique =
      "delta pre-pass; key-block-major wgmma kernel on a persistent grid (two consumer warpgroups of 64 "
      "keys, a producer streaming Q, dO, LSE and delta by TMA), dK and dV summed over the GQA group in registers, dQ "
      "added into an fp32 accumulator (in key-block order in the deterministic mode); post-pass "
      "scaling dQ to fp16";
  p.required_cc = 90;
  p.can_implement = &can_implement;
  p.launch = nullptr;
  p.direction = Direction::kBackward;
  p.launch_backward = &launch_backward;
  p.backward_workspace_bytes = &backward_workspace_bytes;
  p.question = "A Hopper backward from the shared parts: against cuDNN's fused SDPA backward and the naive b1.";
  p.default_shapes = {"16x16x2048x64", "16x16x2048x64:causal", "4x16x4096x128", "4x16x4096x128:causal"};
}
