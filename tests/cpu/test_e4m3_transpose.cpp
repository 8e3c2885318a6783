// V's in-shared-memory transpose for the e4m3 PV wgmma (kernels/e4m3_transpose.hpp), without a
// GPU: ldmatrix.x4.trans, prmt and stmatrix.x4 emulated here from the PTX ISA's definitions, not from the
// header, over a raw tile laid out as TMA's swizzle writes it; the V^T tile the ops store must be
// the one the pre-pass and TMA give (every key in e4m3::key_of_column's order, every byte written
// once), and each op's loads and stores must be free of shared-memory bank conflicts.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "kernels/e4m3_fragment.hpp"
#include "kernels/e4m3_transpose.hpp"

namespace {

using namespace attnlab;

// prmt.b32 (default mode): byte n of the result is byte sel[n] (0..7) of the pair {b, a}, a's
// bytes 0..3 first.
std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t sel) {
  const std::uint64_t both = std::uint64_t(a) | std::uint64_t(b) << 32;
  std::uint32_t r = 0;
  for (int n = 0; n < 4; ++n) r |= std::uint32_t((both >> (8 * ((sel >> (4 * n)) & 7))) & 0xff) << (8 * n);
  return r;
}

// ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16: lane l addresses row l % 8 of matrix l / 8
// (eight 16-bit elements, 16 bytes); with .trans, lane i's register m holds matrix m's elements
// (row 2 (i % 4), column i / 4) in its low half and (row 2 (i % 4) + 1, column i / 4) in its high.
std::uint32_t ldmatrix_trans(const std::vector<std::uint8_t>& smem, const int (&addr)[32], int lane, int m) {
  auto element = [&](int row, int col) {
    const int at = addr[8 * m + row] + 2 * col;
    return std::uint32_t(smem[at]) | std::uint32_t(smem[at + 1]) << 8;
  };
  return element(2 * (lane % 4), lane / 4) | element(2 * (lane % 4) + 1, lane / 4) << 16;
}

struct Config {
  int D, tile_k, block;
};

class E4m3Transpose : public ::testing::TestWithParam<Config> {};

TEST_P(E4m3Transpose, OpsStoreTheTileThePrePassAndTmaGive) {
  const auto [D, tile_k, block] = GetParam();
  std::mt19937 rng(20261129);
  std::vector<std::uint8_t> v(std::size_t(tile_k) * D);  // V [key][d] as stored
  for (auto& x : v) x = std::uint8_t(rng());
  std::vector<std::uint8_t> raw(v.size());  // as TMA writes it, swizzled
  std::set<unsigned> raw_seen;
  for (int key = 0; key < tile_k; ++key)
    for (int d = 0; d < D; ++d) {
      const unsigned at = e4m3::raw_v_offset(unsigned(key), unsigned(d), unsigned(D));
      ASSERT_TRUE(raw_seen.insert(at).second) << "raw (" << key << ", " << d << ")";
      raw[at] = v[std::size_t(key) * D + d];
    }
  std::vector<std::uint8_t> vt(v.size(), 0);
  std::vector<int> writes(v.size(), 0);
  for (int op = 0; op < int(e4m3::transpose_ops(unsigned(tile_k), unsigned(D))); ++op) {
    int addr[32];
    for (int l = 0; l < 32; ++l) addr[l] = int(e4m3::transpose_load_offset(unsigned(op), unsigned(l), unsigned(D)));
    std::uint32_t regs[32][4];
    unsigned word_at[32][4];
    for (int lane = 0; lane < 32; ++lane) {
      std::uint32_t r[4];
      for (int m = 0; m < 4; ++m) r[m] = ldmatrix_trans(raw, addr, lane, m);
      const std::uint32_t words[4] = {prmt(r[0], r[1], e4m3::kEvenRowBytes), prmt(r[0], r[1], e4m3::kOddRowBytes),
                                      prmt(r[2], r[3], e4m3::kEvenRowBytes), prmt(r[2], r[3], e4m3::kOddRowBytes)};
      for (int k = 0; k < 4; ++k) {
        const e4m3::TransposeStore st =
            e4m3::transpose_store(unsigned(op), unsigned(lane), unsigned(k), unsigned(block), unsigned(D));
        ASSERT_EQ(st.offset % 4, 0u);
        // The kernel's stmatrix.x4 gets register k = the k-th store's word.
        regs[lane][k] = words[st.word];
        word_at[lane][k] = st.offset;
      }
    }
    // stmatrix.sync.aligned.m8n8.x4.shared.b16: lane l addresses row l % 8 of matrix l / 8; lane
    // i's register m holds matrix m's row i / 4, 16-bit columns 2 (i % 4) and 2 (i % 4) + 1.
    unsigned row_at[32];
    for (int l = 0; l < 32; ++l)
      row_at[l] = e4m3::transpose_stmatrix_offset(unsigned(op), unsigned(l), unsigned(block), unsigned(D));
    for (int lane = 0; lane < 32; ++lane)
      for (int m = 0; m < 4; ++m) {
        const unsigned at = row_at[8 * m + lane / 4] + 4 * unsigned(lane % 4);
        ASSERT_EQ(at, word_at[lane][m]) << "op " << op << " lane " << lane << " matrix " << m;
        for (int b = 0; b < 4; ++b) {
          vt[std::size_t(at + b)] = std::uint8_t(regs[lane][m] >> (8 * b));
          ++writes[std::size_t(at + b)];
        }
      }
  }
  for (int d = 0; d < D; ++d)
    for (int col = 0; col < tile_k; ++col) {
      const int key = e4m3::kStepKeys * (col / e4m3::kStepKeys) + e4m3::key_of_column(col % e4m3::kStepKeys);
      const unsigned at = e4m3::vt_offset(unsigned(d), unsigned(col), unsigned(block), unsigned(D));
      ASSERT_EQ(writes[std::size_t(at)], 1) << "V^T (" << d << ", " << col << ")";
      ASSERT_EQ(vt[std::size_t(at)], v[std::size_t(key) * D + d]) << "V^T (" << d << ", " << col << ") key " << key;
    }
}

