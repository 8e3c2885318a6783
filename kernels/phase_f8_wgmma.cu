// Phase f8: phase 5's kernel (kernels/phase_5_kernel.cuh: TMA K/V ring, producer and consumer
// warpgroups, ping-pong, persistent schedulers, online softmax) on FP8 operands: e4m3 Q, K and V
// with per-tensor descales (Problem::descale_q/k/v), e4m3 wgmma (m64nNk32) for QK^T and for PV,
// O in fp16. The operand format is its own policy (hopper::E4m3Operands,
// kernels/wgmma_operands.cuh): the descales of Q and K fold into the softmax scale and V's into
// O's 1/l; P is scaled by 2^8 and rounded to e4m3 in the register layout of the PV wgmma's A
// operand, its values in the order the thread holds them (kernels/e4m3_fragment.hpp).
// The e4m3 wgmma reads both operands K-major, and V [keys][D] is not: a pre-pass kernel of the
// same launch writes V^T [D][keys] into the launch's workspace, the keys of each 32 in the order
// P's fragment gives them, zero past S. One extra read and write of V, timed with the launch
// (what it costs and what would remove it: kernels/NOTES.md, "FP8: phase f8").
// Phase f8v is the same kernel without the pre-pass (hopper::E4m3RawVOperands): TMA loads V's
// tiles as stored and the producer warpgroup's idle warps write V^T's tiles in shared memory.
// Run it: build/bin/attnlab-phase-f8 --check-only --shape 1x8x512x64 (the harness quantises
// its inputs for a kE4m3 phase); their own GPU test: attnlab_f8_gpu_tests (f8v must give f8's bits).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "kernels/attention_common.cuh"
#include "kernels/e4m3_fragment.hpp"
#include "common/hopper.cuh"
#include "kernels/registry.hpp"
#include "kernels/wgmma_operands.cuh"

#include "kernels/phase_5_launch.cuh"  // the launch; the kernel, kernels/phase_5_kernel.cuh
#include "kernels/timeline_stamped.cuh"  // timeline::Stamped, the stamped launch's policy

