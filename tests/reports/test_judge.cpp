// Claim verdicts and compare verdicts on synthetic records whose samples are chosen to be
// separated, overlapping (within noise) or missing.
#include <gtest/gtest.h>

#include "record/ab.hpp"
#include "reports/judge.hpp"
#include "report_test_util.hpp"

using namespace attnlab;
using namespace attnlab::report;
using namespace attnlab::report::testing;

namespace {

constexpr const char* kT0 = "2026-11-22T10:00:00Z";
constexpr const char* kT1 = "2026-11-22T11:00:00Z";
constexpr const char* kT2 = "2026-11-22T12:00:00Z";

ordered_json claim(const std::string& id, const std::string& metric, const std::string& shape,
                   const std::string& op) {
  return {{"id", id}, {"text", id}, {"metric", metric}, {"shape", shape}, {"op", op}, {"factor", 1.0}};
}

ordered_json against(ordered_json c, const std::string& phase, double factor = 1.0) {
  c["other_phase"] = phase;
  c["factor"] = factor;
  return c;
}

ordered_json constant(ordered_json c, double v, double tol = 0) {
  c["value"] = v;
  if (c["op"] == "within_pct") c["tolerance_pct"] = tol;
  return c;
}

// A results root in a temporary directory; add records, then judge the claims of one.
struct Lab {
  TempDir dir;
  std::vector<fs::path> runs;
  fs::path add(const ordered_json& rec) {
    runs.push_back(write_record(dir.path, rec));
    return runs.back();
  }
  std::vector<Judgement> judge(const fs::path& run_dir) {
    const Run r = load_run(run_dir);
    roots = load_root(dir.path);
    return judge_claims(r, roots);
  }
  std::vector<Run> roots;
};

// Phase "4" with one claim about the throughput shape, cold samples given.
ordered_json phase4(const std::vector<double>& cold, const ordered_json& c, const char* when = kT2) {
  auto r = synth_record("4", when, {{"throughput", cold}});
  r["claims"].push_back(c);
  return r;
}

const ordered_json kFasterThan1 =
    against(claim("faster-than-1", "/timing/cold/median_ns", "throughput", "<"), "1");

}  // namespace

TEST(Claims, SeparatedIntervalsSupportAStrictClaim) {
  Lab lab;
  lab.add(synth_record("1", kT1, {{"throughput", spread(200e3, 2e3)}}));
  const auto run = lab.add(phase4(spread(100e3, 2e3), kFasterThan1));
  const auto js = lab.judge(run);
  ASSERT_EQ(js.size(), 1u);
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
  EXPECT_NE(js[0].evidence.find("separated, below"), std::string::npos) << js[0].evidence;
  ASSERT_NE(js[0].compared, nullptr);
  EXPECT_EQ(js[0].compared->phase, "1");
}

TEST(Claims, ADifferenceWithinTheNoiseIsInconclusive) {
  Lab lab;
  // Medians differ by 2%, but each spreads +/-10%: the intervals overlap, so the strict claim
  // is neither shown nor disproved.
  lab.add(synth_record("1", kT1, {{"throughput", spread(102e3, 10e3)}}));
  const auto run = lab.add(phase4(spread(100e3, 10e3), kFasterThan1));
  const auto js = lab.judge(run);
  EXPECT_EQ(js[0].verdict, Verdict::kInconclusive) << js[0].evidence;
  EXPECT_STREQ(verdict_name(js[0].verdict), "INCONCLUSIVE");
  EXPECT_NE(js[0].evidence.find("within noise"), std::string::npos) << js[0].evidence;
}

TEST(Claims, TimingsAreJudgedOnBusyTimeNotTheSpan) {
  // The other phase launches two kernels: its span (200 us) includes an idle gap, its busy
  // time (89-91 us) does not. Phase 4's 99-101 us beats the span but not the busy time.
  Lab lab;
  lab.add(with_busy(synth_record("1", kT1, {{"throughput", spread(200e3, 1e3)}}), 0, 2, 90e3, 89e3, 91e3));
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 1e3), kFasterThan1)));
  EXPECT_EQ(js[0].verdict, Verdict::kRefuted) << js[0].evidence;
  EXPECT_NE(js[0].evidence.find("90.00 us (busy; p10-p90 of 21 cold samples: 89.00-91.00 us)"),
            std::string::npos) << js[0].evidence;
  // The synthetic phase 4 record names no kernels: its span, said so.
  EXPECT_NE(js[0].evidence.find("(span, kernels per launch not recorded;"), std::string::npos) << js[0].evidence;
}