// A shared-memory access of a warp is conflict-free when its 32 words lie in 32 banks (stores of
// a word per lane), or when each 8-lane phase of ldmatrix reads 16 bytes from 8 distinct 16-byte
// bank groups.
TEST_P(E4m3Transpose, LoadsAndStoresAreFreeOfBankConflicts) {
  const auto [D, tile_k, block] = GetParam();
  for (int op = 0; op < int(e4m3::transpose_ops(unsigned(tile_k), unsigned(D))); ++op) {
    for (int m = 0; m < 4; ++m) {
      std::set<unsigned> groups;
      for (int r = 0; r < 8; ++r) {
        const unsigned at = e4m3::transpose_load_offset(unsigned(op), unsigned(8 * m + r), unsigned(D));
        ASSERT_EQ(at % 16, 0u);
        groups.insert(at / 16 % 8);
      }
      EXPECT_EQ(groups.size(), 8u) << "op " << op << " matrix " << m;
    }
    for (int m = 0; m < 4; ++m) {
      std::set<unsigned> groups;
      for (int r = 0; r < 8; ++r) {
        const unsigned at =
            e4m3::transpose_stmatrix_offset(unsigned(op), unsigned(8 * m + r), unsigned(block), unsigned(D));
        ASSERT_EQ(at % 16, 0u);
        groups.insert(at / 16 % 8);
      }
      EXPECT_EQ(groups.size(), 8u) << "op " << op << " stmatrix " << m;
    }
    for (int k = 0; k < 4; ++k) {
      std::set<unsigned> banks;
      for (int lane = 0; lane < 32; ++lane)
        banks.insert(e4m3::transpose_store(unsigned(op), unsigned(lane), unsigned(k), unsigned(block), unsigned(D)).offset / 4 % 32);
      EXPECT_EQ(banks.size(), 32u) << "op " << op << " store " << k;
    }
  }
}