namespace attnlab::phase_f8 {
namespace {

using hopper::E4m3Operands;
using hopper::E4m3RawVOperands;
// Ops: E4m3Operands (f8: V^T from the pre-pass) or E4m3RawVOperands (f8v: V turned in the kernel).
template <int D, int TileK, int Stages, bool Causal, int Consumers, bool Split, class Ops = E4m3Operands>
using F8Traits = phase_5::Traits<D, TileK, Stages, Causal, Consumers, Split, Ops>;
template <class T>
using Tag = phase_5::TraitsTag<T>;

// Phase 5's tile choices on e4m3 operands, with these key tiles: 128 keys at D = 64, 192 at
// D = 128 (three column blocks of 64 keys in V^T's tile), under the causal mask too from S 1024
// (timed faster from S 2048; below 1024 a 192-key tile is mostly masked and timed slower:
// kernels/NOTES.md, "FP8: phase f8"). At D = 128 the GEMMs of a key take
// half the cycles fp16's do while the softmax's per key stay the same, so a
// longer tile spreads a tile's fixed work (barriers, the row maxima's reductions, O's rescale)
// over more keys; 192 is the longest whose S, O and P fit a consumer's 240 registers without
// spilling (256, cuDNN's tile there, spills; kernels/NOTES.md, "FP8: phase f8"). Three consumers
// at D = 64 (two for the causal shapes phase 5 gives two), two at D = 128, the key split of the
// last round for non-causal D = 128 items of at least 16 key tiles. An e4m3 tile is half an
// fp16 one, so the same stages leave room for a second Q buffer and O's staging tile. Without
// the mask, 128-key tiles where 192 would leave over 7% of the computed keys past S and 128
// under 2% (S 512 and 1024 of FlashAttention-3's grid, 11.1% with 192: 128 measured faster
// there, and slower at S 2048 and 4096, 3.0%).
// The share of the keys a row's tiles of tile_k keys compute that lie past S.
constexpr double masked_share(int S, int tile_k) {
  return double(ceil_div(S, tile_k) * tile_k - S) / double(ceil_div(S, tile_k) * tile_k);
}
template <int D, class Ops, class Fn>
auto with_traits(const Shape& s, Fn&& fn) {
  if constexpr (D == 64) {
    if (phase_5::two_consumers_at_d64(s.S, s.causal)) return fn(Tag<F8Traits<64, 128, 4, true, 2, false, Ops>>{});
    if (s.causal) return fn(Tag<F8Traits<64, 128, 4, true, 3, false, Ops>>{});
    return fn(Tag<F8Traits<64, 128, 4, false, 3, false, Ops>>{});
  } else {
    if (s.causal && s.S < 1024) return fn(Tag<F8Traits<128, 128, 2, true, 2, false, Ops>>{});
    if (s.causal) return fn(Tag<F8Traits<128, 192, 2, true, 2, false, Ops>>{});
    // Where 192-key tiles leave more than 7% of the keys they compute masked past S and 128-key
    // tiles under 2%, 128 (kernels/NOTES.md, "FP8: phase f8": 128-key tiles where 192 leave).
    if (masked_share(s.S, 192) > 0.07 && masked_share(s.S, 128) < 0.02)
      return fn(Tag<F8Traits<128, 128, 2, false, 2, false, Ops>>{});
    if (ceil_div(s.S, 192) >= phase_5::kMinSplitTiles) return fn(Tag<F8Traits<128, 192, 2, false, 2, true, Ops>>{});
    return fn(Tag<F8Traits<128, 192, 2, false, 2, false, Ops>>{});
  }
}
template <class Ops = E4m3Operands, class Fn>
auto with_shape_traits(const Shape& s, Fn&& fn) {
  return s.D == 64 ? with_traits<64, Ops>(s, fn) : with_traits<128, Ops>(s, fn);
}

// The workspace: phase 5's scratch (scheduler counter, key-split partials), then V^T where the
// pre-pass writes it.
struct Workspace {
  std::size_t vt_offset, bytes;  // [bytes]
};
template <class T>
Workspace workspace_of(const Shape& s) {
  const std::size_t scratch = (phase_5::scratch_layout_of<T>(s).bytes + 255) / 256 * 256;
  if constexpr (T::Ops::kTransposesV) return {scratch, scratch};
  const std::size_t vt = std::size_t(s.B) * s.H_kv * s.D * std::size_t(E4m3Operands::vt_pitch(s.S));
  return {scratch, scratch + vt};
}

// V [plane][S][D] e4m3 into V^T [plane][D][pitch]: a block turns 128 keys of one plane through
// shared memory, keys past S written as zeros (their weights are zero, and a NaN code there would
// still poison the product). Column c of each 32 takes key e4m3::key_of_column(c % 32) of them,
// which keeps each 16 columns within 16 consecutive keys: a thread turns 16 keys at 4 head-dim
// bytes into 4 rows of 16 bytes of V^T, 4 x 4 blocks of bytes at a time by byte permutes, and
// stores each row's 16 bytes as one vector, 8 lanes a whole 128-byte line. A thread's four
// 16-byte loads of V all go out before its first shared store. Why whole lines: with stores of
// 32 bytes a line it read V at about 1.8 TB/s, the L2 about four-fifths busy, no faster than
// with 64 (kernels/NOTES.md, "FP8: phase f8": V's pre-pass at the HBM's rate).
constexpr int kTransposeKeys = 128;
template <int D>
constexpr int transpose_threads() { return 2 * D; }  // a thread per 16 keys x 4 bytes: (128 / 16) (D / 4)
// The keys of V^T's columns 4q' .. 4q' + 3 of a 32-key step (q' = 0..7): k0, k0 + 1, k0 + 8 and
// k0 + 9, with k0 = 16 (q' / 4) + 2 (q' % 4) (e4m3::key_of_column; tests/cpu/test_e4m3_fragment.cpp).
__host__ __device__ constexpr int first_key_of_word(int q) { return 16 * (q / 4) + 2 * (q % 4); }
__host__ __device__ constexpr int word_key_offset(int b) { return b % 2 + 8 * (b / 2); }  // 0, 1, 8, 9
// Bytes j of w[0..3] into out[j]: pairs first (w0, w1 and w2, w3 interleaved), then halves.
__device__ __forceinline__ void transpose_4x4(const std::uint32_t (&w)[4], std::uint32_t (&out)[4]) {
  const std::uint32_t lo01 = __byte_perm(w[0], w[1], 0x5140), hi01 = __byte_perm(w[0], w[1], 0x7362);
  const std::uint32_t lo23 = __byte_perm(w[2], w[3], 0x5140), hi23 = __byte_perm(w[2], w[3], 0x7362);
  out[0] = __byte_perm(lo01, lo23, 0x5410);
  out[1] = __byte_perm(lo01, lo23, 0x7632);
  out[2] = __byte_perm(hi01, hi23, 0x5410);
  out[3] = __byte_perm(hi01, hi23, 0x7632);
}
template <int D>
__global__ void __launch_bounds__(transpose_threads<D>())
    transpose_v_kernel(const std::uint8_t* __restrict__ v, std::uint8_t* __restrict__ vt, int S, int pitch) {
  constexpr int kThreads = transpose_threads<D>();
  constexpr int kRowWords = D / 4;
  constexpr int kLoads = kTransposeKeys * D / 16 / kThreads;  // 16-byte loads a thread
  // Key k's word w sits at word (w + 4 (k / 16)) mod (D / 4) of its row: the 8 groups of 16 keys
  // rotated by 4 words each, so that 8 lanes reading 8 groups at one head-dim word, 4 such words
  // a warp, hit 32 different banks at D = 128 (2-way at D = 64, whose rows are 16 words), while a
  // 16-byte chunk of a row stays whole.
  __shared__ alignas(16) std::uint32_t tile[kTransposeKeys * kRowWords];
  const auto at = [](int k, int w) { return k * kRowWords + (w + 4 * (k / 16)) % kRowWords; };
  const int key0 = int(blockIdx.x) * kTransposeKeys;
  const std::size_t plane = blockIdx.y;
  const std::uint8_t* src = v + plane * std::size_t(S) * D;
  uint4 x[kLoads];
#pragma unroll
  for (int n = 0; n < kLoads; ++n) {
    const int i = int(threadIdx.x) + n * kThreads, r = i / (D / 16), c = i % (D / 16);
    x[n] = make_uint4(0, 0, 0, 0);
    if (key0 + r < S) x[n] = reinterpret_cast<const uint4*>(src + std::size_t(key0 + r) * D)[c];
  }
#pragma unroll
  for (int n = 0; n < kLoads; ++n) {
    const int i = int(threadIdx.x) + n * kThreads, r = i / (D / 16), c = i % (D / 16);
    *reinterpret_cast<uint4*>(tile + at(r, 4 * c)) = x[n];
  }
  __syncthreads();
  // A warp takes the block's 128 keys (8 lanes of 16) at 16 head-dim rows (4 words of 4), so that
  // each of its stores writes four whole 128-byte lines of V^T.
  const int group = int(threadIdx.x) % 8;  // of 16 keys: keys 16 group .. 16 group + 15
  const int w0 = int(threadIdx.x) / 8;     // head-dim word: bytes 4 w0 .. 4 w0 + 3
  if (key0 + 16 * group >= pitch) return;  // pitch is whole 64-key blocks: a group is in or out
  std::uint32_t rows[4][4];                // [V^T row 4 w0 + j][word q]
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int k0 = 32 * (group / 2) + first_key_of_word(4 * (group % 2) + q);  // its 32-key step's word
    std::uint32_t w[4], out[4];
#pragma unroll
    for (int b = 0; b < 4; ++b) w[b] = tile[at(k0 + word_key_offset(b), w0)];
    transpose_4x4(w, out);
#pragma unroll
    for (int j = 0; j < 4; ++j) rows[j][q] = out[j];
  }
  std::uint8_t* dst = vt + plane * std::size_t(D) * pitch + key0 + 16 * group;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    *reinterpret_cast<uint4*>(dst + std::size_t(4 * w0 + j) * pitch) = make_uint4(rows[j][0], rows[j][1], rows[j][2], rows[j][3]);
}
static_assert([] {
  for (int c = 0; c < e4m3::kStepKeys; ++c)
    if (first_key_of_word(c / 4) + word_key_offset(c % 4) != e4m3::key_of_column(c)) return false;
  return true;
}(), "the byte permutes' key order is V^T's column order");

void launch_transpose_v(const Problem& p, std::uint8_t* vt, cudaStream_t stream) {
  const Shape& s = p.shape;
  const int pitch = E4m3Operands::vt_pitch(s.S);
  const dim3 grid(unsigned(ceil_div(pitch, kTransposeKeys)), unsigned(s.B * s.H_kv));
  const auto* v = static_cast<const std::uint8_t*>(p.v);
  if (s.D == 64)
    transpose_v_kernel<64><<<grid, transpose_threads<64>(), 0, stream>>>(v, vt, s.S, pitch);
  else
    transpose_v_kernel<128><<<grid, transpose_threads<128>(), 0, stream>>>(v, vt, s.S, pitch);
  ATTNLAB_CHECK_LAUNCH();
}

}  // namespace

