// Rendering the committed H100 fixture records: golden markdown and plot scripts, byte-for-
// byte reproducibility, bad input, hardware-metric sections, and gnuplot on every script.
// Regenerate the golden files after an intended change of the output with:
//   UPDATE_GOLDEN=1 ctest --test-dir build -R Golden      (then review `git diff tests/reports/golden`)
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"
#include "report_test_util.hpp"

using namespace attnlab;
using namespace attnlab::report;
using namespace attnlab::report::testing;

namespace {

// Renders everything the make target renders for reports/h100/, into `out`: per-run reports
// beside the records, the notebook, the progression and a comparison of phase 4 against 1.
void render_all(const fs::path& out) {
  const fs::path root = out / "records";
  make_fixture_root(root);
  const auto runs = load_root(root);
  for (const auto& r : runs) render_run(r, runs);
  render_notebook(runs, root, out);
  render_progression(runs, root, out / "progression");
  const report::Run* one = newest_ok(runs, "1", runs.front().gpu_name);
  const report::Run* four = newest_ok(runs, "4", runs.front().gpu_name);
  ASSERT_TRUE(one && four);
  write_text(out / "compare-1-4.md", compare_markdown(*one, *four));
}

// Relative path -> contents of every rendered file with one of `exts` under `dir`.
std::map<std::string, std::string> files_under(const fs::path& dir, const std::vector<std::string>& exts) {
  std::map<std::string, std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const auto ext = e.path().extension().string();
    if (std::find(exts.begin(), exts.end(), ext) == exts.end()) continue;
    out[e.path().lexically_relative(dir).generic_string()] = read_file(e.path());
  }
  return out;
}

const std::vector<std::string> kGoldenExts = {".md", ".gp", ".jsonl"};

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

