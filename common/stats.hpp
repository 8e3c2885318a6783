// Summary statistics of timing samples, the bootstrap interval of a median, and the stopping
// rule that decides when a regime has enough samples. Host-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace attnlab::stats {

struct Summary {
  std::size_t count = 0;
  double median = 0;  // same unit as the samples
  double mean = 0;
  double min = 0;
  double max = 0;
  double p10 = 0;
  double p90 = 0;
  double stdev = 0;      // sample standard deviation (n - 1)
  double noise_pct = 0;  // relative noise: 100 * stdev / mean, as nvbench reports it
};

// Percentile by linear interpolation between closest ranks (q in [0, 1]); samples need not
// be sorted. Throws std::invalid_argument on an empty sample or q outside [0, 1].
double percentile(std::vector<double> samples, double q);

// The middle value, or the mean of the middle two for an even count: exact where
// percentile(v, 0.5) interpolates (a + 0.5 * (b - a) rounds differently from (a + b) / 2).
// Throws std::invalid_argument on an empty sample.
double median(std::vector<double> v);

// Throws std::invalid_argument on an empty sample.
Summary summarize(const std::vector<double>& samples);

// Total length of the union of [start, end) intervals: for the kernels of one launch, the
// time at least one of them was running (their span minus the idle gaps between them;
// overlapping kernels on several streams count once). Empty or reversed intervals add nothing.
double union_length(std::vector<std::pair<double, double>> intervals);

// One launch's device time from its kernels' [start, end) timestamps [ns] (CUPTI's clock, ~1.8e18
// since 1970): the span from the first start to the last end, and the busy time (union_length).
// Computed in integers relative to the first start: a double holds those absolute timestamps
// only to a multiple of 256 ns. Throws std::invalid_argument when `kernels` is empty.
struct LaunchTime {
  double span_ns = 0;
  double busy_ns = 0;
};
LaunchTime launch_time(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& kernels);

// A percentile bootstrap: how many resamples, the generator's seed and the interval's
// confidence.
struct Bootstrap {
  int resamples = 10000;
  std::uint64_t seed = 0;
  double confidence = 0.95;
};

struct Interval {
  double lo = 0, hi = 0;
};

// The percentile-bootstrap interval of the median of every block's values pooled, drawn
// hierarchically: each of `b.resamples` resamples draws as many blocks as there are, with
// replacement, then within each drawn block as many of its values as it has, with replacement;
// the interval is the (1-c)/2 and (1+c)/2 percentiles of the resamples' medians. A shift that
// holds for a whole block so widens the interval, which a bootstrap of the pooled values would
// not see. Indices come from std::mt19937_64(seed) by multiply-high (no implementation-defined
// distribution, so a seed names one interval on every platform); one block draws no block
// index, so it is exactly the bootstrap of its values. Throws std::invalid_argument on no
// block, an empty block, fewer than 2 values in all, a value not finite, fewer than 100
// resamples or a confidence outside (0, 1).
Interval bootstrap_median(const std::vector<std::vector<double>>& blocks, const Bootstrap& b);

// "As fast as" is non-inferiority: the paired interval's lower bound at least this, so a kernel
// up to 2% slower within the noise still counts, and "the intervals overlap" never does.
// record/constants.json ("paired") carries the same value; tests/cpu/test_constants.cpp keeps
// the two equal.
inline constexpr double kNonInferiorityMargin = 0.98;

// When to stop sampling a regime: enough samples and relative noise under the target, or the
// sample or wall-time budget spent.
struct StoppingRule {
  std::size_t min_samples = 10;
  std::size_t max_samples = 1000;
  double noise_target_pct = 0.5;  // [%] nvbench's default
  double max_seconds = 2.0;       // [s] wall time budget per regime and shape
};

enum class StopReason { kContinue, kConverged, kMaxSamples, kTimeCap };
const char* stop_reason_name(StopReason r);

StopReason should_stop(const StoppingRule& rule, const std::vector<double>& samples,
                       double elapsed_seconds);

}  // namespace attnlab::stats
