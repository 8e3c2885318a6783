// Rendering the committed H100 fixture records: golden markdown and plot scripts, byte-for-
// byte reproducibility, bad input, hardware-metric sections, and gnuplot on every script.
// Regenerate the golden files after an intended change of the output with:
//   UPDATE_GOLDEN=1 ctest --test-dir build -R Golden      (then review `git diff tests/reports/golden`)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>

#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/published.hpp"
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
  const report::Run* one = newest_ok(runs, "1", runs.front().gpu_name());
  const report::Run* four = newest_ok(runs, "4", runs.front().gpu_name());
  ASSERT_TRUE(one && four);
  write_text(out / "compare-1-4.md", compare_markdown(*one, *four));
  // A record with launch statistics, baselines beside it and Nsight Compute values.
  make_side_by_side_root(out / "side-by-side");
  const auto beside = load_root(out / "side-by-side");
  for (const auto& r : beside)
    if (r.phase == "4") render_run(r, beside);
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
  EXPECT_FALSE(contains(md, "replay pass")) << md;  // no measured DRAM bytes in the roofline
  EXPECT_FALSE(fs::exists(runs.front().dir / "plots" / "stalls.gp"));
}

// A record whose shapes carry the LSE's check (a phase that emits it) shows it under the
// correctness section, and one whose checks name the forward that made O and LSE (a backward
// run) says so; the fixture without them shows neither. Placeholder figures.
TEST(Render, TheLsesCheckAndTheBackwardsForwardAreShownWhereRecorded) {
  TempDir t;
  const auto dirs = make_fixture_root(t.path);
  const fs::path dir = dirs.front();
  render_run(load_run(dir), {});
  const std::string plain = read_file(dir / "report.md");
  EXPECT_FALSE(contains(plain, "### Row log-sum-exp")) << plain;
  EXPECT_FALSE(contains(plain, "O and LSE, which the backward reads")) << plain;
  auto j = ordered_json::parse(read_file(dir / "run.json"));
  for (auto& r : j["results"]) {
    r["correctness"]["lse_max_abs_err"] = 2.5e-6;
    r["correctness"]["lse_err_ratio"] = 0.04;
    r["correctness"]["forward"] = "5lse";
  }
  j["results"][0]["correctness"]["lse_err_ratio"] = nullptr;  // an LSE that was NaN
  write_file(dir / "run.json", j.dump(2));
  render_run(load_run(dir), {});
  const std::string md = read_file(dir / "report.md");
  EXPECT_TRUE(contains(md, "### Row log-sum-exp")) << md;
  EXPECT_TRUE(contains(md, " | 2.50e-06 | 0.04000 |")) << md;
  EXPECT_TRUE(contains(md, " | 2.50e-06 | not finite |")) << md;
  EXPECT_TRUE(contains(md, "O and LSE, which the backward reads, were made by `5lse`")) << md;
}

// An error the gate wrote null (the output held NaN or Inf) is said to be not finite, not
// "not recorded": the record holds it.
TEST(Render, ANullErrorIsReportedAsNotFinite) {
  TempDir t;
  const fs::path dir = make_fixture_root(t.path).front();
  auto j = ordered_json::parse(read_file(dir / "run.json"));
  j["results"][0]["correctness"]["max_rel_err"] = nullptr;
  write_file(dir / "run.json", j.dump(2));
  render_run(load_run(dir), {});
  const std::string md = read_file(dir / "report.md");
  EXPECT_TRUE(contains(md, " | not finite (NaN or Inf output) | ")) << md;
}

