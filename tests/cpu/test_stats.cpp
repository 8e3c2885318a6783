// Statistics and the stopping rule behind every reported timing.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "profiler/gpu_monitor.hpp"
#include "common/stats.hpp"

using namespace attnlab::stats;

TEST(Stats, PercentileInterpolatesBetweenRanks) {
  const std::vector<double> x = {40, 10, 30, 20};  // sorted: 10 20 30 40
  EXPECT_DOUBLE_EQ(percentile(x, 0.0), 10);
  EXPECT_DOUBLE_EQ(percentile(x, 1.0), 40);
  EXPECT_DOUBLE_EQ(percentile(x, 0.5), 25);
  EXPECT_DOUBLE_EQ(percentile(x, 0.1), 13);  // position 0.3 between 10 and 20
}

TEST(Stats, RejectsEmptyAndBadRank) {
  EXPECT_THROW(percentile({}, 0.5), std::invalid_argument);
  EXPECT_THROW(percentile({1.0}, 1.5), std::invalid_argument);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(Stats, SummaryOfKnownSample) {
  const auto s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_NEAR(s.stdev, 2.138089935, 1e-9);  // sample (n-1) standard deviation
  EXPECT_NEAR(s.noise_pct, 100 * 2.138089935 / 5, 1e-7);
}

TEST(Stats, SingleSampleHasNoNoise) {
  const auto s = summarize({3.5});
  EXPECT_DOUBLE_EQ(s.median, 3.5);
  EXPECT_DOUBLE_EQ(s.p10, 3.5);
  EXPECT_DOUBLE_EQ(s.stdev, 0);
}

TEST(StoppingRule, NeedsMinimumSamplesBeforeConverging) {
  StoppingRule r;
  r.min_samples = 5;
  const std::vector<double> flat(4, 100.0);
  EXPECT_EQ(should_stop(r, flat, 0.01), StopReason::kContinue);
  EXPECT_EQ(should_stop(r, std::vector<double>(5, 100.0), 0.01), StopReason::kConverged);
}

TEST(StoppingRule, NoisySamplesContinueUntilTimeCap) {
  StoppingRule r;
  r.min_samples = 4;
  r.max_seconds = 1.0;
  const std::vector<double> noisy = {100, 120, 90, 130, 80};
  EXPECT_EQ(should_stop(r, noisy, 0.5), StopReason::kContinue);
  EXPECT_EQ(should_stop(r, noisy, 1.0), StopReason::kTimeCap);
}

TEST(StoppingRule, MinimumSamplesHoldPastCapButNotForever) {
  StoppingRule r;
  r.min_samples = 10;
  r.max_seconds = 1.0;
  const std::vector<double> few = {100, 101, 99};
  EXPECT_EQ(should_stop(r, few, 1.5), StopReason::kContinue);
  EXPECT_EQ(should_stop(r, few, 2.0), StopReason::kTimeCap);
}

TEST(StoppingRule, MaxSamplesEndsSampling) {
  StoppingRule r;
  r.min_samples = 2;
  r.max_samples = 3;
  EXPECT_EQ(should_stop(r, {1, 50, 100}, 0.0), StopReason::kMaxSamples);
}

TEST(Stats, UnionLengthCountsOverlapOnceAndSkipsGaps) {
  EXPECT_DOUBLE_EQ(union_length({}), 0.0);
  EXPECT_DOUBLE_EQ(union_length({{10, 20}}), 10.0);
  // Back-to-back kernels with a gap of 5 between them: span 25, busy 20.
  EXPECT_DOUBLE_EQ(union_length({{0, 10}, {15, 25}}), 20.0);
  // Concurrent kernels on two streams, given out of order: [0, 12) and [5, 30) cover 30.
  EXPECT_DOUBLE_EQ(union_length({{5, 30}, {0, 12}}), 30.0);
  // One kernel inside another adds nothing; an empty or reversed interval adds nothing.
  EXPECT_DOUBLE_EQ(union_length({{0, 100}, {10, 20}, {50, 50}, {70, 60}}), 100.0);
  // A gap after a nested interval is still found: [0,100) [10,20) then [150, 160).
  EXPECT_DOUBLE_EQ(union_length({{0, 100}, {10, 20}, {150, 160}}), 110.0);
}

TEST(Stats, LaunchTimeKeepsNanosecondsOfAbsoluteTimestamps) {
  // CUPTI timestamps are nanoseconds since 1970; as doubles they round to multiples of 256.
  constexpr std::uint64_t t0 = 1'800'000'000'000'000'123ull;
  const LaunchTime one = launch_time({{t0, t0 + 1001}});
  EXPECT_EQ(one.span_ns, 1001.0);
  EXPECT_EQ(one.busy_ns, 1001.0);
  // Two kernels with a 49 ns gap, given in reverse order.
  const LaunchTime two = launch_time({{t0 + 150, t0 + 1151}, {t0 + 1, t0 + 101}});
  EXPECT_EQ(two.span_ns, 1150.0);
  EXPECT_EQ(two.busy_ns, 1101.0);
  EXPECT_THROW(launch_time({}), std::invalid_argument);
}

// NVML readings (profiler/gpu_monitor.hpp): which count as throttled, and which sample windows
// a throttled reading touches.
TEST(GpuMonitor, ThrottledMeansSlowdownOrABusyClockBelowThreeQuarters) {
  using namespace attnlab::profiler;
  GpuReading r;
  r.sm_clock_mhz = 1900;
  r.reasons = clock_event::kSwPowerCap;  // a busy GPU at its power limit: normal, kept
  EXPECT_FALSE(is_throttled(r, 1980));
  r.reasons = clock_event::kHwSlowdown;
  EXPECT_TRUE(is_throttled(r, 1980));
  r.reasons = clock_event::kSwThermalSlowdown;
  EXPECT_TRUE(is_throttled(r, 1980));
  r.reasons = 0;
  r.sm_clock_mhz = 1400;  // below 0.75 x 1980 = 1485 while busy
  EXPECT_TRUE(is_throttled(r, 1980));
  r.reasons = clock_event::kGpuIdle;  // an idle GPU parks its clock: not a throttled sample
  r.sm_clock_mhz = 345;
  EXPECT_FALSE(is_throttled(r, 1980));
}

TEST(GpuMonitor, WindowsNextToAThrottledReadingAreFlagged) {
  using namespace attnlab::profiler;
  const std::uint64_t ms = 1000000;
  std::vector<GpuReading> readings(4);
  for (std::size_t i = 0; i < readings.size(); ++i) {
    readings[i].t_ns = 10 * ms + 2 * ms * i;  // 10, 12, 14, 16 ms
    readings[i].sm_clock_mhz = 1980;
  }
  readings[1].reasons = clock_event::kHwThermalSlowdown;  // at 12 ms
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> windows = {
      {10 * ms, 10 * ms + 5000},   // 2 ms before the bad reading: within the slack
      {12 * ms - 100, 12 * ms + 100},  // around it
      {14 * ms + 100, 14 * ms + 200},  // just over 2 ms after it
      {20 * ms, 20 * ms + 10}};
  const auto bad = throttled_windows(windows, readings, 1980, 2 * ms);
  EXPECT_EQ(bad, (std::vector<bool>{true, true, false, false}));
  readings[1].reasons = 0;
  const auto none = throttled_windows(windows, readings, 1980, 2 * ms);
  EXPECT_EQ(none, (std::vector<bool>(4, false)));
}

TEST(Stats, MedianTakesTheMiddleOrTheMeanOfTheMiddleTwo) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({-1}), -1);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(Stats, BootstrapMedianIsReproducibleAndBracketsTheMedian) {
  std::vector<double> x;
  for (int i = 0; i < 101; ++i) x.push_back(double((i * 37) % 101));  // 0..100, shuffled
  const Bootstrap b{2000, 5, 0.9};
  const auto ci = bootstrap_median({x}, b), again = bootstrap_median({x}, b);
  EXPECT_EQ(ci.lo, again.lo);
  EXPECT_EQ(ci.hi, again.hi);
  EXPECT_LT(ci.lo, 50);
  EXPECT_GT(ci.hi, 50);
  EXPECT_GT(ci.lo, 30);  // the median of 101 values moves by a few ranks, not by a third
  EXPECT_LT(ci.hi, 70);
  // A constant sample has no spread to resample.
  const auto flat = bootstrap_median({std::vector<double>(20, -3.0)}, b);
  EXPECT_EQ(flat.lo, -3.0);
  EXPECT_EQ(flat.hi, -3.0);
}

