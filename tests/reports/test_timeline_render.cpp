// The report of a warp-role timeline record: the overhead and span check as stated, the wait
// table by barrier, the picture's script (and, where gnuplot is installed, its PNG), on a record
// built by hand.
#include <fstream>
#include <gtest/gtest.h>

#include <algorithm>

#include "common/shapes.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"
#include "reports/timeline_paths.hpp"
#include "report_test_util.hpp"

namespace attnlab::report {
namespace {

using testing::TempDir;
using testing::read_file;
using timeline::Span;

TimelineRecord two_warps() {
  TimelineRecord r;
  r.status = "ok";
  r.phase = "5";
  r.title = "wgmma + TMA";
  r.shape = parse_shape("1x8x512x64");
  r.started_utc = "2026-11-26T00:00:00Z";
  r.provenance.gpu.name = "NVIDIA H100 80GB HBM3";
  r.provenance.gpu.uuid = "GPU-0123456789abcdef";
  r.kernel_timeline = "kernel_tl";
  r.stamps = "shared-boundaries";
  r.grid_ctas = 1;
  r.block_threads = 256;
  r.correctness.passed = true;
  r.correctness.repeat_identical = true;
  TimelineOverhead o;
  o.normal_ns = {1000, 1000, 1000};
  o.timeline_ns = {1100, 1100, 1100};
  o.normal_median_ns = 1000;
  o.timeline_median_ns = 1100;
  o.overhead_ns = 100;
  o.overhead_fraction = 0.1;
  o.traced_launch_ns = 1100;
  o.span_ns = 1080;
  o.tolerance_ns = 55;
  o.span_matches = true;
  r.overhead = o;
  TimelineDecoded d;
  d.sm_clock_mhz = 1755;
  d.clock_source = kClockAnchors;
  d.anchor_clock_mhz = 1755;
  d.span_ns = 1080;
  d.ctas = 1;
  d.warps_per_cta = 8;
  d.capacity = 64;
  d.stamps = 12;
  TimelineWarp p{0, 0, 0, "producer", 0, 1000, 4, 0, 0,
                 {{Span::kItem, 10, 500, 0}, {Span::kEmptyWait, 100, 600, 0}}};
  TimelineWarp c{0, 4, 0, "consumer 0", 0, 1000, 8, 0, 0,
                 {{Span::kItem, 10, 400, 0}, {Span::kPingPongWait, 20, 220, 0},
                  {Span::kSoftmax, 220, 380, 0}, {Span::kItem, 400, 990, 1}}};
  d.warps = {p, c};
  d.roles = {{"producer", 1, 1000, {{Span::kEmptyWait, 500, 0.5}}, 0.5},
             {"consumer 0", 1, 1000, {{Span::kPingPongWait, 200, 0.2}}, 0.2}};
  d.sm_roles = d.roles;
  r.timeline = d;
  return r;
}

TEST(TimelineReport, StatesOverheadSpanCheckAndWaitsByBarrier) {
  TempDir t;
  const Rendered out = render_timeline(two_warps(), t.path);
  const std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("Overhead 100.0 ns (10.00% of the normal build)"), std::string::npos) << md;
  EXPECT_NE(md.find("They agree: within 5.00% of the CUPTI time (55.00 ns)"), std::string::npos) << md;
  EXPECT_NE(md.find("Stamp policy `shared-boundaries`"), std::string::npos) << md;
  EXPECT_NE(md.find("Cycles converted at 1755 MHz, the rate the warps' own clock64"), std::string::npos) << md;
  // Every clock says whose it is: the probe kernel's count, not the traced kernel's.
  EXPECT_NE(md.find("MHz after the traced launch, as a clock probe counted it"), std::string::npos) << md;
  EXPECT_NE(md.find("| producer | 1 | 1.000 us | 50.00% | 50.00% | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("| consumer 0 | 1 | 1.000 us | 20.00% | - | 20.00% |"), std::string::npos) << md;
  EXPECT_NE(md.find("(plots/timeline.png)"), std::string::npos);
  // Two work items per CTA: the first one gets a picture of its own.
  EXPECT_NE(md.find("(plots/timeline_first_item.png)"), std::string::npos);
  ASSERT_EQ(out.scripts.size(), 2u);
  const std::string gp = read_file(t.path / "plots" / "timeline.gp");
  EXPECT_NE(gp.find("title 'ping-pong wait'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("'w4 consumer 0' 1"), std::string::npos) << gp;
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) GTEST_SKIP() << "gnuplot is not installed (scripts/setup installs gnuplot-nox)";
  ASSERT_NO_THROW(run_gnuplot(*gnuplot, out.scripts));
  for (const auto& s : out.scripts) EXPECT_GT(fs::file_size(fs::path(s).replace_extension(".png")), 1000u);
}

// The regime the launches ran in, warm back to back or each behind an L2 flush, is said where the
// overhead and the traced launch are.
TEST(TimelineReport, SaysWhetherTheLaunchesRanWarmOrCold) {
  TempDir t;
  render_timeline(two_warps(), t.path);
  const std::string warm = read_file(t.path / "report.md");
  EXPECT_NE(warm.find("run once warm;"), std::string::npos) << warm;
  EXPECT_NE(warm.find("both launched alternately, back to back (warm)."), std::string::npos) << warm;
  TimelineRecord r = two_warps();
  r.cold = true;
  TempDir c;
  render_timeline(r, c.path);
  const std::string cold = read_file(c.path / "report.md");
  EXPECT_NE(cold.find("run once cold (behind an L2 flush);"), std::string::npos) << cold;
  EXPECT_NE(cold.find("each behind an L2 flush (cold), as was the traced launch."), std::string::npos) << cold;
  EXPECT_EQ(cold.find("(warm)"), std::string::npos) << cold;
}

// The Chrome trace as it lies beside the record: trace.json, a committed trace.json.gz, or none
// (a copy of the record kept without it), never a link to a file that is not there.
TEST(TimelineReport, LinksTheTraceThatIsBesideTheRecordOrSaysThereIsNone) {
  TempDir t;
  render_timeline(two_warps(), t.path);
  std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("Chrome trace none kept beside this copy of the record."), std::string::npos) << md;
  EXPECT_EQ(md.find("](trace.json"), std::string::npos) << md;
  std::ofstream(t.path / "trace.json.gz") << "x";
  render_timeline(two_warps(), t.path);
  md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("[trace.json.gz](trace.json.gz)"), std::string::npos) << md;
  std::ofstream(t.path / "trace.json") << "{}";
  render_timeline(two_warps(), t.path);
  md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("[trace.json](trace.json)"), std::string::npos) << md;
}

// A build that stamped every k-th item says so, and its waits are shares of the stamped items'
// time, which the table names; one that stamped every item says neither.
TEST(TimelineReport, ASampledTimelineSaysWhichItemsItStampedAndWhatItsWaitsShare) {
  TempDir t;
  TimelineRecord r = two_warps();
  render_timeline(r, t.path);
  std::string md = read_file(t.path / "report.md");
  EXPECT_EQ(md.find("Sampled:"), std::string::npos) << md;
  EXPECT_NE(md.find("| role | warps | lifetime (sum) |"), std::string::npos) << md;
  r.stamp_sample = 8;
  render_timeline(r, t.path);
  md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("Sampled: only every 8th work item is stamped"), std::string::npos) << md;
  EXPECT_NE(md.find("| role | warps | stamped items' time (sum) |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| role | warps | lifetime (sum) |"), std::string::npos) << md;
}

