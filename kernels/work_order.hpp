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
// the shortest items fill the tail (FA3's longest-first order). section_heads = 1 is head by
// head, each head's query blocks from the last.
struct WorkOrder {
  int m_blocks;       // query blocks per head
  int heads;          // B * H
  int section_heads;  // heads per section, 1 .. heads
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
    return {first + offset % in_section, m_blocks - 1 - offset / in_section};
  }
};

// Heads whose K and V fit in kL2Share bytes together: FA3's share of the H100's 50 MB L2, which
// leaves room for the Q and O streams. A K/V head of S keys serves `group` query heads (GQA).
// At least 1, at most `heads`.
inline int l2_section_heads(int S, int D, int group, int heads) {
  constexpr std::int64_t kL2Share = 32ll << 20;           // [bytes]
  const std::int64_t kv_head_bytes = 2ll * S * D * 2;     // K and V, fp16 [bytes]
  const std::int64_t fit = kL2Share / kv_head_bytes > 0 ? kL2Share / kv_head_bytes : 1;
  return int(fit * group < heads ? fit * group : heads);
}

}  // namespace attnlab