// The fixture's phase 4 record with the keys the metrics collection and the SASS reader add
// (profiler/metrics.cpp, profiler/derived.cpp, profiler/sass.cpp), shaped as they write
// them. The values are placeholders for the renderer, not measurements.
ordered_json with_metrics(ordered_json rec) {
  MetricsConfig config;
  config.groups = {"tensor", "memory", "stalls"};
  config.method = "CUPTI range profiler";
  config.range_name = "attnlab.profiled_launch";
  config.chip = "GH100";
  rec["metrics_config"] = to_json(config);
  GroupResult tensor;
  tensor.group = "tensor";
  tensor.available = true;
  tensor.passes = 1;
  tensor.collection_wall_s = 0.25;
  tensor.values = {{"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "%", 0.0}};
  tensor.unavailable_metrics = {{"sm__inst_executed_pipe_tensor_op_gmma.sum", "not on this chip"}};
  GroupResult memory;
  memory.group = "memory";
  memory.reason = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  GroupResult stalls;
  stalls.group = "stalls";
  stalls.available = true;
  stalls.passes = 7;
  stalls.collection_wall_s = 0.5;
  int k = 1;
  for (const char* reason : {"long_scoreboard", "barrier", "math_pipe_throttle", "wait", "selected"})
    stalls.values.push_back(
        {std::string("smsp__average_warps_issue_stalled_") + reason + "_per_issue_active.ratio", "ratio", 0.5 * k++});
  StaticFacts facts;
  facts.available = true;
  KernelFacts& kernel = facts.kernels.emplace_back();
  kernel.name = "attention_kernel<64>";
  kernel.launch_api = "cudaLaunchKernel";
  kernel.grid = {64, 16, 16};
  kernel.block = {128, 1, 1};
  kernel.registers = 95;
  kernel.static_smem_bytes = 16384;
  kernel.local_bytes = 0;
  kernel.theoretical_occupancy_pct = 50.0;
  sass::SassEvidence sass;
  sass.available = true;
  sass.total.instructions = 900;
  sass.total.hfma2_mma = 4;
  sass.total.bra.total = 10;
  sass.total.bra.p = 4;
  sass.total.bra.not_p = 3;
  sass::PtxasEvidence ptxas;
  ptxas.available = true;
  sass::PtxasFunction f;
  f.name = kernel.name;
  f.registers = 95;
  f.barriers = 1;
  f.stack_frame_bytes = f.spill_store_bytes = f.spill_load_bytes = 0;
  f.smem_bytes = 16384;
  ptxas.kernels.push_back({kernel.name, f, ""});
  for (auto& res : rec["results"]) {
    res["metrics"] = {{"tensor", to_json(tensor)}, {"memory", to_json(memory)}, {"stalls", to_json(stalls)}};
    res["static"] = to_json(facts);
    res["static"]["sass"] = to_json(sass);
    res["static"]["ptxas"] = to_json(ptxas);
    res["derived"] = {{"pct_of_tensor_peak", 2.0}, {"tensor_peak_tflops", 989.4},
                      {"tensor_peak_source", "datasheet"}, {"arithmetic_intensity_flop_per_byte", 512.0},
                      {"dram_gbps_measured", nullptr},
                      {"dram_gbps_measured_reason", "the duration was not measured (metric group throughput)"}};
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
  // The record's own tensor peak, with the source it names, over the tool's datasheet table.
  EXPECT_TRUE(contains(md, "(datasheet; the record's derived.tensor_peak_tflops)")) << md;
  EXPECT_TRUE(contains(md, "| `HFMA2.MMA` | 4 | 4 |")) << md;
  EXPECT_TRUE(contains(md, "`HFMA2.MMA`: fp16x2 FMA, or a constant move")) << md;
  EXPECT_TRUE(contains(md, "left out `sm__inst_executed_pipe_tensor_op_gmma.sum`: not on this chip")) << md;
  EXPECT_TRUE(contains(md, "| `dram_gbps_measured` | not measured | the duration was not measured (metric group throughput) |")) << md;
  EXPECT_TRUE(contains(md, "measured DRAM bytes (derived.arithmetic_intensity_flop_per_byte)")) << md;
  EXPECT_TRUE(contains(md, "Measured DRAM bytes come from the CUPTI range profiler's replay pass")) << md;
  EXPECT_TRUE(contains(md, "the time from the timing regime: two different passes")) << md;
  EXPECT_TRUE(contains(md, "- **Hardware metrics:** measured, see below")) << md;
  EXPECT_TRUE(contains(md, "Requested groups: `tensor`, `memory`, `stalls`.")) << md;
  EXPECT_TRUE(contains(md, "| `no-local`: No local memory traffic. | **SUPPORTED** |")) << md;
  const std::string dat = read_file(dir / "plots" / "stalls.dat");
  EXPECT_TRUE(contains(dat, "\"long scoreboard\"")) << dat;
  EXPECT_EQ(out.scripts.size(), 3u);
}

TEST(Render, ARunWithoutMetricsNeverSaysTheyWereMeasured) {
  TempDir t;
  auto rec = ordered_json::parse(read_file(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json"));
  // As the harness writes a --metrics none run: an empty metrics object per shape.
  rec["options"]["metrics"] = "none";
  for (auto& res : rec["results"]) res["metrics"] = ordered_json::object();
  write_file(t.path / "none" / "run.json", rec.dump(2));
  render_run(load_run(t.path / "none"), {});
  const std::string none = read_file(t.path / "none" / "report.md");
  EXPECT_TRUE(contains(none, "- **Hardware metrics:** not measured (the run was started with `--metrics none`)")) << none;
  EXPECT_FALSE(contains(none, "measured, see below")) << none;
  // Groups requested but none available.
  rec["options"]["metrics"] = "all";
  for (auto& res : rec["results"]) res["metrics"] = {{"memory", {{"available", false}, {"reason", "no permission"}}}};
  write_file(t.path / "unavailable" / "run.json", rec.dump(2));
  render_run(load_run(t.path / "unavailable"), {});
  const std::string unavailable = read_file(t.path / "unavailable" / "report.md");
  EXPECT_TRUE(contains(unavailable, "- **Hardware metrics:** not measured (no metric group was collected; see below)")) << unavailable;
}

TEST(Render, TheHeadlineIsBusyTimeAndSaysSo) {
  TempDir t;
  const fs::path dir = t.path / "sdpa" / "run";
  auto rec = ordered_json::parse(read_file(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json"));
  // Placeholder figures for the renderer: the throughput shape ran 2 kernels, busy 3/4 of the span.
  const double span = rec["results"][0]["timing"]["cold"]["median_ns"];
  rec = with_busy(rec, 0, 2, 0.75 * span, 0.74 * span, 0.76 * span);
  write_file(dir / "run.json", rec.dump(2));
  render_run(load_run(dir), {});
  const std::string md = read_file(dir / "report.md");
  EXPECT_TRUE(contains(md, "Headline figures: each shape's headline regime at its device time, the time during which "
                           "the launch's kernels ran (busy time")) << md;
  EXPECT_TRUE(contains(md, "| throughput 16x16x2048x64 | cold | " + duration(0.75 * span) + " | ")) << md;
  // The span beside the busy time of several kernels, never the busy time alone.
  EXPECT_TRUE(contains(md, " | busy (span " + duration(span) + ") | ")) << md;
  EXPECT_TRUE(contains(md, "| latency 1x8x512x64 | cold | ")) << md;
  EXPECT_TRUE(contains(md, " | busy = span, one kernel | ")) << md;
}

TEST(Render, IdleTimeBetweenTheKernelsOfALaunchIsShownOnlyForMultiKernelLaunches) {
  TempDir t;
  const fs::path dir = t.path / "3b" / "run";
  auto rec = ordered_json::parse(read_file(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json"));
  // Shaped as experiments/harness/harness.cpp writes them; placeholder values for the renderer.
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
static std::string progression_with_newer_latency_run(const std::string& run_name, const std::string& gpu,
                                                      const std::string& uuid = "") {
  TempDir t;
  make_fixture_root(t.path);
  auto rec = ordered_json::parse(read_file(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json"));
  rec["started_utc"] = "2030-01-01T00:00:00Z";
  rec["provenance"]["gpu"]["name"] = gpu;
  if (!uuid.empty()) rec["provenance"]["gpu"]["uuid"] = uuid;
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
  // The newer record, on the fixtures' GPU years later, is from another session.
  EXPECT_TRUE(contains(md, "| 4 fused tiled | a: `20300101T000000Z-newer00` (`dcabdff`)¶; b: `")) << md;
  EXPECT_TRUE(contains(md, "¶ From another session on that GPU than most figures")) << md;
  // Latency from the newer record (a), throughput from the older one (b).
  EXPECT_TRUE(contains(md, "cold, a | ")) << md;
  EXPECT_TRUE(contains(md, "cold, b |")) << md;
  EXPECT_FALSE(contains(md, "not run")) << md;
}

TEST(Render, ProgressionRowsNeverMixGpus) {
  // The newer record is from another GPU: the older H100 record's throughput figure must not
  // join its row.
  const std::string md = progression_with_newer_latency_run("20300101T000000Z-a100000",
                                                            "NVIDIA A100-SXM4-80GB", "GPU-a100");
  EXPECT_TRUE(contains(md, "| 4 fused tiled | `20300101T000000Z-a100000` (`dcabdff`)§ | NVIDIA A100-SXM4-80GB |")) << md;
  EXPECT_TRUE(contains(md, "§ From another GPU than most figures of the table (`GPU-43697a0f-fc44-419f-7edf-06685e9ff149`): "
                           "`4/20300101T000000Z-a100000` on `GPU-a100`.")) << md;
  EXPECT_TRUE(contains(md, "The records come from different GPUs")) << md;
}

// A results root with the fixture records and `extra` synthetic ones; its progression's
// report.md, and the root for the scripts.
static std::string progression_of(const TempDir& t, const std::vector<ordered_json>& extra) {
  make_fixture_root(t.path);
  for (const auto& rec : extra) write_record(t.path, rec);
  render_progression(load_root(t.path), t.path, t.path / "progression");
  return read_file(t.path / "progression" / "report.md");
}

// A synthetic record on the fixtures' GPU (the same uuid), started a minute after them.
static ordered_json beside_fixtures(const std::string& phase, const std::vector<SynthShape>& shapes,
                                    const std::string& started = "2026-11-22T21:57:42Z") {
  return on_gpu(synth_record(phase, started, shapes), "GPU-43697a0f-fc44-419f-7edf-06685e9ff149");
}

TEST(Render, ProgressionSaysEveryShapeWasMeasuredOnlyWhenNoCellIsEmpty) {
  TempDir full;
  EXPECT_TRUE(contains(progression_of(full, {}), "Every phase measured every shape.\n"));
  // Phase 9 also measured a shape in no family of two (so no line against S carries it):
  // phases 1 and 4 did not. The chart by phase gets a panel for it, which says whose point is
  // missing, so every measured shape appears in some chart.
  TempDir gaps;
  const std::string md = progression_of(
      gaps, {beside_fixtures("9", {{"throughput", spread(100e3, 1e3)}, {"latency", spread(10e3, 1e3)},
                                   {"1x8x1024x64", spread(20e3, 1e3)}})});
  EXPECT_TRUE(contains(md, "| not run |")) << md;
  EXPECT_FALSE(contains(md, "Every phase measured every shape.")) << md;
  EXPECT_TRUE(contains(md, "No point (not measured): `1/1x8x1024x64`")) << md;
  EXPECT_TRUE(contains(read_file(gaps.path / "progression" / "plots" / "tflops_by_phase.dat"), "# 1x8x1024x64\n"));
}

TEST(Render, ProgressionFiguresAreBusyTimeAndMarkWhereARecordGivesLess) {
  TempDir t;
  const std::string md = progression_of(
      t, {with_busy(beside_fixtures("7", {{"throughput", spread(200e3, 1e3)}}), 0, 2, 100e3, 99e3, 101e3),
          with_busy(beside_fixtures("8", {{"throughput", spread(200e3, 1e3)}}), 0, 2, 100e3),
          [] {
            auto r = beside_fixtures("9", {{"throughput", spread(200e3, 1e3)}});
            r["results"][0]["timing"]["cold"]["kernels"] = {"a", "b"};
            return r;
          }()});
  EXPECT_TRUE(contains(md, "at its device time: the time during which the launch's kernels ran (busy time")) << md;
  const double flops = parse_shape("throughput").flops();
  // Busy time with its own interval: unmarked.
  EXPECT_TRUE(contains(md, "| " + value_and_range(flops / 100e3 / 1e3, flops / 101e3 / 1e3, flops / 99e3 / 1e3) + ", cold |")) << md;
  // A busy median alone: no range, marked.
  EXPECT_TRUE(contains(md, "| " + sig(flops / 100e3 / 1e3) + "‡, cold |")) << md;
  EXPECT_TRUE(contains(md, "‡ Busy median only:")) << md;
  // Two kernels and no busy time: the span, marked.
  EXPECT_TRUE(contains(md, sig(flops / 200e3 / 1e3) + " (")) << md;
  EXPECT_TRUE(contains(md, ")†, cold |")) << md;
  EXPECT_TRUE(contains(md, "† Span, not busy time:")) << md;
  // All on the fixtures' GPU and session: no provenance marks.
  EXPECT_FALSE(contains(md, "§")) << md;
  EXPECT_FALSE(contains(md, "¶")) << md;
}

TEST(Render, ProgressionTflopsByPhaseIsADotPlot) {
  TempDir t;
  progression_of(t, {});
  const std::string gp = read_file(t.path / "progression" / "plots" / "tflops_by_phase.gp");
  EXPECT_TRUE(contains(gp, "with yerrorbars pt variable")) << gp;
  EXPECT_FALSE(contains(gp, "histogram")) << gp;
  EXPECT_FALSE(contains(gp, "boxes")) << gp;
}

TEST(Render, ProgressionTflopsAgainstSHasAPanelPerHeadDimensionAndLabelledLines) {
  TempDir t;
  // Phase 9 holds one family at D=64 and one at D=128 (B*S = 16384 each).
  progression_of(t, {beside_fixtures("9", {{"32x16x512x64", spread(100e3, 1e3)}, {"16x16x1024x64", spread(200e3, 1e3)},
                                           {"32x16x512x128", spread(200e3, 1e3)}, {"16x16x1024x128", spread(400e3, 1e3)}})});
  const std::string gp = read_file(t.path / "progression" / "plots" / "tflops_vs_s.gp");
  // A linear panel per head dimension (figures within a decade and a half: no log panel).
  EXPECT_TRUE(contains(gp, "set multiplot layout 2,1")) << gp;
  EXPECT_TRUE(contains(gp, "set title 'D = 64, linear axis: near-equal figures apart'")) << gp;
  EXPECT_TRUE(contains(gp, "set title 'D = 128, linear axis: near-equal figures apart'")) << gp;
  EXPECT_FALSE(contains(gp, "log axis")) << gp;
  // Each line labelled at its right end (S = 1024), in its colour; no key to decode.
  EXPECT_TRUE(contains(gp, "set label '9' at 1105.92,")) << gp;
  EXPECT_TRUE(contains(gp, "unset key")) << gp;
  EXPECT_FALSE(contains(gp, "title 'phase 9")) << gp;
}

// Each point names its commit and board, and a line joins points of one commit only: where the
// figures of a family come from records of two commits, the line breaks between them and each
// piece is labelled with its commit and board.
TEST(Render, ProgressionLinesJoinPointsOfOneCommitOnlyAndNameIt) {
  TempDir t;
  auto older = beside_fixtures("9", {{"32x16x512x64", spread(100e3, 1e3)}, {"16x16x1024x64", spread(200e3, 1e3)}});
  older["provenance"]["git"]["commit"] = "aaaaaaa000000000000000000000000000000000";
  auto newer = beside_fixtures("9", {{"8x16x2048x64", spread(400e3, 1e3)}}, "2026-11-22T21:58:42Z");
  newer["provenance"]["git"]["commit"] = "bbbbbbb000000000000000000000000000000000";
  progression_of(t, {older, newer});
  const std::string dat = read_file(t.path / "progression" / "plots" / "tflops_vs_s.dat");
  const std::string a = "\"aaaaaaa GPU-43697a0f\"", b = "\"bbbbbbb GPU-43697a0f\"";
  // 1024 and 2048 are consecutive points of one family: a blank line between them, each piece
  // labelled at its first point, every point named.
  const auto at1024 = dat.find("\n1024 ");
  ASSERT_NE(at1024, std::string::npos) << dat;
  const std::string tail = dat.substr(at1024);
  EXPECT_TRUE(contains(tail, " " + a + " \"\"\n\n2048 ")) << dat;
  EXPECT_TRUE(contains(tail, "2048 ") && contains(tail.substr(tail.find("2048 ")), " " + b + " " + b + "\n")) << dat;
  EXPECT_TRUE(contains(dat, "\n512 ") && contains(dat.substr(dat.find("\n512 ")), " " + a + " " + a + "\n")) << dat;
  // The chart by phase names each dot's commit and board.
  EXPECT_TRUE(contains(read_file(t.path / "progression" / "plots" / "tflops_by_phase.dat"), " dcabdff GPU-43697a0f\""));
  // One commit along a line: no break, no piece labels.
  TempDir u;
  progression_of(u, {beside_fixtures("9", {{"32x16x512x64", spread(100e3, 1e3)}, {"16x16x1024x64", spread(200e3, 1e3)},
                                           {"8x16x2048x64", spread(400e3, 1e3)}})});
  const std::string one = read_file(u.path / "progression" / "plots" / "tflops_vs_s.dat");
  EXPECT_FALSE(contains(one, "\n\n2048 ")) << one;
  EXPECT_TRUE(contains(one, " \"0123456 GPU-43697a0f\" \"\"\n")) << one;
}

// Published figures (reports/published/) beside the lines: each series at the S the lab's lines
// of its head dimension and mask have, black and dashed, and the report says they are published,
// with the source, page and figure.
TEST(Render, ProgressionDrawsPublishedFiguresBesideTheLinesAndSaysSo) {
  TempDir t;
  make_fixture_root(t.path);
  write_record(t.path, beside_fixtures("9", {{"32x16x512x64", spread(100e3, 1e3)}, {"16x16x1024x64", spread(200e3, 1e3)}}));
  const fs::path file = t.path / "pub.json";
  write_file(file, R"json({"label": "X (paper)", "source": "paper X", "page": 7, "figure": "Figure 2",
    "clock": "not stated", "board": "B", "precision": "fp16",
    "shape": {"tokens": 16384, "hidden": 2048}, "S": [512, 1024, 16384], "series": [
    {"D": 64, "causal": false, "tflops": [333, 392, 497]}, {"D": 64, "causal": true, "tflops": [111, 222, 333]},
    {"D": 128, "causal": false, "tflops": [625, 626, 627]}]})json");
  const Published pub = read_published(file);
  render_progression(load_root(t.path), t.path, t.path / "progression", &pub);
  const std::string gp = read_file(t.path / "progression" / "plots" / "tflops_vs_s.gp");
  const std::string dat = read_file(t.path / "progression" / "plots" / "tflops_vs_s.dat");
  const std::string md = read_file(t.path / "progression" / "report.md");
  EXPECT_TRUE(contains(gp, "set label 'X (paper)' at 1105.92,392 left")) << gp;
  EXPECT_TRUE(contains(gp, "with yerrorlines pt -1 lw 1 lc rgb '#000000'")) << gp;  // thinner
  EXPECT_TRUE(contains(gp, "with yerrorlines pt -1 lw 2 lc rgb '#2ca02c'")) << gp;
  EXPECT_TRUE(contains(dat, "# D=64, phase X (paper)\n512 333 333 333 12 \"\" \"\"\n1024 392 392 392 12 \"\" \"\"\n\n")) << dat;
  EXPECT_FALSE(contains(dat, "16384")) << dat;  // no lab line reaches it
  EXPECT_FALSE(contains(dat, " 111 ")) << dat;   // causal: no causal lab line at D = 64
  EXPECT_FALSE(contains(dat, "D=128")) << dat;   // no lab line at D = 128
  EXPECT_TRUE(contains(md, "are published, not measured here: paper X, Figure 2, p. 7; clock: not stated.")) << md;
  EXPECT_FALSE(contains(md, "Not drawn")) << md;
  // Without the file, no such line.
  TempDir u;
  progression_of(u, {beside_fixtures("9", {{"32x16x512x64", spread(100e3, 1e3)}, {"16x16x1024x64", spread(200e3, 1e3)}})});
  EXPECT_FALSE(contains(read_file(u.path / "progression" / "plots" / "tflops_vs_s.gp"), "#000000"));
}

// A series missing a point of its source is never drawn, not even at the S it has, and the
// report names it; a complete series of the other mask still is.
TEST(Render, APublishedSeriesMissingAPointIsNeverDrawn) {
  TempDir t;
  make_fixture_root(t.path);
  write_record(t.path, beside_fixtures("9", {{"32x16x512x64", spread(100e3, 1e3)}, {"16x16x1024x64", spread(200e3, 1e3)},
                                             {"32x16x512x64:causal", spread(60e3, 1e3)},
                                             {"16x16x1024x64:causal", spread(110e3, 1e3)}}));
  const fs::path file = t.path / "pub.json";
  write_file(file, R"json({"label": "X (paper)", "source": "paper X", "page": 7, "figure": "Figure 2",
    "clock": "not stated", "board": "B", "precision": "fp16",
    "shape": {"tokens": 16384, "hidden": 2048}, "S": [512, 1024, 4096], "series": [
    {"D": 64, "causal": false, "tflops": [333, 392, null]}, {"D": 64, "causal": true, "tflops": [197, 265, 420]}]})json");
  const Published pub = read_published(file);
  render_progression(load_root(t.path), t.path, t.path / "progression", &pub);
  const std::string dat = read_file(t.path / "progression" / "plots" / "tflops_vs_s.dat");
  const std::string md = read_file(t.path / "progression" / "report.md");
  EXPECT_FALSE(contains(dat, "# D=64, phase X (paper)\n")) << dat;
  EXPECT_FALSE(contains(dat, " 333 ")) << dat;
  EXPECT_TRUE(contains(dat, "# D=64, phase X (paper), causal\n512 197 197 197 12 \"\" \"\"\n1024 265 265 265 12 \"\" \"\"\n\n")) << dat;
  EXPECT_TRUE(contains(md, "Not drawn, missing a point of the source: D 64 (no figure at S 4096).")) << md;
}

// The committed FA3 file carries every point of its figure: both head dimensions, with and
// without the mask, each at every S of the figure's axis, with the page and figure cited.
TEST(Render, TheCommittedPublishedFileCarriesEveryPointOfItsFigure) {
  const Published pub = read_published(fs::path(ATTNLAB_COMMITTED_REPORTS) / "published" / "fa3_h100_sxm.json");
  EXPECT_EQ(pub.S, (std::vector<int>{512, 1024, 2048, 4096, 8192, 16384}));
  EXPECT_GT(pub.page, 0);
  EXPECT_TRUE(contains(pub.figure, "Figure 5")) << pub.figure;
  std::set<std::pair<int, bool>> have;
  for (const PublishedSeries& s : pub.series) {
    EXPECT_TRUE(s.missing(pub.S).empty()) << "D " << s.D << (s.causal ? " causal" : "");
    have.insert({s.D, s.causal});
  }
  EXPECT_EQ(have, (std::set<std::pair<int, bool>>{{64, false}, {64, true}, {128, false}, {128, true}}));
  EXPECT_TRUE(incomplete_series(pub).empty());
}

TEST(Render, APublishedFileWithAMissingFieldIsRefusedByName) {
  TempDir t;
  const fs::path file = t.path / "pub.json";
  const std::string head = R"json({"label": "X", "source": "s", "page": 1, "figure": "Figure 1", "board": "b", "clock": "c",
    "precision": "fp8", "shape": {"batch": 1, "heads": 64, "kv_heads": 8}, "S": [512, 1024], )json";
  const auto refused = [&](const std::string& body, const std::string& why) {
    write_file(file, head + body + "}");
    try {
      read_published(file);
      ADD_FAILURE() << "read: " << body;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), file.string() + ": " + why);
    }
  };
  refused(R"json("series": [{"D": 64, "causal": false}])json", "/series/0/tflops: missing or not a non-empty array");
  refused(R"json("series": [{"D": 64, "causal": false, "tflops": [333]}])json", "/series/0/tflops: not one entry per S");
  refused(R"json("series": [{"D": 64, "causal": false, "tflops": [333, -1]}])json",
          "/series/0/tflops/1: not a positive number or null");
  // The board, the precision and the shapes a figure was taken at are as required as the figure:
  // without them it cannot stand beside a lab figure of one shape.
  const auto without = [&](const std::string& key, const std::string& why) {
    auto j = nlohmann::json::parse(head + R"json("series": [{"D": 64, "causal": false, "tflops": [1, 2]}]})json");
    j.erase(key);
    write_file(file, j.dump());
    try {
      read_published(file);
      ADD_FAILURE() << "read without " << key;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), file.string() + ": " + why);
    }
  };
  without("board", "/board: missing or not a non-empty string");
  without("precision", "/precision: missing or not a non-empty string");
  without("shape", "/shape: missing or not an object");
  EXPECT_THROW(read_published(t.path / "none.json"), InputError);
}

// The shapes of a source's points are one rule per size, stated exactly once: a fixed batch or a
// fixed token count, fixed heads or a fixed hidden size; the precision is one the reports know.
TEST(Render, APublishedFileWhoseShapesAreNotOneRuleIsRefusedByName) {
  TempDir t;
  const fs::path file = t.path / "pub.json";
  const auto refused = [&](const std::string& shape, const std::string& precision, const std::string& why) {
    write_file(file, R"json({"label": "X", "source": "s", "figure": "f", "board": "b", "clock": "c", "precision": ")json" +
                         precision + R"json(", "shape": )json" + shape +
                         R"json(, "S": [512], "series": [{"D": 64, "causal": false, "tflops": [1]}]})json");
    try {
      read_published(file);
      ADD_FAILURE() << "read: " << shape << " " << precision;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), file.string() + ": " + why);
    }
  };
  refused(R"json({"batch": 1, "tokens": 16384, "heads": 16})json", "fp8", "/shape: not exactly one of batch and tokens");
  refused(R"json({"heads": 16})json", "fp8", "/shape: not exactly one of batch and tokens");
  refused(R"json({"batch": 1})json", "fp8", "/shape: not exactly one of heads and hidden");
  refused(R"json({"batch": 1, "heads": 16, "hidden": 2048})json", "fp8", "/shape: not exactly one of heads and hidden");
  refused(R"json({"batch": 1, "heads": 64, "kv_heads": 0})json", "fp8", "/shape/kv_heads: not a positive integer");
  refused(R"json({"batch": 1.5, "heads": 64})json", "fp8", "/shape/batch: not a positive integer");
  refused(R"json({"batch": 1, "heads": 64})json", "int8", "/precision: not fp16 or fp8");
  // A source without pages (a repository's file) reads, with no page in its citation.
  write_file(file, R"json({"label": "X", "source": "repo at commit c, file f", "figure": "column t", "board": "b",
    "clock": "c", "precision": "fp8", "shape": {"batch": 1, "heads": 64, "kv_heads": 8}, "S": [512],
    "series": [{"D": 128, "causal": false, "tflops": [1]}]})json");
  const Published p = read_published(file);
  EXPECT_FALSE(p.page.has_value());
  EXPECT_EQ(p.citation(), "repo at commit c, file f, column t");
}

