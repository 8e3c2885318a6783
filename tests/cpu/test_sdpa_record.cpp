// The SDPA baseline (experiments/sdpa_baseline.py) writes records the C++ tools read: its
// record builder, run on synthetic numbers, must satisfy the schema's required keys.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <cmath>
#include <fstream>
#include <random>

#include "profiler/stats.hpp"
#include "record/record.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

TEST(SdpaBaseline, ExampleRecordHasEveryRequiredKey) {
  if (std::system("python3 -c '' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const fs::path out = fs::temp_directory_path() /
                       ("attnlab-sdpa-example-" + std::to_string(::getpid()) + ".json");
  const std::string cmd = std::string("python3 '") + ATTNLAB_SDPA_SCRIPT +
                          "' --write-example-record '" + out.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  const auto record = ordered_json::parse(in);
  fs::remove(out);
  EXPECT_EQ(record_problems(record), std::vector<std::string>{});
  EXPECT_EQ(record["phase"], "sdpa-cudnn");
  ASSERT_EQ(record["results"].size(), 2u);
  EXPECT_EQ(record["results"][0]["timing"]["cold"]["samples_ns"].size(), 3u);
  EXPECT_EQ(record["results"][1]["available"], false);  // an unavailable shape has no timing
  EXPECT_TRUE(record["results"][1]["timing"].is_null());
}

// The baseline computes its statistics and stopping rule in Python (it runs beside torch, not
// linked to the harness): on the same random samples they must agree with profiler/stats.cpp,
// so a change to one without the other fails here.
TEST(SdpaBaseline, StatisticsAndStoppingRuleMatchTheHarness) {
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
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("b", sys.argv[1])
b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)
cases = json.load(open(sys.argv[2]))
rules = [dict(min_samples=m, max_samples=x, noise_target_pct=t, max_seconds=s)
         for m, x, t, s in [(2, 1000, 50.0, 10.0), (10, 11, 0.5, 10.0), (10, 1000, 0.5, 0.0), (300, 1000, 0.5, 10.0)]]
out = []
for xs in cases:
    s = b.summarize(xs)
    s["p25"] = b.percentile(xs, 0.25)
    s["union"] = b.union_length([(x, x + 3 * x) for x in xs])
    s["stops"] = [b.should_stop(r, xs, e) or "continue" for r in rules for e in (0.0, 1.0, 25.0)]
    out.append(s)
json.dump(out, open(sys.argv[3], "w"))
)";
  std::ofstream(dir / "check.py") << script;
  const std::string cmd = "python3 '" + (dir / "check.py").string() + "' '" + ATTNLAB_SDPA_SCRIPT +
                          "' '" + (dir / "in.json").string() + "' '" + (dir / "out.json").string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(dir / "out.json");
  const auto py = ordered_json::parse(in);
  fs::remove_all(dir);
  const std::vector<profiler::StoppingRule> rules = {
      {2, 1000, 50.0, 10.0}, {10, 11, 0.5, 10.0}, {10, 1000, 0.5, 0.0}, {300, 1000, 0.5, 10.0}};
  ASSERT_EQ(py.size(), samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto& xs = samples[i];
    const auto s = profiler::summarize(xs);
    const auto& p = py[i];
    SCOPED_TRACE("n = " + std::to_string(xs.size()));
    EXPECT_EQ(p["count"].get<std::size_t>(), s.count);
    for (const auto& [key, want] : std::vector<std::pair<std::string, double>>{
             {"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"min", s.min}, {"max", s.max},
             {"mean", s.mean}, {"stdev", s.stdev}, {"noise_pct", s.noise_pct},
             {"p25", profiler::percentile(xs, 0.25)}})
      EXPECT_NEAR(p[key].get<double>(), want, 1e-9 * (1 + std::abs(want))) << key;
    std::vector<std::pair<double, double>> iv;
    for (double x : xs) iv.emplace_back(x, x + 3 * x);
    const double u = profiler::union_length(iv);
    EXPECT_NEAR(p["union"].get<double>(), u, 1e-9 * u);
    std::size_t k = 0;
    for (const auto& r : rules)
      for (double e : {0.0, 1.0, 25.0}) {
        const auto reason = profiler::should_stop(r, xs, e);
        const std::string want = reason == profiler::StopReason::kContinue ? "continue"
                                                                           : profiler::stop_reason_name(reason);
        EXPECT_EQ(p["stops"][k++].get<std::string>(), want) << "rule " << (&r - rules.data()) << " at " << e << " s";
      }
  }
}
