// V's transpose inside shared memory for the e4m3 PV wgmma, the index math only: host and device
// code (tests/cpu/test_e4m3_transpose.cpp emulates ldmatrix's transposing load on it and checks
// the result against V^T's layout without a GPU). A tile of V as TMA writes it ([keys][D] bytes,
// rows D-byte swizzled, as K's) becomes V^T's tile ([D][keys], column blocks of `block` keys,
// block-byte swizzled, the keys of each 32 in e4m3::key_of_column's order): what the pre-pass of
// kernels/phase_f8_wgmma.cu writes to global memory and TMA then loads. Phase f8v's transposer
// warps run it (kernels/phase_5_kernel.cuh, run_transposer; kernels/NOTES.md, "FP8: phase f8":
// Design for V transposed inside the kernel).
//
// One op of a warp turns 32 keys by 16 head-dim bytes: ldmatrix.x4.trans of four 8 x 8 matrices
// of 16-bit elements (8 keys by 8 byte pairs each, keys 8m .. 8m + 7 of the 32 for matrix m,
// lane l giving the address of matrix l / 8's row l % 8). Lane l then holds, per matrix, the
// byte pair c = l / 4 (head-dim bytes 2c, 2c + 1 of the 16) of keys 2t and 2t + 1 (t = l % 4)
// of that matrix's 8. Two byte permutes of matrices 2i and 2i + 1 give V^T's words of rows
// 2c and 2c + 1 at keys 16i + 2t + {0, 1, 8, 9}: exactly the four keys key_of_column puts in
// columns 16i + 4t .. 16i + 4t + 3. Each lane stores its four words; lanes with c >= 4 store
// the odd row first, so that each store's 32 words fall in 32 banks under either swizzle; one
// stmatrix.x4 stores the four words (transpose_stmatrix_offset), each of its matrices' 8 rows in
// 8 bank groups for the same reason.
#pragma once

#include <cstdint>

#include "kernels/e4m3_fragment.hpp"
#include "kernels/host_device.hpp"

