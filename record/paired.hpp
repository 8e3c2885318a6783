// Paired, interleaved A/B statistics: per-pair ratios of two phases timed alternately in one
// process, in independent blocks, their median with a hierarchical bootstrap interval, and the
// verdict read from it. Host-only.
// Convention everywhere: ratio = t_B / t_A, A's speed-up over B (above 1: A is faster).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/stats.hpp"

namespace attnlab::paired {

// record/constants.json ("paired") carries the same values; tests/cpu/test_constants.cpp keeps
// the two equal.
// The margin of "as fast as", which the claims state too (common/stats.hpp).
using stats::kNonInferiorityMargin;
inline constexpr int kBootstrapResamples = 10000;  // percentile bootstrap; resamples beyond this move the bounds < 0.1%
inline constexpr std::uint64_t kBootstrapSeed = 26;  // fixed so a record's interval recomputes exactly
inline constexpr double kConfidence = 0.95;
// Independent blocks of an A/B run per shape, each with fresh inputs, its own gates and its own
// order: the pairs of one block share a moment of the GPU (clock, temperature, placement of the
// buffers), so the interval that holds between runs comes from the spread between blocks.
inline constexpr int kDefaultBlocks = 10;

// Sample order of four samples (two pairs). ABBA's first pair runs A first and its second B
// first, so an effect of running second (a warmer clock, say) cancels.
enum class Order { kABBA, kBAAB };
const char* order_name(Order o);                 // "ABBA", "BAAB"
Order parse_order(const std::string& name);      // throws std::invalid_argument
// `count` orders, each ABBA or BAAB with probability 1/2 from std::mt19937_64(seed) (its output
// is fixed by the standard, so a seed names one sequence on every platform).
std::vector<Order> random_orders(std::size_t count, std::uint64_t seed);

// Per pair, t_B / t_A. Throws std::invalid_argument on different lengths or a time <= 0.
std::vector<double> ratios(const std::vector<double>& a, const std::vector<double>& b);
// Cycles of each sample: time [ns] x SM clock [MHz] / 1000. Throws on different lengths.
std::vector<double> cycles(const std::vector<double>& ns, const std::vector<double>& mhz);

enum class Verdict { kFaster, kSame, kSlower };  // A against B, as nvbench's compare
const char* verdict_name(Verdict v);              // "FASTER", "SAME", "SLOWER"

struct BootstrapConfig {
  int resamples = kBootstrapResamples;
  std::uint64_t seed = kBootstrapSeed;
  double confidence = kConfidence;
};

struct RatioEstimate {
  std::size_t pairs = 0;   // in all blocks
  std::size_t blocks = 1;
  double median = 0;       // median of the per-pair ratios of all blocks
  double lo = 0, hi = 0;   // percentile-bootstrap interval of that median at `confidence`
  Verdict verdict = Verdict::kSame;  // FASTER: lo > 1; SLOWER: hi < 1; else SAME
  bool as_fast_as = false;           // lo >= kNonInferiorityMargin
};

// The median of the ratios of every block and its hierarchical bootstrap interval
// (stats::bootstrap_median, at cfg): resampling whole blocks, then pairs within them, so a
// shift between blocks (a clock, a placement, a thermal state that holds for a block) widens
// the interval, which a bootstrap of the pooled pairs would not see. Throws
// std::invalid_argument on no block, an empty block, fewer than 2 ratios in all, a ratio not
// positive and finite, or a config out of range.
RatioEstimate estimate_blocks(const std::vector<std::vector<double>>& blocks,
                              const BootstrapConfig& cfg = {});
// One block: the bootstrap of the pairs alone (what an interval within one run is).
RatioEstimate estimate(const std::vector<double>& r, const BootstrapConfig& cfg = {});

}  // namespace attnlab::paired