TEST(Claims, ABusyMedianWithoutItsIntervalDecidesOnlyWhereBothReadingsAgree) {
  // Phase 1 records a busy median of 100 us and no busy p10/p90; its span spreads about
  // +/-8 us around 150 us, so spread as its span the busy time would reach about 92-108 us.
  const auto one = with_busy(synth_record("1", kT1, {{"throughput", spread(150e3, 10e3)}}), 0, 2, 100e3);
  const auto le = against(claim("le", "/timing/cold/busy_median_ns", "throughput", "<="), "1");
  // 59-61 us: below 100 us either way.
  Lab agree;
  agree.add(one);
  const auto a = agree.judge(agree.add(phase4(spread(60e3, 1e3), kFasterThan1)));
  EXPECT_EQ(a[0].verdict, Verdict::kSupported) << a[0].evidence;
  // 103-105 us: above 100 us as a single value, inside 92-108 us spread as the span.
  Lab depends;
  depends.add(one);
  const auto d = depends.judge(depends.add(phase4(spread(104e3, 1e3), le)));
  EXPECT_EQ(d[0].verdict, Verdict::kInconclusive) << d[0].evidence;
  EXPECT_NE(d[0].evidence.find("depends on the busy time's p10-p90, which the record does not give"),
            std::string::npos) << d[0].evidence;
  EXPECT_NE(d[0].evidence.find("100.0 us (busy median only, its p10-p90 not recorded; of 21 cold samples)"),
            std::string::npos) << d[0].evidence;
}

TEST(Claims, ASeveralKernelLaunchWithoutBusyTimeIsJudgedOnItsSpanAndSaysSo) {
  Lab lab;
  auto other = synth_record("1", kT1, {{"throughput", spread(200e3, 1e3)}});
  other["results"][0]["timing"]["cold"]["kernels"] = {"gemm", "softmax", "gemm2"};
  lab.add(other);
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 1e3), kFasterThan1)));
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
  EXPECT_NE(js[0].evidence.find("(span of 3 kernels, busy not recorded;"), std::string::npos)
      << js[0].evidence;
}

TEST(Claims, TheOppositeIsRefuted) {
  Lab lab;
  lab.add(synth_record("1", kT1, {{"throughput", spread(50e3, 1e3)}}));
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 1e3), kFasterThan1)));
  EXPECT_EQ(js[0].verdict, Verdict::kRefuted);
  EXPECT_NE(js[0].evidence.find("against the claim"), std::string::npos) << js[0].evidence;
}

TEST(Claims, NonStrictClaimsWithinNoiseAreNeverSupported) {
  // One rule: overlapping intervals neither show nor disprove "as fast as" (>=, <=, ==).
  Lab lab;
  lab.add(synth_record("1", kT1, {{"throughput", spread(101e3, 10e3)}}));
  auto le = against(claim("le", "/timing/cold/median_ns", "throughput", "<="), "1");
  auto rec = phase4(spread(100e3, 10e3), le);
  rec["claims"].push_back(against(claim("eq", "/timing/cold/median_ns", "throughput", "=="), "1"));
  rec["claims"].push_back(against(claim("ge", "/timing/cold/median_ns", "throughput", ">="), "1"));
  rec["claims"].push_back(against(claim("as-fast-as", "/tflops", "throughput", ">="), "1"));
  const auto js = lab.judge(lab.add(rec));
  for (const auto& j : js) {
    EXPECT_EQ(j.verdict, Verdict::kInconclusive) << j.claim.id << ": " << j.evidence;
    EXPECT_NE(j.evidence.find("never SUPPORTED"), std::string::npos) << j.evidence;
  }
}

