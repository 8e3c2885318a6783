// attnlab-sdpa-import's logic (experiments/sdpa_import.hpp) and the raw file's reader
// (record/sdpa_raw.hpp): a synthetic raw file gives a record whose every computed field is right;
// a malformed one is refused in one line naming the field. And the one statistic the baseline
// still computes in Python, its graph regime's stopping rule, agrees with common/stats.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "experiments/sdpa_import.hpp"
#include "common/stats.hpp"
#include "record/record.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

// Two calls of a launch of three activities: a memset, the kernel, the kernel again (two
// instances), with a gap; times in ns on torch.profiler's clock.
ordered_json cold_regime() {
  return {{"name", "cold"}, {"stop_reason", "max_samples"}, {"wall_s", 0.5},
          {"launches_per_sample", 1}, {"clock_before_mhz", 1755.0}, {"clock_after_mhz", nullptr},
          {"kernels", {"memset", "k", "k"}},
          {"launches", {{1000.0, 1010.0, 1020.0, 1120.0, 1100.0, 1200.0},
                        {5000.0, 5010.0, 5010.0, 5110.0, 5150.0, 5250.0}}},
          {"nvml", {{"max_sm_clock_mhz", 2000.0},
                    {"readings", {{1980.0, 300.0, 40.0, 0x1}, {1400.0, 690.0, 55.0, 0x4},
                                  {1800.0, 700.0, 50.0, 0x8 | 0x4}}}}}};
}

ordered_json raw_doc() {
  ordered_json corr = {{"passed", true}, {"repeat_identical", true}, {"max_abs_err", 1e-4},
                       {"max_rel_err", 1e-3}, {"tolerance_abs", 2e-4}, {"naive_fp16_max_abs_err", 3e-4},
                       {"row_rms_err", 5e-5}, {"row_err_ratio", 0.25}, {"rows_checked", 64},
                       {"nonfinite", 0}, {"elements_scanned", 8192}};
  ordered_json graph = {{"name", "graph"}, {"stop_reason", "converged"}, {"wall_s", 0.25},
                        {"launches_per_sample", 20}, {"clock_before_mhz", nullptr},
                        {"clock_after_mhz", nullptr}, {"samples_ns", {300.0, 100.0, 200.0}},
                        {"nvml", {{"unavailable", "NVML not loadable"}}}};
  return {{"schema", kSdpaRawSchema}, {"backend", "flash"}, {"argv", {"sdpa_baseline.py", "--backends", "flash"}},
          {"started_unix_s", 1764130119}, {"seed", 7},
          {"options", {{"regimes", {"cold", "graph"}}, {"check_only", false}, {"min_samples", 10},
                       {"max_samples", 1000}, {"noise_target_pct", 0.5}, {"max_seconds", 1.0}}},
          {"versions", {{"driver", 13000}, {"torch", "2.11.0+cu130"}, {"torch_cuda", "12.8"}, {"cudnn", nullptr}}},
          {"gpu", {{"name", "NVIDIA H100 80GB HBM3"}, {"uuid_hex", "f0e7724fc1b6fc683ca369ab1e33984f"},
                   {"cc_major", 9}, {"cc_minor", 0}, {"sm_count", 132}, {"sm_clock_khz", 1980000},
                   {"mem_clock_khz", 2619000}, {"bus_width_bits", 5120}, {"l2_bytes", 52428800},
                   {"global_mem_bytes", 85017493504ULL}, {"smem_per_sm_bytes", 233472}}},
          {"results", {{{"shape", {{"B", 1}, {"H", 2}, {"H_kv", 1}, {"S", 64}, {"D", 64}, {"causal", true}, {"scale", 0.125}}},
                        {"correctness", corr}, {"regimes", {cold_regime(), graph}}}}}};
}

struct RawFile {
  fs::path path = fs::temp_directory_path() / ("attnlab-sdpa-raw-" + std::to_string(::getpid()) + ".json");
  explicit RawFile(const std::string& text) { std::ofstream(path) << text; }
  ~RawFile() { fs::remove(path); }
};

RunRecord import(const ordered_json& doc) {
  RawFile f(doc.dump());
  return sdpa_record(read_sdpa_raw(f.path), {{"abcdef0123456789", true}, "testhost", "sweep-1"});
}

