// The numbering of a query-tiled launch's work items, (batch x head, query block) pairs, the L2
// sections it groups heads in, and how items split over keys (the persistent key split, phase
// d4's clusters): host and device code (the schedulers of kernels/tile_pipeline.cuh walk it;
// tests/cpu/test_work_order.cpp checks it without a GPU).
#pragma once

#include <cstdint>

#include "kernels/host_device.hpp"

namespace attnlab {

// Heads go in sections of `section_heads` (the K/V of a section is meant to fit in L2 while its
// items run); inside a section every head's last query block comes first, then every head's
// next-to-last, and so on: under a causal mask the blocks with the most key tiles run first, so
// the shortest items fill the tail (FA3's longest-first order). Without the mask the last block
// is the short one where S does not fill it (a tile's rows past S cost nothing to a consumer
// that has none below S): `last_block_first` false puts every head's first block first and the
// last ones at the section's end, longest first again. section_heads = 1 is head by head.
struct WorkOrder {
  int m_blocks;       // query blocks per head
  int heads;          // B * H
  int section_heads;  // heads per section, 1 .. heads
  bool last_block_first = true;
  struct Item {
    int bh, m_block;
  };
  ATTNLAB_HOST_DEVICE std::int64_t items() const { return std::int64_t(m_blocks) * heads; }
  // Item w of [0, items()).
  ATTNLAB_HOST_DEVICE Item item(std::int64_t w) const {
    const std::int64_t per_section = std::int64_t(section_heads) * m_blocks;
    const int section = int(w / per_section);
    const int offset = int(w - section * per_section);
    const int first = section * section_heads;
    const int in_section = heads - first < section_heads ? heads - first : section_heads;
    const int rank = offset / in_section;
    return {first + offset % in_section, last_block_first ? m_blocks - 1 - rank : rank};
  }
};

// A persistent grid's items of equal cost split over keys where their count is not a multiple
// of the grid (CUTLASS's data-parallel + stream-K hybrid): with n_work = q * grid + r items,
// 0 < r < grid, a static stride leaves the last round r / grid full. Here the first
// (q - 1) * grid items run whole, block b taking b, b + grid, ...; the key tiles of the other
// grid + r items are cut into grid equal ranges, one per block, in item order, so every block
// ends within a tile of the same time. A range is longer than an item, so an item is cut at
// most once: block b + 1 runs its later tiles first (its range's first unit, saving a partial
// result in slot b + 1) and block b its earlier tiles last (its range's last unit, merging that
// partial). Off (split == false) every item runs whole with the static stride.
struct KeySplit {
  std::int64_t n_work = 0;
  std::int64_t n_whole = 0;  // items [0, n_whole) run whole
  int grid = 1;
  int tiles = 1;             // key tiles per item
  // Key tiles [k0, k1) of item w; w = n_work when a block has none left. A unit that runs to
  // its item's last tile has k1 = kToItemEnd.
  struct Unit {
    std::int64_t w;
    int k0, k1;
  };
  static constexpr int kToItemEnd = 1 << 30;
  static KeySplit make(std::int64_t n_work, int grid, int tiles, bool split) {
    KeySplit k;
    k.n_work = n_work;
    k.grid = grid;
    k.tiles = tiles;
    const bool uneven = n_work > grid && n_work % grid != 0;
    const bool fits = std::int64_t(grid) * 2 * grid * tiles < (std::int64_t(1) << 31) &&
                      tiles < (1 << kTileBits);
    k.n_whole = split && uneven && fits ? (n_work / grid - 1) * grid : n_work;
    return k;
  }
  ATTNLAB_HOST_DEVICE bool splits() const { return n_whole < n_work; }
  // Block b's range of the split tiles, numbered item by item from item n_whole's first: fewer
  // than 2 * grid items' tiles, 32-bit arithmetic (make() splits nothing past 2^31).
  ATTNLAB_HOST_DEVICE int begin(int b) const { return b * int(n_work - n_whole) * tiles / grid; }
  // A block's place in its sequence, one integer (what a thread with few registers keeps, and
  // no division per unit): (item << 16) | first key tile; the whole items first, in the stride.
  static constexpr int kTileBits = 16;
  ATTNLAB_HOST_DEVICE std::int64_t place_of_tile(int it) const {
    return (std::int64_t(n_whole + it / tiles) << kTileBits) | (it % tiles);
  }
  ATTNLAB_HOST_DEVICE std::int64_t start(int b) const {
    return b < n_whole ? std::int64_t(b) << kTileBits : place_of_tile(begin(b));
  }
  ATTNLAB_HOST_DEVICE Unit unit(int b, std::int64_t place) const {
    const std::int64_t w = place >> kTileBits;
    if (w < n_whole) return {w, 0, tiles};
    const int k0 = int(place & ((1 << kTileBits) - 1));
    const int it = int(w - n_whole) * tiles + k0;
    const int end = begin(b + 1);
    if (it >= end) return {n_work, 0, 0};
    const int k1 = k0 + (end - it);
    return {w, k0, k1 < tiles ? k1 : tiles};
  }
  // The place after unit u of block b: the next whole item in the stride, then the range's
  // first tile, then the next item's first tile (past the range's end: none).
  ATTNLAB_HOST_DEVICE std::int64_t advance(int b, const Unit& u) const {
    if (u.w < n_whole)
      return u.w + grid < n_whole ? (u.w + grid) << kTileBits : place_of_tile(begin(b));
    return (u.w + 1) << kTileBits;
  }
};

// One item per cluster, not persistent (phase d4's grid): the grid is the work. Along x, C
// blocks (a cluster) per item, a 64-row query tile; the grid's y and z index planes of such
// items (d4: the query head within its KV head's group, and the (batch, KV head) plane), each
// walked alike, which the kernel reads from its block index without a division. Rank r of a
// cluster takes the item's key tiles r, r + C, r + 2 C, ..., so that under the causal mask the
// ranks' shares differ by at most one tile. The interface of the persistent schedulers
// (kernels/tile_pipeline.cuh: start, unit, advance over KeySplit's units) with the key tiles of a
// unit strided by kKeyStride; a block runs one unit, and the place after it is past every item.
template <int C>
struct ClusterScheduler {
  static constexpr bool kSplitsKeys = C > 1;
  static constexpr int kKeyStride = C;  // a unit's tiles: k0, k0 + kKeyStride, ... below the item's
  unsigned rank;                        // the block's rank in its cluster, blockIdx.x % C
  std::int64_t n_items;                 // items along x: gridDim.x / C
  ATTNLAB_HOST_DEVICE std::int64_t start(int block) const { return unsigned(block) / C; }
  ATTNLAB_HOST_DEVICE KeySplit::Unit unit(int, std::int64_t place) const {
    return {place, int(rank), KeySplit::kToItemEnd};
  }
  ATTNLAB_HOST_DEVICE std::int64_t advance(int, const KeySplit::Unit&) const { return n_items; }
  // How many of an item's n key tiles unit u takes, and the i-th of them.
  ATTNLAB_HOST_DEVICE static int tiles(const KeySplit::Unit& u, int n) { return u.k0 < n ? ceil_div(n - u.k0, C) : 0; }
  ATTNLAB_HOST_DEVICE static int tile(const KeySplit::Unit& u, int i) { return u.k0 + i * C; }
};

// Heads whose K and V fit in a share of the H100's 50 MB L2 together, which leaves room for the
// Q and O streams: FA3's 32 MB, and 8 MB where a K/V head is at most 512 KB (S * D <= 2^17).
// Short heads are read by few, short items, and with 32 MB sections the 132 items in flight
// each read a different head (more DRAM bytes than cuDNN reads); 8 MB sections read higher at
// S = 512 and 1024 (both head dims), level at 2048 x 64 and no higher at 4096 x 128.
// Under the causal mask from S = 2048 on, 32 MB again: at 2048 x 64 (three consumers) 32 MB
// sections read higher against cuDNN, while at 1024 x 128, a head of the same size, they read
// lower (kernels/NOTES.md, "Why phase 5 and d4 are as they are": L2 sections of 8 MB and 32 MB).
// A K/V head of S keys serves `group` query heads (GQA). At least 1, at most `heads`.
inline int l2_section_heads(int S, int D, int group, int heads, bool causal = false) {
  constexpr std::int64_t kL2Share = 32ll << 20;           // [bytes]
  constexpr std::int64_t kL2ShareShortHeads = 8ll << 20;  // [bytes]
  constexpr std::int64_t kShortHeadBytes = 512ll << 10;   // [bytes]
  const std::int64_t kv_head_bytes = 2ll * S * D * 2;     // K and V, fp16 [bytes]
  const bool short_heads = kv_head_bytes <= kShortHeadBytes && !(causal && S >= 2048);
  const std::int64_t share = short_heads ? kL2ShareShortHeads : kL2Share;
  const std::int64_t fit = share / kv_head_bytes > 0 ? share / kv_head_bytes : 1;
  return int(fit * group < heads ? fit * group : heads);
}

}  // namespace attnlab