TEST(Claims, NonStrictClaimsAreSupportedBySeparationAsClaimed) {
  Lab lab;
  lab.add(synth_record("1", kT1, {{"throughput", spread(200e3, 1e3)}}));
  auto rec = phase4(spread(100e3, 1e3), against(claim("le", "/timing/cold/median_ns", "throughput", "<="), "1"));
  rec["claims"].push_back(against(claim("as-fast-as", "/tflops", "throughput", ">="), "1"));
  const auto js = lab.judge(lab.add(rec));
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
  EXPECT_EQ(js[1].verdict, Verdict::kSupported) << js[1].evidence;
}

TEST(Claims, NonStrictClaimsAreRefutedBySeparationAgainstThem) {
  Lab lab;
  lab.add(synth_record("1", kT1, {{"throughput", spread(200e3, 1e3)}}));
  auto rec = phase4(spread(100e3, 1e3), against(claim("ge", "/timing/cold/median_ns", "throughput", ">="), "1"));
  rec["claims"].push_back(against(claim("eq", "/timing/cold/median_ns", "throughput", "=="), "1"));
  const auto js = lab.judge(lab.add(rec));
  EXPECT_EQ(js[0].verdict, Verdict::kRefuted) << js[0].evidence;
  EXPECT_EQ(js[1].verdict, Verdict::kRefuted) << js[1].evidence;
}

TEST(Claims, AFactorScalesTheOtherPhase) {
  Lab lab;
  lab.add(synth_record("1", kT1, {{"throughput", spread(200e3, 1e3)}}));
  // "at least twice as fast as phase 1": time < 0.5 x phase 1's.
  const auto twice = against(claim("2x", "/timing/cold/median_ns", "throughput", "<"), "1", 0.5);
  EXPECT_EQ(lab.judge(lab.add(phase4(spread(150e3, 1e3), twice, kT2)))[0].verdict, Verdict::kRefuted);
  Lab lab2;
  lab2.add(synth_record("1", kT1, {{"throughput", spread(200e3, 1e3)}}));
  EXPECT_EQ(lab2.judge(lab2.add(phase4(spread(60e3, 1e3), twice, kT2)))[0].verdict, Verdict::kSupported);
}

TEST(Claims, TheNearestOkRecordOfTheOtherPhaseOnTheSameGpuIsUsed) {
  Lab lab;
  lab.add(synth_record("1", kT0, {{"throughput", spread(50e3, 1e3)}}));    // older: faster
  lab.add(synth_record("1", kT1, {{"throughput", spread(200e3, 1e3)}}));   // newest ok
  lab.add(synth_record("1", "2026-11-22T11:30:00Z", {{"throughput", spread(10e3, 1e3)}},
                       "NVIDIA H100 80GB HBM3", "failed"));                // newer, not ok
  lab.add(synth_record("1", "2026-11-22T11:40:00Z", {{"throughput", spread(10e3, 1e3)}},
                       "NVIDIA A100-SXM4-80GB"));                          // newer, other GPU
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 1e3), kFasterThan1)));
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
  ASSERT_NE(js[0].compared, nullptr);
  EXPECT_EQ(js[0].compared->started_utc, kT1);
}

TEST(Claims, ARecordIsJudgedAgainstTheOtherPhaseFromItsOwnSession) {
  // Phase 1 and phase 4 measured together at kT0 and again at kT2: the kT0 record of phase 4
  // keeps its kT0 partner (which it beats), not the newer, faster phase 1 record.
  Lab lab;
  lab.add(synth_record("1", kT0, {{"throughput", spread(200e3, 1e3)}}));
  const auto old_run = lab.add(phase4(spread(100e3, 1e3), kFasterThan1, "2026-11-22T10:01:00Z"));
  lab.add(synth_record("1", kT2, {{"throughput", spread(50e3, 1e3)}}));
  lab.add(phase4(spread(40e3, 1e3), kFasterThan1, "2026-11-22T12:01:00Z"));
  const auto js = lab.judge(old_run);
  ASSERT_NE(js[0].compared, nullptr);
  EXPECT_EQ(js[0].compared->started_utc, kT0);
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
  // The nearest may also be later than the judged record.
  Lab lab2;
  const auto early = lab2.add(phase4(spread(100e3, 1e3), kFasterThan1, kT0));
  lab2.add(synth_record("1", "2026-11-22T10:00:30Z", {{"throughput", spread(200e3, 1e3)}}));
  lab2.add(synth_record("1", kT2, {{"throughput", spread(50e3, 1e3)}}));
  const auto js2 = lab2.judge(early);
  ASSERT_NE(js2[0].compared, nullptr);
  EXPECT_EQ(js2[0].compared->started_utc, "2026-11-22T10:00:30Z");
}

