// attnlab-sdpa-import's logic (experiments/baselines/sdpa_import.hpp) and the raw file's reader
// (record/sdpa_raw.hpp): a synthetic raw file gives a run record whose every computed field is
// right, that the schema takes and read_run_record reads back; a malformed one is refused in one
// line naming the field. The check the baseline asks of each output passes a right output and
// fails wrong ones, and the stopping rule it asks while its graph regime samples is
// common/stats.cpp's.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "common/shapes.hpp"
#include "common/stats.hpp"
#include "experiments/baselines/sdpa_import.hpp"
#include "record/record.hpp"
#include "tests/validate_records.hpp"

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
  ordered_json corr = {{"passed", true}, {"max_abs_err", 1e-4}, {"max_rel_err", 1e-3},
                       {"tolerance_abs", 2e-4}, {"naive_fp16_max_abs_err", 3e-4}, {"rows_checked", 128},
                       {"rows_total", 128}, {"nonfinite", 0}, {"repeat_identical", true},
                       {"rule", "row_rms"}, {"inputs", "normal"}, {"row_rms_err", 5e-5},
                       {"row_err_ratio", 0.25}, {"elements_scanned", 8192}, {"output_poisoned", false}};
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

// The raw file of `doc` (the document the reader assembles) as the baseline writes it: the
// header line, then a line per result and one for an error.
std::string raw_lines(const ordered_json& doc) {
  ordered_json header = doc;
  header.erase("results");
  header.erase("error");
  std::string text = header.dump() + "\n";
  for (const auto& r : doc["results"]) text += ordered_json{{"result", r}}.dump() + "\n";
  if (doc.contains("error")) text += ordered_json{{"error", doc["error"]}}.dump() + "\n";
  return text;
}

RunRecord import(const ordered_json& doc) {
  RawFile f(raw_lines(doc));
  return sdpa_record(read_sdpa_raw(f.path), {{"abcdef0123456789abcdef0123456789abcdef01", true}, "testhost", "sweep-1"});
}

