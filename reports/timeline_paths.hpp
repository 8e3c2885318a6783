// What the reports make of the work items' critical paths (record/timeline_paths.hpp finds
// them: the decoder keeps every SM's in the record, and records made before are read from their
// pictured SM's warps): the bounds' distribution, the path times by role, the what-if.
//
// The what-if of a class is a stated model, not a measurement: predict_slowdown's model below,
// which the GPU test TimelineWhatIf (label gpu-whatif) checks against a kernel with a known
// delay, with the run it compares against being every item's path without the class's time,
// nothing else moved (without_class). For a removed wait that is an upper bound on the gain:
// another wait may fill the gap.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "record/timeline.hpp"
#include "record/timeline_paths.hpp"

namespace attnlab::report {

// The path types are the record's (record/timeline.hpp: a record keeps every SM's paths).
using attnlab::ItemPath;
using attnlab::kPathClasses;
using attnlab::PathClass;
using attnlab::path_bound;

const char* path_class_name(PathClass c);
// How an item's path is found (record/timeline_paths.hpp): the decoder and the reports share it.
using attnlab::item_paths;
using attnlab::path_class_of;

// Every item of the pictured SM's warps (d.warps), in order of its end: the picture's.
std::vector<ItemPath> item_paths(const TimelineDecoded& d);

// The paths the distribution and the what-if take: every SM's where the record has them
// (d.paths), else the pictured SM's, decoded from its warps (records made before).
struct LaunchPaths {
  std::vector<ItemPath> paths;
  bool every_sm = false;
};
LaunchPaths launch_paths(const TimelineDecoded& d);

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

// The items' path times (end - begin) by the role of the warp that ended them, roles by name,
// then over every item (role "all").
struct PathTimes {
  std::string role;
  std::size_t items = 0;
  double mean_ns = 0, p10_ns = 0, median_ns = 0, p90_ns = 0, max_ns = 0;  // [ns]
};
std::vector<PathTimes> path_times_by_role(const std::vector<ItemPath>& paths);

// How many of `paths` each SM that ran one holds: the least, the median and the most.
struct SmItemCounts {
  std::size_t sms = 0;
  double least = 0, median = 0, most = 0;
};
SmItemCounts sm_item_counts(const std::vector<ItemPath>& paths);

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
// k-th item stamps every k-th, whose mean is the same); every SM's items where the record has
// them. Nothing here is fitted to a kernel time.
struct SlowdownPrediction {
  double base_item_ns = 0, delayed_item_ns = 0;  // [ns] mean path of an item in each run
  std::array<double, kPathClasses> class_growth_ns{};  // [ns] per item, by class: where it went
  double items_per_sm = 0;                       // of the SMs with the most
  double predicted_ns = 0;                       // [ns] (delayed - base per item) x items_per_sm
};
SlowdownPrediction predict_slowdown(const std::vector<ItemPath>& base, const std::vector<ItemPath>& delayed,
                                    double items_per_sm);

// The items of the SMs with the most, as the model counts them: a launch's work items shared by
// its CTAs, each CTA's one after another, ceil(work_items / ctas), and an SM's CTAs one after
// another, ceil(ctas / sms) (the stamped phases run one CTA an SM at a time: a persistent grid
// has one CTA an SM, d4's grid of one item a CTA runs in waves); 0 where there is no CTA or SM.
double busiest_sm_items(std::int64_t work_items, std::uint32_t ctas, std::uint32_t sms);

// `paths` with class c's time taken out of each item, its end that much earlier: the run the
// what-if of class c compares against.
std::vector<ItemPath> without_class(const std::vector<ItemPath>& paths, PathClass c);

// The what-if of each class with time on `paths` (PathClass order): predict_slowdown of the
// paths against without_class of them, so predicted_ns is negative, the kernel time the class's
// absence would save.
struct ClassWhatIf {
  PathClass cls = PathClass::kBetween;
  SlowdownPrediction model;
};
std::vector<ClassWhatIf> class_what_ifs(const std::vector<ItemPath>& paths, double items_per_sm);

// One line for a console: the class that bounds the most items, how many of them, and its share
// of their time, over every SM's items where the record has them, else the pictured SM's, the
// line saying which ("no work item stamped" where none was).
std::string paths_line(const TimelineDecoded& d);

}  // namespace attnlab::report