Refusal can_implement(const Shape& s) {
  if (auto r = query_tiled_refusal(s, "phase f8")) return r;
  // The grid's y of the pre-pass: one KV plane per block row.
  if (std::int64_t(s.B) * s.H_kv > 65535) return "B*H_kv exceeds the pre-pass's 65535 y-blocks";
  return std::nullopt;
}
Refusal can_implement_v(const Shape& s) { return query_tiled_refusal(s, "phase f8v"); }

// Per operand policy (E4m3Operands: f8, E4m3RawVOperands: f8v), the registry's functions.
template <class Ops>
Refusal refusal(const Shape& s) {
  return Ops::kTransposesV ? can_implement_v(s) : can_implement(s);
}

template <class Ops>
std::size_t workspace_bytes(const Shape& s) {
  if (refusal<Ops>(s)) return 0;
  return with_shape_traits<Ops>(s, [&](auto tag) { return workspace_of<typename decltype(tag)::type>(s).bytes; });
}

// f8: the pre-pass, then phase 5's launch on E4m3Operands with V^T from the workspace; f8v:
// phase 5's launch on E4m3RawVOperands alone. The timed kernels (no stamps) and the timeline's
// (kernels/timeline.cuh) from one source.
template <class Ops, class Stamps>
void launch_stamped(const Problem& p, cudaStream_t stream) {
  if (auto why = refusal<Ops>(p.shape)) throw std::invalid_argument(*why);
  const char* const id = Ops::kTransposesV ? "phase f8v" : "phase f8";
  if (p.format != InputFormat::kE4m3)
    throw std::invalid_argument(std::string(id) + " reads e4m3 Q, K and V (Problem::format kE4m3)");
  require_vector_alignment(p);
  with_shape_traits<Ops>(p.shape, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Workspace w = workspace_of<T>(p.shape);
    if (p.workspace == nullptr || p.workspace_bytes < w.bytes)
      throw std::invalid_argument(std::string(id) + " at " + shape_name(p.shape) + " needs a zeroed workspace of " +
                                  std::to_string(w.bytes) + " bytes (Phase::workspace_bytes), got " +
                                  std::to_string(p.workspace ? p.workspace_bytes : 0));
    if constexpr (Ops::kTransposesV) {
      phase_5::launch_with<T, Stamps>(p, nullptr, stream);
    } else {
      auto* const vt = static_cast<std::uint8_t*>(p.workspace) + w.vt_offset;
      launch_transpose_v(p, vt, stream);
      phase_5::launch_with<T, Stamps>(p, vt, stream);
    }
  });
}