TEST(Render, EndLabelsThatWouldOverlapAreSpreadApart) {
  TempDir t;
  // Phases 8 and 9 end at the same S with the same TFLOPS: their labels must not coincide.
  const std::vector<SynthShape> same = {{"32x16x512x64", spread(100e3, 1e3)}, {"16x16x1024x64", spread(200e3, 1e3)}};
  progression_of(t, {beside_fixtures("8", same), beside_fixtures("9", same)});
  const std::string gp = read_file(t.path / "progression" / "plots" / "tflops_vs_s.gp");
  auto y_of = [&](const std::string& label) {
    const std::string key = "set label '" + label + "' at 1105.92,";
    const auto at = gp.find(key);
    EXPECT_NE(at, std::string::npos) << gp;
    return at == std::string::npos ? 0.0 : std::stod(gp.substr(at + key.size()));
  };
  const double tflops = parse_shape("16x16x1024x64").flops() / 200e3 / 1e3;
  const double y8 = y_of("8"), y9 = y_of("9");
  EXPECT_GT(std::abs(y8 - y9), 0.03 * tflops) << gp;
  EXPECT_LT(std::min(y8, y9), tflops) << gp;  // the pair straddles the lines' end
  EXPECT_GT(std::max(y8, y9), tflops) << gp;
}