// The tensor pipe: the whole kernel's average with its rate and source, each role's share and
// the picture of its bins; "not measured" with the reason where the build has no issue spans;
// no section at all in a record made before it was measured.
TEST(TimelineReport, TheTensorPipeOverTimeOrWhyItIsNotMeasured) {
  TempDir t;
  render_timeline(two_warps(), t.path);
  EXPECT_EQ(read_file(t.path / "report.md").find("## Tensor pipe over time"), std::string::npos);
  TimelineRecord r = two_warps();
  TimelineTensorPipe pipe;
  pipe.qk_flops = pipe.pv_flops = 262144;
  pipe.rate_name = "wgmma_fp16_m64n256k16";
  pipe.flop_per_sm_cycle = 4096;
  pipe.rate_source = "no calibration given: the architecture's ceiling";
  pipe.issued_flops = 1e9;
  pipe.active_sm_ns = 5000;
  pipe.average = 0.5;
  pipe.issues = 100;
  pipe.uncovered = 2;
  pipe.bin_ns = 500;
  pipe.roles = {{"consumer 0", 6e8, 0.3, {0.1, 0.5}}, {"consumer 1", 4e8, 0.2, {0.2, 0.25}}};
  r.timeline->tensor_pipe = pipe;
  const Rendered out = render_timeline(r, t.path);
  std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("Whole kernel: 50.00% of the dense wgmma rate, 4096 FLOP per SM per cycle "
                    "(`wgmma_fp16_m64n256k16`; no calibration given: the architecture's ceiling)"),
            std::string::npos)
      << md;
  // Divided by the ceiling, which the report flags; not where a calibration gave the rate.
  EXPECT_NE(md.find("**Divided by the ceiling, not a measured rate:**"), std::string::npos) << md;
  EXPECT_NE(md.find("| consumer 0 | 6.00e+08 | 30.00% |"), std::string::npos) << md;
  EXPECT_NE(md.find("2 issue spans had no covering wait"), std::string::npos) << md;
  EXPECT_NE(md.find("(plots/tensor_pipe.png)"), std::string::npos) << md;
  const std::string dat = read_file(t.path / "plots" / "tensor_pipe.dat");
  // Bin midpoints in us; each role's share and the sum, in percent.
  EXPECT_NE(dat.find("0.25 10 20 30\n0.75 50 25 75\n"), std::string::npos) << dat;
  EXPECT_EQ(out.scripts.size(), 3u);
  r.timeline->tensor_pipe->from_calibration = true;
  r.timeline->tensor_pipe->rate_source = "calibration reports/h200/calibration/x/calibration.json.gz";
  render_timeline(r, t.path);
  EXPECT_EQ(read_file(t.path / "report.md").find("Divided by the ceiling"), std::string::npos);
  r.timeline->tensor_pipe = TimelineTensorPipe{};
  r.timeline->tensor_pipe->not_measured = "the stamp policy global-boundaries stamps no issue spans";
  render_timeline(r, t.path);
  md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("Not measured: the stamp policy global-boundaries stamps no issue spans."), std::string::npos) << md;
  EXPECT_EQ(md.find("Whole kernel:"), std::string::npos) << md;
  // The picture's script draws where gnuplot is installed.
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) GTEST_SKIP() << "gnuplot is not installed (scripts/setup installs gnuplot-nox)";
  r.timeline->tensor_pipe = pipe;
  TempDir drawn;
  ASSERT_NO_THROW(run_gnuplot(*gnuplot, render_timeline(r, drawn.path).scripts));
  EXPECT_GT(fs::file_size(drawn.path / "plots" / "tensor_pipe.png"), 1000u);
}

