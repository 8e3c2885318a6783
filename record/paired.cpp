#include "record/paired.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "common/stats.hpp"

namespace attnlab::paired {

const char* order_name(Order o) { return o == Order::kABBA ? "ABBA" : "BAAB"; }

Order parse_order(const std::string& name) {
  if (name == "ABBA") return Order::kABBA;
  if (name == "BAAB") return Order::kBAAB;
  throw std::invalid_argument("unknown sample order '" + name + "'; expected ABBA or BAAB");
}

std::vector<Order> random_orders(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Order> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) out.push_back((rng() >> 63) ? Order::kBAAB : Order::kABBA);
  return out;
}

std::vector<double> ratios(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    throw std::invalid_argument("paired ratios need as many A as B samples (" +
                                std::to_string(a.size()) + " vs " + std::to_string(b.size()) + ")");
  std::vector<double> r;
  r.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] > 0) || !(b[i] > 0))
      throw std::invalid_argument("paired ratios need positive times (pair " + std::to_string(i) + ")");
    r.push_back(b[i] / a[i]);
  }
  return r;
}

std::vector<double> cycles(const std::vector<double>& ns, const std::vector<double>& mhz) {
  if (ns.size() != mhz.size())
    throw std::invalid_argument("cycles need one clock per sample (" + std::to_string(ns.size()) +
                                " times, " + std::to_string(mhz.size()) + " clocks)");
  std::vector<double> c;
  c.reserve(ns.size());
  for (std::size_t i = 0; i < ns.size(); ++i) c.push_back(ns[i] * mhz[i] / 1000.0);
  return c;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kFaster: return "FASTER";
    case Verdict::kSame: return "SAME";
    case Verdict::kSlower: return "SLOWER";
  }
  return "unknown";
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

RatioEstimate estimate_blocks(const std::vector<std::vector<double>>& blocks, const BootstrapConfig& cfg) {
  if (blocks.empty()) throw std::invalid_argument("a paired estimate needs at least one block");
  std::vector<double> pooled;
  for (const auto& b : blocks) {
    if (b.empty()) throw std::invalid_argument("a paired estimate's block has no pairs");
    pooled.insert(pooled.end(), b.begin(), b.end());
  }
  if (pooled.size() < 2) throw std::invalid_argument("a paired estimate needs at least 2 pairs");
  if (cfg.resamples < 100 || !(cfg.confidence > 0 && cfg.confidence < 1))
    throw std::invalid_argument("bootstrap needs >= 100 resamples and a confidence in (0, 1)");
  for (double x : pooled)
    if (!std::isfinite(x) || x <= 0) throw std::invalid_argument("paired ratios must be positive and finite");
  RatioEstimate e;
  e.pairs = pooled.size();
  e.blocks = blocks.size();
  e.median = median(pooled);
  std::mt19937_64 rng(cfg.seed);
  std::vector<double> medians, draw;
  medians.reserve(std::size_t(cfg.resamples));
  for (int k = 0; k < cfg.resamples; ++k) {
    draw.clear();
    for (std::size_t j = 0; j < blocks.size(); ++j) {
      const auto& b = blocks.size() == 1 ? blocks[0] : blocks[draw_index(rng, blocks.size())];
      for (std::size_t i = 0; i < b.size(); ++i) draw.push_back(b[draw_index(rng, b.size())]);
    }
    medians.push_back(median(draw));
  }
  std::sort(medians.begin(), medians.end());
  e.lo = stats::percentile(medians, (1 - cfg.confidence) / 2);
  e.hi = stats::percentile(medians, (1 + cfg.confidence) / 2);
  e.verdict = e.lo > 1 ? Verdict::kFaster : e.hi < 1 ? Verdict::kSlower : Verdict::kSame;
  e.as_fast_as = e.lo >= kNonInferiorityMargin;
  return e;
}

RatioEstimate estimate(const std::vector<double>& r, const BootstrapConfig& cfg) {
  return estimate_blocks({r}, cfg);
}

}  // namespace attnlab::paired