// The reader's message for `doc`, or "" when it reads.
std::string refusal(const std::string& text) {
  RawFile f(text);
  try {
    read_sdpa_raw(f.path);
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind(f.path.string() + ": ", 0), 0u) << m;
    return m.substr(f.path.string().size() + 2);
  }
  return "";
}

}  // namespace

TEST(SdpaImport, HeaderAndProvenanceComeFromTheRawFileAndTheBuild) {
  const RunRecord rec = import(raw_doc());
  EXPECT_EQ(rec.phase, "sdpa-flash");
  EXPECT_EQ(rec.status, "ok");
  EXPECT_EQ(rec.experiment.title, "PyTorch SDPA, flash backend (FlashAttention-2)");
  EXPECT_EQ(rec.started_utc, utc_iso8601(1764130119));
  EXPECT_EQ(rec.provenance.git.commit, "abcdef0123456789");
  EXPECT_TRUE(rec.provenance.git.dirty);
  EXPECT_EQ(rec.provenance.host, "testhost");
  EXPECT_EQ(rec.provenance.sweep_id, "sweep-1");
  EXPECT_EQ(rec.provenance.versions.runtime, 12080);
  EXPECT_FALSE(rec.provenance.versions.cudnn.has_value());
  EXPECT_EQ(rec.provenance.gpu.uuid, "GPU-f0e7724f-c1b6-fc68-3ca3-69ab1e33984f");
  EXPECT_EQ(rec.provenance.gpu.compute_capability, "9.0");
  EXPECT_EQ(rec.provenance.gpu.sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(rec.provenance.gpu.peak_dram_gbps, 3352.32);
  EXPECT_EQ(rec.provenance.seed, 7u);
  EXPECT_EQ(rec.options.backend, "flash");
  EXPECT_EQ(rec.options.regimes, (std::vector<std::string>{"cold", "graph"}));
  const ordered_json j = to_json(rec);
  EXPECT_EQ(record_problems(j), std::vector<std::string>{});
  EXPECT_EQ(j["provenance"]["build"]["type"], "pytorch");
  EXPECT_TRUE(j["provenance"]["versions"]["cudnn"].is_null());
  EXPECT_FALSE(j.contains("unavailable_shapes"));
}

TEST(SdpaImport, CupTiRegimeSpansBusyTimesAndKernelSharesFromTheCalls) {
  const RunRecord rec = import(raw_doc());
  const ResultEntry& r = rec.results.at(0);
  EXPECT_EQ(r.headline_regime, "cold");
  ASSERT_EQ(r.timing.size(), 2u);
  const RegimeTiming& cold = r.timing[0].second;
  // Spans 1000..1200 and 5000..5250; busy 10 + 180 (100 overlapping 100 from 1020) and
  // 10 + 100 + 100 (a gap of 40).
  EXPECT_EQ(cold.samples_ns, (std::vector<double>{200.0, 250.0}));
  EXPECT_DOUBLE_EQ(cold.median_ns, 225.0);
  EXPECT_DOUBLE_EQ(*cold.busy_median_ns, (190.0 + 210.0) / 2);
  EXPECT_EQ(cold.kernels, (std::vector<std::string>{"memset", "k"}));
  EXPECT_EQ(*cold.kernels_per_launch, 3);
  EXPECT_EQ(*cold.clock_before_mhz, 1755.0);
  EXPECT_FALSE(cold.clock_after_mhz.has_value());
  EXPECT_DOUBLE_EQ(cold.tflops, r.shape.flops() / 225.0 / 1e3);
  ASSERT_TRUE(r.kernels.has_value());
  ASSERT_EQ(r.kernels->size(), 2u);
  const KernelShare& k = (*r.kernels)[1];
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.instances_per_launch, 2);
  EXPECT_DOUBLE_EQ(k.median_ns, 200.0);  // both instances of each call, 100 + 100
  EXPECT_DOUBLE_EQ((*r.kernels)[0].share_pct + k.share_pct, 100.0);
  EXPECT_EQ(k.metrics, "not measured: torch.profiler gives kernel times only");
  // NVML: one reading idle, two under the power cap, one of them also hw_slowdown (throttled),
  // and one busy below 75% of 2000 MHz (throttled).
  const GpuState& g = *cold.gpu_state;
  EXPECT_EQ(g.readings, 3);
  EXPECT_EQ(g.throttled_readings, 2);
  EXPECT_EQ(g.sm_clock_median_mhz, 1800.0);
  EXPECT_EQ(g.power_max_w, 700.0);
  EXPECT_EQ(g.clock_event_readings,
            (std::vector<std::pair<std::string, long long>>{{"gpu_idle", 1}, {"sw_power_cap", 2}, {"hw_slowdown", 1}}));
}

