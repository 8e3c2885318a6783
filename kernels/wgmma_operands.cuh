// The operand formats of the Hopper attention kernel (kernels/phase_5_kernel.cuh), each a policy
// its traits name: how Q, K and V sit in shared memory and get there (tensor maps, TMA boxes), the
// two GEMMs of a key tile, P's register fragment, and what the host passes for them. Fp16Operands
// is phase 5's; E4m3Operands is the FP8 phase's (kernels/phase_f8_wgmma.cu): e4m3 codes with
// per-tensor descales, V transposed beforehand into the launch's workspace.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cuda/ptx>

#include <cstdint>

#include "kernels/e4m3_fragment.hpp"
#include "common/hopper.cuh"
#include "kernels/problem.hpp"
#include "kernels/wgmma_tile.cuh"

namespace attnlab::hopper {

// The tensor maps of one launch's operands.
struct OperandMaps {
  CUtensorMap q, k, v;
};

struct Fp16Operands {
  using Elem = __half;
  static constexpr bool kTransposesV = false;  // V as TMA loads it is what PV reads
  static constexpr int kStepK = 16;      // k of one wgmma
  static constexpr int kPLog2Scale = 0;  // P as it is: fp16 holds [0, 1] finely
  // P's weights by exp2 on the MUFU: phase 5's fp16 GEMMs take twice the e4m3 ones' cycles, so
  // the MUFU is not what its softmax waits on, and fp16 P keeps 11 significant bits where the
  // log-linear map gives three (E4m3Operands::log_linear_p).
  template <int D>
  static constexpr bool log_linear_p() { return false; }
  // The softmax sums its rows itself: no rows of ones under V's tile (E4m3Operands::pv_sum_rows).
  template <int D>
  static constexpr int pv_sum_rows() { return 0; }
  // Elements per swizzled row of a tile: column blocks of 64 halves (128 bytes).
  template <int D>
  static constexpr int row_elems() { return kSwizzleHalves; }
  struct KernelArgs {};

  // Q's and K's rows [row0, row0 + Rows) of plane z, and V's rows [key0, key0 + TileK) (V as
  // stored, [keys][D]), into column-blocked tiles.
  template <int Rows, int D>
  __device__ static void load_rows(Elem* dst, const CUtensorMap* map, int row0, int z, std::uint64_t* bar) {
    tma_load_tile<D>(dst, map, Rows, row0, z, bar);
  }
  template <int TileK, int D>
  __device__ static void load_v(Elem* dst, const CUtensorMap* map, int key0, int z, std::uint64_t* bar) {
    tma_load_tile<D>(dst, map, TileK, key0, z, bar);
  }
  template <int TileK, int D, int QRows>
  __device__ static void qk(float (&s)[TileK / 2], const Elem* q, const Elem* k) {
    qk_gemm<TileK, D, QRows>(s, q, k);
  }
  template <int TileK, int D>
  __device__ static void pv(float (&o)[D / 2], const std::uint32_t (&p)[TileK / kStepK][4], const Elem* v) {
    pv_gemm<TileK, D>(o, p, v);
  }
  template <int TileK, int D>
  __device__ static void pack(const float (&s)[TileK / 2], std::uint32_t (&p)[TileK / kStepK][4]) {
    pack_p<TileK>(s, p);
  }
  __device__ static void scale_output(const KernelArgs&, float (&)[2]) {}