// The kernel's walk (kernels/phase_5_kernel.cuh, run_transposer): transposer warp w of 3 takes the
// head-dim chunks w, w + 3, ... and every 32-key step of each, its load address the chunk's plus
// a step's bytes and its store the chunk's row plus the step's part; together the warps give
// every op exactly once with the addresses of the per-op functions the tests above hold to V^T's
// layout, in a tile that starts at any multiple of 1024 bytes. And the lane's prmt selectors put
// in register k the word transpose_store names for store k.
TEST_P(E4m3Transpose, TheWarpsWalkGivesEachOpsAddresses) {
  const auto [D, tile_k, block] = GetParam();
  const unsigned d = unsigned(D), b = unsigned(block);
  const unsigned steps = unsigned(tile_k) / e4m3::kTransposeKeys, chunks = d / e4m3::kTransposeBytes;
  const unsigned ops = e4m3::transpose_ops(unsigned(tile_k), d);
  ASSERT_EQ(ops, steps * chunks);
  constexpr unsigned kWarps = 3;  // the producer warpgroup's warps 1 .. 3
  std::vector<int> taken(ops, 0);
  for (const unsigned start : {0u, 24u * 1024u})
    for (unsigned warp = 0; warp < kWarps; ++warp)
      for (unsigned lane = 0; lane < 32; ++lane) {
        const unsigned lane_xor = e4m3::transpose_store_xor(lane, b);
        const unsigned load0 = start + e4m3::transpose_load_base(lane, d);
        const unsigned row0 = start + e4m3::transpose_store_row(lane, b);
        for (unsigned chunk = warp; chunk < chunks; chunk += kWarps) {
          const unsigned load = e4m3::transpose_load_chunk(load0, chunk);
          const unsigned row = row0 + chunk * e4m3::transpose_chunk_rows_bytes(b);
          for (unsigned step = 0; step < steps; ++step) {
            const unsigned op = step * chunks + chunk;  // the per-op functions' index
            if (lane == 0 && start == 0) ++taken[op];
            ASSERT_EQ(load + step * e4m3::transpose_step_bytes(d), start + e4m3::transpose_load_offset(op, lane, d))
                << "warp " << warp << " lane " << lane << " op " << op;
            ASSERT_EQ(row + e4m3::transpose_store_step(step, lane_xor, b, d),
                      start + e4m3::transpose_stmatrix_offset(op, lane, b, d))
                << "warp " << warp << " lane " << lane << " op " << op;
          }
        }
      }
  for (unsigned op = 0; op < ops; ++op) EXPECT_EQ(taken[op], 1) << "op " << op;

  std::mt19937 rng(7);
  for (unsigned op = 0; op < ops; ++op)
    for (unsigned lane = 0; lane < 32; ++lane) {
      const std::uint32_t r[4] = {std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())};
      const std::uint32_t words[4] = {prmt(r[0], r[1], e4m3::kEvenRowBytes), prmt(r[0], r[1], e4m3::kOddRowBytes),
                                      prmt(r[2], r[3], e4m3::kEvenRowBytes), prmt(r[2], r[3], e4m3::kOddRowBytes)};
      const e4m3::TransposeSelectors sel = e4m3::transpose_selectors(lane);
      for (unsigned k = 0; k < 4; ++k) {
        const std::uint32_t got = prmt(r[2 * (k / 2)], r[2 * (k / 2) + 1], k % 2 ? sel.second : sel.first);
        EXPECT_EQ(got, words[e4m3::transpose_store(op, lane, k, b, d).word]) << "op " << op << " lane " << lane << " k " << k;
      }
    }
}

// Where the PV GEMM sums P's rows (E4m3Operands::pv_sum_rows), each column block of V^T's stage
// has eight rows of ones under its D rows: the walk's stores, with the block's rows passed as
// such, land each element where the per-op functions put it in a D-row block, moved by the rows
// of ones of the blocks before it, and never in a block's rows of ones. Fails if the walk's
// stride between column blocks stays D rows.
TEST_P(E4m3Transpose, TheWalkSkipsTheRowsOfOnes) {
  const auto [D, tile_k, block] = GetParam();
  const unsigned d = unsigned(D), b = unsigned(block), rows = d + 8;
  const unsigned steps = unsigned(tile_k) / e4m3::kTransposeKeys, chunks = d / e4m3::kTransposeBytes;
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned lane_xor = e4m3::transpose_store_xor(lane, b);
    const unsigned row0 = e4m3::transpose_store_row(lane, b);
    for (unsigned chunk = 0; chunk < chunks; ++chunk)
      for (unsigned step = 0; step < steps; ++step) {
        const unsigned at = row0 + chunk * e4m3::transpose_chunk_rows_bytes(b) +
                            e4m3::transpose_store_step(step, lane_xor, b, rows);
        const unsigned plain = e4m3::transpose_stmatrix_offset(step * chunks + chunk, lane, b, d);
        const unsigned blk = plain / (d * b);
        ASSERT_EQ(at, blk * rows * b + plain % (d * b)) << "lane " << lane << " chunk " << chunk << " step " << step;
        ASSERT_LT(at % (rows * b), d * b) << "a store into the rows of ones";
      }
  }
}

// The tiles f8 runs with: D 128 on 192-key tiles (64-key blocks) and 128-key ones (128-key
// blocks), D 64 on 128-key tiles, and a 64-key tile.
INSTANTIATE_TEST_SUITE_P(Tiles, E4m3Transpose,
                         ::testing::Values(Config{128, 192, 64}, Config{128, 128, 128}, Config{64, 128, 128},
                                           Config{128, 64, 64}),
                         [](const auto& info) {
                           return "D" + std::to_string(info.param.D) + "_keys" + std::to_string(info.param.tile_k) +
                                  "_block" + std::to_string(info.param.block);
                         });

}  // namespace
