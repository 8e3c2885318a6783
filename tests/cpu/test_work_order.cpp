// The work-item numbering of the persistent phases (kernels/work_order.hpp): every item once,
// longest first inside an L2 section, head by head at one head per section, and the section
// size from the L2 share.
#include <gtest/gtest.h>

#include <set>
#include <utility>

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

}  // namespace
}  // namespace attnlab