// Seven blocks, each a tight cluster of its own, 10 apart: resampling blocks moves the median
// from cluster to cluster, where one pooled block of the same values keeps it in the middle one.
TEST(Stats, BootstrapMedianOfBlocksSeesTheSpreadBetweenThem) {
  std::vector<std::vector<double>> blocks(7);
  std::vector<double> pooled;
  for (int j = 0; j < 7; ++j)
    for (int i = 0; i < 60; ++i) blocks[std::size_t(j)].push_back(10.0 * j + 0.005 * i);
  for (const auto& blk : blocks) pooled.insert(pooled.end(), blk.begin(), blk.end());
  const Bootstrap b{2000, 7, 0.95};
  const auto h = bootstrap_median(blocks, b), flat = bootstrap_median({pooled}, b);
  EXPECT_GE(flat.lo, 30.0);  // within the middle cluster, [30, 30.295]
  EXPECT_LE(flat.hi, 30.3);
  EXPECT_GT(h.hi - h.lo, 10 * (flat.hi - flat.lo));
}

TEST(Stats, BootstrapMedianRefusesTooLittleOrBadInput) {
  const Bootstrap b{1000, 1, 0.95};
  EXPECT_THROW(bootstrap_median({}, b), std::invalid_argument);
  EXPECT_THROW(bootstrap_median({{1.0, 2.0}, {}}, b), std::invalid_argument);
  EXPECT_THROW(bootstrap_median({{1.0}}, b), std::invalid_argument);
  EXPECT_THROW(bootstrap_median({{1.0, NAN}}, b), std::invalid_argument);
  EXPECT_THROW(bootstrap_median({{1.0, 2.0}}, Bootstrap{10, 1, 0.95}), std::invalid_argument);
  EXPECT_THROW(bootstrap_median({{1.0, 2.0}}, Bootstrap{1000, 1, 1.0}), std::invalid_argument);
}