  static float score_scale(const Problem& p) { return p.scale; }
  static KernelArgs kernel_args(const Problem&) { return {}; }
  template <int D, int TileQ, int TileK>
  static OperandMaps maps(const Problem& p, const void*) {
    const Shape& s = p.shape;
    return {make_tensor_map_sw128(p.q, s.B * s.H, s.S, D, TileQ),
            make_tensor_map_sw128(p.k, s.B * s.H_kv, s.S, D, TileK),
            make_tensor_map_sw128(p.v, s.B * s.H_kv, s.S, D, TileK)};
  }
};

// e4m3 Q, K and V^T, all K-major as the e4m3 wgmma needs them. Q and K are [rows][D] as stored:
// a row of D bytes is one swizzled row (D = 128: the 128-byte swizzle; D = 64: the 64-byte one),
// each k-step advancing by 32 bytes along it. V^T is [D][keys] (kernels/phase_f8_wgmma.cu writes
// it, keys in e4m3::key_of_column's order within each 32); a tile of TileK keys is column blocks
// of D swizzled rows, one TMA box each, as fp16 tiles are blocks of 64 halves: blocks of 128 keys
// (the 128-byte swizzle) where TileK is a multiple of 128, else of 64 (the 64-byte swizzle). P is
// scaled by 2^8 before it becomes e4m3 (rounded at D 64, by the log-linear map at D 128), so its
// largest weight (1) sits at 256 and weights down to 2^-14 stay normal (e4m3's 3 mantissa bits,
// 6% steps at worst, from 2^-6 up); the row sums carry the same factor, so it cancels in O / l.
struct E4m3Operands {
  using Elem = std::uint8_t;
  // V^T comes transposed from the workspace; E4m3RawVOperands turns V inside the kernel.
  static constexpr bool kTransposesV = false;
  static constexpr int kStepK = e4m3::kStepKeys;
  static constexpr int kPLog2Scale = 8;
  // At D 128 P's codes come from the log-linear map (e4m3::log_linear_code), two FFMAs a weight
  // and three byte permutes a register, with no exponential and no conversion: the MUFU's
  // exponentials took as many cycles as the e4m3 GEMMs of a key tile, and without them f8 is
  // faster at every D 128 shape measured, its output still well inside the FP8 gate
  // (kernels/NOTES.md, "FP8: phase f8": P's codes by the log-linear map). It needs the PV
  // GEMM's row sums (pv_sum_rows), which add the codes' values. At D 64 the exponentials: its
  // softmax sums the rows itself, from the weights' float values.
  template <int D>
  static constexpr bool log_linear_p() { return D == 128; }
  // At D 128 the PV GEMM also sums each row of P: every column block of V^T's tile carries
  // pv_sum_rows rows of e4m3 ones under its D rows (written once, before the first copy;
  // write_sum_rows), so PV is m64n136 and its last eight columns are the row's sum of P over the
  // key tile, as P's e4m3 codes have it (the consumer zeroes them before each PV and adds them to
  // its running sums in fp32). The softmax then adds no weights: a turn of a 192-key tile went
  // from 739 SASS instructions to 651, its FADDs from 134 to 40, in the loop the consumers' time
  // is spent on (kernels/NOTES.md, "FP8: phase f8": Row sums by the PV GEMM). At D 64 none: its
  // three consumers have no registers for the four accumulators more.
  template <int D>
  static constexpr int pv_sum_rows() { return D == 128 ? 8 : 0; }
  template <int D>
  static constexpr int row_elems() { return D; }  // a row of Q or K, D bytes
  struct KernelArgs {
    float descale_v;  // O's factor: V's values are its codes times this
  };