// A timeline whose stamps cost more than kTimelineOverheadLimit of the kernel says so first; one
// at the limit (the record above: 10%) does not.
TEST(TimelineReport, FlagsAnOverheadAboveTheLimit) {
  TempDir t;
  render_timeline(two_warps(), t.path);
  EXPECT_EQ(read_file(t.path / "report.md").find("PERTURBED"), std::string::npos);
  EXPECT_EQ(read_file(t.path / "report.md").find("SPAN DISAGREES"), std::string::npos);  // its span agrees
  TimelineRecord r = two_warps();
  r.overhead->timeline_median_ns = 2350;
  r.overhead->overhead_ns = 1350;
  r.overhead->overhead_fraction = 1.35;
  render_timeline(r, t.path);
  const std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("**PERTURBED:** the stamps cost 135.00% of the normal build's kernel time, more than "
                    "10.00%"),
            std::string::npos)
      << md;
  EXPECT_LT(md.find("**PERTURBED:**"), md.find("## Overhead of the stamps")) << md;
  EXPECT_NE(md.find("Above 10.00%: PERTURBED (above)."), std::string::npos) << md;
}

// The span is checked against CUPTI's time of the launch by the fixed bound, whatever the
// record's own tolerance and verdict say: an overhead as large as the launch let a span a
// tenth short pass.
TEST(TimelineReport, SaysWhenTheSpanDisagreesWhateverTheOverhead) {
  TempDir t;
  TimelineRecord r = two_warps();
  r.overhead->overhead_ns = r.overhead->tolerance_ns = 1000;
  r.overhead->span_matches = true;
  r.timeline->span_ns = r.overhead->span_ns = 0.9 * r.overhead->traced_launch_ns;
  render_timeline(r, t.path);
  const std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("They DISAGREE"), std::string::npos) << md;
  EXPECT_EQ(md.find("They agree"), std::string::npos) << md;
  // And at the report's top, before the section that gives the numbers.
  EXPECT_NE(md.find("**SPAN DISAGREES:**"), std::string::npos) << md;
  EXPECT_LT(md.find("**SPAN DISAGREES:**"), md.find("## Overhead of the stamps")) << md;
}

