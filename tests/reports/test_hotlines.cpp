// The run report's "Hot lines (PC sampling)" and "Per-kernel breakdown" sections
// (reports/render_hotlines.cpp), rendered from tests/reports/inputs/hotlines/run.json (the
// phase 4 fixture with a placeholder PC-sampling block; see its README.md): golden markdown
// and chart script, and what each part of the section says.
// Regenerate the golden files: UPDATE_GOLDEN=1 ctest --test-dir build -R Hotlines
#include <gtest/gtest.h>

#include <cstdlib>

#include "reports/plots.hpp"
#include "reports/render.hpp"
#include "report_test_util.hpp"
#include "tests/pc_sampling_json.hpp"

using namespace attnlab;
using namespace attnlab::report;
using namespace attnlab::report::testing;

namespace {

const fs::path kInput = fs::path(ATTNLAB_GOLDEN_DIR).parent_path() / "inputs" / "hotlines" / "run.json";
const fs::path kGolden = fs::path(ATTNLAB_GOLDEN_DIR).parent_path() / "golden-hotlines";

// The fixture rendered in `dir`/4/<run>; returns the run directory.
fs::path render_fixture(const fs::path& dir) {
  const fs::path run = dir / "4" / "20261122T215639Z-dcabdff";
  write_file(run / "run.json", read_file(kInput));
  const auto runs = load_root(dir);
  EXPECT_EQ(runs.size(), 1u);
  render_run(runs.front(), runs);
  return run;
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The hot-lines part of the report: from its heading to the next section after the breakdown.
std::string hot_part(const std::string& md) {
  const auto a = md.find("## Hot lines");
  const auto b = md.find("\n## ", md.find("## Per-kernel breakdown"));
  return md.substr(a, b == std::string::npos ? std::string::npos : b - a + 1);
}

TEST(Hotlines, GoldenSectionAndChartScript) {
  TempDir t;
  const fs::path run = render_fixture(t.path);
  const std::map<std::string, std::string> got = {
      {"hotlines.md", hot_part(read_file(run / "report.md"))},
      {"hotlines_1_1.gp", read_file(run / "plots" / "hotlines_1_1.gp")},
      {"hotlines_1_1.dat", read_file(run / "plots" / "hotlines_1_1.dat")}};
  if (std::getenv("UPDATE_GOLDEN")) {
    for (const auto& [name, text] : got) write_file(kGolden / name, text);
    GTEST_SKIP() << "golden files rewritten under " << kGolden << "; review them with git diff";
  }
  for (const auto& [name, text] : got) {
    ASSERT_TRUE(fs::exists(kGolden / name)) << name << " has no golden file";
    EXPECT_EQ(text, read_file(kGolden / name)) << name << " differs from its golden file";
  }
}

TEST(Hotlines, TopLinesSassStallsOverheadAndTheUnavailableShape) {
  TempDir t;
  const fs::path run = render_fixture(t.path);
  const std::string md = hot_part(read_file(run / "report.md"));
  // Lines by samples, with file:line, source text and share; the line-less PCs said as such.
  const auto l120 = md.find("`phase4_tiled.cu:120`"), l131 = md.find("`phase4_tiled.cu:131`");
  ASSERT_NE(l120, std::string::npos) << md;
  ASSERT_NE(l131, std::string::npos) << md;
  EXPECT_LT(l120, l131);
  EXPECT_TRUE(contains(md, "`float4 k = K4[j];`")) << md;
  EXPECT_TRUE(contains(md, "long_scoreboard 80.0%")) << md;  // 600 of 750 samples of line 120
  EXPECT_TRUE(contains(md, "PCs without a line")) << md;
  // SASS behind the lines, by offset.
  EXPECT_TRUE(contains(md, "`0x0470`")) << md;
  EXPECT_TRUE(contains(md, "`LDG.E.128 R4, desc[UR4][R2.64]`")) << md;
  EXPECT_TRUE(contains(md, "overhead 100%")) << md;
  EXPECT_TRUE(contains(md, "![PC samples by line and stall reason](plots/hotlines_1_1.png)")) << md;
  // The second shape's sampling was refused: said, with CUPTI's reason.
  EXPECT_TRUE(contains(md, "Not measured: cuptiPCSamplingEnable failed: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")) << md;
  // The per-kernel breakdown.
  EXPECT_TRUE(contains(md, "## Per-kernel breakdown")) << md;
}

// Executed-instruction counts (CUPTI SASS metrics): columns on both tables where the record has
// them, the average active threads of 32; without them the tables are as before.
TEST(Hotlines, ExecutedCountsAndActiveThreadsOnlyWhereCounted) {
  TempDir t;
  const fs::path run = render_fixture(t.path);
  const std::string md = hot_part(read_file(run / "report.md"));
  EXPECT_TRUE(contains(md, "| # | line | source | samples | share | executed | dominant stall reasons |")) << md;
  EXPECT_TRUE(contains(md, "| 16384 | long_scoreboard 80.0%")) << md;  // line 120: every instruction of it
  EXPECT_TRUE(contains(md, "| line | offset | SASS | samples | executed | active threads | dominant stall reasons |"))
      << md;
  EXPECT_TRUE(contains(md, "| 150 | 4096 | 31.7 of 32 |")) << md;  // 130000 threads over 4096 warp instructions
  EXPECT_TRUE(contains(md, "Executed: 200000 warp instructions, 31.0 of 32 threads active on average.")) << md;

  // The same block without counts (a record from before them): the tables as they were.
  auto j = ordered_json::parse(read_file(kInput));
  ordered_json& pc = j["results"][0]["pc_sampling"];
  attnlab::testing::strip_sass_counts(pc);
  TempDir u;
  const fs::path plain = u.path / "4" / "20261122T215639Z-dcabdff";
  write_file(plain / "run.json", j.dump());
  auto runs = load_root(u.path);
  render_run(runs.front(), runs);
  const std::string before = hot_part(read_file(plain / "report.md"));
  EXPECT_TRUE(contains(before, "| # | line | source | samples | share | dominant stall reasons |")) << before;
  EXPECT_TRUE(contains(before, "| line | offset | SASS | samples | dominant stall reasons |")) << before;
  EXPECT_FALSE(contains(before, "Executed")) << before;
  EXPECT_FALSE(contains(before, "active threads")) << before;

  // Counting refused: said, with CUPTI's reason, and no columns.
  pc["sass_counts"] = {{"available", false}, {"reason", "cuptiSassMetricsEnable failed: CUPTI_ERROR_NOT_SUPPORTED"}};
  write_file(plain / "run.json", j.dump());
  runs = load_root(u.path);
  render_run(runs.front(), runs);
  const std::string refused = hot_part(read_file(plain / "report.md"));
  EXPECT_TRUE(contains(refused, "Executed instructions: not counted: cuptiSassMetricsEnable failed: "
                                "CUPTI_ERROR_NOT_SUPPORTED")) << refused;
  EXPECT_FALSE(contains(refused, "active threads")) << refused;
}

// Counters per kernel: the launch-wide values for a launch of one kernel; for one of several,
// each instance's from metrics.<group>.kernels, in launch order, with the groups that lack them.
TEST(Hotlines, BreakdownShowsCountersPerKernel) {
  TempDir t;
  const fs::path run = render_fixture(t.path);
  const std::string md = hot_part(read_file(run / "report.md"));
  const std::string breakdown = md.substr(md.find("## Per-kernel breakdown"));
  // One kernel: its row carries the launch's values and the largest stall other than selected.
  EXPECT_TRUE(contains(breakdown, "SM 41.5%, occupancy 23.0%, top stall long_scoreboard 4.50")) << breakdown;
  // Two instances of the gemm, each in launch order, and the softmax between them.
  EXPECT_TRUE(contains(breakdown, "#0: SM 70.0%, occupancy 25.0%; #2: SM 71.0%, occupancy 26.0%")) << breakdown;
  EXPECT_TRUE(contains(breakdown, "SM 20.0%, occupancy 60.0%")) << breakdown;
  EXPECT_TRUE(contains(breakdown, "- #1: `softmax_rows_placeholder_kernel`")) << breakdown;
  EXPECT_TRUE(contains(breakdown, "| `gpu__time_duration.sum` | ns | 610.0 | 210.0 | 605.0 |")) << breakdown;
  EXPECT_TRUE(contains(breakdown, "- `memory`: per-kernel counters (CUPTI auto range, one range per kernel): placeholder reason"))
      << breakdown;
}

TEST(Hotlines, ARecordWithoutThemSaysNotMeasured) {
  TempDir t;
  const auto dirs = make_fixture_root(t.path);
  const auto runs = load_root(t.path);
  render_run(runs.front(), runs);
  const std::string md = read_file(runs.front().dir / "report.md");
  EXPECT_TRUE(contains(md, "Not measured: no shape of this record has PC samples")) << md;
  EXPECT_TRUE(contains(md, "Not measured: the record has no per-kernel times")) << md;
  EXPECT_FALSE(fs::exists(runs.front().dir / "plots" / "hotlines_1_1.gp"));
}

TEST(Hotlines, AMalformedBlockNamesTheField) {
  TempDir t;
  auto j = ordered_json::parse(read_file(kInput));
  j["results"][0]["pc_sampling"]["kernels"][0]["lines"] = 3;
  const fs::path run = t.path / "4" / "20261122T215639Z-dcabdff";
  write_file(run / "run.json", j.dump());
  try {
    load_root(t.path);
    FAIL() << "loaded a malformed pc_sampling block";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "/results/0/pc_sampling")) << e.what();
    EXPECT_TRUE(contains(e.what(), "lines")) << e.what();
  }
}

TEST(Hotlines, ChartScriptRendersWithGnuplot) {
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) GTEST_SKIP() << "gnuplot not on PATH";
  TempDir t;
  const fs::path run = render_fixture(t.path);
  run_gnuplot(*gnuplot, {run / "plots" / "hotlines_1_1.gp"});
  EXPECT_TRUE(fs::exists(run / "plots" / "hotlines_1_1.png"));
}

}  // namespace