TEST(Claims, ARecordOnTheSameGpuIsPreferredToANewerOneOnAnother) {
  Lab lab;
  lab.add(on_gpu(synth_record("1", kT0, {{"throughput", spread(200e3, 1e3)}}), "GPU-a"));
  lab.add(on_gpu(synth_record("1", kT2, {{"throughput", spread(50e3, 1e3)}}), "GPU-b"));  // newer
  const auto js = lab.judge(lab.add(on_gpu(phase4(spread(100e3, 1e3), kFasterThan1, kT1), "GPU-a")));
  ASSERT_NE(js[0].compared, nullptr);
  EXPECT_EQ(js[0].compared->started_utc, kT0);
  EXPECT_EQ(js[0].compared_because, "same GPU, another session: the newest");  // an hour apart
  EXPECT_NE(js[0].evidence.find("(1/20261122T100000Z-0123456: same GPU, another session: the newest)"),
            std::string::npos) << js[0].evidence;
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
}

TEST(Claims, OnTheSameGpuTheRecordOfTheSameSessionIsUsed) {
  Lab lab;
  lab.add(on_gpu(synth_record("1", kT0, {{"throughput", spread(200e3, 1e3)}}), "GPU-a"));
  lab.add(on_gpu(synth_record("1", "2026-11-22T11:50:00Z", {{"throughput", spread(50e3, 1e3)}}), "GPU-a"));
  const auto js = lab.judge(lab.add(on_gpu(phase4(spread(100e3, 1e3), kFasterThan1, kT2), "GPU-a")));
  ASSERT_NE(js[0].compared, nullptr);
  EXPECT_EQ(js[0].compared->started_utc, "2026-11-22T11:50:00Z");
  EXPECT_EQ(js[0].compared_because, "same GPU and session");
}

TEST(Claims, OnTheSameGpuWithoutASessionInCommonTheNewestIsUsed) {
  Lab lab;
  lab.add(on_gpu(synth_record("1", "2026-11-22T07:00:00Z", {{"throughput", spread(50e3, 1e3)}}), "GPU-a"));
  lab.add(on_gpu(synth_record("1", kT0, {{"throughput", spread(200e3, 1e3)}}), "GPU-a"));  // newest
  // Judged at 06:00, two hours before the newest and one before the nearest.
  const auto js = lab.judge(lab.add(on_gpu(phase4(spread(100e3, 1e3), kFasterThan1, "2026-11-22T06:00:00Z"), "GPU-a")));
  ASSERT_NE(js[0].compared, nullptr);
  EXPECT_EQ(js[0].compared->started_utc, kT0);
  EXPECT_EQ(js[0].compared_because, "same GPU, another session: the newest");
}

TEST(Claims, WithoutARecordOnTheSameGpuTheNewestOnTheModelIsUsed) {
  Lab lab;
  lab.add(on_gpu(synth_record("1", kT0, {{"throughput", spread(50e3, 1e3)}}), "GPU-b"));
  lab.add(on_gpu(synth_record("1", kT2, {{"throughput", spread(200e3, 1e3)}}), "GPU-c"));  // newest
  lab.add(on_gpu(synth_record("1", "2026-11-22T12:30:00Z", {{"throughput", spread(10e3, 1e3)}},
                              "NVIDIA A100-SXM4-80GB"), "GPU-a"));  // another model, even on "GPU-a"
  const auto js = lab.judge(lab.add(on_gpu(phase4(spread(100e3, 1e3), kFasterThan1, "2026-11-22T10:00:30Z"), "GPU-a")));
  ASSERT_NE(js[0].compared, nullptr);
  EXPECT_EQ(js[0].compared->started_utc, kT2);
  EXPECT_EQ(js[0].compared_because, "another GPU of this model, the newest: none on this GPU");
  EXPECT_NE(js[0].evidence.find("1/20261122T120000Z-0123456"), std::string::npos) << js[0].evidence;
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
}

