// The critical path of each work item a timeline pictures, decoded from its stamps. An item
// (a kItem span, per CTA and item index) ends when the last of its warps ends it; that warp is on
// the item's critical path, and its time over the item splits by what it was doing or waiting
// on, each instant going to the innermost span that holds it (a merge wait inside the
// epilogue is the merge's). A ping-pong wait is a wait for another consumer's turn, so its time
// goes to what that consumer did meanwhile (phase 5's turn order: consumer N waits on N - 1,
// consumer 0 on the last; roles named "consumer N"): a consumer that waits for its partner while
// the partner waits on a load is on the loads' path. The class with the most time bounds the
// item.
//
// The what-if of a class is a stated model, not a measurement: were that class's time on the
// path gone and nothing else moved, the item would take that much less, so the pictured SM's
// items would take their summed time less the class's summed time. It is an upper bound on the
// gain of removing the wait (another wait may fill the gap). How a change of the paths carries
// to the kernel's time is predict_slowdown's model below, which the GPU test TimelineWhatIf
// (label gpu-whatif) checks against a kernel with a known delay.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "record/timeline.hpp"

namespace attnlab::report {

enum class PathClass {
  kLoads,        // full-barrier waits: the producer's copies had not landed
  kTensorCores,  // wgmma waits: the warp's own tensor-core work
  kPartner,      // ping-pong waits: the other consumer's turn
  kConsumers,    // empty-barrier waits: a producer waiting for consumers to free a stage
  kOtherRanks,   // cluster and merge waits: the other blocks of a cluster
  kSoftmax,
  kIssue,        // TMA, QK^T and PV issue
  kEpilogue,
  kPrologue,     // an item's start to its first tile's landing, where no per-tile span is stamped
  kBetween,      // between stamps: the warp's own work that no span names
  kCount
};
inline constexpr std::size_t kPathClasses = std::size_t(PathClass::kCount);
// Warps per consumer warpgroup: a partner's warp at the waiting warp's place in its warpgroup.
inline constexpr std::uint32_t kWarpgroupWarps = 4;
// Partners followed from one ping-pong wait: as many as the most consumers a phase has (3) less
// one, since a chain of turn waits cannot come back to the first waiter.
inline constexpr int kPartnerHops = 2;

const char* path_class_name(PathClass c);
PathClass path_class_of(timeline::Span s);

struct ItemPath {
  std::uint32_t cta = 0, item = 0;
  std::uint32_t warp = 0;                  // the warp that ended the item last (its index in the CTA)
  std::string role;                        // of that warp
  double begin_ns = 0, end_ns = 0;         // that warp's item span
  std::array<double, kPathClasses> ns{};  // [ns] its time over the item, by class
  PathClass bound = PathClass::kBetween;   // the class with the most time
};

// Every item of the pictured SM's warps, in order of its end.
std::vector<ItemPath> item_paths(const TimelineDecoded& d);

struct PathClassSummary {
  PathClass cls = PathClass::kBetween;
  std::size_t items_bound = 0;  // items this class bounds
  double ns = 0;                // [ns] on the items' paths, summed
  double share = 0;             // ns / the items' summed time
  // Its share of one item's time, over the items (each item counted, with 0 where the class
  // has no time on its path): how the bound spreads, where `share` weighs long items more.
  double item_share_median = 0, item_share_p90 = 0;
};

// Per class over `paths`, in PathClass order, classes with no time left out.
std::vector<PathClassSummary> summarize_paths(const std::vector<ItemPath>& paths);

// The what-if checked on a known change: one run against another that differs from it by a
// delay in one role (the timeline's producer_delay). The model:
//  - an SM runs its items one after another, so its time is the sum of its items' critical
//    paths, and the kernel's the time of its SMs with the most items, ceil(items / SMs);
//  - what the delay adds to the kernel is then what it adds to an item's path, once per item of
//    such an SM;
//  - what it adds to an item's path is the whole path's growth, not only its own wait class's: a
//    late tile releases the consumers that waited on it together, and they then queue at the
//    tensor pipe and the issue slots, so part of the delay shows as issue and between-stamps
//    time on the path (the delayed run's paths show it), which a vanished wait takes with it.
// Per item: each run's paths summed over its items, divided by them (a build that stamps every
// k-th item pictures every k-th, whose mean is the same). Nothing here is fitted to a kernel time.
struct SlowdownPrediction {
  double base_item_ns = 0, delayed_item_ns = 0;  // [ns] mean path of an item in each run
  std::array<double, kPathClasses> class_growth_ns{};  // [ns] per item, by class: where it went
  double items_per_sm = 0;                       // of the SMs with the most
  double predicted_ns = 0;                       // [ns] (delayed - base per item) x items_per_sm
};
SlowdownPrediction predict_slowdown(const std::vector<ItemPath>& base, const std::vector<ItemPath>& delayed,
                                    double items_per_sm);

// One line for a console: the class that bounds the most of the pictured SM's items, how many
// of them, and its share of their time ("no work item stamped on SM k" where none was).
std::string paths_line(const TimelineDecoded& d);

}  // namespace attnlab::report