// Each row of shape `s` on `in` as fp64 attention computes it, rounded to fp16: what a right
// kernel returns, up to its own rounding.
std::vector<__half> exact_output(const Shape& s, const HostTensors& in) {
  std::vector<__half> out(std::size_t(s.q_elems()));
  std::vector<double> row(std::size_t(s.D));
  for (int b = 0; b < s.B; ++b)
    for (int h = 0; h < s.H; ++h)
      for (int i = 0; i < s.S; ++i) {
        reference_row(s, in, float(s.default_scale()), {b, h, i}, row.data());
        const std::size_t at = ((std::size_t(b) * s.H + h) * s.S + i) * s.D;
        for (int d = 0; d < s.D; ++d) out[at + d] = __float2half(float(row[std::size_t(d)]));
      }
  return out;
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
  EXPECT_EQ(rec.provenance.git.commit, "abcdef0123456789abcdef0123456789abcdef01");
  EXPECT_TRUE(rec.provenance.git.dirty);
  EXPECT_EQ(rec.provenance.host, "testhost");
  EXPECT_EQ(rec.provenance.sweep_id, "sweep-1");
  EXPECT_EQ(rec.provenance.versions.runtime, 12080);
  EXPECT_EQ(rec.provenance.torch->torch, "2.11.0+cu130");
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
  const RegimeTiming& cold = r.timing[0];
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
  const RegimeTiming& graph = rec.results.at(0).timing.at(1);
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

// The check's block is the entry's; an output that changed during timing fails the entry, which
// then holds no timing, as a failed check does.
TEST(SdpaImport, AnOutputChangedAfterTimingFailsTheEntryAndDropsItsTiming) {
  ordered_json doc = raw_doc();
  EXPECT_EQ(to_json(import(doc).results.at(0).correctness).dump(), doc["results"][0]["correctness"].dump());
  doc["results"][0]["changed_after_timing"] = true;
  const RunRecord rec = import(doc);
  EXPECT_EQ(rec.status, "failed");
  const Correctness& c = rec.results.at(0).correctness;
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(*c.failure, "output after timing differs from the checked output");
  EXPECT_TRUE(to_json(rec)["results"][0]["timing"].is_null());
}

// The importer's record is a run record: the schema takes it, and read_run_record reads it back
// from the file write_run_record wrote, to the same bytes.
TEST(SdpaImport, TheRecordValidatesAndReadsBackThroughTheRunRecordReader) {
  ordered_json doc = raw_doc();
  doc["results"].push_back({{"shape", {{"B", 1}, {"H", 2}, {"H_kv", 2}, {"S", 64}, {"D", 96}, {"causal", false}, {"scale", 0.1}}},
                            {"unavailable", "head dim 96 not supported"}});
  const RunRecord rec = import(doc);
  const fs::path file = fs::temp_directory_path() / ("attnlab-sdpa-record-" + std::to_string(::getpid()) + ".json");
  write_run_record(file, rec);
  const ordered_json written = read_json_file(file);
  fs::remove(file);
  EXPECT_EQ(written.dump(), to_json(rec).dump());
  const RunRecord back = read_run_record(written);
  EXPECT_EQ(to_json(back).dump(2), written.dump(2));
  EXPECT_EQ(back.results.at(1).available, false);
  EXPECT_EQ(*back.options.backend, "flash");
  attnlab::testing::expect_valid_record(ATTNLAB_SOURCE_DIR, written, "sdpa-import");
}

// The check the baseline asks of each output (attnlab-sdpa-import check) is the phases' gate: a
// right output passes, and one with the causal mask dropped, one wrong element, a NaN, or two
// calls that disagree each fail, naming why.
TEST(SdpaCheck, ARightOutputPassesAndWrongOnesFail) {
  const Shape s = parse_shape("1x2x64x32:causal:hkv=1");
  const std::uint64_t seed = 11;
  const HostTensors in = make_inputs(s, seed);
  const std::vector<__half> right = exact_output(s, in);
  const Correctness ok = sdpa_check(s, seed, in, right, true);
  EXPECT_TRUE(ok.passed) << ok.failure.value_or("");
  EXPECT_EQ(ok.rows_checked, 1 * 2 * 64);
  EXPECT_EQ(ok.rows_total, 1 * 2 * 64);
  EXPECT_EQ(*ok.output_poisoned, false);
  EXPECT_EQ(*ok.rule, "row_rms");
  EXPECT_LT(*ok.row_err_ratio, 1.0);

  Shape unmasked = s;
  unmasked.causal = false;
  const Correctness no_mask = sdpa_check(s, seed, in, exact_output(unmasked, in), true);
  EXPECT_FALSE(no_mask.passed);
  EXPECT_NE(no_mask.failure->find("worst row"), std::string::npos);

  std::vector<__half> one_off = right;
  one_off[5 * s.D + 3] = __float2half(__half2float(one_off[5 * s.D + 3]) + 0.05f);
  EXPECT_FALSE(sdpa_check(s, seed, in, one_off, true).passed);

  std::vector<__half> nan = right;
  nan.back() = __float2half(std::numeric_limits<float>::quiet_NaN());
  const Correctness with_nan = sdpa_check(s, seed, in, nan, true);
  EXPECT_FALSE(with_nan.passed);
  EXPECT_EQ(with_nan.nonfinite, 1);
  // The block the baseline carries into its raw file reads back, its inf errors as null.
  EXPECT_FALSE(read_correctness(ordered_json::parse(correctness_line(with_nan)), "").passed);

  const Correctness repeat = sdpa_check(s, seed, in, right, false);
  EXPECT_FALSE(repeat.passed);
  EXPECT_EQ(*repeat.failure, "two calls on the same inputs gave different outputs");
}

// The tensors as the baseline writes them: read back in order, and a file of the wrong size is
// refused naming it.
TEST(SdpaCheck, TensorsAreReadAsWrittenAndAShortFileIsRefused) {
  const Shape s = parse_shape("1x2x8x4");
  const fs::path dir = fs::temp_directory_path() / ("attnlab-sdpa-tensors-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const HostTensors in = make_inputs(s, 3);
  const auto put = [&](const char* name, const std::vector<__half>& v) {
    std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 2));
  };
  put("q.f16", in.q);
  put("k.f16", in.k);
  put("v.f16", in.v);
  put("out.f16", in.q);
  const SdpaTensors t = read_sdpa_tensors(dir, s);
  EXPECT_EQ(__half_as_ushort(t.in.k[17]), __half_as_ushort(in.k[17]));
  EXPECT_EQ(__half_as_ushort(t.out.back()), __half_as_ushort(in.q.back()));
  put("out.f16", std::vector<__half>(in.q.begin(), in.q.end() - 1));
  try {
    read_sdpa_tensors(dir, s);
    ADD_FAILURE() << "a short output was read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "out.f16").string() + ": not 64 fp16 values");
  }
  fs::remove_all(dir);
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
  EXPECT_EQ(refusal(raw_lines(raw_doc())), "");
  EXPECT_NE(refusal("{\"schema\": ").find("line 1 is not valid JSON"), std::string::npos);
  EXPECT_EQ(refusal(""), "empty");
  EXPECT_EQ(refusal(raw_lines(raw_doc()) + "{\"results\": []}\n"), "line 3 is neither {\"result\": ...} nor {\"error\": ...}");
  // A run cut short while it wrote its last line.
  const std::string whole = raw_lines(raw_doc());
  EXPECT_NE(refusal(whole.substr(0, whole.size() - 10)).find("line 2 is not valid JSON"), std::string::npos);
  ordered_json doc = raw_doc();
  doc["schema"] = "attnlab.run/1";
  EXPECT_EQ(refusal(raw_lines(doc)), "/schema is not attnlab.sdpa-raw/1");
  doc = raw_doc();
  doc["gpu"].erase("uuid_hex");
  EXPECT_EQ(refusal(raw_lines(doc)), "missing /gpu/uuid_hex");
  doc = raw_doc();
  doc["gpu"]["uuid_hex"] = "f0e7724f";
  EXPECT_EQ(refusal(raw_lines(doc)), "/gpu/uuid_hex is not 32 hex digits");
  doc = raw_doc();
  doc["results"][0]["shape"]["S"] = 0;
  EXPECT_EQ(refusal(raw_lines(doc)), "/results/0/shape/S is below 1");
  doc = raw_doc();
  doc["results"][0]["shape"]["D"] = 64.5;
  EXPECT_EQ(refusal(raw_lines(doc)), "/results/0/shape/D is not an integer");
  doc = raw_doc();
  doc["results"][0]["regimes"][0]["launches"][1] = {1.0, 2.0};
  EXPECT_EQ(refusal(raw_lines(doc)),
            "/results/0/regimes/0/launches/1 does not hold a [start, end) pair for each of the 3 kernels");
  doc = raw_doc();
  doc["results"][0]["regimes"][1]["name"] = "hot";
  EXPECT_EQ(refusal(raw_lines(doc)), "/results/0/regimes/1/name is not cold, warm or graph");
  doc = raw_doc();
  doc["results"][0]["regimes"][0]["nvml"]["readings"][0] = {1980.0, 300.0};
  EXPECT_EQ(refusal(raw_lines(doc)), "/results/0/regimes/0/nvml/readings/0 is not [SM MHz, W, C, reason bits]");
  doc = raw_doc();
  doc["backend"] = "math";
  EXPECT_EQ(refusal(raw_lines(doc)), "/backend is not cudnn, flash or efficient");
}

