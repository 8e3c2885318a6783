// Paired A/B statistics (record/paired.hpp) and the A/B record's JSON mapping (record/ab.hpp):
// known ratios give their verdicts, a slow clock drift that fools unpaired medians cancels in
// the pairs, and a record's ratios recompute from its samples alone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "record/ab.hpp"
#include "record/fields.hpp"
#include "record/paired.hpp"

using namespace attnlab;
using paired::Verdict;

namespace {

// n samples of `mean` with relative Gaussian noise `rel`, reproducible from `seed`.
std::vector<double> noisy(std::size_t n, double mean, double rel, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(mean * (1 + rel * z(rng)));
  return v;
}

}  // namespace

TEST(Paired, RatioIsBOverA) {
  const auto r = paired::ratios({100, 200}, {150, 100});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0], 1.5);
  EXPECT_DOUBLE_EQ(r[1], 0.5);
  EXPECT_THROW(paired::ratios({1, 2}, {1}), std::invalid_argument);
  EXPECT_THROW(paired::ratios({0}, {1}), std::invalid_argument);
}

TEST(Paired, CyclesAreTimeTimesClock) {
  const auto c = paired::cycles({1000, 500}, {1500, 1800});  // ns, MHz
  EXPECT_DOUBLE_EQ(c[0], 1500);
  EXPECT_DOUBLE_EQ(c[1], 900);
  EXPECT_THROW(paired::cycles({1}, {}), std::invalid_argument);
}

TEST(Paired, KnownRatiosGiveTheirVerdicts) {
  const auto a = noisy(400, 1000, 0.01, 1);
  const auto b_slower = noisy(400, 1200, 0.01, 2);  // A 1.2x faster
  const auto b_faster = noisy(400, 900, 0.01, 3);   // A at 0.9 of B's speed
  const auto b_same = noisy(400, 1000, 0.01, 4);

  const auto f = paired::estimate(paired::ratios(a, b_slower));
  EXPECT_NEAR(f.median, 1.2, 0.01);
  EXPECT_LT(f.lo, 1.2);
  EXPECT_GT(f.hi, 1.2);
  EXPECT_EQ(f.verdict, Verdict::kFaster);
  EXPECT_TRUE(f.as_fast_as);

  const auto s = paired::estimate(paired::ratios(a, b_faster));
  EXPECT_NEAR(s.median, 0.9, 0.01);
  EXPECT_EQ(s.verdict, Verdict::kSlower);
  EXPECT_FALSE(s.as_fast_as);

  const auto e = paired::estimate(paired::ratios(a, b_same));
  EXPECT_LE(e.lo, 1.0);
  EXPECT_GE(e.hi, 1.0);
  EXPECT_EQ(e.verdict, Verdict::kSame);
  EXPECT_TRUE(e.as_fast_as);
  EXPECT_EQ(e.pairs, 400u);
}

TEST(Paired, NonInferiorityNeedsTheLowerBoundAboveTheMargin) {
  // A 3% slower than B: SLOWER, and not "as fast as" at the 2% margin.
  const auto a = noisy(300, 1030, 0.005, 5);
  const auto b = noisy(300, 1000, 0.005, 6);
  const auto e = paired::estimate(paired::ratios(a, b));
  EXPECT_EQ(e.verdict, Verdict::kSlower);
  EXPECT_LT(e.lo, paired::kNonInferiorityMargin);
  EXPECT_FALSE(e.as_fast_as);
  // A 1% slower with little noise: SLOWER, yet as fast as within the margin.
  const auto e2 = paired::estimate(paired::ratios(noisy(300, 1010, 0.002, 7), noisy(300, 1000, 0.002, 8)));
  EXPECT_EQ(e2.verdict, Verdict::kSlower);
  EXPECT_TRUE(e2.as_fast_as);
}

