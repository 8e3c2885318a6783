#include "record/paired.hpp"

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

RatioEstimate estimate_blocks(const std::vector<std::vector<double>>& blocks, const BootstrapConfig& cfg) {
  std::vector<double> pooled;
  for (const auto& b : blocks) pooled.insert(pooled.end(), b.begin(), b.end());
  for (double x : pooled)
    if (!std::isfinite(x) || x <= 0) throw std::invalid_argument("paired ratios must be positive and finite");
  // Refuses no block, an empty block, fewer than 2 ratios in all and a config out of range.
  const auto ci = stats::bootstrap_median(blocks, {cfg.resamples, cfg.seed, cfg.confidence});
  RatioEstimate e;
  e.pairs = pooled.size();
  e.blocks = blocks.size();
  e.median = stats::median(pooled);
  e.lo = ci.lo;
  e.hi = ci.hi;
  e.verdict = e.lo > 1 ? Verdict::kFaster : e.hi < 1 ? Verdict::kSlower : Verdict::kSame;
  e.as_fast_as = e.lo >= kNonInferiorityMargin;
  return e;
}

RatioEstimate estimate(const std::vector<double>& r, const BootstrapConfig& cfg) {
  return estimate_blocks({r}, cfg);
}

}  // namespace attnlab::paired