TEST(Claims, ANewerRecordOfOtherShapesDoesNotHideTheOneWithTheShape) {
  Lab lab;
  lab.add(synth_record("1", kT0, {{"throughput", spread(200e3, 1e3)}}));  // has the shape
  lab.add(synth_record("1", kT1, {{"latency", spread(10e3, 1e3)}}));      // newer, other shape
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 1e3), kFasterThan1)));
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
  ASSERT_NE(js[0].compared, nullptr);
  EXPECT_EQ(js[0].compared->started_utc, kT0);
}

TEST(Claims, ANewerUntimedRecordAtTheShapeDoesNotHideATimedOne) {
  // A --check-only run: correct at the shape, not timed.
  Lab lab;
  lab.add(synth_record("1", kT0, {{"throughput", spread(200e3, 1e3)}}));
  auto check_only = synth_record("1", kT1, {{"throughput", {}}});
  check_only["results"][0]["correctness"]["passed"] = true;
  check_only["results"][0]["correctness"].erase("failure");
  lab.add(check_only);
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 1e3), kFasterThan1)));
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
  ASSERT_NE(js[0].compared, nullptr);
  EXPECT_EQ(js[0].compared->started_utc, kT0);
}

TEST(Claims, MissingEvidenceIsNotTested) {
  Lab lab;
  auto rec = synth_record("4", kT2, {{"throughput", spread(100e3, 1e3)}, {"latency", {}}});
  rec["claims"] = {
      kFasterThan1,  // no phase 1 record at all
      claim("tensor", "/metrics/tensor/values/sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active/value",
            "throughput", ">"),
      claim("failed", "/timing/cold/median_ns", "latency", "<"),
      claim("no-shape", "/tflops", "4x32x1024x128", ">"),
      claim("no-local", "/static/sass/LDL", "throughput", "=="),
  };
  for (std::size_t i = 1; i < rec["claims"].size(); ++i) rec["claims"][i]["value"] = 1.0;
  const auto js = lab.judge(lab.add(rec));
  ASSERT_EQ(js.size(), 5u);
  for (const auto& j : js) EXPECT_EQ(j.verdict, Verdict::kNotTested) << j.claim.id;
  EXPECT_NE(js[0].evidence.find("no ok record of phase 1"), std::string::npos) << js[0].evidence;
  EXPECT_NE(js[1].evidence.find("no hardware metrics"), std::string::npos) << js[1].evidence;
  EXPECT_NE(js[2].evidence.find("failed its correctness check"), std::string::npos) << js[2].evidence;
  EXPECT_NE(js[3].evidence.find("no result at shape 4x32x1024x128"), std::string::npos) << js[3].evidence;
  EXPECT_NE(js[4].evidence.find("no static evidence"), std::string::npos) << js[4].evidence;
}

TEST(Claims, OtherPhaseFailedAtTheShapeIsNotTested) {
  Lab lab;
  lab.add(synth_record("1", kT1, {{"throughput", {}}, {"latency", spread(10e3, 1e3)}}));
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 1e3), kFasterThan1)));
  EXPECT_EQ(js[0].verdict, Verdict::kNotTested);
  EXPECT_NE(js[0].evidence.find("failed its correctness check"), std::string::npos) << js[0].evidence;
}

