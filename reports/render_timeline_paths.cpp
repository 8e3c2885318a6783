#include "reports/render_timeline_paths.hpp"

#include <sstream>
#include <vector>

#include "reports/format.hpp"
#include "reports/timeline_paths.hpp"

namespace attnlab::report {

namespace {

// Which items the section covers, in words.
std::string coverage(const TimelineDecoded& d, const LaunchPaths& lp, double total_ns) {
  std::ostringstream md;
  md << lp.paths.size() << " work items";
  if (lp.every_sm) {
    const SmItemCounts c = sm_item_counts(lp.paths);
    md << " on " << c.sms << " SMs, " << duration(total_ns) << " summed: every SM's that the build stamped (per SM "
       << plain(c.least) << " to " << plain(c.most) << ", median " << plain(c.median) << ").";
  } else {
    md << ", " << duration(total_ns) << " summed, of SM " << d.pictured_sm
       << " alone: the record keeps no other SM's paths (it was made before every SM's were decoded).";
  }
  return md.str();
}

// The items' path times by the role of the warp that ended them.
std::string times_table(const std::vector<ItemPath>& paths) {
  Table t({"role that ended the item", "items", "mean", "p10", "median", "p90", "max"}, "lrrrrrr");
  for (const auto& r : path_times_by_role(paths))
    t.row({r.role, count(double(r.items)), duration(r.mean_ns), duration(r.p10_ns), duration(r.median_ns),
           duration(r.p90_ns), duration(r.max_ns)});
  return t.str();
}

}  // namespace

std::string paths_section(const TimelineRecord& rec) {
  const TimelineDecoded& d = *rec.timeline;
  const LaunchPaths lp = launch_paths(d);
  const std::vector<ItemPath>& paths = lp.paths;
  std::ostringstream md;
  md << "## Critical path of each work item, " << (lp.every_sm ? std::string("every SM") : "SM " + std::to_string(d.pictured_sm))
     << "\n\n";
  if (paths.empty()) {
    md << (lp.every_sm ? "No work item was stamped.\n\n" : "No work item was stamped on this SM.\n\n");
    return md.str();
  }
  double total = 0;
  for (const auto& p : paths) total += p.end_ns - p.begin_ns;
  md << coverage(d, lp, total)
     << " For each, the warp that ended it last, and that warp's time over the item by what it did or waited on "
        "(at each instant the innermost span; a ping-pong wait goes to what the partner consumer did meanwhile); "
        "the class with the most time bounds the item. The what-if is a model, not a measurement: the items' "
        "summed time with that class's time gone and nothing else moved, an upper bound on what removing it gains "
        "(not yet checked against a kernel with a known delay).\n\n";
  md << "Per item, the class's share of that item's time over the items: median and 90th percentile. The picture "
        "of SM "
     << d.pictured_sm << " draws its items' paths: a black bar over the lane of the warp that ended the item last.\n\n";
  Table t({"class", "items it bounds", "share of the items' time", "per item: median", "per item: p90",
           "what-if: items' time without it"},
          "lrrrrr");
  for (const auto& c : summarize_paths(paths))
    t.row({path_class_name(c.cls), count(double(c.items_bound)), pct(100 * c.share), pct(100 * c.item_share_median),
           pct(100 * c.item_share_p90), duration(total - c.ns) + " (" + pct(100 * (1 - c.share)) + ")"});
  md << t.str() << "\n";
  md << "The items' path times (each item's begin to its end on the warp that ended it), by that warp's role:\n\n"
     << times_table(paths) << "\n";
  return md.str();
}

}  // namespace attnlab::report
