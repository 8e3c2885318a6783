// Phase b5's split last round (kernels/split_round.hpp): every block's parts, walked as
// BlockWork walks them, cover each split tile's steps exactly once, each part inside its tile.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/split_round.hpp"

namespace attnlab {
namespace {

// Walks block b's range as BlockWork::next does (the block's steps so far decide where its next
// part starts) and marks each step of the split round it runs.
void walk_block(int b, const split_round::Plan& p, int tile_steps, std::vector<int>& runs, int& parts) {
  const int end = split_round::range_end(b, p.quot, p.rem);
  int done = 0;  // steps of the block's parts so far
  while (true) {
    const int at = split_round::range_start(b, p.quot, p.rem) + done;
    if (at >= end) break;
    const split_round::Part part = split_round::part_at(at, end, tile_steps);
    ASSERT_GT(part.count, 0);
    ASSERT_LE(part.first + part.count, tile_steps) << "a part runs past its tile";
    for (int s = 0; s < part.count; ++s) ++runs[std::size_t(part.tile) * tile_steps + part.first + s];
    done += part.count;
    ++parts;
  }
}

TEST(SplitRound, BlocksCoverEachSplitStepOnce) {
  for (int blocks : {1, 3, 7, 132, 256})
    for (int tiles : {1, 2, 5, 131, 133, 2048, 4096, 4099})
      for (int tile_steps : {1, 2, 7, 8, 32, 64, 257}) {
        const split_round::Plan p = split_round::plan(tiles, blocks, tile_steps, 1LL << 30);
        const int tail = tiles < blocks ? 0 : tiles % blocks;
        SCOPED_TRACE(::testing::Message() << tiles << " tiles of " << tile_steps << " steps on " << blocks
                                          << " blocks");
        if (tail == 0) {
          EXPECT_EQ(p.ranges, 0);
          EXPECT_EQ(p.whole_tiles, tiles);
          continue;
        }
        EXPECT_EQ(p.whole_tiles, tiles - tail);
        EXPECT_GE(p.ranges, 1);
        EXPECT_LE(p.ranges, blocks);
        std::vector<int> runs(std::size_t(tail) * tile_steps, 0);
        int parts = 0;
        for (int b = 0; b < p.ranges; ++b) {
          const int steps = split_round::range_end(b, p.quot, p.rem) - split_round::range_start(b, p.quot, p.rem);
          if (tail * tile_steps >= split_round::kMinPartSteps) {
            EXPECT_GE(steps, split_round::kMinPartSteps);
          }
          walk_block(b, p, tile_steps, runs, parts);
        }
        for (std::size_t s = 0; s < runs.size(); ++s) ASSERT_EQ(runs[s], 1) << "split step " << s;
        EXPECT_LE(parts, p.ranges + tail) << "a range crosses each tile boundary once at most";
      }
}

TEST(SplitRound, NoSplitWhereTheStepsWouldNotFitTheDevicesCount) {
  EXPECT_EQ(split_round::plan(134, 132, 1 << 29, 1LL << 30).ranges, 0);  // 2^30 steps
  EXPECT_EQ(split_round::plan(134, 132, 1 << 28, 1LL << 30).ranges, 132);
}

}  // namespace
}  // namespace attnlab
