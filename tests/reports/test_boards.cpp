// The board spread: intervals of each board's median decide which boards differ (not their raw
// p10-p90), and a board folder gathered from many sessions gives a spread of one phase across
// its boards from the phase's side of the A/B records.
#include <gtest/gtest.h>

#include "reports/render.hpp"
#include "report_test_util.hpp"

namespace attnlab::report {
namespace {

using nlohmann::ordered_json;
using testing::TempDir;
using testing::read_file;
using testing::write_file;

// 200 samples spread evenly over [lo, lo + width), in a scrambled order.
BoardSamples even(double lo, double width) {
  BoardSamples b;
  for (int i = 0; i < 200; ++i) b.samples_ns.push_back(lo + width * ((i * 37) % 200) / 200.0);
  b.median_ns = lo + width / 2;
  b.p10_ns = lo + width / 10;
  b.p90_ns = lo + width * 9 / 10;
  return b;
}

TEST(BoardSpread, BoardsWhoseRangesOverlapDifferWhereTheirMediansIntervalsDoNot) {
  // Medians 3% apart, each board's p10-p90 16% wide: the ranges overlap, the medians do not.
  const BoardSamples fast = even(90, 20), slow = even(93, 20), same = even(90, 20);
  ASSERT_LT(slow.p10_ns, fast.p90_ns);
  const BoardSpread s = board_spread({slow, fast, same});
  ASSERT_EQ(s.intervals.size(), 3u);
  ASSERT_TRUE(s.intervals[1]);
  EXPECT_LT(s.intervals[1]->lo_ns, fast.median_ns);
  EXPECT_GT(s.intervals[1]->hi_ns, fast.median_ns);
  EXPECT_NEAR(s.between_pct, 100.0 * 3 / 100, 1e-9);
  // Both of the fast boards against the slow one; not the two alike.
  const std::vector<std::pair<std::size_t, std::size_t>> differ = {{1, 0}, {2, 0}};
  EXPECT_EQ(s.differ, differ);
}

TEST(BoardSpread, ABoardWithoutSamplesHasNoIntervalAndIsComparedWithNone) {
  BoardSamples point = even(200, 1);
  point.samples_ns.clear();
  const BoardSpread s = board_spread({even(90, 20), point});
  ASSERT_EQ(s.intervals.size(), 2u);
  EXPECT_FALSE(s.intervals[1]);
  EXPECT_TRUE(s.differ.empty());
}

// The A/B fixture's record with cuDNN's side on board `uuid`, its times x `scale`.
void add_paired(const fs::path& root, const std::string& run, const std::string& uuid, double scale) {
  const fs::path src = fs::path(ATTNLAB_GOLDEN_DIR).parent_path() / "inputs" / "ab" / "ab" / "5-vs-cudnn" /
                       "20261126T030000Z-0000000" / "run.json";
  auto rec = ordered_json::parse(read_file(src));
  rec["provenance"]["gpu"]["uuid"] = uuid;
  for (auto& r : rec["results"])
    for (const char* k : {"busy_ns", "span_ns"})
      for (auto& v : r["samples"]["b"][k]) v = v.get<double>() * scale;
  write_file(root / "ab" / "5-vs-cudnn" / run / "run.json", rec.dump(2));
}

TEST(BoardSpread, OnePhaseAcrossTheBoardsOfAFolderFromItsSideOfTheAbRecords) {
  TempDir t;
  add_paired(t.path, "20261126T030000Z-0000000", "GPU-aaaaaaaa-0000", 1.0);
  add_paired(t.path, "20261126T040000Z-0000000", "GPU-bbbbbbbb-0000", 1.01);
  BoardSelection sel;
  sel.phases = {"cudnn"};
  render_boards({}, t.path, sel, t.path / "out");
  const std::string md = read_file(t.path / "out" / "boards.md");
  EXPECT_NE(md.find("# Board spread: every record of"), std::string::npos) << md;
  EXPECT_NE(md.find("| cudnn | throughput 16x16x2048x64 | paired (A/B) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1.00% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| yes: GPU-aaaaaaaa < GPU-bbbbbbbb |"), std::string::npos) << md;
  // Phase 5's side is the same on both boards: no difference. A sweep none of them is in: no group.
  sel.phases = {"5"};
  render_boards({}, t.path, sel, t.path / "out5");
  const std::string five = read_file(t.path / "out5" / "boards.md");
  EXPECT_NE(five.find("| 5 | throughput 16x16x2048x64 | paired (A/B) |"), std::string::npos) << five;
  EXPECT_NE(five.find("| 0.00% |"), std::string::npos) << five;
  EXPECT_NE(five.find("| no (the medians' intervals overlap) |"), std::string::npos) << five;
  sel.phases = {"cudnn"};
  sel.sweep = "s1";
  EXPECT_THROW(render_boards({}, t.path, sel, t.path / "outs"), InputError);
}

}  // namespace
}  // namespace attnlab::report