TEST(SdpaImport, GraphRegimeSummarisesItsSamplesWithTheHarnessStatistics) {
  const RunRecord rec = import(raw_doc());
  const RegimeTiming& graph = rec.results.at(0).timing.at(1).second;
  const stats::Summary s = stats::summarize({300.0, 100.0, 200.0});
  EXPECT_EQ(graph.median_ns, s.median);
  EXPECT_EQ(graph.p10_ns, s.p10);
  EXPECT_EQ(*graph.stdev_ns, s.stdev);
  EXPECT_EQ(graph.stop_reason, "converged");
  EXPECT_EQ(*graph.launches_per_sample, 20);
  EXPECT_TRUE(graph.kernels.empty());
  EXPECT_FALSE(graph.busy_median_ns.has_value());
  EXPECT_EQ(graph.gpu_state->unavailable, "NVML not loadable");
}

TEST(SdpaImport, CorrectnessGetsTheRuleAndTheShapesRowCount) {
  ordered_json doc = raw_doc();
  doc["results"][0]["correctness"]["passed"] = false;
  doc["results"][0]["correctness"]["failure"] = "two calls on the same inputs gave different outputs";
  doc["results"][0].erase("regimes");
  const RunRecord rec = import(doc);
  EXPECT_EQ(rec.status, "failed");
  const Correctness& c = rec.results.at(0).correctness;
  EXPECT_EQ(c.rows_total, 1 * 2 * 64);
  EXPECT_EQ(*c.rule, "row_rms");
  EXPECT_EQ(*c.output_poisoned, false);
  EXPECT_EQ(*c.failure, "two calls on the same inputs gave different outputs");
  EXPECT_TRUE(to_json(rec)["results"][0]["timing"].is_null());
}

TEST(SdpaImport, AnUnavailableShapeOrAFaultFailsTheRun) {
  ordered_json doc = raw_doc();
  doc["results"].push_back({{"shape", {{"B", 1}, {"H", 2}, {"H_kv", 2}, {"S", 64}, {"D", 96}, {"causal", false}, {"scale", 0.1}}},
                            {"unavailable", "head dim 96 not supported"}});
  RunRecord rec = import(doc);
  EXPECT_EQ(rec.status, "failed");
  EXPECT_EQ(to_json(rec)["unavailable_shapes"], ordered_json({"1x2x64x96"}));
  doc = raw_doc();
  doc["error"] = "RuntimeError: CUDA error: an illegal memory access was encountered";
  rec = import(doc);
  EXPECT_EQ(rec.status, "failed");
  EXPECT_EQ(*rec.error, "RuntimeError: CUDA error: an illegal memory access was encountered");
}