TEST(Render, LatencyPlotDrawsFewSamplesAsPointsAndOutliersWhereTheyAre) {
  TempDir t;
  // 40 samples in 100-120 us and five equal outliers at 300 us; a shape with 4 samples.
  std::vector<double> many = spread(110e3, 10e3, 40);
  for (int i = 0; i < 5; ++i) many.push_back(300e3);
  const fs::path dir = write_record(t.path, synth_record("9", "2026-11-22T10:00:00Z",
                                                       {{"throughput", many}, {"latency", {5e3, 6e3, 6e3, 7e3}}}));
  render_run(load_run(dir), {});
  const std::string gp = read_file(dir / "plots" / "latency.gp");
  const std::string dat = read_file(dir / "plots" / "latency.dat");
  EXPECT_FALSE(contains(gp, "boxplot")) << gp;  // gnuplot's boxplot spreads equal outliers sideways
  EXPECT_TRUE(contains(gp, "using 1:2:3:4:5 with candlesticks whiskerbars")) << gp;
  // Quartiles (ranks 11, 22 and 33 of 45: 100 + k * 20/39 us), whiskers to the furthest
  // samples within 1.5 IQR (100 and 120 us), the median; then the outliers.
  EXPECT_TRUE(contains(dat, "# x q1 whisker_lo whisker_hi q3 median\n1 105.641026 100 120 116.923077 111.282051\n")) << dat;
  EXPECT_TRUE(contains(dat, "# beyond the whiskers\n1 300\n1 300\n1 300\n1 300\n1 300\n\n")) << dat;
  // Four samples: the samples themselves, no box.
  EXPECT_TRUE(contains(dat, "# samples (fewer than 10)\n1 5\n1 6\n1 6\n1 7\n")) << dat;
  const std::string md = read_file(dir / "report.md");
  EXPECT_TRUE(contains(md, "A regime of fewer than 10 samples is drawn as its samples, without a box.")) << md;
}