// A record decoded at the probes' clock before the anchors set the rate: its times are put on
// its anchors' rate, and the report says so.
TEST(TimelineReport, AnOlderRecordIsRescaledOntoItsAnchorsRate) {
  TempDir t;
  TimelineRecord r = two_warps();
  r.timeline->clock_source.clear();
  r.timeline->sm_clock_mhz = 2000;     // the probes
  r.timeline->anchor_clock_mhz = 1600;  // the launch ran slower: every time is 1.25x
  r.timeline->span_ns = r.overhead->span_ns = 880;  // 1100 on the anchors' rate
  render_timeline(r, t.path);
  const std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("its anchors give 1600 MHz (median over warps), so every time in this report is the record's "
                    "times x 1.25"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("is 1.100 us against 1.100 us from CUPTI"), std::string::npos) << md;
  EXPECT_NE(md.find("They agree"), std::string::npos) << md;
  // The picture's spans too: the consumer's second item ends at 990 ns x 1.25.
  EXPECT_NE(read_file(t.path / "plots" / "timeline.dat").find("1.2375"), std::string::npos);
}

TEST(TimelineReport, ARecordWithoutAnAnchorRateSaysSoAndChecksNothing) {
  TempDir t;
  TimelineRecord r = two_warps();
  r.timeline->clock_source.clear();
  r.timeline->anchor_clock_mhz = 0;
  render_timeline(r, t.path);
  const std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("The record has NO anchor rate"), std::string::npos) << md;
  EXPECT_NE(md.find("NOT CHECKED"), std::string::npos) << md;
  EXPECT_EQ(md.find("They agree"), std::string::npos) << md;
}


// The critical path of an item: the warp that ended it last, its time split by the innermost span
// at each instant (a merge wait inside the epilogue is the merge's), the largest class bounding it.
TimelineDecoded one_item_two_warps() {
  TimelineDecoded d;
  d.pictured_sm = 3;
  TimelineWarp early{0, 0, 3, "key warpgroup 0", 0, 80, 4, 0, 0, {{Span::kItem, 0, 80, 7}, {Span::kFullWait, 0, 70, 7}}};
  TimelineWarp last{0, 4, 3, "key warpgroup 1", 0, 100, 10, 0, 0,
                    {{Span::kItem, 0, 100, 7}, {Span::kFullWait, 0, 20, 7}, {Span::kSoftmax, 20, 60, 7},
                     {Span::kEpilogue, 60, 100, 7}, {Span::kMergeWait, 70, 90, 7}}};
  d.warps = {early, last};
  return d;
}

TEST(TimelinePaths, TheLastWarpsInnermostSpansSplitTheItem) {
  const auto paths = item_paths(one_item_two_warps());
  ASSERT_EQ(paths.size(), 1u);
  const ItemPath& p = paths[0];
  EXPECT_EQ(p.item, 7u);
  EXPECT_EQ(p.role, "key warpgroup 1");
  EXPECT_DOUBLE_EQ(p.ns[std::size_t(PathClass::kLoads)], 20);
  EXPECT_DOUBLE_EQ(p.ns[std::size_t(PathClass::kSoftmax)], 40);
  EXPECT_DOUBLE_EQ(p.ns[std::size_t(PathClass::kEpilogue)], 20);
  EXPECT_DOUBLE_EQ(p.ns[std::size_t(PathClass::kOtherRanks)], 20);
  EXPECT_DOUBLE_EQ(p.ns[std::size_t(PathClass::kBetween)], 0);
  EXPECT_EQ(p.bound, PathClass::kSoftmax);
  const auto sum = summarize_paths(paths);
  ASSERT_EQ(sum.size(), 4u);  // classes with no time are left out
  EXPECT_EQ(sum[1].cls, PathClass::kOtherRanks);
  EXPECT_DOUBLE_EQ(sum[1].share, 0.2);
  EXPECT_EQ(sum[2].cls, PathClass::kSoftmax);
  EXPECT_EQ(sum[2].items_bound, 1u);
}