std::string load_error(const fs::path& p) {
  try {
    load_run(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Golden, FixtureRecordsRenderToTheCommittedGoldenFiles) {
  TempDir t;
  render_all(t.path);
  const auto got = files_under(t.path, kGoldenExts);
  const fs::path golden = ATTNLAB_GOLDEN_DIR;
  if (const char* u = std::getenv("UPDATE_GOLDEN"); u && std::string(u) == "1") {
    for (const auto& [rel, text] : files_under(golden, kGoldenExts)) fs::remove(golden / rel);
    for (const auto& [rel, text] : got) write_file(golden / rel, text);
    GTEST_SKIP() << "golden files rewritten under " << golden << "; review them with git diff";
  }
  const auto want = files_under(golden, kGoldenExts);
  ASSERT_FALSE(want.empty()) << "no golden files under " << golden
                             << "; create them with UPDATE_GOLDEN=1";
  for (const auto& [rel, text] : want) {
    auto it = got.find(rel);
    ASSERT_NE(it, got.end()) << rel << " is golden but was not rendered";
    EXPECT_EQ(it->second, text) << rel << " differs from the golden file; if intended, "
                                << "regenerate with UPDATE_GOLDEN=1";
  }
  for (const auto& [rel, text] : got)
    EXPECT_TRUE(want.count(rel)) << rel << " was rendered but has no golden file";
}

TEST(Golden, RenderingIsByteForByteReproducible) {
  TempDir a("-a"), b("-b");
  render_all(a.path);
  render_all(b.path);
  const std::vector<std::string> exts = {".md", ".gp", ".dat", ".jsonl"};
  const auto fa = files_under(a.path, exts), fb = files_under(b.path, exts);
  ASSERT_EQ(fa.size(), fb.size());
  for (const auto& [rel, text] : fa) EXPECT_EQ(text, fb.at(rel)) << rel;
  // And rendering again in place changes nothing.
  render_all(a.path);
  EXPECT_EQ(files_under(a.path, exts), fa);
}

TEST(Render, RecordsAreNeverModified) {
  TempDir t;
  const auto dirs = make_fixture_root(t.path / "records");
  std::map<fs::path, std::string> before;
  for (const auto& d : dirs) before[d] = read_file(d / "run.json");
  const auto runs = load_root(t.path / "records");
  for (const auto& r : runs) render_run(r, runs);
  for (const auto& d : dirs) EXPECT_EQ(read_file(d / "run.json"), before[d]) << d;
}

TEST(Render, WhatARecordLacksIsSaidPlainly) {
  TempDir t;
  const auto dirs = make_fixture_root(t.path);
  const auto runs = load_root(t.path);
  render_run(runs.front(), runs);
  const std::string md = read_file(runs.front().dir / "report.md");
  EXPECT_TRUE(contains(md, "Not measured: this record has no `metrics`")) << md;
  EXPECT_TRUE(contains(md, "Not measured: no shape of this record has stall metrics")) << md;
  EXPECT_TRUE(contains(md, "Not measured: this record has no `static` evidence")) << md;
  EXPECT_TRUE(contains(md, "This record states no claims.")) << md;
  EXPECT_FALSE(fs::exists(runs.front().dir / "plots" / "stalls.gp"));
}

// The fixture's phase 4 record with the keys the metrics collection and the SASS reader add
// (profiler/metrics.cpp, profiler/derived.cpp, experiments/sass.cpp), shaped as they write
// them. The values are placeholders for the renderer, not measurements.
ordered_json with_metrics(ordered_json rec) {
  rec["metrics_config"] = {{"groups", {"tensor", "memory", "stalls"}}, {"method", "CUPTI range profiler"},
                           {"chip", "GH100"}, {"unavailable", nullptr}};
  for (auto& res : rec["results"]) {
    ordered_json stalls = ordered_json::object();
    int k = 1;
    for (const char* reason : {"long_scoreboard", "barrier", "math_pipe_throttle", "wait", "selected"})
      stalls[std::string("smsp__average_warps_issue_stalled_") + reason + "_per_issue_active.ratio"] = {
          {"value", 0.5 * k++}, {"unit", "ratio"}};
    res["metrics"] = {
        {"tensor", {{"available", true}, {"passes", 1}, {"collection_wall_s", 0.25},
                    {"values", {{"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", {{"value", 0.0}, {"unit", "%"}}}}},
                    {"unavailable_metrics", {{"sm__inst_executed_pipe_tensor_op_gmma.sum", "not on this chip"}}}}},
        {"memory", {{"available", false}, {"reason", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"}}},
        {"stalls", {{"available", true}, {"passes", 7}, {"values", stalls}}}};
    res["static"] = {
        {"available", true},
        {"kernels", {{{"name", "attention_kernel<64>"}, {"registers", 95}, {"static_smem_bytes", 16384},
                      {"dynamic_smem_bytes", 0}, {"local_bytes", 0}, {"block", {128, 1, 1}}, {"grid", {64, 16, 16}},
                      {"theoretical_occupancy_pct", 50.0}}}},
        {"sass", {{"available", true}, {"complete", true}, {"instructions", 900}, {"HMMA", 0}, {"HGMMA", 0}, {"HFMA2.MMA", 4},
                  {"LDL", 0}, {"STL", 0}, {"BRA", {{"total", 10}, {"@P", 4}, {"@!P", 3}}},
                  {"kernels", ordered_json::array()}}},
        {"ptxas", {{"available", true}, {"kernels", {{{"name", "attention_kernel<64>"}, {"found", true}, {"registers", 95},
                                                       {"barriers", 1}, {"stack_frame_bytes", 0}, {"spill_store_bytes", 0},
                                                       {"spill_load_bytes", 0}, {"smem_bytes", 16384}}}}}}};
    res["derived"] = {{"pct_of_tensor_peak", 2.0}, {"tensor_peak_tflops", 989.4},
                      {"tensor_peak_source", "datasheet"}, {"arithmetic_intensity_flop_per_byte", 512.0},
                      {"dram_gbps_measured", nullptr},
                      {"dram_gbps_measured_reason", "the duration was not measured (metric group throughput)"},
                      {"inputs", {{"tflops", "timing.cold median"}}}};
  }
  rec["claims"] = {{{"id", "no-local"}, {"text", "No local memory traffic."}, {"metric", "/static/sass/LDL"},
                    {"shape", "throughput"}, {"op", "=="}, {"value", 0}, {"factor", 1.0}}};
  return rec;
}

TEST(Render, HardwareMetricsStallsAndStaticEvidenceAreShownWhenPresent) {
  TempDir t;
  const fs::path dir = t.path / "4" / "run";
  write_file(dir / "run.json", with_metrics(ordered_json::parse(read_file(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json"))).dump(2));
  const report::Run run = load_run(dir);
  const auto out = render_run(run, {});
  const std::string md = read_file(dir / "report.md");
  EXPECT_TRUE(contains(md, "![Warp stall breakdown](plots/stalls.png)")) << md;
  EXPECT_TRUE(contains(md, "- `memory`: not available: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")) << md;
  EXPECT_TRUE(contains(md, "- `throughput`: not collected")) << md;
  EXPECT_TRUE(contains(md, "- `tensor`: measured (1 passes, 0.250 s to collect)")) << md;
  EXPECT_TRUE(contains(md, "| `LDL` | 0 | 0 |")) << md;
  EXPECT_TRUE(contains(md, "| `BRA @!P` | 3 | 3 |")) << md;
  EXPECT_TRUE(contains(md, "| `HFMA2.MMA` | 4 | 4 |")) << md;
  EXPECT_TRUE(contains(md, "`HFMA2.MMA`: fp16x2 FMA, or a constant move")) << md;
  EXPECT_TRUE(contains(md, "left out `sm__inst_executed_pipe_tensor_op_gmma.sum`: not on this chip")) << md;
  EXPECT_TRUE(contains(md, "| `dram_gbps_measured` | not measured | the duration was not measured (metric group throughput) |")) << md;
  EXPECT_TRUE(contains(md, "measured DRAM bytes (derived.arithmetic_intensity_flop_per_byte)")) << md;
  EXPECT_TRUE(contains(md, "Requested groups: `tensor`, `memory`, `stalls`.")) << md;
  EXPECT_TRUE(contains(md, "| `no-local`: No local memory traffic. | **SUPPORTED** |")) << md;
  const std::string dat = read_file(dir / "plots" / "stalls.dat");
  EXPECT_TRUE(contains(dat, "\"long scoreboard\"")) << dat;
  EXPECT_EQ(out.scripts.size(), 3u);
}

TEST(Render, IdleTimeBetweenTheKernelsOfALaunchIsShownOnlyForMultiKernelLaunches) {
  TempDir t;
  const fs::path dir = t.path / "3b" / "run";
  auto rec = ordered_json::parse(read_file(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json"));
  // Shaped as experiments/harness.cpp writes them; placeholder values for the renderer.
  auto& first = rec["results"][0]["timing"]["cold"];
  first["kernels_per_launch"] = 3;
  first["busy_median_ns"] = 0.75 * first["median_ns"].get<double>();
  auto& second = rec["results"][1]["timing"]["cold"];
  second["kernels_per_launch"] = 1;
  second["busy_median_ns"] = second["median_ns"];
  write_file(dir / "run.json", rec.dump(2));
  render_run(load_run(dir), {});
  const std::string md = read_file(dir / "report.md");
  EXPECT_TRUE(contains(md, "| throughput 16x16x2048x64 | cold | 3 | 11.95 ms | 8.965 ms | 25.00% |")) << md;
  EXPECT_FALSE(contains(md, "| latency 1x8x512x64 | cold | 1 |")) << md;
}

// The progression of the fixture records plus a newer phase 4 record at the latency shape
// only (run <run_name>), on `gpu`.
static std::string progression_with_newer_latency_run(const std::string& run_name, const std::string& gpu) {
  TempDir t;
  make_fixture_root(t.path);
  auto rec = ordered_json::parse(read_file(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json"));
  rec["started_utc"] = "2030-01-01T00:00:00Z";
  rec["provenance"]["gpu"]["name"] = gpu;
  rec["results"].erase(0);  // keep the latency shape
  write_file(t.path / "4" / run_name / "run.json", rec.dump(2));
  render_progression(load_root(t.path), t.path, t.path / "progression");
  return read_file(t.path / "progression" / "report.md");
}

TEST(Render, ProgressionTakesEachShapeFromTheNewestRecordThatTimedIt) {
  // The newer record must not hide the older record's throughput figure; each figure names
  // its record when a row draws on two.
  const std::string md =
      progression_with_newer_latency_run("20300101T000000Z-newer00", "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(contains(md, "| 4 fused tiled | a: `20300101T000000Z-newer00` (`dcabdff`); b: `")) << md;
  // Latency from the newer record (a), throughput from the older one (b).
  EXPECT_TRUE(contains(md, "cold, a | ")) << md;
  EXPECT_TRUE(contains(md, "cold, b |")) << md;
  EXPECT_FALSE(contains(md, "not run")) << md;
}

TEST(Render, ProgressionRowsNeverMixGpus) {
  // The newer record is from another GPU: the older H100 record's throughput figure must not
  // join its row.
  const std::string md =
      progression_with_newer_latency_run("20300101T000000Z-a100000", "NVIDIA A100-SXM4-80GB");
  EXPECT_TRUE(contains(md, "| 4 fused tiled | `20300101T000000Z-a100000` (`dcabdff`) | NVIDIA A100-SXM4-80GB |")) << md;
  EXPECT_TRUE(contains(md, "The records come from different GPUs")) << md;
}

TEST(Render, EveryScriptRendersWithGnuplot) {
  const auto gnuplot = find_gnuplot();
  if (!gnuplot) GTEST_SKIP() << "gnuplot is not installed (scripts/setup installs gnuplot-nox)";
  TempDir t;
  render_all(t.path);
  const fs::path extra = t.path / "metrics" / "4" / "run";
  write_file(extra / "run.json", with_metrics(ordered_json::parse(read_file(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json"))).dump(2));
  render_run(load_run(extra), {});
  std::vector<fs::path> scripts;
  for (const auto& e : fs::recursive_directory_iterator(t.path))
    if (e.path().extension() == ".gp") scripts.push_back(e.path());
  std::sort(scripts.begin(), scripts.end());
  ASSERT_GE(scripts.size(), 7u);  // 2 runs x (latency, roofline), progression x 2, stalls
  ASSERT_NO_THROW(run_gnuplot(*gnuplot, scripts));
  for (const auto& s : scripts) {
    const fs::path png = fs::path(s).replace_extension(".png");
    ASSERT_TRUE(fs::exists(png)) << png;
    EXPECT_GT(fs::file_size(png), 1000u) << png;
  }
}

TEST(Render, CompareOfTheFixturesFindsPhase4Faster) {
  TempDir t;
  make_fixture_root(t.path);
  const auto runs = load_root(t.path);
  const report::Run* one = newest_ok(runs, "1", runs.front().gpu_name);
  const report::Run* four = newest_ok(runs, "4", runs.front().gpu_name);
  ASSERT_TRUE(one && four);
  const std::string md = compare_markdown(*one, *four);
  EXPECT_TRUE(contains(md, "Headline regime: FASTER at 2, SLOWER at 0, SAME at 0")) << md;
  const std::string back = compare_markdown(*four, *one);
  EXPECT_TRUE(contains(back, "Headline regime: FASTER at 0, SLOWER at 2, SAME at 0")) << back;
  const std::string self = compare_markdown(*four, *four);
  EXPECT_TRUE(contains(self, "Headline regime: FASTER at 0, SLOWER at 0, SAME at 2")) << self;
}

TEST(BadInput, ErrorsNameTheFileAndTheField) {
  TempDir t;
  const fs::path good = fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json";
  const auto rec = ordered_json::parse(read_file(good));

  write_file(t.path / "malformed" / "run.json", "{\"schema\": \"attnlab.run/1\", \"phase\": ");
  const std::string m = load_error(t.path / "malformed");
  EXPECT_EQ(m.rfind((t.path / "malformed" / "run.json").string() + ": not valid JSON: parse error at line 1", 0), 0u) << m;

  auto old = rec;
  old["schema"] = "attnlab.run/0";
  write_file(t.path / "old" / "run.json", old.dump());
  EXPECT_EQ(load_error(t.path / "old"),
            (t.path / "old" / "run.json").string() + ": /schema is \"attnlab.run/0\", expected \"attnlab.run/1\"");

  auto missing = rec;
  missing["provenance"]["gpu"].erase("uuid");
  write_file(t.path / "missing" / "run.json", missing.dump());
  EXPECT_EQ(load_error(t.path / "missing"), (t.path / "missing" / "run.json").string() + ": missing /provenance/gpu/uuid");

  auto wrong = rec;
  wrong["results"][1]["timing"]["warm"]["median_ns"] = "fast";
  write_file(t.path / "wrong" / "run.json", wrong.dump());
  EXPECT_EQ(load_error(t.path / "wrong"),
            (t.path / "wrong" / "run.json").string() + ": /results/1/timing/warm/median_ns is not a number");

  EXPECT_EQ(load_error(t.path / "absent"), (t.path / "absent" / "run.json").string() + ": no such file");
  try {
    load_root(t.path / "absent");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (t.path / "absent").string() + ": no such directory");
  }
}

TEST(Format, NumbersAreFixedAndResolved) {
  EXPECT_EQ(sig(22.99695844703757), "23.00");
  EXPECT_EQ(sig(3.1931987664270696), "3.193");
  EXPECT_EQ(sig(9.99996), "10.00");
  EXPECT_EQ(sig(1024), "1024");
  EXPECT_EQ(sig(5.876801022683398e-05), "5.877e-05");
  EXPECT_EQ(duration(11952794.0), "11.95 ms");
  EXPECT_EQ(duration(46176.0), "46.18 us");
  EXPECT_EQ(duration_range(11949024.4, 11953974.8, 11952122.0), "11.949-11.954 ms");
  EXPECT_EQ(count(260), "260");
  EXPECT_EQ(plain(6.42), "6.42");
  EXPECT_EQ(pct(0.1974424037583061), "0.20%");
}