// The stopping rule the baseline's graph regime asks after each batch: each answer is
// common/stats.cpp's over every sample sent so far, and a line that is not numbers is refused.
TEST(SdpaStoppingRule, EachAnswerIsTheHarnessRuleOverTheSamplesSoFar) {
  std::mt19937_64 rng(20261124);
  std::lognormal_distribution<double> dist(10.0, 0.3);
  for (const stats::StoppingRule& rule : {stats::StoppingRule{2, 1000, 50.0, 10.0}, stats::StoppingRule{10, 11, 0.5, 10.0},
                                          stats::StoppingRule{10, 1000, 0.5, 0.5}, stats::StoppingRule{3, 1000, 5.0, 10.0}}) {
    std::ostringstream lines;
    std::vector<std::string> want;
    std::vector<double> so_far;
    for (int batch = 0; batch < 6; ++batch) {
      const double elapsed = 0.2 * batch;
      lines << elapsed;
      for (int i = 0; i < 1 + batch; ++i) {
        so_far.push_back(batch == 5 ? 1000.0 : dist(rng));
        lines << ' ' << so_far.back();
      }
      lines << '\n';
      const stats::StopReason r = stats::should_stop(rule, so_far, elapsed);
      want.push_back(r == stats::StopReason::kContinue ? "continue" : stats::stop_reason_name(r));
    }
    std::istringstream in(lines.str());
    std::ostringstream out;
    serve_stopping_rule(rule, in, out);
    std::istringstream answers(out.str());
    for (const std::string& w : want) {
      std::string got;
      std::getline(answers, got);
      EXPECT_EQ(got, w);
    }
  }
  std::istringstream bad("0.1 100 x\n");
  std::ostringstream out;
  EXPECT_THROW(serve_stopping_rule({2, 10, 1.0, 1.0}, bad, out), std::runtime_error);
}

// The NVML monitor the baseline asks while it samples is the harness's: the SM clock now, and the
// raw file's nvml block of a regime, which the raw reader takes back; without NVML (this machine,
// most likely) both say so, and an unknown command is refused.
TEST(SdpaMonitor, AnswersTheClockAndANvmlBlockTheRawReaderTakes) {
  profiler::GpuMonitor monitor(0);
  std::istringstream in("clock\nstart\nstop\n");
  std::ostringstream out;
  serve_monitor(monitor, in, out);
  std::istringstream answers(out.str());
  std::string clock, start, stop;
  std::getline(answers, clock);
  std::getline(answers, start);
  std::getline(answers, stop);
  for (const std::string& line : {clock, start}) {
    const ordered_json j = ordered_json::parse(line);
    EXPECT_EQ(j.size(), 1u);
    EXPECT_EQ(j["sm_clock_mhz"].is_null(), monitor.unavailable().has_value()) << line;
  }
  // The block as a regime of the raw file holds it: read back by the importer's reader.
  ordered_json doc = raw_doc();
  doc["results"][0]["regimes"][1]["nvml"] = ordered_json::parse(stop);
  const RunRecord rec = import(doc);
  const RegimeTiming& graph = rec.results.at(0).timing.at(1);
  if (monitor.unavailable()) EXPECT_EQ(graph.gpu_state->unavailable, *monitor.unavailable());
  std::istringstream bad("pause\n");
  EXPECT_THROW(serve_monitor(monitor, bad, out), std::runtime_error);
}