// A ping-pong wait is a wait for the partner consumer's turn: its time goes to what the partner
// did meanwhile. Consumer 1 ends the item last, after waiting 300 ns for consumer 0, which spent
// 200 ns of that waiting on a load and 100 ns in its softmax; consumer 0 waits on consumer 1
// (the last) in turn, and the chain stops there.
TEST(TimelinePaths, APingPongWaitGoesToWhatThePartnerDidMeanwhile) {
  TimelineDecoded d;
  TimelineWarp c0{0, 4, 0, "consumer 0", 0, 400, 0, 0, 0,
                  {{Span::kItem, 0, 380, 1}, {Span::kPingPongWait, 0, 50, 1}, {Span::kFullWait, 50, 250, 1},
                   {Span::kSoftmax, 250, 350, 1}}};
  TimelineWarp c1{0, 8, 0, "consumer 1", 0, 400, 0, 0, 0,
                  {{Span::kItem, 0, 400, 1}, {Span::kPingPongWait, 0, 350, 1}, {Span::kWgmmaWait, 350, 400, 1}}};
  TimelineWarp other_cta{1, 4, 0, "consumer 0", 0, 400, 0, 0, 0, {{Span::kFullWait, 0, 400, 9}}};
  d.warps = {c0, c1, other_cta};
  const auto paths = item_paths(d);
  ASSERT_EQ(paths.size(), 1u);
  const ItemPath& p = paths[0];
  EXPECT_EQ(p.role, "consumer 1");
  // [0, 50): consumer 0 itself waits on consumer 1's turn, the end of the chain: partner.
  EXPECT_DOUBLE_EQ(p.ns[std::size_t(PathClass::kPartner)], 50);
  EXPECT_DOUBLE_EQ(p.ns[std::size_t(PathClass::kLoads)], 200);
  EXPECT_DOUBLE_EQ(p.ns[std::size_t(PathClass::kSoftmax)], 100);
  EXPECT_DOUBLE_EQ(p.ns[std::size_t(PathClass::kTensorCores)], 50);
  EXPECT_EQ(p.bound, PathClass::kLoads);
}

TEST(TimelinePaths, TheReportTabulatesTheBoundsAndTheWhatIf) {
  TempDir t;
  TimelineRecord r = two_warps();
  r.timeline->warps = one_item_two_warps().warps;
  r.timeline->pictured_sm = 0;
  render_timeline(r, t.path);
  const std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("## Critical path of each work item, SM 0"), std::string::npos) << md;
  EXPECT_NE(md.find("1 work items, 100.0 ns summed"), std::string::npos) << md;
  // The what-if: the class's time per item, once per item of the fullest SM (the record names no
  // work items: the most one CTA stamped, 1), against the timeline build's 1.1 us.
  EXPECT_NE(md.find("| softmax | 1 | 40.00% | 40.00% | 40.00% | -40.00 ns (-3.64%) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| other ranks (cluster and merge waits) | 0 | 20.00% | 20.00% | 20.00% | -20.00 ns (-1.82%) |"),
            std::string::npos)
      << md;
}

// An item's path on SM `sm`: `ns` of class c, the rest of its span between stamps.
ItemPath item_path(std::uint32_t sm, std::uint32_t cta, std::uint32_t item, const std::string& role, double begin,
                   double end, PathClass c, double ns) {
  ItemPath p;
  p.smid = sm;
  p.cta = cta;
  p.item = item;
  p.role = role;
  p.begin_ns = begin;
  p.end_ns = end;
  p.ns[std::size_t(c)] = ns;
  p.ns[std::size_t(PathClass::kBetween)] = end - begin - ns;
  p.bound = path_bound(p.ns);
  return p;
}

