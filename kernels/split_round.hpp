// Phase b5's split last round, the index math only: host and device code
// (tests/cpu/test_split_round.cpp walks every block's parts and checks that they cover each split
// tile's steps once). A persistent grid of `blocks` blocks over equal tiles of tile_steps steps
// leaves a part-empty last round where the tiles are not a multiple of the blocks; its tiles'
// steps, laid end to end, are cut into ranges of at least kMinPartSteps steps (as many as there
// are blocks at most), block b taking range b, and a range goes as the parts of the tiles it
// crosses (kernels/phase_b5_schedule.cuh, BlockWork; kernels/NOTES.md, "Backward: phase b5
// (kernels/phase_b5_wgmma.cu)": the split last round).
#pragma once

#include "kernels/host_device.hpp"

namespace attnlab::split_round {

// A part costs its K/V loads and its sums' reductions beside its steps, yet at the D 64 shapes
// whose last round holds 4 tiles (16x16x2048x64, 16x32x1024x64, 32x32x512x64) ranges of 4 and 2
// steps measured 0.3-1.1% ahead of 8, and 2 level with 4 or ahead (kernels/NOTES.md, "Backward:
// phase b5 (kernels/phase_b5_wgmma.cu)": the split last round).
constexpr int kMinPartSteps = 2;

// The ranges: `ranges` of them (0 where the round is not split), the first `rem` of quot + 1
// steps, the others of quot.
struct Plan {
  int whole_tiles;  // the tiles before the split round (all of them where it is not split)
  int ranges, quot, rem;
};

// tiles of tile_steps steps each on `blocks` blocks; total_limit bounds the split round's steps
// (they are counted in an int on the device).
ATTNLAB_HOST_DEVICE constexpr Plan plan(int tiles, int blocks, int tile_steps, long long total_limit) {
  const int tail = tiles % blocks;
  const long long total = (long long)tail * tile_steps;
  if (tail == 0 || tiles < blocks || total >= total_limit) return {tiles, 0, 0, 0};
  const int steps = int(total);
  int ranges = steps / kMinPartSteps;
  ranges = ranges < 1 ? 1 : ranges > blocks ? blocks : ranges;
  return {tiles - tail, ranges, steps / ranges, steps % ranges};
}

// Range b's first step and its end.
ATTNLAB_HOST_DEVICE constexpr int range_start(int b, int quot, int rem) { return b * quot + (b < rem ? b : rem); }
ATTNLAB_HOST_DEVICE constexpr int range_end(int b, int quot, int rem) {
  return range_start(b, quot, rem) + quot + (b < rem ? 1 : 0);
}

// The part of a range that starts at step `at` of the split round (at < end): split tile `tile`,
// its steps [first, first + count).
struct Part {
  int tile, first, count;
};
ATTNLAB_HOST_DEVICE constexpr Part part_at(int at, int end, int tile_steps) {
  const int tile = at / tile_steps, first = at - tile * tile_steps;
  const int left = tile_steps - first;
  return {tile, first, end - at < left ? end - at : left};
}

}  // namespace attnlab::split_round