TEST(Paired, BootstrapIsReproducibleFromItsSeed) {
  const auto r = paired::ratios(noisy(200, 1000, 0.03, 9), noisy(200, 1010, 0.03, 10));
  const auto x = paired::estimate(r), y = paired::estimate(r);
  EXPECT_EQ(x.lo, y.lo);
  EXPECT_EQ(x.hi, y.hi);
  paired::BootstrapConfig other;
  other.seed = paired::kBootstrapSeed + 1;
  const auto z = paired::estimate(r, other);
  EXPECT_NEAR(x.lo, z.lo, 0.01);  // another seed, other resamples, nearly the same bounds
  EXPECT_NEAR(x.hi, z.hi, 0.01);
  // More spread, wider interval.
  const auto wide = paired::estimate(paired::ratios(noisy(200, 1000, 0.1, 9), noisy(200, 1010, 0.1, 10)));
  EXPECT_GT(wide.hi - wide.lo, x.hi - x.lo);
}

TEST(Paired, EstimateRefusesTooLittle) {
  EXPECT_THROW(paired::estimate({1.0}), std::invalid_argument);
  paired::BootstrapConfig bad;
  bad.resamples = 10;
  EXPECT_THROW(paired::estimate({1.0, 1.1}, bad), std::invalid_argument);
  EXPECT_THROW(paired::estimate({1.0, NAN}), std::invalid_argument);
}

// The power cap ramps the SM clock down over a run, slowing A and B by the same factor at any
// moment. Two runs one after the other (all of A, then all of B) see different clocks, and the
// ratio of their medians is wrong by the ramp; pairs taken side by side cancel it.
TEST(Paired, PairingCancelsASlowClockDrift) {
  const double cycles_a = 1.0e6, cycles_b = 1.05e6;  // A truly 1.05x faster
  const std::size_t n = 400;                           // pairs
  auto clock_at = [&](double t) { return 1980.0 - 400.0 * t; };  // [MHz], t in [0, 1] of the run
  std::mt19937_64 rng(11);
  std::normal_distribution<double> z(0.0, 0.005);
  auto time_ns = [&](double cycles, double mhz) { return cycles / mhz * 1000.0 * (1 + z(rng)); };

  // Unpaired: A sampled in the first half of the session, B in the second.
  std::vector<double> seq_a, seq_b;
  for (std::size_t i = 0; i < n; ++i) seq_a.push_back(time_ns(cycles_a, clock_at(0.5 * i / n)));
  for (std::size_t i = 0; i < n; ++i) seq_b.push_back(time_ns(cycles_b, clock_at(0.5 + 0.5 * i / n)));
  const double unpaired = paired::median(seq_b) / paired::median(seq_a);
  EXPECT_GT(unpaired, 1.15);  // the drift inflates A's lead from 1.05 to about 1.2

  // Paired: ABBA / BAAB blocks through the same session, each sample's clock recorded.
  const auto blocks = paired::block_orders(n / 2, 12);
  std::vector<double> a, b, a_mhz, b_mhz;
  std::size_t slot = 0;
  auto sample = [&](bool is_a) {
    const double mhz = clock_at(double(slot++) / double(2 * n));
    (is_a ? a : b).push_back(time_ns(is_a ? cycles_a : cycles_b, mhz));
    (is_a ? a_mhz : b_mhz).push_back(mhz);
  };
  for (auto blk : blocks) {
    const bool abba = blk == paired::Block::kABBA;
    sample(abba), sample(!abba), sample(!abba), sample(abba);
  }
  const auto wall = paired::estimate(paired::ratios(a, b));
  EXPECT_LE(wall.lo, 1.05);
  EXPECT_GE(wall.hi, 1.05);
  EXPECT_LT(wall.hi, unpaired);  // the paired interval excludes the unpaired answer
  EXPECT_EQ(wall.verdict, Verdict::kFaster);
  const auto cyc = paired::estimate(paired::ratios(paired::cycles(a, a_mhz), paired::cycles(b, b_mhz)));
  EXPECT_NEAR(cyc.median, 1.05, 0.002);
}

