// Paired, interleaved A/B statistics: per-pair ratios of two phases timed alternately
// in one process, their median with a bootstrap interval, and the verdict read from it. Host-only.
// Convention everywhere: ratio = t_B / t_A, A's speed-up over B (above 1: A is faster).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::paired {

// record/constants.json ("paired") carries the same values; tests/cpu/test_constants.cpp keeps
// the two equal.
// "As fast as" is non-inferiority: the interval's lower bound at least this, so a kernel up to
// 2% slower within the noise still counts, and "the intervals overlap" never does.
inline constexpr double kNonInferiorityMargin = 0.98;
inline constexpr int kBootstrapResamples = 10000;  // percentile bootstrap; resamples beyond this move the bounds < 0.1%
inline constexpr std::uint64_t kBootstrapSeed = 26;  // fixed so a record's interval recomputes exactly
inline constexpr double kConfidence = 0.95;

// Sample order inside one block of four samples (two pairs). ABBA's first pair runs A first
// and its second B first, so an effect of running second (a warmer clock, say) cancels.
enum class Block { kABBA, kBAAB };
const char* block_name(Block b);                 // "ABBA", "BAAB"
Block parse_block(const std::string& name);      // throws std::invalid_argument
// `count` blocks, each ABBA or BAAB with probability 1/2 from std::mt19937_64(seed) (its output
// is fixed by the standard, so a seed names one sequence on every platform).
std::vector<Block> block_orders(std::size_t count, std::uint64_t seed);

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
  std::size_t pairs = 0;
  double median = 0;       // median of the per-pair ratios
  double lo = 0, hi = 0;   // percentile-bootstrap interval of that median at `confidence`
  Verdict verdict = Verdict::kSame;  // FASTER: lo > 1; SLOWER: hi < 1; else SAME
  bool as_fast_as = false;           // lo >= kNonInferiorityMargin
};

// The median of `r` and its bootstrap interval: `resamples` resamples of r with replacement,
// indices drawn from std::mt19937_64(seed) by multiply-high (no implementation-defined
// distribution), the interval their medians' (1-c)/2 and (1+c)/2 percentiles. Throws
// std::invalid_argument on fewer than 2 ratios or a config out of range.
RatioEstimate estimate(const std::vector<double>& r, const BootstrapConfig& cfg = {});

// Median of the values (average of the middle two for an even count); throws on empty.
double median(std::vector<double> v);

}  // namespace attnlab::paired