// A record with every SM's item paths: the section and the console line cover all of them, not
// the pictured SM's warps (SM 0 here, whose one item is bound by softmax): three items on two
// SMs, two bound by the loads, and their path times by the role of the warp that ended them.
TEST(TimelinePaths, TheReportDistributesEverySmsItems) {
  TimelineRecord r = two_warps();
  r.timeline->warps = one_item_two_warps().warps;
  r.timeline->pictured_sm = 0;
  EXPECT_EQ(paths_line(*r.timeline).find("critical path on SM 0 alone (the record keeps no other SM's paths): "), 0u)
      << paths_line(*r.timeline);
  r.timeline->paths = std::vector<ItemPath>{item_path(0, 0, 0, "consumer 0", 0, 100, PathClass::kSoftmax, 60),
                                            item_path(1, 1, 0, "consumer 1", 0, 200, PathClass::kLoads, 150),
                                            item_path(1, 1, 0, "consumer 1", 200, 500, PathClass::kLoads, 200)};
  EXPECT_EQ(paths_line(*r.timeline),
            "critical path, every SM (3 items on 2 SMs): loads (full-barrier wait) bounds 2 of 3 items (58.3% of "
            "their time)");
  TempDir t;
  render_timeline(r, t.path);
  const std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("## Critical path of each work item, every SM"), std::string::npos) << md;
  EXPECT_NE(md.find("3 work items on 2 SMs, 600.0 ns summed: every SM's that the build stamped (per SM 1 to 2, "
                    "median 1.5)."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| loads (full-barrier wait) | 2 | 58.33% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| consumer 1 | 2 | 250.0 ns | 210.0 ns | 250.0 ns | 290.0 ns | 300.0 ns |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| all | 3 | 200.0 ns |"), std::string::npos) << md;
  // A record without them covers the pictured SM's items alone, and says so.
  r.timeline->paths.reset();
  render_timeline(r, t.path);
  const std::string old = read_file(t.path / "report.md");
  EXPECT_NE(old.find("of SM 0 alone: the record keeps no other SM's paths"), std::string::npos) << old;
}

// Three items on two SMs: softmax 60 ns on one, the loads 150 ns and 200 ns on the others.
std::vector<ItemPath> three_items() {
  return {item_path(0, 0, 0, "consumer 0", 0, 100, PathClass::kSoftmax, 60),
          item_path(1, 1, 1, "consumer 1", 0, 200, PathClass::kLoads, 150),
          item_path(1, 1, 3, "consumer 1", 200, 500, PathClass::kLoads, 200)};
}

// A class's what-if is the validated slowdown model (predict_slowdown) with the paths without the
// class's time as the other run: the loads' 350 ns over 3 items, 116.7 ns an item, times the
// fullest SM's items, ceil(work items / CTAs).
TEST(TimelinePaths, AClassesWhatIfIsTheSlowdownModelAgainstThePathsWithoutIt) {
  const std::vector<ItemPath> paths = three_items();
  const std::vector<ItemPath> without = without_class(paths, PathClass::kLoads);
  EXPECT_DOUBLE_EQ(without[2].end_ns, 300);
  EXPECT_DOUBLE_EQ(without[2].ns[std::size_t(PathClass::kLoads)], 0);
  EXPECT_EQ(without[2].bound, PathClass::kBetween);
  EXPECT_DOUBLE_EQ(busiest_sm_items(10, 4, 4), 3);
  EXPECT_DOUBLE_EQ(busiest_sm_items(4096, 132, 132), 32);
  // A grid of one item a CTA, more CTAs than SMs (d4's): an SM runs its CTAs in turn.
  EXPECT_DOUBLE_EQ(busiest_sm_items(512, 512, 132), 4);
  EXPECT_DOUBLE_EQ(busiest_sm_items(10, 0, 132), 0);
  EXPECT_DOUBLE_EQ(busiest_sm_items(10, 4, 0), 0);
  const auto what_ifs = class_what_ifs(paths, 3);
  ASSERT_EQ(what_ifs.size(), 3u);  // loads, softmax, between stamps: the classes with time
  EXPECT_EQ(what_ifs[0].cls, PathClass::kLoads);
  EXPECT_NEAR(what_ifs[0].model.predicted_ns, -350, 1e-9);
  EXPECT_DOUBLE_EQ(what_ifs[0].model.predicted_ns, predict_slowdown(paths, without, 3).predicted_ns);

  TimelineRecord r = two_warps();
  r.timeline->paths = paths;
  r.work_items = 10;
  r.grid_ctas = 4;
  TempDir t;
  render_timeline(r, t.path);
  std::string md = read_file(t.path / "report.md");
  // Every item stamped and every SM decoded: the launch's own count (two of the 3 items ran on
  // one SM), not ceil(work items / CTAs).
  EXPECT_NE(md.find("here 2 (the most items that ended on one SM in this launch)"), std::string::npos) << md;
  EXPECT_NE(md.find("the means over the 3 items above of every SM"), std::string::npos) << md;
  EXPECT_NE(md.find("| loads (full-barrier wait) | 2 | 58.33% | 66.67% | 73.33% | -233.3 ns (-21.21%) |"),
            std::string::npos)
      << md;
  // A sampled build's record: from the work items, the CTAs and the SMs that ran them, an SM's
  // CTAs one after another (4 CTAs on 3 SMs: 2 on one of them).
  for (std::size_t i = 0; i < r.timeline->paths->size(); ++i) (*r.timeline->paths)[i].smid = std::uint32_t(i);
  r.stamp_sample = 8;
  render_timeline(r, t.path);
  md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("here 6 (ceil(10 work items / 4 CTAs) x ceil(4 CTAs / 3 SMs))"), std::string::npos) << md;
  // A sampled build's record made before the work items were recorded: the change per item.
  r.work_items.reset();
  r.stamp_sample = 8;
  render_timeline(r, t.path);
  md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("which this record cannot count (it stamped every 8th item"), std::string::npos) << md;
  EXPECT_NE(md.find("| -116.7 ns per item |"), std::string::npos) << md;
}

