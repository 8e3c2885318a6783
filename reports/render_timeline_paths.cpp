#include "reports/render_timeline_paths.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
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

// The items of the fullest SM that the what-if multiplies by, and how they were counted: where
// every item was stamped, from the decoded paths, the most that ended on one SM (every SM's
// where the record keeps them, else the pictured SM's: a persistent CTA's items or a grid's
// waves alike, where counting per CTA gave d4's waves one item); where a build stamped every
// k-th item, from the record's count of work items, its CTAs and the SMs that ran them; none
// where it gives no count (a sampled record made before the records named their work items).
struct WhatIfItems {
  double items = 0;
  std::string how;
};
std::optional<WhatIfItems> what_if_items(const TimelineRecord& rec, const LaunchPaths& lp) {
  const bool sampled = rec.stamp_sample && *rec.stamp_sample > 1;
  if (!sampled && !lp.paths.empty())
    return WhatIfItems{sm_item_counts(lp.paths).most,
                       lp.every_sm ? std::string("the most items that ended on one SM in this launch")
                                   : "the items that ended on SM " + std::to_string(rec.timeline->pictured_sm) +
                                         ", the record keeping no other SM's"};
  if (rec.work_items && rec.grid_ctas > 0) {
    const std::uint32_t sms = lp.every_sm ? std::uint32_t(sm_item_counts(lp.paths).sms) : 0;
    if (sms > 0)
      return WhatIfItems{busiest_sm_items(*rec.work_items, rec.grid_ctas, sms),
                         "ceil(" + count(double(*rec.work_items)) + " work items / " + count(rec.grid_ctas) +
                             " CTAs) x ceil(" + count(rec.grid_ctas) + " CTAs / " + count(sms) + " SMs)"};
  }
  return std::nullopt;
}

// The model of the what-if column in one or two sentences, with its inputs.
std::string what_if_words(const TimelineRecord& rec, const LaunchPaths& lp, const std::optional<WhatIfItems>& n) {
  std::ostringstream md;
  md << "The what-if is a model, not a measurement: the one the GPU test TimelineWhatIf checks against a kernel "
        "whose producer waits a known number of cycles before each copy (`predict_slowdown`, "
        "reports/timeline_paths.hpp). An SM runs its items one after another, so the kernel's time changes by the "
        "mean item path's change times the items of the SMs with the most, ";
  if (n)
    md << "here " << plain(n->items) << " (" << n->how << ")";
  else
    md << "which this record cannot count (it stamped every " << *rec.stamp_sample
       << "th item and names no count of work items), so the column gives the change per item";
  md << "; the run compared against is every item's path without the class's time, nothing else moved, the means "
        "over the "
     << lp.paths.size() << " items above" << (lp.every_sm ? " of every SM" : "")
     << ". For a wait taken away that is an upper bound on the gain (another wait may fill the gap; the test checks "
        "an added delay)";
  if (n && rec.overhead) md << "; the percentage is of the timeline build's kernel time, " << duration(rec.overhead->timeline_median_ns);
  md << ".\n\n";
  return md.str();
}

// A class's what-if: the kernel time its absence would save, or per item where `n` is none.
std::string what_if_cell(const TimelineRecord& rec, const std::vector<ClassWhatIf>& what_ifs, PathClass c,
                         const std::optional<WhatIfItems>& n) {
  const auto it = std::find_if(what_ifs.begin(), what_ifs.end(), [&](const ClassWhatIf& w) { return w.cls == c; });
  if (it == what_ifs.end()) return "-";
  const SlowdownPrediction& m = it->model;
  if (!n) return "-" + duration(m.base_item_ns - m.delayed_item_ns) + " per item";
  std::string cell = "-" + duration(-m.predicted_ns);
  if (rec.overhead && rec.overhead->timeline_median_ns > 0)
    cell += " (-" + pct(-100 * m.predicted_ns / rec.overhead->timeline_median_ns) + ")";
  return cell;
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
        "the class with the most time bounds the item.\n\n";
  const auto n = what_if_items(rec, lp);
  md << what_if_words(rec, lp, n);
  md << "Per item, the class's share of that item's time over the items: median and 90th percentile. The picture "
        "of SM "
     << d.pictured_sm << " draws its items' paths: a black bar over the lane of the warp that ended the item last.\n\n";
  Table t({"class", "items it bounds", "share of the items' time", "per item: median", "per item: p90",
           "what-if: kernel time without it"},
          "lrrrrr");
  const std::vector<ClassWhatIf> what_ifs = class_what_ifs(paths, n ? n->items : 0);
  for (const auto& c : summarize_paths(paths))
    t.row({path_class_name(c.cls), count(double(c.items_bound)), pct(100 * c.share), pct(100 * c.item_share_median),
           pct(100 * c.item_share_p90), what_if_cell(rec, what_ifs, c.cls, n)});
  md << t.str() << "\n";
  md << "The items' path times (each item's begin to its end on the warp that ended it), by that warp's role:\n\n"
     << times_table(paths) << "\n";
  return md.str();
}

}  // namespace attnlab::report