TEST(Render, CompareIsOnBusyTime) {
  TempDir t;
  // A launches two kernels: 200 us of span, 99-101 us busy. B: one kernel, 150 us.
  auto a = with_busy(synth_record("x", "2026-11-22T10:00:00Z", {{"throughput", spread(200e3, 1e3)}}), 0, 2,
                     100e3, 99e3, 101e3);
  auto b = synth_record("y", "2026-11-22T10:01:00Z", {{"throughput", spread(150e3, 1e3)}});
  b["results"][0]["timing"]["cold"]["kernels_per_launch"] = 1;
  const std::string md = compare_markdown(load_run(write_record(t.path, a)), load_run(write_record(t.path, b)));
  EXPECT_TRUE(contains(md, "Times are device time: the time during which a launch's kernels ran")) << md;
  EXPECT_TRUE(contains(md, "| 100.0 us (99.00-101.0 us) (span 200.0 us) | 150.0 us (149.2-150.8 us) | 1.50 |")) << md;
  EXPECT_TRUE(contains(md, "Headline regime: FASTER at 0, SLOWER at 1, SAME at 0 shape(s).")) << md;
}

TEST(Render, NotebookHeadlinesAreBusyTimeAndSayWhereARecordGivesLess) {
  TempDir t;
  write_record(t.path, with_busy(synth_record("x", "2026-11-22T10:00:00Z", {{"throughput", spread(200e3, 1e3)}}),
                                 0, 2, 100e3));
  const auto runs = load_root(t.path);
  render_notebook(runs, t.path, t.path);
  const std::string md = read_file(t.path / "NOTEBOOK.md");
  const double tflops = parse_shape("throughput").flops() / 100e3 / 1e3;
  // The span's noise is not the busy time's: no noise beside a busy median.
  EXPECT_TRUE(contains(md, "**" + sig(tflops) + "** TFLOPS (cold median 100.0 us (busy median only, its p10-p90 "
                           "not recorded) (span 200.0 us))")) << md;
  EXPECT_FALSE(contains(md, "not recorded)), noise")) << md;
  const auto line = ordered_json::parse(read_file(t.path / "index.jsonl"));
  const auto& shape = line["headline"][shape_name(parse_shape("throughput"))];
  EXPECT_EQ(shape["device_median_ns"], 100e3);
  EXPECT_TRUE(shape["device_p10_ns"].is_null());
  EXPECT_GT(shape["median_ns"].get<double>(), 190e3);  // the span (about 200 us) stays beside it
}