// A record that keeps the pictured SM's warps alone counts the items that ended on that SM, so a
// grid that runs in waves (d4's: a CTA an item, CTAs in turn on an SM) multiplies by its waves,
// not by one CTA's items: here CTA 0's two items and CTA 1's one, all on SM 0.
TEST(TimelinePaths, APicturedSmsItemsAreCountedPerSmNotPerCta) {
  TimelineRecord r = two_warps();
  TimelineDecoded& d = *r.timeline;
  d.ctas = 2;
  d.warps.push_back(TimelineWarp{1, 4, 0, "consumer 0", 1000, 1600, 2, 0, 0, {{Span::kItem, 1000, 1600, 0}}});
  TempDir t;
  render_timeline(r, t.path);
  const std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("here 3 (the items that ended on SM 0, the record keeping no other SM's)"), std::string::npos)
      << md;
}

// Under global-phases-leads: the report names the warp slots the policy leaves empty, and an
// item's prologue (its begin to its first tile's landing) is a class of its path, the time the
// policy leaves unstamped between its spans "between stamps".
TEST(TimelinePaths, APerItemPolicysPrologueAndItsEmptySlots) {
  TempDir t;
  TimelineRecord r = two_warps();
  r.stamps = "global-phases-leads";
  TimelineDecoded& d = *r.timeline;
  d.warps_unstamped_by_policy = 12;
  d.warps = {{0, 4, 0, "consumer 0", 0, 1000, 5, 0, 0,
              {{Span::kItem, 0, 1000, 3}, {Span::kPrologue, 0, 300, 3}, {Span::kEpilogue, 800, 900, 3}}}};
  const auto paths = item_paths(d);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_DOUBLE_EQ(paths[0].ns[std::size_t(PathClass::kPrologue)], 300);
  EXPECT_DOUBLE_EQ(paths[0].ns[std::size_t(PathClass::kEpilogue)], 100);
  EXPECT_DOUBLE_EQ(paths[0].ns[std::size_t(PathClass::kBetween)], 600);
  EXPECT_EQ(path_class_of(Span::kPrologue), PathClass::kPrologue);
  render_timeline(r, t.path);
  const std::string md = read_file(t.path / "report.md");
  EXPECT_NE(md.find("Stamp policy `global-phases-leads`"), std::string::npos) << md;
  EXPECT_NE(md.find("12 warp slots of the blocks that ran are empty by the policy"), std::string::npos) << md;
  EXPECT_NE(md.find("| prologue (to the first tile's landing) | 0 | 30.00% |"), std::string::npos) << md;
  // The other policies' records say nothing of empty slots.
  TempDir every;
  render_timeline(two_warps(), every.path);
  EXPECT_EQ(read_file(every.path / "report.md").find("empty by the policy"), std::string::npos);
}