TEST(SdpaRaw, AMalformedFileIsRefusedInOneLineNamingTheField) {
  EXPECT_EQ(refusal(raw_doc().dump()), "");
  EXPECT_NE(refusal("{\"schema\": ").find("not valid JSON"), std::string::npos);
  ordered_json doc = raw_doc();
  doc["schema"] = "attnlab.run/1";
  EXPECT_EQ(refusal(doc.dump()), "/schema is not attnlab.sdpa-raw/1");
  doc = raw_doc();
  doc["gpu"].erase("uuid_hex");
  EXPECT_EQ(refusal(doc.dump()), "missing /gpu/uuid_hex");
  doc = raw_doc();
  doc["gpu"]["uuid_hex"] = "f0e7724f";
  EXPECT_EQ(refusal(doc.dump()), "/gpu/uuid_hex is not 32 hex digits");
  doc = raw_doc();
  doc["results"][0]["shape"]["S"] = 0;
  EXPECT_EQ(refusal(doc.dump()), "/results/0/shape/S is below 1");
  doc = raw_doc();
  doc["results"][0]["shape"]["D"] = 64.5;
  EXPECT_EQ(refusal(doc.dump()), "/results/0/shape/D is not an integer");
  doc = raw_doc();
  doc["results"][0]["regimes"][0]["launches"][1] = {1.0, 2.0};
  EXPECT_EQ(refusal(doc.dump()),
            "/results/0/regimes/0/launches/1 does not hold a [start, end) pair for each of the 3 kernels");
  doc = raw_doc();
  doc["results"][0]["regimes"][1]["name"] = "hot";
  EXPECT_EQ(refusal(doc.dump()), "/results/0/regimes/1/name is not cold, warm or graph");
  doc = raw_doc();
  doc["results"][0]["regimes"][0]["nvml"]["readings"][0] = {1980.0, 300.0};
  EXPECT_EQ(refusal(doc.dump()), "/results/0/regimes/0/nvml/readings/0 is not [SM MHz, W, C, reason bits]");
  doc = raw_doc();
  doc["backend"] = "math";
  EXPECT_EQ(refusal(doc.dump()), "/backend is not cudnn, flash or efficient");
}

// The baseline decides in Python, while its graph regime samples, when to stop (it runs beside
// torch, not linked to the harness; the rule is in experiments/sdpa_timing.py, beside the
// script): on the same random samples its rule must agree with
// common/stats.cpp's, so a change to one without the other fails here.
TEST(SdpaBaseline, StoppingRuleMatchesTheHarness) {
  if (std::system("python3 -c '' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  std::mt19937_64 rng(20261124);
  std::lognormal_distribution<double> dist(10.0, 0.3);
  ordered_json cases = ordered_json::array();
  std::vector<std::vector<double>> samples;
  for (std::size_t n : {1, 2, 3, 10, 11, 64, 257}) {
    std::vector<double> xs(n);
    for (auto& x : xs) x = dist(rng);
    samples.push_back(xs);
    cases.push_back(xs);
  }
  const fs::path dir = fs::temp_directory_path() / ("attnlab-sdpa-stats-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "in.json") << cases.dump();
  const std::string script = R"(
import importlib.util, json, pathlib, sys
spec = importlib.util.spec_from_file_location("b", pathlib.Path(sys.argv[1]).with_name("sdpa_timing.py"))
b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)
rules = [dict(min_samples=m, max_samples=x, noise_target_pct=t, max_seconds=s)
         for m, x, t, s in [(2, 1000, 50.0, 10.0), (10, 11, 0.5, 10.0), (10, 1000, 0.5, 0.0), (300, 1000, 0.5, 10.0)]]
json.dump([[b.should_stop(r, xs, e) or "continue" for r in rules for e in (0.0, 1.0, 25.0)]
           for xs in json.load(open(sys.argv[2]))], open(sys.argv[3], "w"))
)";
  std::ofstream(dir / "check.py") << script;
  const std::string cmd = "python3 '" + (dir / "check.py").string() + "' '" + ATTNLAB_SDPA_SCRIPT +
                          "' '" + (dir / "in.json").string() + "' '" + (dir / "out.json").string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(dir / "out.json");
  const auto py = ordered_json::parse(in);
  fs::remove_all(dir);
  const std::vector<stats::StoppingRule> rules = {
      {2, 1000, 50.0, 10.0}, {10, 11, 0.5, 10.0}, {10, 1000, 0.5, 0.0}, {300, 1000, 0.5, 10.0}};
  ASSERT_EQ(py.size(), samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    SCOPED_TRACE("n = " + std::to_string(samples[i].size()));
    std::size_t k = 0;
    for (const auto& r : rules)
      for (double e : {0.0, 1.0, 25.0}) {
        const auto reason = stats::should_stop(r, samples[i], e);
        const std::string want = reason == stats::StopReason::kContinue ? "continue"
                                                                           : stats::stop_reason_name(reason);
        EXPECT_EQ(py[i][k++].get<std::string>(), want) << "rule " << (&r - rules.data()) << " at " << e << " s";
      }
  }
}
