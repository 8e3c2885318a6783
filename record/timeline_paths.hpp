// The critical path of each work item, from a launch's decoded warps: the decoder
// (profiler/timeline_decode.cpp) keeps every SM's in the record, the reports
// (reports/timeline_paths.hpp) summarise them and take the pictured SM's from records made
// before. An item (a kItem span, per CTA and item index) ends when the last of its warps ends it;
// that warp is on the item's critical path, and its time over the item splits by what it was
// doing or waiting on, each instant going to the innermost span that holds it (a merge wait
// inside the epilogue is the merge's). A ping-pong wait is a wait for another consumer's turn,
// so its time goes to what that consumer did meanwhile (phase 5's turn order: consumer N waits on
// N - 1, consumer 0 on the last; roles named "consumer N"). The class with the most time bounds
// the item.
#pragma once

#include <cstdint>
#include <vector>

#include "record/timeline.hpp"

namespace attnlab {

// Warps per consumer warpgroup: a partner's warp at the waiting warp's place in its warpgroup.
inline constexpr std::uint32_t kWarpgroupWarps = 4;
// Partners followed from one ping-pong wait: as many as the most consumers a phase has (3) less
// one, since a chain of turn waits cannot come back to the first waiter.
inline constexpr int kPartnerHops = 2;

// The class a span's time counts as on a path.
PathClass path_class_of(timeline::Span s);

// Every item that `warps` stamped (every SM's, as the decoder passes them, or one SM's), in
// order of its end.
std::vector<ItemPath> item_paths(const std::vector<TimelineWarp>& warps);

}  // namespace attnlab