  template <int D>
  static constexpr int swizzle_bytes() {
    static_assert(D == 64 || D == 128, "a row of Q or K is one swizzled row");
    return D;
  }
  template <int Rows, int D>
  __device__ static void load_rows(Elem* dst, const CUtensorMap* map, int row0, int z, std::uint64_t* bar) {
    const std::int32_t coords[3] = {0, row0, z};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, map, coords, bar);
  }
  // Keys of V^T per column block of a TileK-key tile: one swizzled row of that many bytes.
  template <int TileK>
  static constexpr int vt_block_keys() {
    static_assert(TileK % 64 == 0, "V^T's tile is whole column blocks of 64 or 128 keys");
    return TileK % 128 == 0 ? 128 : 64;
  }
  // Rows of a column block of V^T's tile in shared memory: D, then the rows of ones.
  template <int D>
  static constexpr int vt_block_rows() { return D + pv_sum_rows<D>(); }
  template <int TileK, int D>
  __device__ static void load_v(Elem* dst, const CUtensorMap* map, int key0, int z, std::uint64_t* bar) {
    constexpr int kBlock = vt_block_keys<TileK>();
#pragma unroll
    for (int b = 0; b < TileK / kBlock; ++b) {
      const std::int32_t coords[3] = {key0 + b * kBlock, 0, z};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                      dst + b * vt_block_rows<D>() * kBlock, map, coords, bar);
    }
  }
  // The rows of ones of a stage of V^T's tiles (pv_sum_rows), by `threads` threads of which this is
  // `thread`. Every byte of them is the same code, so the swizzle has nothing to place; no copy
  // writes them, so once is enough. The caller makes them visible to wgmma's async proxy.
  template <int TileK, int D>
  __device__ static void write_sum_rows(Elem* vt, int thread, int threads) {
    constexpr int kBlock = vt_block_keys<TileK>();
    constexpr int kWords = pv_sum_rows<D>() * kBlock / 4;  // of one column block
    constexpr std::uint32_t kOnes = 0x38383838u;           // four e4m3 1.0s
    for (int i = thread; i < TileK / kBlock * kWords; i += threads) {
      const int b = i / kWords;
      reinterpret_cast<std::uint32_t*>(vt + b * vt_block_rows<D>() * kBlock + D * kBlock)[i % kWords] = kOnes;
    }
  }
  // S = Q K^T of one key tile, issued and committed without waiting.
  template <int TileK, int D, int QRows>
  __device__ static void qk(float (&s)[TileK / 2], const Elem* q, const Elem* k) {
    constexpr std::uint32_t kGroup = 8 * D;  // [bytes] between 8-row groups
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / kStepK; ++kk) {
      const std::uint64_t da = smem_desc<swizzle_bytes<D>()>(q + kk * kStepK, 16, kGroup);
      const std::uint64_t db = smem_desc<swizzle_bytes<D>()>(k + kk * kStepK, 16, kGroup);
      wgmma_ss_e4m3<TileK>(s, da, db, kk > 0);
    }
    wgmma_commit();
  }
  // O += P V of one key tile, P from registers (pack), V^T's tile [D][TileK] (and its rows of ones:
  // O's last pv_sum_rows columns, each row's sum), issued and committed without waiting.
  template <int TileK, int D>
  __device__ static void pv(float (&o)[vt_block_rows<D>() / 2], const std::uint32_t (&p)[TileK / kStepK][4],
                            const Elem* vt) {
    constexpr int kBlock = vt_block_keys<TileK>();
    constexpr int kRows = vt_block_rows<D>();
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < TileK / kStepK; ++kk) {
      const Elem* step = vt + (kk * kStepK / kBlock) * kRows * kBlock + kk * kStepK % kBlock;
      wgmma_rs_e4m3<kRows>(o, p[kk], smem_desc<kBlock>(step, 16, 8 * kBlock), 1);
    }
    wgmma_commit();
  }
  // P as e4m3 in the A fragment of the PV wgmma, each register's four values from the thread's
  // own accumulators (e4m3::p_source): the codes the softmax left there (log_linear_p), or the
  // weights rounded to nearest, saturating.
  template <int TileK, int D>
  __device__ static void pack(const float (&s)[TileK / 2], std::uint32_t (&p)[TileK / kStepK][4]) {
    static_assert(!log_linear_p<D>() || pv_sum_rows<D>() > 0, "a row's sum of codes is the PV GEMM's");
#pragma unroll
    for (int kk = 0; kk < TileK / kStepK; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        p[kk][r] = log_linear_p<D>() ? e4m3::pack_code_register(s + 16 * kk, r) : e4m3::pack_register(s + 16 * kk, r);
  }
  __device__ static void scale_output(const KernelArgs& args, float (&inv_l)[2]) {
    inv_l[0] *= args.descale_v;
    inv_l[1] *= args.descale_v;
  }

  // Q's and K's descales fold into the softmax scale, V's into the output.
  static float score_scale(const Problem& p) { return p.scale * p.descale_q * p.descale_k; }
  static KernelArgs kernel_args(const Problem& p) { return {p.descale_v}; }
  // Keys per row of V^T in the workspace: a whole number of the transpose's 64-key blocks (so
  // every k-step's 32 columns exist, zero past S), rows 16-byte aligned for TMA.
  static int vt_pitch(int S) { return (S + 63) / 64 * 64; }
  // A tensor of e4m3 rows ([planes][S][D], Q's, K's or V's as stored) in boxes of Rows rows, each
  // row one swizzled row of D bytes.
  template <int D, int Rows>
  static CUtensorMap rows_map(const void* base, int planes, int S) {
    const CUtensorMapSwizzle rows = D == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
    return make_tensor_map(base, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, planes, S, D, D, Rows, D, rows);
  }
  template <int D, int TileQ, int TileK>
  static OperandMaps maps(const Problem& p, const void* vt) {
    const Shape& s = p.shape;
    const int pitch = vt_pitch(s.S);
    return {rows_map<D, TileQ>(p.q, s.B * s.H, s.S), rows_map<D, TileK>(p.k, s.B * s.H_kv, s.S),
            make_tensor_map(vt, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, s.B * s.H_kv, D, pitch, pitch, D,
                            vt_block_keys<TileK>(),
                            vt_block_keys<TileK>() == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B)};
  }
};

// E4m3Operands with V turned inside the kernel: TMA loads V's tile as stored ([keys][D], rows
// swizzled as K's) into a ring of its own, and the producer warpgroup's other warps write V^T's
// tile from it (kernels/phase_5_kernel.cuh, run_transposer; the index math:
// kernels/e4m3_transpose.hpp), so no pre-pass and no V^T in the workspace.
struct E4m3RawVOperands : E4m3Operands {
  static constexpr bool kTransposesV = true;
  template <int D, int TileQ, int TileK>
  static OperandMaps maps(const Problem& p, const void*) {
    const Shape& s = p.shape;
    return {rows_map<D, TileQ>(p.q, s.B * s.H, s.S), rows_map<D, TileK>(p.k, s.B * s.H_kv, s.S),
            rows_map<D, TileK>(p.v, s.B * s.H_kv, s.S)};
  }
};

}  // namespace attnlab::hopper