TEST(Claims, UnavailableMetricGroupsSayWhy) {
  Lab lab;
  auto rec = phase4(spread(100e3, 1e3), constant(claim("dram", "/metrics/memory/values/dram__bytes_read.sum/value", "throughput", "<"), 1e9));
  rec["results"][0]["metrics"] = {{"memory", {{"available", false}, {"reason", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"}}}};
  const auto js = lab.judge(lab.add(rec));
  EXPECT_EQ(js[0].verdict, Verdict::kNotTested);
  EXPECT_NE(js[0].evidence.find("memory unavailable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos)
      << js[0].evidence;
}

TEST(Claims, PointValuesCompareExactly) {
  Lab lab;
  auto rec = phase4(spread(100e3, 1e3), constant(claim("no-local", "/static/sass/LDL", "throughput", "=="), 0));
  rec["claims"].push_back(constant(claim("tensor-pipe", "/metrics/tensor/values/pipe/value", "throughput", ">"), 50));
  rec["claims"].push_back(constant(claim("no-stl", "/static/sass/STL", "throughput", "=="), 0));
  sass::SassEvidence sass;
  sass.available = true;
  sass.total.stl = 3;
  rec["results"][0]["static"] = {{"sass", to_json(sass)}};
  GroupResult tensor;
  tensor.group = "tensor";
  tensor.available = true;
  tensor.values = {{"pipe", "%", 62.5}};
  rec["results"][0]["metrics"] = {{"tensor", to_json(tensor)}};
  const auto js = lab.judge(lab.add(rec));
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
  EXPECT_EQ(js[1].verdict, Verdict::kSupported) << js[1].evidence;
  EXPECT_NE(js[1].evidence.find("62.50 %"), std::string::npos) << js[1].evidence;
  EXPECT_EQ(js[2].verdict, Verdict::kRefuted) << js[2].evidence;
}

TEST(Claims, WithinPercentNeedsTheWholeIntervalInsideTheBand) {
  // Throughput shape: 274.9 GFLOP. 100 us -> 2748.8 TFLOPS, +/-1% spread.
  const auto samples = spread(100e3, 1e3);
  const double tflops = parse_shape("throughput").flops() / 100e3 / 1e3;
  Lab lab;
  auto rec = phase4(samples, constant(claim("near", "/tflops", "throughput", "within_pct"), tflops * 1.12, 10));
  rec["claims"].push_back(constant(claim("far", "/tflops", "throughput", "within_pct"), tflops * 1.5, 10));
  rec["claims"].push_back(constant(claim("inside", "/tflops", "throughput", "within_pct"), tflops * 1.03, 10));
  const auto js = lab.judge(lab.add(rec));
  // 1.12 x with a 10% band reaches down to 1.008 x, inside the samples' spread: the interval
  // straddles the band's edge, a difference within the noise.
  EXPECT_EQ(js[0].verdict, Verdict::kInconclusive) << js[0].evidence;
  EXPECT_EQ(js[1].verdict, Verdict::kRefuted) << js[1].evidence;
  EXPECT_EQ(js[2].verdict, Verdict::kSupported) << js[2].evidence;
}

TEST(Claims, ThroughputSpreadComesFromTheHeadlineSamples) {
  const auto samples = spread(100e3, 5e3);
  const double tflops = parse_shape("throughput").flops() / 100e3 / 1e3;
  Lab lab;
  // Inside the spread of the TFLOPS (mapped from p10/p90): within noise, so not "greater".
  auto rec = phase4(samples, constant(claim("gt-inside", "/tflops", "throughput", ">"), tflops * 0.99));
  rec["claims"].push_back(constant(claim("gt-below", "/tflops", "throughput", ">"), tflops * 0.9));
  const auto js = lab.judge(lab.add(rec));
  EXPECT_EQ(js[0].verdict, Verdict::kInconclusive) << js[0].evidence;
  EXPECT_NE(js[0].evidence.find("within noise"), std::string::npos) << js[0].evidence;
  EXPECT_EQ(js[1].verdict, Verdict::kSupported) << js[1].evidence;
  const report::Run r = load_run(lab.runs.back());
  const Lookup l = measure_metric(r.results[0], "/tflops");
  ASSERT_TRUE(l.measure);
  EXPECT_LT(l.measure->lo, l.measure->value);
  EXPECT_GT(l.measure->hi, l.measure->value);
  EXPECT_EQ(l.measure->unit, "TFLOPS");
}

TEST(Claims, MalformedClaimsNameTheField) {
  Lab lab;
  auto rec = phase4(spread(100e3, 1e3), claim("no-rhs", "/tflops", "throughput", ">"));
  // The record's reader refuses it on loading, naming the file and the field.
  try {
    load_run(lab.add(rec));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("run.json: /claims/0 needs exactly one of /value, /other_phase and /paired_against"),
              std::string::npos) << e.what();
  }
  auto rec2 = phase4(spread(100e3, 1e3), constant(claim("bad-op", "/tflops", "throughput", "!="), 1));
  rec2["started_utc"] = kT1;
  try {
    load_run(lab.add(rec2));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/claims/0/op is \"!=\""), std::string::npos) << e.what();
  }
  // The report reads claims as the record writes them: every claim has its text and factor.
  for (const char* field : {"text", "factor"}) {
    auto c = constant(claim("no-" + std::string(field), "/tflops", "throughput", ">"), 1);
    c.erase(field);
    auto rec3 = phase4(spread(100e3, 1e3), c);
    rec3["started_utc"] = field == std::string("text") ? "2026-11-22T13:00:00Z" : "2026-11-22T14:00:00Z";
    try {
      load_run(lab.add(rec3));
      FAIL() << "expected InputError for a claim without " << field;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("/claims/0/") + field), std::string::npos) << e.what();
    }
  }
}

namespace {
DeviceTime interval(double p10, double p90) {
  DeviceTime t;
  t.basis = TimeBasis::kBusy;
  t.p10_ns = t.wide_p10_ns = p10;
  t.p90_ns = t.wide_p90_ns = p90;
  t.median_ns = (p10 + p90) / 2;
  return t;
}
}  // namespace

TEST(Compare, VerdictsFollowIntervalSeparation) {
  const DeviceTime a = interval(99, 101);
  EXPECT_EQ(compare_times(a, a), Change::kSame);
  // Overlapping, though B's median may be higher: within noise.
  EXPECT_EQ(compare_times(a, interval(100.5, 103)), Change::kSame);
  EXPECT_EQ(compare_times(a, interval(101.5, 104)), Change::kSlower);
  EXPECT_EQ(compare_times(a, interval(90, 98.9)), Change::kFaster);
}

namespace {

// A paired A/B record of `a` against `b` at the throughput shape under <root>/ab, its per-pair
// wall ratios around `ratio` (t_B / t_A) with relative spread `rel`.
void add_ab(const fs::path& root, const std::string& a, const std::string& b, double ratio,
            double rel, const std::string& gpu = "NVIDIA H100 80GB HBM3",
            const std::string& started = kT2, const std::string& uuid = "GPU-test",
            const std::string& run = "20261122T120000Z-abcdef0",
            const std::string& commit = "0123456789abcdef0123456789abcdef01234567") {
  write_ab(root, a, b, {synth_ab_shape("16x16x2048x64", ratio, rel)}, gpu, started, uuid, run, commit);
}

ordered_json paired_claim(double factor) {
  ordered_json c = claim("paired", "/ratio/wall", "throughput", ">=");
  c["paired_against"] = "cudnn";
  c["factor"] = factor;
  return c;
}

}  // namespace

TEST(PairedClaims, TheLowerBoundAtOrAboveTheFactorIsSupported) {
  Lab lab;
  add_ab(lab.dir.path, "4", "cudnn", 1.20, 0.01);
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 2e3), paired_claim(1.10))));
  ASSERT_EQ(js.size(), 1u);
  EXPECT_EQ(js[0].verdict, Verdict::kSupported) << js[0].evidence;
  EXPECT_NE(js[0].evidence.find("t_B / t_A"), std::string::npos) << js[0].evidence;
  EXPECT_NE(js[0].evidence.find("cycles withheld"), std::string::npos) << js[0].evidence;
}