TEST(Render, VerdictCountsIncludeInconclusive) {
  std::vector<Judgement> js(3);
  js[0].verdict = Verdict::kSupported;
  js[1].verdict = Verdict::kInconclusive;
  js[2].verdict = Verdict::kInconclusive;
  EXPECT_EQ(verdict_counts(js), "1 SUPPORTED, 2 INCONCLUSIVE");
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
  const report::Run* one = newest_ok(runs, "1", runs.front().gpu_name());
  const report::Run* four = newest_ok(runs, "4", runs.front().gpu_name());
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

// The synthetic A/B record (tests/reports/inputs/ab/README.md), as phase `a` against cuDNN,
// written under <root>/ab/.
// `commit` and `uuid`, where given, replace its provenance's (the fixtures' commit and board).
static void add_paired_record(const fs::path& root, const std::string& a, const std::string& commit = "",
                              const std::string& uuid = "") {
  const fs::path src = fs::path(ATTNLAB_GOLDEN_DIR).parent_path() / "inputs" / "ab" / "ab" /
                       "5-vs-cudnn" / "20261126T030000Z-0000000" / "run.json";
  auto rec = ordered_json::parse(read_file(src));
  rec["a"]["phase"] = a;
  if (!commit.empty()) rec["provenance"]["git"]["commit"] = commit;
  if (!uuid.empty()) rec["provenance"]["gpu"]["uuid"] = uuid;
  write_file(root / "ab" / (a + "-vs-cudnn") / "20261126T030000Z-0000000" / "run.json", rec.dump(2));
}

TEST(Render, ProgressionAndReadmeGainAPairedColumnOnlyWhereAnAbRecordAgainstCudnnExists) {
  TempDir t;
  make_fixture_root(t.path);
  const std::string readme = "intro\n<!-- attnlab:results begin -->\n<!-- attnlab:results end -->\n";
  auto render = [&] {
    render_progression(load_root(t.path), t.path, t.path / "progression");
    return std::make_pair(read_file(t.path / "progression" / "report.md"),
                          readme_with_results(load_root(t.path), t.path, t.path / "progression",
                                              t.path / "README.md", readme));
  };
  const auto [prog_before, readme_before] = render();
  EXPECT_FALSE(contains(prog_before, "vs cuDNN (paired)")) << prog_before;
  EXPECT_FALSE(contains(readme_before, "vs cuDNN (paired)")) << readme_before;

  add_paired_record(t.path, "4");
  const auto [prog, table] = render();
  EXPECT_TRUE(contains(prog, "| vs cuDNN (paired) |")) << prog;
  // The synthetic record is attnlab.ab/1: one block, its interval said to hold within that run.
  EXPECT_TRUE(contains(prog, "1.071x (95% CI 1.069-1.072) FASTER (one block: an interval within one run) ([A/B](")) << prog;
  EXPECT_TRUE(contains(prog, "t_cuDNN / t_phase")) << prog;
  EXPECT_TRUE(contains(table, "| vs cuDNN (paired) | records |")) << table;
  EXPECT_TRUE(contains(table, "throughput 1.071x (95% CI 1.069-1.072) FASTER (one block: an interval within one run) in [ab/4-vs-cudnn/")) << table;
  // Phase 1 has no A/B record: its cell says so.
  EXPECT_TRUE(contains(table, "| none |")) << table;
}

// A README "vs cuDNN" cell names the A/B record behind it, and says where that record timed
// another commit or board than the figures beside it.
TEST(Render, AReadmePairedCellNamesItsRecordAndSaysWhereItTimedAnotherCommitOrBoard) {
  TempDir t;
  make_fixture_root(t.path);
  const std::string readme = "intro\n<!-- attnlab:results begin -->\n<!-- attnlab:results end -->\n";
  auto table = [&] {
    return readme_with_results(load_root(t.path), t.path, t.path / "progression", t.path / "README.md", readme);
  };
  add_paired_record(t.path, "4");
  const std::string same = table();
  EXPECT_TRUE(contains(same, "throughput 1.071x (95% CI 1.069-1.072) FASTER (one block: an interval within one run) in [ab/4-vs-cudnn/20261126T030000Z-0000000]"
                             "(ab/4-vs-cudnn/20261126T030000Z-0000000/run.json) |")) << same;
  add_paired_record(t.path, "4", "fedcba9876543210fedcba9876543210fedcba98", "GPU-ffffffff-0000");
  const std::string other = table();
  EXPECT_TRUE(contains(other, "(ab/4-vs-cudnn/20261126T030000Z-0000000/run.json) (it timed commit fedcba9, not the "
                              "figures' dcabdff; on GPU-ffffffff, not the figures' GPU-43697a0f) |")) << other;
}

// Where a launch runs several kernels the README gives its span beside the busy time: the busy
// time alone leaves out the idle gaps a caller waits through.
TEST(Render, TheReadmeShowsSpanBesideBusyTimeForALaunchOfSeveralKernels) {
  TempDir t;
  make_fixture_root(t.path);
  write_record(t.path, with_busy(beside_fixtures("9", {{"latency", spread(60e3, 1e3)}}), 0, 3, 20e3, 19e3, 21e3));
  const std::string readme = "intro\n<!-- attnlab:results begin -->\n<!-- attnlab:results end -->\n";
  const std::string md =
      readme_with_results(load_root(t.path), t.path, t.path / "progression", t.path / "README.md", readme);
  EXPECT_TRUE(contains(md, " | 20.00 (span 60.00) | ")) << md;
  EXPECT_TRUE(contains(md, "its span, from the first kernel's start to the last one's end")) << md;
  // One kernel per launch: busy time is the span, nothing beside it.
  EXPECT_FALSE(contains(md, "(span 46.")) << md;
}

// A backward A/B (the record's direction) says so in its title; a forward one as before.
TEST(Render, ABackwardAbReportSaysItsPass) {
  TempDir t;
  add_paired_record(t.path, "5");
  const fs::path dir = t.path / "ab" / "5-vs-cudnn" / "20261126T030000Z-0000000";
  AbRecord rec = read_ab_file(dir / "run.json");
  render_ab(rec, dir);
  EXPECT_TRUE(contains(read_file(dir / "report.md"), "# A/B: 5 against cudnn\n\n"));
  rec.direction = Direction::kBackward;
  render_ab(rec, dir);
  EXPECT_TRUE(contains(read_file(dir / "report.md"), "# A/B: 5 against cudnn (backward pass)\n\n"));
}

TEST(Render, AnAbReportGivesBothRatiosWithIntervalVerdictAndConvention) {
  TempDir t;
  add_paired_record(t.path, "5");
  const fs::path dir = t.path / "ab" / "5-vs-cudnn" / "20261126T030000Z-0000000";
  const Rendered r = render_ab(read_ab_file(dir / "run.json"), dir);
  const std::string md = read_file(dir / "report.md");
  EXPECT_TRUE(contains(md, "ratio = t_B / t_A per pair: A's speed-up over B")) << md;
  // Both sides of every pair read one clock value: the cycles verdict is withheld, with the reason.
  EXPECT_TRUE(contains(md, "| 16x16x2048x64 |  | 40 (1, pairs) | 1.071x (1.069-1.072) | FASTER | withheld |  | yes |")) << md;
  EXPECT_TRUE(contains(md, "- 16x16x2048x64: the SM clock is not measured per sample and per kernel: A and B read one "
                           "clock value in 40 of 40 pairs")) << md;
  EXPECT_TRUE(contains(md, "10000 resamples, seed 26")) << md;
  EXPECT_TRUE(contains(md, "This record predates blocks")) << md;
  // The sides' clock is NVML's reading around each sample, and says so.
  EXPECT_TRUE(contains(md, " MHz (NVML) |")) << md;
  ASSERT_EQ(r.scripts.size(), 1u);
  EXPECT_TRUE(contains(read_file(dir / "plots" / "ratios_1.dat"), "# pair, wall ratio t_B / t_A")) << md;
}

// A gate over several input distributions: the correctness table names them.
TEST(Render, TheCorrectnessTableNamesTheInputsTheGateChecked) {
  TempDir t;
  const fs::path dir = t.path / "4" / "run";
  ordered_json rec = ordered_json::parse(read_file(fs::path(ATTNLAB_FIXTURES_DIR) / "h100-phase4-run.json"));
  ordered_json check = {{"passed", true}, {"row_err_ratio", 0.1}, {"max_abs_err", 1e-4}, {"nonfinite", 0},
                        {"repeat_identical", true}};
  ordered_json list = ordered_json::array();
  for (const char* name : {"normal", "wide", "negative"}) {
    check["inputs"] = name;
    list.push_back(check);
  }
  rec["results"][0]["correctness"]["checks"] = list;
  write_file(dir / "run.json", rec.dump(2));
  render_run(load_run(dir), {});
  const std::string md = read_file(dir / "report.md");
  EXPECT_TRUE(contains(md, "| PASS on normal, wide, negative inputs |")) << md;
}

// A shape measured twice in one record, 2% apart: the report shows each measurement and their
// combination, and says so; the blocks table lists every block of each.
TEST(Render, AnAbReportShowsAShapeMeasuredTwicePerMeasurementAndCombined) {
  TempDir t;
  const fs::path dir = write_ab(t.path, "5", "cudnn",
                                {synth_ab_shape("4x16x4096x128", 1.137, 0.002), synth_ab_shape("1x8x512x64", 0.98, 0.002),
                                 synth_ab_shape("4x16x4096x128", 1.113, 0.002)});
  render_ab(read_ab_file(dir / "run.json"), dir);
  const std::string md = read_file(dir / "report.md");
  EXPECT_TRUE(contains(md, "Measured more than once: 4x16x4096x128. Each such shape is shown per measurement and combined")) << md;
  EXPECT_TRUE(contains(md, "| 4x16x4096x128 | 1 of 2 | 40 (4, pairs) | 1.137x")) << md;
  EXPECT_TRUE(contains(md, "| 4x16x4096x128 | 2 of 2 | 40 (4, pairs) | 1.113x")) << md;
  EXPECT_TRUE(contains(md, "| 4x16x4096x128 | combined | 80 (8, pairs) | 1.12")) << md;
  EXPECT_TRUE(contains(md, "| 1x8x512x64 |  | 40 (4, pairs) | 0.9800x")) << md;
  EXPECT_FALSE(contains(md, "predates blocks")) << md;
  EXPECT_TRUE(contains(md, "## Blocks")) << md;
  EXPECT_TRUE(contains(md, "| 4x16x4096x128 | 2 of 2 | 4 | 3 | 3.000 | 1003 | 2003 | 10 | 1.113 |")) << md;
}

// Each side's own clock, read while its kernel ran: a cycles verdict stands; one clock value for
// both sides of a pair: the cycles verdict is withheld and the report says why.
TEST(Render, AnAbReportGivesACyclesVerdictOnlyOnAClockMeasuredPerSampleAndKernel) {
  TempDir t;
  const fs::path own = write_ab(t.path, "5", "cudnn", {synth_ab_shape("1x8x512x64", 1.05, 0.002, 4, 10, true)});
  render_ab(read_ab_file(own / "run.json"), own);
  const std::string md = read_file(own / "report.md");
  EXPECT_TRUE(contains(md, "| FASTER | 1.044x (")) << md;  // cycles: 1.05 x 1690 / 1700 per pair
  EXPECT_FALSE(contains(md, "withheld")) << md;

  const fs::path shared = write_ab(t.path, "5", "cudnn", {synth_ab_shape("1x8x512x64", 1.05, 0.002)}, "NVIDIA H100 80GB HBM3",
                                   "2026-11-22T13:00:00Z", "GPU-test", "20261122T130000Z-abcdef0");
  render_ab(read_ab_file(shared / "run.json"), shared);
  const std::string md2 = read_file(shared / "report.md");
  EXPECT_TRUE(contains(md2, "| FASTER | withheld |  |")) << md2;
  EXPECT_TRUE(contains(md2, "Cycles: no verdict unless the clock is measured per sample and per kernel.")) << md2;
  EXPECT_TRUE(contains(md2, "A and B read one clock value in 40 of 40 pairs")) << md2;
}

// The README and the progression take a shape measured twice in one record as both
// measurements combined and say so; they used to keep the later row alone.
TEST(Render, ReadmeAndProgressionCombineAShapeMeasuredTwiceInOneRecord) {
  TempDir t;
  make_fixture_root(t.path);
  write_ab(t.path, "4", "cudnn",
           {synth_ab_shape("16x16x2048x64", 1.137, 0.002), synth_ab_shape("16x16x2048x64", 1.113, 0.002)},
           "NVIDIA H100 80GB HBM3", "2026-11-26T03:00:00Z", "GPU-test", "20261126T030000Z-0000000");
  render_progression(load_root(t.path), t.path, t.path / "progression");
  const std::string prog = read_file(t.path / "progression" / "report.md");
  const std::string table = readme_with_results(load_root(t.path), t.path, t.path / "progression", t.path / "README.md",
                                                "intro\n<!-- attnlab:results begin -->\n<!-- attnlab:results end -->\n");
  for (const std::string& doc : {prog, table}) {
    EXPECT_TRUE(contains(doc, "FASTER (2 measurements combined, 8 blocks)")) << doc;
    EXPECT_FALSE(contains(doc, "1.113x (95% CI")) << doc;
    EXPECT_FALSE(contains(doc, "1.137x (95% CI")) << doc;
  }
}

// The synthetic attnlab.ab/2 record under tests/reports/inputs/ab (its README.md), written by
// record/ab.hpp's mapping: a shape measured twice, a shape with each side's own clock (a cycles
// verdict) and one whose second block's gate failed (no ratio). record.schema_ab validates it
// against attnlab.ab-2.schema.json; regenerate with UPDATE_GOLDEN=1.
TEST(Golden, TheAb2ExampleRecordIsWhatTheMappingWrites) {
  const fs::path inputs = fs::path(ATTNLAB_GOLDEN_DIR).parent_path() / "inputs" / "ab";
  const ordered_json fixture = read_json_file(inputs.parent_path().parent_path().parent_path() / "fixtures" /
                                              "h100-phase4-run.json");
  AbRecord r;
  r.status = "failed";
  r.a = {"5", "wgmma + TMA", "synthetic"};
  r.b = {"cudnn", "cuDNN SDPA", "synthetic"};
  r.started_utc = "2026-11-28T03:00:00Z";
  r.provenance = read_provenance(fixture, "/provenance");
  r.options.pairs = 40;
  r.options.min_pairs = 8;
  r.options.blocks = 4;
  r.options.max_seconds = 60;
  r.options.order_seed = 2000;
  r.options.inputs = "normal";
  r.method = "synthetic samples: tests/reports/inputs/ab/README.md";
  const Correctness ok = read_correctness(fixture, "/results/0/correctness");
  auto with_shape = [&](AbShape s, const std::string& spec) {
    s.shape = parse_shape(spec);
    s.name = shape_name(s.shape);
    s.scale = s.shape.default_scale();
    s.flops = s.shape.flops();
    for (auto& b : s.blocks) b.a_correctness = b.b_correctness = ok;
    return s;
  };
  std::vector<AbShape> shapes = {with_shape(synth_ab_shape("", 1.137, 0.002), "4x16x4096x128:causal"),
                                 with_shape(synth_ab_shape("", 1.05, 0.004, 4, 10, true), "latency"),
                                 with_shape(synth_ab_shape("", 1.113, 0.002), "4x16x4096x128:causal"),
                                 with_shape(synth_ab_shape("", 1.0, 0.002, 2), "throughput")};
  AbBlock& failed = shapes.back().blocks[1];
  failed.passed = false;
  failed.b_correctness.passed = false;
  failed.b_correctness.failure = "synthetic: a gate that failed";
  failed.orders.clear();
  failed.first.clear();
  failed.a = failed.b = AbSamples{};
  for (auto& s : shapes) {
    estimate_shape(s, r.options.bootstrap);
    r.results.push_back(s);
  }
  const std::string got = to_json(r).dump(2) + "\n";
  const fs::path file = inputs / "ab" / "5-vs-cudnn" / "20261128T030000Z-0000000" / "run.json";
  if (const char* u = std::getenv("UPDATE_GOLDEN"); u && std::string(u) == "1") {
    write_file(file, got);
    GTEST_SKIP() << "rewrote " << file;
  }
  EXPECT_EQ(read_file(file), got) << file << " differs from what the mapping writes; regenerate with UPDATE_GOLDEN=1";
  const AbRecord back = read_ab_file(file);
  EXPECT_EQ(to_json(back).dump(2) + "\n", got);
  EXPECT_TRUE(back.results[1].cycles.has_value());
  EXPECT_FALSE(back.results[0].cycles.has_value());
  EXPECT_FALSE(back.results[3].wall.has_value());
}

// One pair's records read across: each measurement of a shape is a row with its record, commit
// and GPU; measurements of one commit on one GPU are combined, those of another commit are not.
TEST(Render, AbRecordsOfOnePairReadAcrossShowEveryMeasurementAndCombineOnlyOneCommitAndGpu) {
  TempDir t;
  auto record = [&](const std::string& run, double ratio, const std::string& commit) {
    const fs::path dir = write_ab(t.path, "5", "cudnn", {synth_ab_shape("1x8x512x64", ratio, 0.002)},
                                  "NVIDIA H100 80GB HBM3", "2026-11-22T12:00:00Z", "GPU-test", run);
    AbRecord rec = read_ab_file(dir / "run.json");
    rec.provenance.git.commit = commit;
    return std::make_pair(dir / "run.json", rec);
  };
  const std::vector<std::pair<fs::path, AbRecord>> records = {
      record("20261122T120000Z-aaaaaaa", 1.137, "aaaaaaa111"), record("20261122T130000Z-aaaaaaa", 1.113, "aaaaaaa111"),
      record("20261122T140000Z-bbbbbbb", 1.20, "bbbbbbb222")};
  render_ab_across(records, t.path / "across");
  const std::string md = read_file(t.path / "across" / "report.md");
  EXPECT_TRUE(contains(md, "| 1x8x512x64 | 20261122T120000Z-aaaaaaa | aaaaaaa | GPU-test | 1 of 1 | 40 (4) | 1.137x")) << md;
  EXPECT_TRUE(contains(md, "| 1x8x512x64 | 20261122T130000Z-aaaaaaa | aaaaaaa | GPU-test | 1 of 1 | 40 (4) | 1.113x")) << md;
  EXPECT_TRUE(contains(md, "| 1x8x512x64 | 20261122T140000Z-bbbbbbb | bbbbbbb | GPU-test | 1 of 1 | 40 (4) | 1.2")) << md;
  EXPECT_TRUE(contains(md, "| 1x8x512x64 | combined: 2 measurements | aaaaaaa | GPU-test |  | 80 (8) | 1.125x")) << md;
  EXPECT_FALSE(contains(md, "combined: 3 measurements")) << md;
  EXPECT_TRUE(contains(md, "never combined")) << md;
  auto other = records;
  other[1].second.b.phase = "5";
  EXPECT_THROW(render_ab_across(other, t.path / "across"), InputError);
}

// A --check-only run has no timing because its options asked for none: the report says so from
// the options, and a record whose options say check-only yet hold a timing is refused.
TEST(Render, ACheckOnlyRunIsNotTimedByItsOptions) {
  TempDir t;
  const fs::path dir = t.path / "1" / "run";
  auto rec = synth_record("1", "2026-11-22T10:00:00Z", {{"throughput", {}}});
  rec["results"][0]["correctness"]["passed"] = true;
  rec["results"][0]["correctness"].erase("failure");
  write_file(dir / "run.json", rec.dump(2));
  EXPECT_EQ(load_run(dir).results[0].untimed_reason(), "not timed");
  rec["options"]["check_only"] = true;
  write_file(dir / "run.json", rec.dump(2));
  const report::Run run = load_run(dir);
  EXPECT_FALSE(run.results[0].timed());
  EXPECT_EQ(run.results[0].untimed_reason(), "not timed: a --check-only run");
  auto timed = synth_record("1", "2026-11-22T10:00:00Z", {{"throughput", {100e3, 101e3, 102e3}}});
  timed["options"]["check_only"] = true;
  write_file(dir / "run.json", timed.dump(2));
  try {
    load_run(dir);
    FAIL() << "a check-only record with a timing was read";
  } catch (const report::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/results/0/timing is set in a record whose /options/check_only is true"),
              std::string::npos) << e.what();
  }
}
