// record/constants.json carries the constants that the C++ experiments and
// experiments/baselines/sdpa_baseline.py share; the C++ headers are their source. Any difference fails
// here, so the Python baseline cannot drift from the harness it is compared with.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "common/shapes.hpp"
#include "experiments/harness/reference.hpp"
#include "profiler/metric_groups.hpp"
#include "profiler/sampler.hpp"
#include "common/stats.hpp"
#include "record/constants.hpp"
#include "record/paired.hpp"
#include "record/record.hpp"
#include "record/timeline.hpp"

using namespace attnlab;

namespace {

ordered_json constants() {
  const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/record/constants.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return ordered_json::parse(in);
}

}  // namespace

TEST(SharedConstants, SchemaNames) {
  const auto c = constants();
  EXPECT_EQ(c["schema"], "attnlab.constants/1");
  EXPECT_EQ(c["run_schema"], kRunSchema);
}

TEST(SharedConstants, PresetsAreTheShapeTable) {
  const auto c = constants();
  std::size_t n = 0;
  for (const auto& p : shape_presets()) {
    ASSERT_TRUE(c["presets"].contains(p.name)) << p.name;
    const auto& v = c["presets"][p.name];
    EXPECT_EQ(v, ordered_json({p.shape.B, p.shape.H, p.shape.S, p.shape.D})) << p.name;
    // Presets are plain multi-head, non-causal shapes; the four numbers say all of them.
    EXPECT_EQ(p.shape.H_kv, p.shape.H) << p.name;
    EXPECT_FALSE(p.shape.causal) << p.name;
    ++n;
  }
  EXPECT_EQ(c["presets"].size(), n + 1);  // + "source"
}

TEST(SharedConstants, TimelineOverheadLimit) {
  EXPECT_EQ(constants()["timeline_overhead_limit"]["value"].get<double>(), kTimelineOverheadLimit);
}

TEST(SharedConstants, RegimesAndStopReasons) {
  const auto c = constants();
  using profiler::Regime;
  EXPECT_EQ(c["regimes"], ordered_json({profiler::regime_name(Regime::kCold),
                                        profiler::regime_name(Regime::kWarm),
                                        profiler::regime_name(Regime::kGraph)}));
  using stats::StopReason;
  EXPECT_EQ(c["stop_reasons"], ordered_json({stats::stop_reason_name(StopReason::kConverged),
                                             stats::stop_reason_name(StopReason::kMaxSamples),
                                             stats::stop_reason_name(StopReason::kTimeCap)}));
}

TEST(SharedConstants, StoppingRuleDefaults) {
  const auto r = constants()["stopping_rule"];
  const stats::StoppingRule d;
  EXPECT_EQ(r["min_samples"].get<std::size_t>(), d.min_samples);
  EXPECT_EQ(r["max_samples"].get<std::size_t>(), d.max_samples);
  EXPECT_EQ(r["noise_target_pct"].get<double>(), d.noise_target_pct);
  EXPECT_EQ(r["max_seconds"].get<double>(), d.max_seconds);
}

TEST(SharedConstants, CorrectnessTolerances) {
  const auto r = constants()["correctness"];
  EXPECT_EQ(r["err_factor"].get<double>(), kErrFactor);
  EXPECT_EQ(r["rule"].get<std::string>(), kRowRmsRule);  // reference.hpp's rule, per row
  EXPECT_EQ(r["rel_floor"].get<double>(), kRelFloor);
  EXPECT_EQ(r["sampled_rows"].get<int>(), kSampledRows);
  EXPECT_EQ(r["all_rows_budget"].get<double>(), kAllRowsBudget);
}

TEST(SharedConstants, SamplerBatching) {
  const auto r = constants()["sampler"];
  namespace s = profiler::sampling;
  EXPECT_EQ(r["min_warmup_launches"].get<int>(), s::kMinWarmupLaunches);
  EXPECT_EQ(r["warmup_seconds"].get<double>(), s::kWarmupSeconds);
  EXPECT_EQ(r["batch_seconds"].get<double>(), s::kBatchSeconds);
  EXPECT_EQ(r["max_batch"].get<int>(), s::kMaxBatch);
  EXPECT_EQ(r["graph_work_ns"].get<double>(), s::kGraphWorkNs);
  EXPECT_EQ(r["max_graph_launches"].get<int>(), s::kMaxGraphLaunches);
  EXPECT_EQ(r["spin_lead_ns"].get<std::uint64_t>(), s::kSpinLeadNs);
}

TEST(SharedConstants, GpuMonitorRules) {
  const auto m = constants()["gpu_monitor"];
  EXPECT_EQ(m["poll_ms"].get<double>() * 1000.0, profiler::sampling::kGpuPollMicroseconds);
  EXPECT_EQ(m["throttled_below_max_clock"].get<double>(), profiler::kThrottledBelowMaxClock);
  const auto& names = profiler::clock_event::names();
  ASSERT_EQ(m["clock_events"].size(), names.size());
  std::uint64_t slowdown = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string bit = m["clock_events"][i][0].get<std::string>();
    EXPECT_EQ(std::stoull(bit, nullptr, 16), names[i].first) << bit;
    EXPECT_EQ(m["clock_events"][i][1].get<std::string>(), names[i].second);
    for (const auto& s : m["slowdown_events"])
      if (s.get<std::string>() == names[i].second) slowdown |= names[i].first;
  }
  EXPECT_EQ(slowdown, profiler::clock_event::kSlowdown);
  EXPECT_EQ(m["slowdown_events"].size(), 4u);
}

TEST(SharedConstants, CompiledInCopyIsTheFile) {
  EXPECT_EQ(shared_constants(), constants());
}

TEST(SharedConstants, MetricVocabularyIsTheProfilers) {
  const MetricVocabulary& v = metric_vocabulary();
  std::vector<std::string> groups;
  for (const auto& g : profiler::metric_groups()) groups.push_back(g.name);
  EXPECT_EQ(v.groups, groups);
  EXPECT_EQ(v.stall_reasons, profiler::gh100_stall_reasons());
  // The stalls group's metrics are exactly prefix + reason + suffix, in the canonical order.
  const profiler::MetricGroup* stalls = profiler::find_metric_group("stalls");
  ASSERT_NE(stalls, nullptr);
  std::vector<std::string> names;
  for (const auto& m : stalls->metrics) names.push_back(m.name);
  std::vector<std::string> want;
  for (const auto& r : v.stall_reasons) want.push_back(v.stall_prefix + r + v.stall_suffix);
  EXPECT_EQ(names, want);
}

TEST(SharedConstants, PairedComparison) {
  const auto p = constants()["paired"];
  EXPECT_EQ(p["non_inferiority_margin"].get<double>(), paired::kNonInferiorityMargin);
  EXPECT_EQ(p["bootstrap_resamples"].get<int>(), paired::kBootstrapResamples);
  EXPECT_EQ(p["bootstrap_seed"].get<std::uint64_t>(), paired::kBootstrapSeed);
  EXPECT_EQ(p["confidence"].get<double>(), paired::kConfidence);
  EXPECT_EQ(p["blocks"].get<int>(), paired::kDefaultBlocks);
}

TEST(SharedConstants, ShapeSetsAreCommonShapes) {
  const auto c = constants()["shape_sets"];
  std::size_t n = 0;
  for (const auto& s : shape_sets()) {
    ASSERT_TRUE(c.contains(s.name)) << s.name;
    EXPECT_EQ(c[s.name], ordered_json(s.specs)) << s.name;
    ++n;
  }
  EXPECT_EQ(c.size(), n + 1);  // + "source"
}