namespace attnlab::e4m3 {

// Unsigned throughout: every index is non-negative, and unsigned division and remainder by the
// powers of two here are shifts and masks, where signed ones cost a correction each (the
// transposer warps' issue slots are the consumers' too).
constexpr unsigned kTransposeKeys = kStepKeys;  // keys of one op: one k-step of the PV wgmma
constexpr unsigned kTransposeBytes = 16;  // head-dim bytes of one op: one swizzle chunk

// The swizzled chunk (16 bytes) that chunk `chunk` of row `row` lands in, for rows of `row_bytes`
// bytes (64 or 128) under the same-sized swizzle (CU_TENSOR_MAP_SWIZZLE_64B / _128B, wgmma's
// 64- and 128-byte K-major layouts): the chunk index XOR the row's bits above one atom row.
ATTNLAB_HOST_DEVICE constexpr unsigned swizzled_chunk(unsigned row, unsigned chunk, unsigned row_bytes) {
  return row_bytes == 128 ? chunk ^ (row % 8) : chunk ^ ((row / 2) % 4);
}

// Byte offset of V's (key, d) in a raw tile: rows of D bytes, D-byte swizzle.
ATTNLAB_HOST_DEVICE constexpr unsigned raw_v_offset(unsigned key, unsigned d, unsigned D) {
  return key * D + swizzled_chunk(key, d / 16, D) * 16 + d % 16;
}

// Byte offset of V^T's (d, column) in a tile of column blocks of `block` keys (64 or 128), each
// block D rows of `block` bytes under the block-byte swizzle (E4m3Operands::vt_block_keys).
ATTNLAB_HOST_DEVICE constexpr unsigned vt_offset(unsigned d, unsigned col, unsigned block, unsigned D) {
  const unsigned b = col / block, c = col % block;
  return b * D * block + d * block + swizzled_chunk(d, c / 16, block) * 16 + c % 16;
}

// Ops of a tile: its 32-key steps by its 16-byte head-dim chunks; op o is step o / (D / 16),
// chunk o % (D / 16).
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_ops(unsigned tile_k, unsigned D) {
  return (tile_k / kTransposeKeys) * (D / kTransposeBytes);
}

// The raw tile's byte offset whose 16 bytes lane `lane` gives ldmatrix.x4 in op `op`.
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_load_offset(unsigned op, unsigned lane, unsigned D) {
  const unsigned step = op / (D / kTransposeBytes), chunk = op % (D / kTransposeBytes);
  return raw_v_offset(kTransposeKeys * step + lane, kTransposeBytes * chunk, D);
}

// V^T's words of rows 2c and 2c + 1 from two matrices' registers: keys 2t, 2t + 1 of the first
// (lo) and of the second (hi, 8 keys on), byte pair c of each. Byte selectors of __byte_perm /
// prmt: the even bytes (row 2c) or the odd ones (row 2c + 1) of lo, then of hi.
constexpr std::uint32_t kEvenRowBytes = 0x6420;
constexpr std::uint32_t kOddRowBytes = 0x7531;

// Where lane `lane`'s k-th store (k = 0..3) of op `op` goes: V^T's byte offset, and which of its
// four words (0: matrices 0 and 1, even row; 1: the same, odd row; 2 and 3: matrices 2 and 3).
struct TransposeStore {
  unsigned offset, word;
};
ATTNLAB_HOST_DEVICE constexpr TransposeStore transpose_store(unsigned op, unsigned lane, unsigned k, unsigned block,
                                                             unsigned D) {
  const unsigned step = op / (D / kTransposeBytes), chunk = op % (D / kTransposeBytes);
  const unsigned c = lane / 4, t = lane % 4;
  const unsigned pair = k / 2;                    // matrices 2 pair, 2 pair + 1
  const unsigned odd = (k % 2) ^ (c >= 4 ? 1u : 0u);  // c >= 4: the odd row first
  const unsigned d = kTransposeBytes * chunk + 2 * c + odd;
  const unsigned col = kTransposeKeys * step + 16 * pair + 4 * t;
  return {vt_offset(d, col, block, D), 2 * pair + odd};
}

// The same four words stored by one stmatrix.x4: register m is the k = m word, and the lane
// gives the address of row lane % 8 of matrix lane / 8, the 16 bytes that lanes 4 (lane % 8) ..
// 4 (lane % 8) + 3 write with their k = lane / 8 words (transpose_store's, t = 0).
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_stmatrix_offset(unsigned op, unsigned lane, unsigned block,
                                                                 unsigned D) {
  return transpose_store(op, 4 * (lane % 8), lane / 8, block, D).offset;
}

// A transposer warp's ops, as the kernel walks them: warp w of W takes the head-dim chunks w,
// w + W, ... and each chunk's 32-key steps in order. A lane's addresses then cost a few integer
// instructions per op: its load moves by 32 rows of D bytes per step (the raw tile's swizzle
// depends on the lane alone, a step being whole swizzle atoms) and the chunk flips its bits; its
// stmatrix row moves by 16 head-dim rows per chunk, and a step adds its column block and an XOR
// of the step with a lane constant. The per-op functions above, evaluated whole per op, took
// twice the instructions, on warps whose issue slots the consumers share.
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_step_bytes(unsigned D) { return kTransposeKeys * D; }

// Lane `lane`'s ldmatrix address in a raw tile for the first chunk and the first 32 keys; the
// s-th 32 keys add s * transpose_step_bytes(D) (transpose_load_offset of op s * (D / 16) + chunk).
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_load_base(unsigned lane, unsigned D) {
  return lane * D + swizzled_chunk(lane, 0, D) * kTransposeBytes;
}
// The same lane's address at chunk `chunk`, first 32 keys, from its first-chunk address in a
// tile that starts at a multiple of 1024 bytes: the swizzle XORs the chunk into bits 4 and up of
// a row's offset, which neither the row (a multiple of D) nor the tile's start carries into.
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_load_chunk(unsigned load0, unsigned chunk) {
  return load0 ^ (chunk * kTransposeBytes);
}

// Lane `lane`'s stmatrix row (transpose_stmatrix_offset's row for k = lane / 8, t = 0) at chunk
// 0: head-dim row d = 2 c + odd (c = lane % 8) of a column block of `block` bytes; chunk `chunk`
// adds chunk * transpose_chunk_rows_bytes(block), 16 rows.
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_store_d(unsigned lane) {
  const unsigned c = lane % 8, odd = ((lane / 8) % 2) ^ (c >= 4 ? 1u : 0u);
  return 2 * c + odd;
}
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_store_row(unsigned lane, unsigned block) {
  return transpose_store_d(lane) * block;
}
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_chunk_rows_bytes(unsigned block) { return kTransposeBytes * block; }
// The lane's constant of the swizzled chunk, times 16: the store's 16-byte chunk in its row is
// (2 (step % (block / 32)) + pair) XOR the row's swizzle bits (pair = lane / 16; d % 8 under the
// 128-byte swizzle, (d / 2) % 4 under the 64-byte one, the same at every chunk, which adds 16 to
// d), and as 2 j + pair has no carry, that is (32 j) XOR 16 (pair XOR swizzle).
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_store_xor(unsigned lane, unsigned block) {
  const unsigned d = transpose_store_d(lane);
  const unsigned swizzle = block == 128 ? d % 8 : (d / 2) % 4;
  return ((lane / 16) ^ swizzle) * kTransposeBytes;
}
// The step's part of the store: its column block (a V^T block of `rows` rows of `block` bytes
// each: D, or D and the rows of ones where the PV GEMM sums P, E4m3Operands::vt_block_rows) and
// the swizzled chunk within the row.
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_block_bytes(unsigned block, unsigned rows) { return rows * block; }
ATTNLAB_HOST_DEVICE constexpr unsigned transpose_store_step(unsigned step, unsigned lane_xor, unsigned block,
                                                            unsigned rows) {
  const unsigned steps_per_block = block / kTransposeKeys;
  return step / steps_per_block * transpose_block_bytes(block, rows) +
         (((step % steps_per_block) * 2 * kTransposeBytes) ^ lane_xor);
}

// prmt selectors of a lane's four stored words in register order: words 0 and 2 from the first
// selector (matrices 0, 1 and 2, 3), 1 and 3 from the second; lanes with c >= 4 store the odd row
// first (transpose_store), so their selectors are swapped rather than their words selected.
struct TransposeSelectors {
  std::uint32_t first, second;
};
ATTNLAB_HOST_DEVICE constexpr TransposeSelectors transpose_selectors(unsigned lane) {
  return lane / 4 >= 4 ? TransposeSelectors{kOddRowBytes, kEvenRowBytes} : TransposeSelectors{kEvenRowBytes, kOddRowBytes};
}

}  // namespace attnlab::e4m3