// The cold and warm regimes' number of calls: the time budget over a call's estimate, within the
// sample bounds, and the reason the raw regime records for it.
TEST(SdpaSamplePlan, TheTimeBudgetOverACallWithinTheSampleBounds) {
  const stats::StoppingRule rule{10, 200, 0.5, 1.0};
  const SdpaSamplePlan by_time = sdpa_sample_plan(rule, 1e7);  // 100 calls in 1 s
  EXPECT_EQ(by_time.samples, 100u);
  EXPECT_EQ(by_time.stop_reason, stats::StopReason::kTimeCap);
  const SdpaSamplePlan capped = sdpa_sample_plan(rule, 1e3);
  EXPECT_EQ(capped.samples, 200u);
  EXPECT_EQ(capped.stop_reason, stats::StopReason::kMaxSamples);
  const SdpaSamplePlan slow = sdpa_sample_plan(rule, 5e8);  // 2 calls in the budget: the minimum
  EXPECT_EQ(slow.samples, 10u);
  EXPECT_EQ(slow.stop_reason, stats::StopReason::kTimeCap);
  EXPECT_EQ(sdpa_sample_plan(rule, 3.5e7).samples, 28u);  // 28.6 calls: whole ones
  EXPECT_EQ(sample_plan_answer(capped), "200 max_samples");
  EXPECT_EQ(sample_plan_answer(slow), "10 time_cap");
  EXPECT_THROW(sdpa_sample_plan(rule, 0.0), std::invalid_argument);
  EXPECT_THROW(sdpa_sample_plan(rule, std::nan("")), std::invalid_argument);
}

// The baseline holds Q, K, V and two outputs on the device, one output more than the harness.
TEST(SdpaMemory, TheBaselinesBuffersAgainstTheFreeMemory) {
  constexpr std::uint64_t kGiB = 1ull << 30;
  const Shape big = parse_shape("64x64x32768x128");  // 2^34 elements in each of Q, K, V
  EXPECT_EQ(*sdpa_memory_refusal(big, 80 * kGiB, 1000 * kGiB),
            "it needs 160.0 GiB of device memory for Q, K, V and two outputs; the GPU has 80.0 GiB free");
  EXPECT_FALSE(sdpa_memory_refusal(big, 160 * kGiB, 1000 * kGiB));
  EXPECT_TRUE(sdpa_memory_refusal(big, 160 * kGiB - 1, 1000 * kGiB));
  EXPECT_NE(sdpa_memory_refusal(big, 200 * kGiB, 100 * kGiB)->find("of host memory"), std::string::npos);
  EXPECT_FALSE(sdpa_memory_refusal(parse_shape("throughput"), 80 * kGiB, 100 * kGiB));
}

// The GPU's attributes as the importer answers them: a line per key of the raw file's gpu block,
// and the driver. tests/cli/sdpa_raw_stub.py reads these very lines as the baseline does and
// imports the raw file it writes from them.
TEST(SdpaGpu, TheAnswerIsAKeyValueLinePerKeyOfTheRawFilesGpuBlock) {
  GpuAttributes a;
  a.name = "NVIDIA stub GPU";
  for (unsigned char& b : a.uuid) b = 0xab;
  a.cc_major = 9;
  a.sm_count = 132;
  a.sm_clock_khz = 1980000;
  a.mem_clock_khz = 2619000;
  a.bus_width_bits = 5120;
  a.l2_bytes = 52428800;
  a.global_mem_bytes = 85017493504ULL;
  a.smem_per_sm_bytes = 233472;
  EXPECT_EQ(sdpa_gpu_answer(a, 13000),
            "name NVIDIA stub GPU\nuuid_hex abababababababababababababababab\ncc_major 9\ncc_minor 0\n"
            "sm_count 132\nsm_clock_khz 1980000\nmem_clock_khz 2619000\nbus_width_bits 5120\n"
            "l2_bytes 52428800\nglobal_mem_bytes 85017493504\nsmem_per_sm_bytes 233472\ndriver 13000\n");
}
