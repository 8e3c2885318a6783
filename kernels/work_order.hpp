// The numbering of a query-tiled launch's work items, (batch x head, query block) pairs, and
// the L2 sections it groups heads in: host and device code (the persistent schedulers of
// kernels/tile_pipeline.cuh walk it; tests/cpu/test_work_order.cpp checks it without a GPU).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define ATTNLAB_HOST_DEVICE __host__ __device__
#else
#define ATTNLAB_HOST_DEVICE
#endif

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

// Heads whose K and V fit in a share of the H100's 50 MB L2 together, which leaves room for the
// Q and O streams: FA3's 32 MB, and 8 MB where a K/V head is at most 512 KB (S * D <= 2^17).
// Short heads are read by few, short items, and with 32 MB sections the 132 items in flight
// each read a different head (DRAM bytes above cuDNN's in run 3's counters); 8 MB sections
// measured faster at S = 512 and 1024 (both head dims), as fast at 2048 x 64 and no faster at
// 4096 x 128 (probe v2 of reports/h100/logs/issue30-perf2-run1-500eea1.log, kernels/NOTES.md).
// Under the causal mask from S = 2048 on, 32 MB again: at 2048 x 64 (the three-consumer causal
// kernel since step 13) 32 MB sections read higher against cuDNN in two calls, while at
// 1024 x 128, a head of the same size, they read lower (issue 30 step 15,
// reports/h100/logs/issue30-s4-probe{5-c42a317,6-23a5386}.log).
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
