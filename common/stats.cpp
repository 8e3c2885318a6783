// Summary statistics, the bootstrap of a median and the stopping rule for timing samples.
#include "common/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace attnlab::stats {

double percentile(std::vector<double> samples, double q) {
  if (samples.empty()) throw std::invalid_argument("percentile of an empty sample");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("percentile rank outside [0, 1]");
  std::sort(samples.begin(), samples.end());
  const double pos = q * double(samples.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, samples.size() - 1);
  const double frac = pos - double(lo);
  return samples[lo] + frac * (samples[hi] - samples[lo]);
}

double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of no values");
  const std::size_t n = v.size(), mid = n / 2;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
  if (n % 2) return v[mid];
  const double upper = v[mid];
  return (*std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid)) + upper) / 2;
}

namespace {

// An index in [0, n) from one draw, by multiply-high.
std::size_t draw_index(std::mt19937_64& rng, std::size_t n) {
  return std::size_t((static_cast<unsigned __int128>(rng()) * std::uint64_t(n)) >> 64);
}

}  // namespace

Interval bootstrap_median(const std::vector<std::vector<double>>& blocks, const Bootstrap& b) {
  if (blocks.empty()) throw std::invalid_argument("a bootstrap needs at least one block");
  std::size_t values = 0;
  for (const auto& block : blocks) {
    if (block.empty()) throw std::invalid_argument("a bootstrap's block has no values");
    for (double x : block)
      if (!std::isfinite(x)) throw std::invalid_argument("a bootstrap's values must be finite");
    values += block.size();
  }
  if (values < 2) throw std::invalid_argument("a bootstrap needs at least 2 values");
  if (b.resamples < 100 || !(b.confidence > 0 && b.confidence < 1))
    throw std::invalid_argument("bootstrap needs >= 100 resamples and a confidence in (0, 1)");
  std::mt19937_64 rng(b.seed);
  std::vector<double> medians, draw;
  medians.reserve(std::size_t(b.resamples));
  for (int k = 0; k < b.resamples; ++k) {
    draw.clear();
    for (std::size_t j = 0; j < blocks.size(); ++j) {
      const auto& block = blocks.size() == 1 ? blocks[0] : blocks[draw_index(rng, blocks.size())];
      for (std::size_t i = 0; i < block.size(); ++i) draw.push_back(block[draw_index(rng, block.size())]);
    }
    medians.push_back(median(draw));
  }
  std::sort(medians.begin(), medians.end());
  return {percentile(medians, (1 - b.confidence) / 2), percentile(medians, (1 + b.confidence) / 2)};
}

double union_length(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0;
  double covered_to = -std::numeric_limits<double>::infinity();
  for (const auto& [start, end] : intervals) {
    const double from = std::max(start, covered_to);
    if (end > from) {
      total += end - from;
      covered_to = end;
    }
  }
  return total;
}

LaunchTime launch_time(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& kernels) {
  if (kernels.empty()) throw std::invalid_argument("launch time of a launch without kernels");
  std::uint64_t first = kernels.front().first, last = kernels.front().second;
  for (const auto& [start, end] : kernels) {
    first = std::min(first, start);
    last = std::max(last, end);
  }
  std::vector<std::pair<double, double>> relative;
  relative.reserve(kernels.size());
  for (const auto& [start, end] : kernels)
    relative.emplace_back(double(start - first), double(end - first));
  return {double(last - first), union_length(std::move(relative))};
}

Summary summarize(const std::vector<double>& samples) {
  if (samples.empty()) throw std::invalid_argument("summary of an empty sample");
  Summary s;
  s.count = samples.size();
  s.median = percentile(samples, 0.5);
  s.p10 = percentile(samples, 0.1);
  s.p90 = percentile(samples, 0.9);
  const auto [mn, mx] = std::minmax_element(samples.begin(), samples.end());
  s.min = *mn;
  s.max = *mx;
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(s.count);
  if (s.count > 1) {
    double ss = 0;
    for (double x : samples) ss += (x - s.mean) * (x - s.mean);
    s.stdev = std::sqrt(ss / double(s.count - 1));
  }
  s.noise_pct = s.mean != 0 ? 100.0 * s.stdev / s.mean : 0.0;
  return s;
}

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::kContinue: return "continue";
    case StopReason::kConverged: return "converged";
    case StopReason::kMaxSamples: return "max_samples";
    case StopReason::kTimeCap: return "time_cap";
  }
  return "unknown";
}

StopReason should_stop(const StoppingRule& rule, const std::vector<double>& samples,
                       double elapsed_seconds) {
  if (samples.size() >= rule.max_samples) return StopReason::kMaxSamples;
  // The minimum count wins over the time cap only until the cap is spent twice over, so one
  // very slow kernel cannot hold the run forever.
  if (elapsed_seconds >= rule.max_seconds &&
      (samples.size() >= rule.min_samples || elapsed_seconds >= 2 * rule.max_seconds))
    return StopReason::kTimeCap;
  if (samples.size() >= rule.min_samples && summarize(samples).noise_pct < rule.noise_target_pct)
    return StopReason::kConverged;
  return StopReason::kContinue;
}

}  // namespace attnlab::stats