TEST(PairedClaims, AnIntervalBelowTheFactorIsRefutedAndOneAroundItInconclusive) {
  Lab lab;
  add_ab(lab.dir.path, "4", "cudnn", 1.05, 0.01);
  const auto refuted = lab.judge(lab.add(phase4(spread(100e3, 2e3), paired_claim(1.10))));
  EXPECT_EQ(refuted.at(0).verdict, Verdict::kRefuted) << refuted[0].evidence;
  const auto around = lab.judge(lab.add(phase4(spread(100e3, 2e3), paired_claim(1.05), kT1)));
  EXPECT_EQ(around.at(0).verdict, Verdict::kInconclusive) << around[0].evidence;
}

TEST(PairedClaims, AsFastAsIsNonInferiorityAtTheMargin) {
  Lab lab;
  add_ab(lab.dir.path, "4", "cudnn", 0.99, 0.002);  // 1% slower, tight: within the 0.98 margin
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 2e3), paired_claim(paired::kNonInferiorityMargin))));
  EXPECT_EQ(js.at(0).verdict, Verdict::kSupported) << js[0].evidence;
}

// A record's paired claim stays with the A/B record of its own session: a newer A/B record on
// another board (or on its board, days later) does not change its verdict.
TEST(PairedClaims, TheRunsOwnSessionDecidesNotTheNewestRecord) {
  Lab lab;
  add_ab(lab.dir.path, "4", "cudnn", 1.20, 0.01, "NVIDIA H100 80GB HBM3", kT2, "GPU-test",
         "20261122T120000Z-abcdef0");
  add_ab(lab.dir.path, "4", "cudnn", 1.02, 0.01, "NVIDIA H100 80GB HBM3", "2026-11-22T15:00:00Z",
         "GPU-other", "20261122T150000Z-abcdef1");
  add_ab(lab.dir.path, "4", "cudnn", 1.03, 0.01, "NVIDIA H100 80GB HBM3", "2026-11-25T12:00:00Z",
         "GPU-test", "20261125T120000Z-abcdef2");
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 2e3), paired_claim(1.10), kT2)));
  EXPECT_EQ(js.at(0).verdict, Verdict::kSupported) << js[0].evidence;
  EXPECT_NE(js[0].evidence.find("20261122T120000Z-abcdef0 (same GPU and session"), std::string::npos)
      << js[0].evidence;
  // A run in no A/B record's session on its board: the newest there, said so.
  const auto later = lab.judge(lab.add(phase4(spread(100e3, 2e3), paired_claim(1.10), "2026-11-27T12:00:00Z")));
  EXPECT_EQ(later.at(0).verdict, Verdict::kRefuted) << later[0].evidence;
  EXPECT_NE(later[0].evidence.find("20261125T120000Z-abcdef2 (same GPU, another session"), std::string::npos)
      << later[0].evidence;
}