// Over several items, a class's share per item spreads: the median and 90th percentile count
// every item, 0 where the class has no time on the item's path.
TEST(TimelinePaths, TheSharePerItemIsDistributedOverTheItems) {
  TimelineDecoded d;
  TimelineWarp w{0, 4, 0, "consumer 0", 0, 1000, 0, 0, 0, {}};
  // Ten items of 100 ns; in item i the loads wait takes 10 * i ns.
  for (std::uint32_t i = 0; i < 10; ++i) {
    const double b = 100.0 * i;
    w.spans.push_back({Span::kItem, b, b + 100, i});
    if (i > 0) w.spans.push_back({Span::kFullWait, b, b + 10 * i, i});
  }
  d.warps = {w};
  const auto sum = summarize_paths(item_paths(d));
  const auto loads = std::find_if(sum.begin(), sum.end(), [](const auto& c) { return c.cls == PathClass::kLoads; });
  ASSERT_NE(loads, sum.end());
  EXPECT_DOUBLE_EQ(loads->share, 450.0 / 1000);
  EXPECT_DOUBLE_EQ(loads->item_share_median, 0.45);  // items 4 and 5: 40% and 50%
  EXPECT_NEAR(loads->item_share_p90, 0.81, 1e-12);   // between 80% and 90%
}

// The picture draws each item's path on the lane of the warp that ended it last: item 0 on the
// producer's lane (0; it ends at 500 ns, the consumer's at 400 ns), item 1 on the consumer's (1).
TEST(TimelinePaths, ThePictureDrawsEachItemsPathOnItsLastWarpsLane) {
  TempDir t;
  render_timeline(two_warps(), t.path);
  const std::string dat = read_file(t.path / "plots" / "timeline.dat");
  const auto at = dat.find("# critical path: begin_us end_us lane\n");
  ASSERT_NE(at, std::string::npos) << dat;
  EXPECT_EQ(dat.substr(at).find("# critical path: begin_us end_us lane\n" + gp_num(0.01) + " " + gp_num(0.5) +
                                " 0\n" + gp_num(0.4) + " " + gp_num(0.99) + " 1\n"),
            0u)
      << dat.substr(at);
  const std::string gp = read_file(t.path / "plots" / "timeline.gp");
  EXPECT_NE(gp.find("title 'critical path'"), std::string::npos) << gp;
}

// The what-if's slowdown model (predict_slowdown): an item's whole path growth between the runs,
// once per item of the SMs with the most. Here the delay adds 30 ns of loads and 20 ns of issue
// per item (the consumers queue behind the late tile), and the SMs with the most run 3 items:
// 150 ns, where the loads' own growth alone (90 ns) would miss the issue's share.
TEST(TimelinePaths, TheSlowdownIsAnItemsWholePathGrowthOncePerItemOfTheFullestSm) {
  const auto path = [](double ns, double loads, double issue) {
    ItemPath p;
    p.end_ns = ns;
    p.ns[std::size_t(PathClass::kLoads)] = loads;
    p.ns[std::size_t(PathClass::kIssue)] = issue;
    p.ns[std::size_t(PathClass::kSoftmax)] = ns - loads - issue;
    return p;
  };
  // Two base items of 100 ns and 120 ns; three delayed ones averaging 160 ns.
  const std::vector<ItemPath> base = {path(100, 10, 10), path(120, 10, 30)};
  const std::vector<ItemPath> delayed = {path(150, 40, 30), path(160, 40, 40), path(170, 40, 50)};
  const SlowdownPrediction m = predict_slowdown(base, delayed, 3);
  EXPECT_DOUBLE_EQ(m.base_item_ns, 110);
  EXPECT_DOUBLE_EQ(m.delayed_item_ns, 160);
  EXPECT_DOUBLE_EQ(m.class_growth_ns[std::size_t(PathClass::kLoads)], 30);
  EXPECT_DOUBLE_EQ(m.class_growth_ns[std::size_t(PathClass::kIssue)], 20);
  EXPECT_DOUBLE_EQ(m.class_growth_ns[std::size_t(PathClass::kSoftmax)], 0);
  EXPECT_DOUBLE_EQ(m.predicted_ns, 150);
  EXPECT_DOUBLE_EQ(predict_slowdown({}, delayed, 3).predicted_ns, 0) << "no base item: no prediction";
}

}  // namespace
}  // namespace attnlab::report
