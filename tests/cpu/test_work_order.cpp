// The work-item numbering of the persistent phases (kernels/work_order.hpp): every item once,
// longest first inside an L2 section, head by head at one head per section, and the section
// size from the L2 share; the key split of the persistent grid and phase d4's clusters.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "kernels/work_order.hpp"

namespace attnlab {
namespace {

TEST(WorkOrder, EveryItemOnceAndLongestFirstInsideASection) {
  // Section sizes that divide the heads and ones that leave a short last section.
  for (const WorkOrder order : {WorkOrder{11, 256, 64}, WorkOrder{3, 7, 2}, WorkOrder{5, 9, 9},
                                WorkOrder{1, 4, 3}, WorkOrder{32, 64, 16}}) {
    std::set<std::pair<int, int>> seen;
    int last_section = -1;
    int last_m = 0;
    for (std::int64_t w = 0; w < order.items(); ++w) {
      const WorkOrder::Item it = order.item(w);
      ASSERT_GE(it.bh, 0);
      ASSERT_LT(it.bh, order.heads);
      ASSERT_GE(it.m_block, 0);
      ASSERT_LT(it.m_block, order.m_blocks);
      EXPECT_TRUE(seen.insert({it.bh, it.m_block}).second) << "item " << w << " repeats";
      const int section = it.bh / order.section_heads;
      if (section == last_section) EXPECT_LE(it.m_block, last_m) << "item " << w;
      else EXPECT_EQ(it.m_block, order.m_blocks - 1) << "a section starts at its longest block";
      last_section = section;
      last_m = it.m_block;
    }
    EXPECT_EQ(std::int64_t(seen.size()), order.items());
  }
}

TEST(WorkOrder, FirstBlockFirstPutsTheLastBlocksAtTheSectionsEnd) {
  for (const WorkOrder order : {WorkOrder{11, 256, 16, false}, WorkOrder{3, 7, 2, false},
                                WorkOrder{1, 4, 3, false}}) {
    std::set<std::pair<int, int>> seen;
    int last_section = -1;
    int last_m = 0;
    for (std::int64_t w = 0; w < order.items(); ++w) {
      const WorkOrder::Item it = order.item(w);
      ASSERT_LT(it.bh, order.heads);
      ASSERT_LT(it.m_block, order.m_blocks);
      EXPECT_TRUE(seen.insert({it.bh, it.m_block}).second) << "item " << w << " repeats";
      const int section = it.bh / order.section_heads;
      if (section == last_section) EXPECT_GE(it.m_block, last_m) << "item " << w;
      else EXPECT_EQ(it.m_block, 0) << "a section starts at its first block";
      last_section = section;
      last_m = it.m_block;
    }
    EXPECT_EQ(std::int64_t(seen.size()), order.items());
  }
  // 2 heads a section, 3 blocks: both heads' block 0, then block 1, then block 2.
  const WorkOrder order{3, 4, 2, false};
  EXPECT_EQ(order.item(1).bh, 1);
  EXPECT_EQ(order.item(1).m_block, 0);
  EXPECT_EQ(order.item(5).bh, 1);
  EXPECT_EQ(order.item(5).m_block, 2);
  EXPECT_EQ(order.item(6).bh, 2);
  EXPECT_EQ(order.item(6).m_block, 0);
}

TEST(WorkOrder, OneHeadPerSectionIsHeadByHead) {
  const WorkOrder order{6, 5, 1};
  for (std::int64_t w = 0; w < order.items(); ++w) {
    EXPECT_EQ(order.item(w).bh, w / 6);
    EXPECT_EQ(order.item(w).m_block, 5 - w % 6);
  }
}

TEST(WorkOrder, SectionHeadsFromTheL2Share) {
  // K and V of one head at S = 4096, D = 128: 2 MiB, so 16 heads in 32 MiB.
  EXPECT_EQ(l2_section_heads(4096, 128, 1, 64), 16);
  EXPECT_EQ(l2_section_heads(4096, 128, 4, 256), 64);   // GQA: a K/V head serves 4 query heads
  EXPECT_EQ(l2_section_heads(4096, 128, 1, 8), 8);      // never more than there are
  EXPECT_EQ(l2_section_heads(1 << 17, 128, 1, 8), 1);   // one head past the share: 1
  // Heads of at most 512 KiB share 8 MiB: 16 at S = 2048, D = 64 (512 KiB), 32 at 512 x 128.
  EXPECT_EQ(l2_section_heads(2048, 64, 1, 256), 16);
  EXPECT_EQ(l2_section_heads(512, 128, 1, 512), 32);
  // Just past 512 KiB (S = 2049, D = 64): the 32 MiB share again.
  EXPECT_EQ(l2_section_heads(2049, 64, 1, 256), 63);
  // Causal from S = 2048 on: the 32 MiB share for 512 KiB heads; below, 8 MiB as without the mask.
  EXPECT_EQ(l2_section_heads(2048, 64, 1, 256, true), 64);
  EXPECT_EQ(l2_section_heads(1024, 128, 1, 256, true), 16);
  EXPECT_EQ(l2_section_heads(512, 128, 1, 512, true), 32);
}

// Every block's units played out: every key tile of every item once, the whole items in the
// static stride, an item cut at most once (its later tiles block b + 1's first split unit, its
// earlier ones block b's last), and every block's share within one tile of the others'.
TEST(KeySplit, EveryKeyTileOnceAndACutItemBetweenNeighbours) {
  struct Case {
    std::int64_t n_work;
    int grid, tiles;
  };
  for (const Case c : {Case{2048, 132, 32}, Case{2048, 132, 4}, Case{2816, 132, 16},
                       Case{2816, 132, 1}, Case{133, 132, 7}, Case{264, 132, 3}, Case{1000, 7, 5},
                       Case{10, 4, 2}, Case{8, 8, 9}, Case{5, 8, 3}}) {
    for (const bool split : {false, true}) {
      const KeySplit ks = KeySplit::make(c.n_work, c.grid, c.tiles, split);
      const bool uneven = c.n_work > c.grid && c.n_work % c.grid != 0;
      EXPECT_EQ(ks.splits(), split && uneven) << c.n_work << " items, grid " << c.grid;
      std::map<std::int64_t, std::vector<int>> tiles_of;  // item -> how often each tile ran
      std::map<std::int64_t, int> cut_later, cut_earlier;    // item -> block
      std::int64_t least = -1, most = 0;
      for (int b = 0; b < c.grid; ++b) {
        std::int64_t share = 0, w_expected = b;
        int units = 0, split_units = 0, last_split_k1 = 0;
        for (std::int64_t at = ks.start(b);; at = ks.advance(b, ks.unit(b, at)), ++units) {
          const KeySplit::Unit u = ks.unit(b, at);
          if (u.w >= c.n_work) break;
          ASSERT_LT(units, 100000) << "no end";
          ASSERT_GE(u.w, 0);
          ASSERT_LE(0, u.k0);
          ASSERT_LT(u.k0, u.k1);
          ASSERT_LE(u.k1, c.tiles);
          auto& ran = tiles_of[u.w];
          ran.resize(std::size_t(c.tiles));
          for (int k = u.k0; k < u.k1; ++k) ++ran[std::size_t(k)];
          share += u.k1 - u.k0;
          if (u.w < ks.n_whole) {
            EXPECT_EQ(u.w, w_expected) << "the static stride";
            EXPECT_EQ(u.k1 - u.k0, c.tiles);
            w_expected += c.grid;
            continue;
          }
          if (u.k0 > 0) {
            EXPECT_EQ(split_units, 0) << "a cut item's later tiles come first in a range";
            cut_later[u.w] = b;
          }
          if (split_units > 0) {
            EXPECT_EQ(last_split_k1, c.tiles) << "a unit that cuts an item ends its range";
          }
          if (u.k1 < c.tiles) cut_earlier[u.w] = b;
          last_split_k1 = u.k1;
          ++split_units;
        }
        least = least < 0 ? share : std::min(least, share);
        most = std::max(most, share);
      }
      for (std::int64_t w = 0; w < c.n_work; ++w) {
        ASSERT_EQ(tiles_of.count(w), 1u) << "item " << w << " never ran";
        for (int k = 0; k < c.tiles; ++k) EXPECT_EQ(tiles_of[w][std::size_t(k)], 1) << w << ", " << k;
      }
      EXPECT_EQ(cut_later.size(), cut_earlier.size());
      for (const auto& [w, b] : cut_later) {
        ASSERT_EQ(cut_earlier.count(w), 1u) << "item " << w;
        EXPECT_EQ(cut_earlier[w], b - 1) << "item " << w << ": the block before the later tiles'";
      }
      if (ks.splits()) {
        EXPECT_LE(most - least, 1) << "shares within a tile";
      } else {
        EXPECT_TRUE(cut_later.empty());
      }
    }
  }
}

// Phase d4's clusters played out, C blocks per item: every key tile of every item once, taken
// by the block of its item's cluster whose rank is the tile's remainder mod C (the stride that
// keeps causal work balanced), the ranks' shares within one tile, and one unit per block.
template <int C>
void every_key_tile_once_among_the_ranks() {
  for (const int items : {1, 3, 8}) {
    for (int n = 0; n <= 4 * C + 3; ++n) {  // an item's key tiles (0: a tile of rows past S)
      std::map<std::pair<std::int64_t, int>, int> ran;  // (item, key tile) -> how often
      for (int b = 0; b < items * C; ++b) {
        const ClusterScheduler<C> sched{unsigned(b % C), items};
        const std::int64_t place = sched.start(b);
        const KeySplit::Unit u = sched.unit(b, place);
        EXPECT_EQ(u.w, b / C) << "block " << b << " of clusters of " << C;
        const int mine = ClusterScheduler<C>::tiles(u, n);
        EXPECT_LE(mine * C, n + C - 1) << "rank " << b % C << " of " << C << ", " << n << " tiles";
        EXPECT_GE(mine * C, n - C + 1) << "rank " << b % C << " of " << C << ", " << n << " tiles";
        for (int i = 0; i < mine; ++i) {
          const int k = ClusterScheduler<C>::tile(u, i);
          ASSERT_GE(k, 0);
          ASSERT_LT(k, n) << "rank " << b % C << " of " << C;
          EXPECT_EQ(k % C, b % C) << "key tile " << k << " of rank " << b % C;
          ++ran[{u.w, k}];
        }
        EXPECT_GE(sched.advance(b, u), items) << "one unit per block";
      }
      for (int w = 0; w < items; ++w)
        for (int k = 0; k < n; ++k) EXPECT_EQ((ran[{w, k}]), 1) << "item " << w << ", key tile " << k << " of " << n;
      EXPECT_EQ(ran.size(), std::size_t(items) * std::size_t(n));
    }
  }
}

TEST(ClusterScheduler, EveryKeyTileOnceAmongTheRanks) {
  every_key_tile_once_among_the_ranks<1>();
  every_key_tile_once_among_the_ranks<2>();
  every_key_tile_once_among_the_ranks<4>();
  every_key_tile_once_among_the_ranks<8>();
}

}  // namespace
}  // namespace attnlab