// A claim judged by an A/B record of another commit (or board) says so: that ratio timed other
// kernels than the record's.
TEST(PairedClaims, AClaimJudgedByAnotherCommitsAbSaysSo) {
  Lab lab;
  add_ab(lab.dir.path, "4", "cudnn", 1.20, 0.01);  // the synthetic records' commit and board
  const auto same = lab.judge(lab.add(phase4(spread(100e3, 2e3), paired_claim(1.10))));
  EXPECT_EQ(same.at(0).evidence.find("another commit"), std::string::npos) << same[0].evidence;
  Lab other;
  add_ab(other.dir.path, "4", "cudnn", 1.20, 0.01, "NVIDIA H100 80GB HBM3", kT2, "GPU-test",
         "20261122T120000Z-fedcba9", "fedcba9876543210fedcba9876543210fedcba98");
  const auto js = other.judge(other.add(phase4(spread(100e3, 2e3), paired_claim(1.10))));
  EXPECT_NE(js.at(0).evidence.find("judged by another commit's or board's A/B: it timed commit fedcba9, not this "
                                   "record's 0123456;"),
            std::string::npos)
      << js[0].evidence;
}

TEST(PairedClaims, WithoutAPairedRecordTheClaimIsNotTested) {
  Lab lab;
  add_ab(lab.dir.path, "4", "cudnn", 1.2, 0.01, "NVIDIA A100-SXM4-80GB");  // another GPU model
  add_ab(lab.dir.path, "5", "cudnn", 1.2, 0.01);                           // another phase
  // An unpaired cuDNN record does not stand in for the paired one.
  lab.add(synth_record("cudnn", kT1, {{"throughput", spread(200e3, 2e3)}}));
  const auto js = lab.judge(lab.add(phase4(spread(100e3, 2e3), paired_claim(1.10))));
  EXPECT_EQ(js.at(0).verdict, Verdict::kNotTested) << js[0].evidence;
  EXPECT_NE(js[0].evidence.find("make ab A=4 B=cudnn"), std::string::npos) << js[0].evidence;
}