TEST(Paired, BlockOrdersAreSeededAndMixed) {
  const auto x = paired::block_orders(1000, 3), y = paired::block_orders(1000, 3);
  EXPECT_EQ(x, y);
  EXPECT_NE(x, paired::block_orders(1000, 4));
  std::size_t abba = 0;
  for (auto b : x) abba += b == paired::Block::kABBA;
  EXPECT_GT(abba, 400u);
  EXPECT_LT(abba, 600u);
  EXPECT_EQ(paired::parse_block("BAAB"), paired::Block::kBAAB);
  EXPECT_STREQ(paired::block_name(paired::Block::kABBA), "ABBA");
  EXPECT_THROW(paired::parse_block("AABB"), std::invalid_argument);
}

namespace {

AbRecord example_record() {
  AbRecord r;
  r.status = "ok";
  r.a = {"4x", "fused WMMA", "t"};
  r.b = {"5", "wgmma + TMA", "t"};
  r.started_utc = "2026-11-26T03:00:00Z";
  r.provenance.seed = 7;
  r.options.pairs = 4;
  r.options.min_pairs = 2;
  r.options.max_seconds = 1;
  r.options.order_seed = 99;
  r.options.inputs = "normal";
  r.method = "m";
  AbShape s;
  s.name = "1x8x512x64";
  s.shape.B = 1;
  s.flops = 5.0e8;
  s.passed = true;
  s.a_correctness.passed = s.b_correctness.passed = true;
  s.blocks = {"ABBA", "BAAB"};
  s.first = {"A", "B", "B", "A"};
  s.a = {{100, 101, 99, 100}, {100, 101, 99, 100}, {1980, 1980, 1970, 1960}, {5, 6, 7, 8}, {"k_a"}};
  s.b = {{120, 118, 121, 119}, {120, 118, 121, 119}, {1980, 1975, 1970, 1960}, {5, 6, 7, 8}, {"k_b"}};
  s.stop_reason = "pairs";
  s.wall_s = 0.5;
  s.wall = ab_ratio(s.a.busy_ns, s.b.busy_ns, r.options.bootstrap);
  s.cycles = ab_ratio(paired::cycles(s.a.busy_ns, s.a.sm_clock_mhz),
                      paired::cycles(s.b.busy_ns, s.b.sm_clock_mhz), r.options.bootstrap);
  r.results.push_back(s);
  return r;
}

}  // namespace

TEST(AbRecord, RoundTripsAndItsRatiosRecomputeFromTheSamples) {
  const AbRecord r = example_record();
  const auto j = to_json(r);
  EXPECT_EQ(j["schema"], kAbSchema);
  EXPECT_EQ(j["convention"], kAbConvention);
  const AbRecord back = read_ab_record(nlohmann::ordered_json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  const AbShape& s = back.results.at(0);
  const AbRatio again = ab_ratio(s.a.busy_ns, s.b.busy_ns, back.options.bootstrap);
  EXPECT_EQ(again.estimate.median, s.wall->estimate.median);
  EXPECT_EQ(again.estimate.lo, s.wall->estimate.lo);
  EXPECT_EQ(again.estimate.hi, s.wall->estimate.hi);
}

TEST(AbRecord, AnUntimedShapeHasNoRatio) {
  AbRecord r = example_record();
  AbShape& s = r.results[0];
  s.passed = false;
  s.b_correctness.passed = false;
  s.wall.reset();
  s.cycles.reset();
  const auto j = to_json(r);
  EXPECT_TRUE(j["results"][0]["ratio"].is_null());
  EXPECT_FALSE(j["results"][0].contains("samples"));
  EXPECT_FALSE(read_ab_record(j).results[0].wall.has_value());
}

TEST(AbRecord, NamesAMalformedField) {
  auto j = to_json(example_record());
  j["results"][0]["samples"]["a"]["sm_clock_mhz"] = {1.0};
  try {
    read_ab_record(j);
    FAIL() << "a short clock array was accepted";
  } catch (const FieldError& e) {
    EXPECT_NE(std::string(e.what()).find("/results/0/samples/a"), std::string::npos) << e.what();
  }
  j = to_json(example_record());
  j["schema"] = "attnlab.run/1";
  EXPECT_THROW(read_ab_record(j), FieldError);
}
