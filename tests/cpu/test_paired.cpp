// Paired A/B statistics (record/paired.hpp) and the A/B record's JSON mapping (record/ab.hpp):
// known ratios give their verdicts, a slow clock drift that fools unpaired medians cancels in
// the pairs, a shift between blocks widens the interval where a bootstrap of the pooled pairs
// would not, no cycles verdict stands on a clock both sides share, and a record's ratios
// recompute from its samples alone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/stats.hpp"
#include "record/ab.hpp"
#include "record/fields.hpp"
#include "record/paired.hpp"
#include "record/record.hpp"

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
  const double unpaired = stats::median(seq_b) / stats::median(seq_a);
  EXPECT_GT(unpaired, 1.15);  // the drift inflates A's lead from 1.05 to about 1.2

  // Paired: ABBA / BAAB blocks through the same session, each sample's clock recorded.
  const auto orders = paired::random_orders(n / 2, 12);
  std::vector<double> a, b, a_mhz, b_mhz;
  std::size_t slot = 0;
  auto sample = [&](bool is_a) {
    const double mhz = clock_at(double(slot++) / double(2 * n));
    (is_a ? a : b).push_back(time_ns(is_a ? cycles_a : cycles_b, mhz));
    (is_a ? a_mhz : b_mhz).push_back(mhz);
  };
  for (auto order : orders) {
    const bool abba = order == paired::Order::kABBA;
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

TEST(Paired, OrdersAreSeededAndMixed) {
  const auto x = paired::random_orders(1000, 3), y = paired::random_orders(1000, 3);
  EXPECT_EQ(x, y);
  EXPECT_NE(x, paired::random_orders(1000, 4));
  std::size_t abba = 0;
  for (auto o : x) abba += o == paired::Order::kABBA;
  EXPECT_GT(abba, 400u);
  EXPECT_LT(abba, 600u);
  EXPECT_EQ(paired::parse_order("BAAB"), paired::Order::kBAAB);
  EXPECT_STREQ(paired::order_name(paired::Order::kABBA), "ABBA");
  EXPECT_THROW(paired::parse_order("AABB"), std::invalid_argument);
}

namespace {

// Ten blocks of 40 per-pair ratios, block b's around 1 + shift[b] with relative noise 0.1%:
// each block a run whose clock, placement or thermal state moved every pair of it alike.
std::vector<std::vector<double>> shifted_blocks(const std::vector<double>& shift, std::uint64_t seed) {
  std::vector<std::vector<double>> blocks;
  for (std::size_t b = 0; b < shift.size(); ++b) blocks.push_back(noisy(40, 1 + shift[b], 0.001, seed + b));
  return blocks;
}

std::vector<double> pooled(const std::vector<std::vector<double>>& blocks) {
  std::vector<double> all;
  for (const auto& b : blocks) all.insert(all.end(), b.begin(), b.end());
  return all;
}

}  // namespace

// The case of a null A/B read as FASTER: blocks that differ by about 1% between them, centred
// near 1. Bootstrapping the pooled 400 pairs sees only the noise within blocks and calls a
// difference; resampling the blocks first gives the interval of a run-to-run spread and SAME.
TEST(Paired, AShiftBetweenBlocksWidensTheIntervalBeyondThePooledBootstrap) {
  const std::vector<double> shift = {0.012, -0.009, 0.004, -0.006, 0.010, -0.003, 0.008, -0.011, 0.007, 0.001};
  const auto blocks = shifted_blocks(shift, 40);
  const auto naive = paired::estimate(pooled(blocks));
  const auto h = paired::estimate_blocks(blocks);
  EXPECT_EQ(h.blocks, 10u);
  EXPECT_EQ(h.pairs, 400u);
  EXPECT_EQ(h.median, naive.median);  // one point estimate: the median of every pair
  EXPECT_EQ(naive.verdict, Verdict::kFaster) << naive.lo << " " << naive.hi;
  EXPECT_EQ(h.verdict, Verdict::kSame) << h.lo << " " << h.hi;
  EXPECT_GT(h.hi - h.lo, 3 * (naive.hi - naive.lo)) << "hierarchical [" << h.lo << ", " << h.hi
                                                    << "], pooled [" << naive.lo << ", " << naive.hi << "]";
}

// Without a shift between blocks the blocks add little: the interval stays near the pooled one.
TEST(Paired, WithoutAShiftBetweenBlocksTheIntervalStaysNearThePooledOne) {
  const auto blocks = shifted_blocks(std::vector<double>(10, 0.0), 60);
  const auto naive = paired::estimate(pooled(blocks));
  const auto h = paired::estimate_blocks(blocks);
  EXPECT_EQ(h.verdict, Verdict::kSame);
  EXPECT_LT(h.hi - h.lo, 2 * (naive.hi - naive.lo));
  EXPECT_GE(h.hi - h.lo, 0.9 * (naive.hi - naive.lo));
}

TEST(Paired, HierarchicalBootstrapIsReproducibleAndRefusesEmptyBlocks) {
  const auto blocks = shifted_blocks({0.01, -0.01, 0.0}, 80);
  const auto x = paired::estimate_blocks(blocks), y = paired::estimate_blocks(blocks);
  EXPECT_EQ(x.lo, y.lo);
  EXPECT_EQ(x.hi, y.hi);
  EXPECT_THROW(paired::estimate_blocks({}), std::invalid_argument);
  EXPECT_THROW(paired::estimate_blocks({{1.0, 1.1}, {}}), std::invalid_argument);
  EXPECT_THROW(paired::estimate_blocks({{1.0}}), std::invalid_argument);
}

namespace {

// One block of two pairs (one ABBA and one BAAB order) from A's and B's busy times and clocks;
// every clock read while its kernel ran.
AbBlock example_block(std::size_t round, std::vector<double> a_ns, std::vector<double> b_ns,
                      std::vector<double> a_mhz, std::vector<double> b_mhz) {
  AbBlock blk;
  blk.round = round;
  blk.seed = 7 + round;
  blk.order_seed = 99 + round;
  blk.started_s = 0.25 * double(round);
  blk.passed = true;
  blk.a_correctness.passed = blk.b_correctness.passed = true;
  const std::size_t n = a_ns.size();
  for (std::size_t i = 0; i < n; i += 2) blk.orders.push_back(i % 4 ? "BAAB" : "ABBA");
  for (std::size_t i = 0; i < n; ++i) blk.first.push_back(i % 2 ? "B" : "A");
  const std::vector<double> offsets(n, 5.0);
  blk.a = {a_ns, a_ns, a_mhz, offsets, {"k_a"}};
  blk.b = {b_ns, b_ns, b_mhz, offsets, {"k_b"}};
  blk.stop_reason = "pairs";
  blk.wall_s = 0.1;
  return blk;
}

AbRecord example_record() {
  AbRecord r;
  r.status = "ok";
  r.a = {"4x", "fused WMMA", "t"};
  r.b = {"5", "wgmma + TMA", "t"};
  r.started_utc = "2026-11-26T03:00:00Z";
  r.provenance.seed = 7;
  r.options.pairs = 4;
  r.options.min_pairs = 2;
  r.options.blocks = 2;
  r.options.max_seconds = 1;
  r.options.order_seed = 99;
  r.options.inputs = "normal";
  r.method = "m";
  AbShape s;
  s.name = "1x8x512x64";
  s.shape.B = 1;
  s.flops = 5.0e8;
  // Each side's clock read apart, while its own kernel ran: a cycles ratio stands.
  s.blocks.push_back(example_block(0, {100, 101}, {120, 118}, {1980, 1975}, {1970, 1965}));
  s.blocks.push_back(example_block(1, {99, 100}, {121, 119}, {1960, 1955}, {1950, 1945}));
  estimate_shape(s, r.options.bootstrap);
  r.results.push_back(s);
  return r;
}

}  // namespace

TEST(AbRecord, RoundTripsAndItsRatiosRecomputeFromTheSamples) {
  const AbRecord r = example_record();
  const auto j = to_json(r);
  EXPECT_EQ(j["schema"], kAbSchema);
  EXPECT_EQ(j["convention"], kAbConvention);
  EXPECT_EQ(j["results"][0]["blocks"].size(), 2u);
  EXPECT_EQ(j["results"][0]["blocks"][1]["seed"], 8);
  const AbRecord back = read_ab_record(nlohmann::ordered_json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  AbShape again = back.results.at(0);
  estimate_shape(again, back.options.bootstrap);
  const AbShape& s = back.results.at(0);
  ASSERT_TRUE(s.wall && again.wall && s.cycles && again.cycles);
  EXPECT_EQ(again.wall->estimate.median, s.wall->estimate.median);
  EXPECT_EQ(again.wall->estimate.lo, s.wall->estimate.lo);
  EXPECT_EQ(again.wall->estimate.hi, s.wall->estimate.hi);
  EXPECT_EQ(again.wall->estimate.blocks, 2u);
  EXPECT_EQ(again.cycles->estimate.median, s.cycles->estimate.median);
}

// attnlab-ab says which pass both sides compute; a record without the field (before backward
// phases) reads as unsaid and is written back without it.
TEST(AbRecord, SaysItsPassAndRoundTrips) {
  AbRecord r = example_record();
  EXPECT_FALSE(to_json(r).contains("direction"));
  EXPECT_FALSE(read_ab_record(to_json(r)).direction.has_value());
  r.direction = Direction::kBackward;
  const auto j = to_json(r);
  EXPECT_EQ(j["direction"], "backward");
  const AbRecord back = read_ab_record(nlohmann::ordered_json::parse(j.dump()));
  EXPECT_EQ(back.direction, Direction::kBackward);
  EXPECT_EQ(to_json(back), j);
  auto bad = j;
  bad["direction"] = "sideways";
  EXPECT_THROW(read_ab_record(bad), FieldError);
}

// Where A and B of a pair read one clock value the cycle ratio is the wall ratio digit for
// digit: no cycles verdict, and the record says why.
TEST(AbRecord, ACyclesVerdictNeedsEachSidesOwnClockReadWhileItsKernelRan) {
  AbRecord r = example_record();
  AbShape& s = r.results[0];
  EXPECT_FALSE(s.cycles_withheld.has_value()) << *s.cycles_withheld;
  ASSERT_TRUE(s.cycles.has_value());

  s.blocks[1].b.sm_clock_mhz = s.blocks[1].a.sm_clock_mhz;  // one reading serves both sides
  estimate_shape(s, r.options.bootstrap);
  EXPECT_FALSE(s.cycles.has_value());
  ASSERT_TRUE(s.cycles_withheld.has_value());
  EXPECT_NE(s.cycles_withheld->find("A and B read one clock value in 2 of 4 pairs"), std::string::npos)
      << *s.cycles_withheld;
  const auto j = to_json(r);
  EXPECT_EQ(j["results"][0]["ratio"]["cycles"]["withheld"], *s.cycles_withheld);
  EXPECT_FALSE(j["results"][0]["ratio"]["cycles"].contains("verdict"));
  const AbRecord back = read_ab_record(j);
  EXPECT_FALSE(back.results[0].cycles.has_value());
  EXPECT_EQ(back.results[0].cycles_withheld, s.cycles_withheld);

  // Separate readings, but one taken before its kernel started: not that kernel's clock.
  s = example_record().results[0];
  s.blocks[0].a.clock_offset_ns[0] = -3000;
  estimate_shape(s, r.options.bootstrap);
  EXPECT_FALSE(s.cycles.has_value());
  ASSERT_TRUE(s.cycles_withheld.has_value());
  EXPECT_NE(s.cycles_withheld->find("in 1 of 4 pairs a side's clock was read while none of its kernels ran"),
            std::string::npos)
      << *s.cycles_withheld;
}

TEST(AbRecord, AShapeWithAFailedBlockHasNoRatio) {
  AbRecord r = example_record();
  AbShape& s = r.results[0];
  s.blocks[1].passed = false;
  s.blocks[1].b_correctness.passed = false;
  estimate_shape(s, r.options.bootstrap);
  EXPECT_FALSE(s.passed);
  EXPECT_FALSE(s.wall.has_value());
  const auto j = to_json(r);
  EXPECT_TRUE(j["results"][0]["ratio"].is_null());
  EXPECT_TRUE(j["results"][0]["blocks"][1].contains("samples"));  // the block's samples stay
  EXPECT_FALSE(read_ab_record(j).results[0].wall.has_value());
}

// Two measurements of one shape: combined, their blocks are resampled as one shape's, and the
// interval spans the gap between them that neither one's interval shows.
TEST(AbRecord, MeasurementsOfOneShapeCombineTheirBlocks) {
  const paired::BootstrapConfig cfg;
  auto measurement = [&](double ratio, std::uint64_t seed) {
    AbShape s;
    s.name = "4x16x4096x128:causal";
    for (std::size_t k = 0; k < 5; ++k) {
      const auto a = noisy(20, 1000, 0.001, seed + 2 * k);
      auto b = noisy(20, 1000 * ratio, 0.001, seed + 2 * k + 1);
      std::vector<double> mhz_a(20), mhz_b(20);
      for (std::size_t i = 0; i < 20; ++i) mhz_a[i] = 1900 + double(i), mhz_b[i] = 1800 + double(i);
      s.blocks.push_back(example_block(k, a, b, mhz_a, mhz_b));
    }
    estimate_shape(s, cfg);
    return s;
  };
  const AbShape first = measurement(1.137, 1), second = measurement(1.113, 100);
  ASSERT_TRUE(first.wall && second.wall);
  EXPECT_GT(first.wall->estimate.lo, second.wall->estimate.hi);  // disjoint intervals
  const AbShape both = combine_measurements({first, second}, cfg);
  EXPECT_EQ(both.measurements, 2u);
  EXPECT_EQ(both.blocks.size(), 10u);
  EXPECT_EQ(both.pairs(), 200u);
  ASSERT_TRUE(both.wall);
  EXPECT_LT(both.wall->estimate.lo, second.wall->estimate.hi);
  EXPECT_GT(both.wall->estimate.hi, first.wall->estimate.lo);
  AbShape other = second;
  other.name = "1x8x512x64";
  EXPECT_THROW(combine_measurements({first, other}, cfg), std::invalid_argument);
}

// An attnlab.ab/1 record reads as one block per measured shape, its interval as recorded (the
// bootstrap of that one block's pairs), and its cycles ratio dropped where both sides of a pair
// read one clock value.
TEST(AbRecord, AnAb1RecordReadsAsOneBlockPerShape) {
  const auto j = read_json_file(std::string(ATTNLAB_SOURCE_DIR) +
                                "/tests/reports/inputs/ab/ab/5-vs-cudnn/20261126T030000Z-0000000/run.json");
  ASSERT_EQ(j["schema"], kAbSchemaV1);
  const AbRecord r = read_ab_record(j);
  EXPECT_EQ(r.schema, kAbSchemaV1);
  EXPECT_EQ(r.options.blocks, 1u);
  const AbShape& s = r.results.at(0);
  ASSERT_EQ(s.blocks.size(), 1u);
  EXPECT_EQ(s.blocks[0].seed, r.provenance.seed);
  EXPECT_EQ(s.blocks[0].order_seed, r.options.order_seed);
  EXPECT_EQ(s.blocks[0].orders, j["results"][0]["blocks"].get<std::vector<std::string>>());
  ASSERT_TRUE(s.wall);
  AbShape again = s;
  estimate_shape(again, r.options.bootstrap);
  EXPECT_EQ(again.wall->estimate.lo, s.wall->estimate.lo);  // one block: the pooled bootstrap exactly
  EXPECT_EQ(again.wall->estimate.hi, s.wall->estimate.hi);
  EXPECT_FALSE(s.cycles.has_value());
  ASSERT_TRUE(s.cycles_withheld.has_value());
  EXPECT_EQ(to_json(r)["schema"], kAbSchema);  // written back in the current layout
}

TEST(AbRecord, NamesAMalformedField) {
  auto j = to_json(example_record());
  j["results"][0]["blocks"][1]["samples"]["a"]["sm_clock_mhz"] = {1.0};
  try {
    read_ab_record(j);
    FAIL() << "a short clock array was accepted";
  } catch (const FieldError& e) {
    EXPECT_NE(std::string(e.what()).find("/results/0/blocks/1/samples/a"), std::string::npos) << e.what();
  }
  j = to_json(example_record());
  j["schema"] = "attnlab.run/1";
  EXPECT_THROW(read_ab_record(j), FieldError);
}