template <class Ops>
void launch(const Problem& p, cudaStream_t stream) { launch_stamped<Ops, timeline::NoStamps>(p, stream); }
template <class Ops>
void launch_timeline(const Problem& p, cudaStream_t stream) { launch_stamped<Ops, timeline::Stamped>(p, stream); }

// The attention kernel's geometry (f8's pre-pass, a small grid, runs before it).
template <class Ops>
std::optional<LaunchGeometry> launch_geometry(const Shape& s, int sms) {
  if (refusal<Ops>(s)) return std::nullopt;
  return with_shape_traits<Ops>(
      s, [&](auto tag) { return std::optional(phase_5::geometry_of<typename decltype(tag)::type>(s, sms)); });
}

template <class Ops>
std::optional<TensorIssueWork> tensor_issue_work(const Shape& s, int /*sms*/) {
  if (refusal<Ops>(s)) return std::nullopt;
  return with_shape_traits<Ops>(s, [&](auto tag) { return phase_5::issue_work_of<typename decltype(tag)::type>(); });
}

template <class Ops>
std::optional<std::int64_t> work_items(const Shape& s, int /*sms*/) {
  if (refusal<Ops>(s)) return std::nullopt;
  return with_shape_traits<Ops>(s, [&](auto tag) {
    return std::int64_t(ceil_div(s.S, decltype(tag)::type::kTileQ)) * s.B * s.H;
  });
}

// The registry entries of both phases, from the operand policy.
template <class Ops>
void declare_launch(Phase& p) {
  p.required_cc = 90;
  p.input_format = InputFormat::kE4m3;
  p.can_implement = &refusal<Ops>;
  p.launch = &launch<Ops>;
  p.launch_timeline = &launch_timeline<Ops>;
  p.warp_role = &phase_5::warp_role;  // phase 5's kernel, phase 5's warps
  p.tensor_issue_work = &tensor_issue_work<Ops>;
  p.work_items = &work_items<Ops>;
  p.launch_geometry = &launch_geometry<Ops>;
  p.workspace_bytes = &workspace_bytes<Ops>;
}

}  // namespace attnlab::phase_f8

// How far past phase 5 (fp16) does the same kernel go on e4m3 operands, with V transposed by a
// pre-pass in the same launch?
ATTNLAB_PHASE(f8) {
  p.title = "FP8 e4m3 wgmma + TMA";
  p.technique =
      "phase 5's warp-specialised persistent kernel on e4m3 Q, K, V with per-tensor descales: "
      "e4m3 wgmma (k32) for QK^T and PV, P scaled by 2^8 and rounded to e4m3 in registers, at D=128 "
      "every eighth exp2 of the softmax on the FMA pipe, V transposed into the workspace by a pre-pass "
      "kernel of the same launch";
  phase_f8::declare_launch<hopper::E4m3Operands>(p);
  p.question = "e4m3 operands in phase 5's kernel, V^T by a pre-pass: how far past fp16 phase 5?";
  p.default_shapes = {"throughput", "4x16x4096x128", "16x16x2048x64:causal", "4x16x4096x128:causal"};
}

// What does V's pre-pass cost f8, against V turned inside the kernel by the producer warpgroup's
// idle warps?
ATTNLAB_PHASE(f8v) {
  p.title = "FP8, V transposed in the kernel";
  p.technique =
      "phase f8 without the pre-pass: TMA loads V's tiles as stored into a ring of their own, and "
      "the producer warpgroup's three other warps write each V^T tile from it in shared memory "
      "(ldmatrix.trans of 32 keys by 16 bytes, byte permutes, stmatrix) for the PV wgmma";
  phase_f8::declare_launch<hopper::E4m3RawVOperands>(p);
  p.question = "f8 with V^T written in shared memory by the producer warpgroup: what does the pre-pass cost?";
  p.default_shapes = {"4x16x4096x128", "16x16x1024x128", "4x16x4096x128:causal", "16x16x2048x64:causal"};
}
