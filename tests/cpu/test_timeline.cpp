// Warp-role timelines without a GPU: decoding of synthetic stamp buffers (pairing, overflow,
// unmatched stamps, cycles to ns, SM alignment, wait fractions), the record's JSON round trip
// and its Chrome trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/shapes.hpp"
#include "profiler/timeline_decode.hpp"
#include "record/fields.hpp"
#include "record/timeline.hpp"
#include "tests/cpu/timeline_builder.hpp"
#include "tests/validate_records.hpp"

namespace attnlab::timeline {
namespace {

using test::Builder;
using test::kEpochNs;


DecodeOptions at_mhz(double mhz) {
  DecodeOptions o;
  o.sm_clock_mhz = mhz;
  return o;
}

const WaitShare* share(const RoleSummary& r, Span k) {
  for (const auto& w : r.waits)
    if (w.kind == k) return &w;
  return nullptr;
}

TEST(TimelineDecode, PairsSpansAndConvertsCyclesAtTheSmClock) {
  Builder b(1, 1, 16);
  // 2000 MHz: 2 cycles per ns. The warp lives 2000 cycles = 1000 ns on both clocks.
  b.start(0, 0, 3, 10'000, kEpochNs);
  b.stamp(0, 0, Span::kItem, false, 10'200, 7);
  b.stamp(0, 0, Span::kSoftmax, false, 10'400, 1);
  b.stamp(0, 0, Span::kSoftmax, true, 11'000, 1);
  b.stamp(0, 0, Span::kItem, true, 11'800, 7);
  b.end(0, 0, 12'000, kEpochNs + 1000);
  const TimelineDecoded d = decode(b.raw, at_mhz(2000));
  ASSERT_EQ(d.warps.size(), 1u);
  const TimelineWarp& w = d.warps[0];
  EXPECT_EQ(w.smid, 3u);
  EXPECT_DOUBLE_EQ(w.start_ns, 0);
  EXPECT_DOUBLE_EQ(w.end_ns, 1000);
  EXPECT_DOUBLE_EQ(d.span_ns, 1000);
  EXPECT_DOUBLE_EQ(d.anchor_clock_mhz, 2000);  // 2000 cycles over 1000 globaltimer ns
  ASSERT_EQ(w.spans.size(), 2u);
  EXPECT_EQ(w.spans[0].kind, Span::kItem);  // sorted by begin
  EXPECT_DOUBLE_EQ(w.spans[0].begin_ns, 100);
  EXPECT_DOUBLE_EQ(w.spans[0].end_ns, 900);
  EXPECT_EQ(w.spans[0].item, 7u);
  EXPECT_EQ(w.spans[1].kind, Span::kSoftmax);
  EXPECT_DOUBLE_EQ(w.spans[1].begin_ns, 200);
  EXPECT_DOUBLE_EQ(w.spans[1].end_ns, 500);
  EXPECT_EQ(w.unmatched, 0u);
  EXPECT_EQ(d.stamps, 4u);
  // The same cycles at half the clock last twice as long.
  const TimelineDecoded slow = decode(b.raw, at_mhz(1000));
  EXPECT_DOUBLE_EQ(slow.warps[0].spans[1].end_ns - slow.warps[0].spans[1].begin_ns, 600);
}

// A stamp keeps the clock's low 32 bits: the decoder restores the high half from the warp's
// start anchor and the stamps before, across the low half's wraps (stamps less than 2^32 cycles
// apart), and keeps the item's and the code's bits apart.
TEST(TimelineDecode, WidensTheLowHalfOfTheClockAcrossItsWrap) {
  Builder b(1, 1, 8);
  constexpr std::uint64_t kStart = (std::uint64_t(5) << 32) - 300;  // 300 cycles before a wrap
  constexpr std::uint64_t kLast = kStart + 500 + (std::uint64_t(7) << 29);  // 7/8 of a wrap later
  b.start(0, 0, 0, kStart, kEpochNs);
  b.stamp(0, 0, Span::kItem, false, kStart + 100, (1u << kItemBits) - 1);
  b.stamp(0, 0, Span::kMergeWait, false, kStart + 200, 12345);
  b.stamp(0, 0, Span::kMergeWait, true, kStart + 500, 12345);             // past the wrap
  b.stamp(0, 0, Span::kItem, true, kLast, (1u << kItemBits) - 1);  // past the next wrap
  b.end(0, 0, kLast + 100, kEpochNs + 1000);
  const std::vector<Stamp> w = widen(b.raw.events.data(), 4, kStart);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0].clock, kStart + 100);
  EXPECT_EQ(w[2].clock, kStart + 500);
  EXPECT_EQ(w[3].clock, kLast);
  EXPECT_EQ(w[0].item, (1u << kItemBits) - 1);
  EXPECT_EQ(w[0].code, event_code(Span::kItem, false));
  EXPECT_EQ(w[2].item, 12345u);
  EXPECT_EQ(w[2].code, event_code(Span::kMergeWait, true));
  const TimelineDecoded d = decode(b.raw, at_mhz(1000));
  ASSERT_EQ(d.warps.size(), 1u);
  ASSERT_EQ(d.warps[0].spans.size(), 2u);
  EXPECT_DOUBLE_EQ(d.warps[0].spans[1].end_ns - d.warps[0].spans[1].begin_ns, 300);  // the merge wait
  EXPECT_EQ(d.unmatched, 0u);
  // A first stamp before the reference (another warp's start anchor) widens backwards, across
  // the wrap too.
  const std::vector<Stamp> early = widen(b.raw.events.data() + 2, 2, kStart + 700);
  EXPECT_EQ(early[0].clock, kStart + 500);
  EXPECT_EQ(early[1].clock, kLast);
  const RawEvent before_wrap{std::uint32_t(kStart + 100), 0};
  EXPECT_EQ(widen(&before_wrap, 1, kStart + 400)[0].clock, kStart + 100);
}

// Under GlobalStamps one warp per block takes the anchors (started) and the others write only
// their count: such a warp is placed with its block's anchoring warp (its SM, CTA and clock
// reference), its lifetime from its first to its last stamp, and a first stamp taken before the
// anchoring warp's start (warps start in any order) still widens to the right clock and sets the
// axis's zero.
TEST(TimelineDecode, WarpsWithoutAnchorsTakeTheirBlocksAnchoringWarp) {
  Builder b(1, 2, 8);
  constexpr std::uint64_t kStart = (std::uint64_t(9) << 32) + 40;  // 40 cycles past a wrap
  b.start(0, 1, 5, kStart, kEpochNs);
  b.stamp(0, 1, Span::kItem, false, kStart + 100);
  b.stamp(0, 1, Span::kItem, true, kStart + 900);
  b.end(0, 1, kStart + 1000, kEpochNs + 1000);
  // Warp 0: no anchors; its first stamp 60 cycles before warp 1's start, across the wrap.
  b.stamp(0, 0, Span::kSoftmax, false, kStart - 60, 3);
  b.stamp(0, 0, Span::kSoftmax, true, kStart + 440, 3);
  const TimelineDecoded d = decode(b.raw, at_mhz(1000));
  ASSERT_EQ(d.warps.size(), 2u);
  const TimelineWarp& w0 = d.warps[0].warp == 0 ? d.warps[0] : d.warps[1];
  const TimelineWarp& w1 = d.warps[0].warp == 1 ? d.warps[0] : d.warps[1];
  EXPECT_EQ(w0.smid, 5u);
  EXPECT_EQ(w0.cta, 0u);
  EXPECT_DOUBLE_EQ(w0.start_ns, 0);  // the earliest clock of the launch
  EXPECT_DOUBLE_EQ(w0.end_ns, 500);
  ASSERT_EQ(w0.spans.size(), 1u);
  EXPECT_DOUBLE_EQ(w0.spans[0].end_ns - w0.spans[0].begin_ns, 500);
  EXPECT_DOUBLE_EQ(w1.start_ns, 60);
  EXPECT_DOUBLE_EQ(w1.end_ns, 1060);
  EXPECT_DOUBLE_EQ(d.span_ns, 1060);
  EXPECT_EQ(d.stamps, 4u);
  EXPECT_EQ(d.unmatched, 0u);
  // A slot that neither anchored nor stamped (a warp of a block that ran, or no block) is not a
  // warp of the timeline; a stamping warp of a block without any anchor cannot be placed.
  Builder lone(1, 2, 8);
  lone.stamp(0, 0, Span::kSoftmax, false, 100);
  lone.stamp(0, 0, Span::kSoftmax, true, 200);
  EXPECT_TRUE(decode(lone.raw, at_mhz(1000)).warps.empty());
}

// The stamped kernels read the clock at their first instruction and the anchoring warp writes it
// beside its start anchor (RawSlot::entry_clock), since the recorders are made after the
// kernel's prologue: the warp's life, and the decoded span, begin there. An entry clock after
// the start anchor (not one SM's counter) or none (0) leaves the start anchor as the beginning.
TEST(TimelineDecode, AnAnchoringWarpBeginsAtTheKernelsEntry) {
  constexpr std::uint64_t kStart = 1'000'000;
  const auto decoded = [&](std::uint64_t entry) {
    Builder b(1, 1, 8);
    b.start(0, 0, 2, kStart, kEpochNs).entry_clock = entry;
    b.stamp(0, 0, Span::kItem, false, kStart + 100);
    b.stamp(0, 0, Span::kItem, true, kStart + 900);
    b.end(0, 0, kStart + 1000, kEpochNs + 1000);
    return decode(b.raw, at_mhz(1000));
  };
  const TimelineDecoded with_entry = decoded(kStart - 700);
  ASSERT_EQ(with_entry.warps.size(), 1u);
  EXPECT_DOUBLE_EQ(with_entry.warps[0].start_ns, 0);
  EXPECT_DOUBLE_EQ(with_entry.warps[0].end_ns, 1700);
  EXPECT_DOUBLE_EQ(with_entry.span_ns, 1700);
  ASSERT_EQ(with_entry.warps[0].spans.size(), 1u);
  EXPECT_DOUBLE_EQ(with_entry.warps[0].spans[0].begin_ns, 800);  // the stamps keep their places
  for (const std::uint64_t entry : {std::uint64_t(0), kStart + 5}) {
    const TimelineDecoded d = decoded(entry);
    ASSERT_EQ(d.warps.size(), 1u);
    EXPECT_DOUBLE_EQ(d.span_ns, 1000) << entry;
    EXPECT_DOUBLE_EQ(d.warps[0].spans[0].begin_ns, 100) << entry;
  }
}

TEST(TimelineDecode, CountsOverflowAndNeverReadsPastTheCapacity) {
  Builder b(1, 1, 4);
  b.start(0, 0, 0, 0, kEpochNs);
  for (int i = 0; i < 3; ++i) {  // 6 stamps into 4 places
    b.stamp(0, 0, Span::kWgmmaWait, false, 100 * i + 10);
    b.stamp(0, 0, Span::kWgmmaWait, true, 100 * i + 50);
  }
  b.end(0, 0, 1000, kEpochNs + 1000);
  const TimelineDecoded d = decode(b.raw, at_mhz(1000));
  EXPECT_EQ(d.stamps, 6u);
  EXPECT_EQ(d.overflow, 2u);
  EXPECT_EQ(d.warps_overflowed, 1u);
  ASSERT_EQ(d.warps.size(), 1u);
  EXPECT_EQ(d.warps[0].overflow, 2u);
  EXPECT_EQ(d.warps[0].spans.size(), 2u);  // the written stamps pair; the lost ones do not exist
  EXPECT_EQ(d.unmatched, 0u);
}

TEST(TimelineDecode, CountsUnmatchedBeginsAndEnds) {
  Builder b(1, 1, 16);
  b.start(0, 0, 0, 0, kEpochNs);
  b.stamp(0, 0, Span::kFullWait, true, 10);       // an end with no begin
  b.stamp(0, 0, Span::kPingPongWait, false, 20);  // a begin never closed
  b.stamp(0, 0, Span::kSoftmax, false, 30);
  b.stamp(0, 0, Span::kSoftmax, true, 40);
  b.end(0, 0, 100, kEpochNs + 100);
  const TimelineDecoded d = decode(b.raw, at_mhz(1000));
  EXPECT_EQ(d.unmatched, 2u);
  EXPECT_EQ(d.warps[0].unmatched, 2u);
  ASSERT_EQ(d.warps[0].spans.size(), 1u);
  EXPECT_EQ(d.warps[0].spans[0].kind, Span::kSoftmax);
}

TEST(TimelineDecode, WaitFractionsByBarrierPerRole) {
  // Two consumer warps of 1000 ns each and a producer of 1000 ns, at 1000 MHz.
  Builder b(1, 3, 16);
  for (std::uint32_t w = 0; w < 3; ++w) {
    b.start(0, w, 0, 0, kEpochNs);
    b.end(0, w, 1000, kEpochNs + 1000);
  }
  b.stamp(0, 0, Span::kEmptyWait, false, 0);
  b.stamp(0, 0, Span::kEmptyWait, true, 500);
  b.stamp(0, 1, Span::kFullWait, false, 0);
  b.stamp(0, 1, Span::kFullWait, true, 100);
  b.stamp(0, 1, Span::kPingPongWait, false, 200);
  b.stamp(0, 1, Span::kPingPongWait, true, 500);
  b.stamp(0, 1, Span::kSoftmax, false, 500);  // work, not a wait
  b.stamp(0, 1, Span::kSoftmax, true, 900);
  b.stamp(0, 2, Span::kPingPongWait, false, 0);
  b.stamp(0, 2, Span::kPingPongWait, true, 100);
  DecodeOptions o = at_mhz(1000);
  o.role = [](std::uint32_t warp) { return warp == 0 ? std::string("producer") : std::string("consumer"); };
  const TimelineDecoded d = decode(b.raw, o);
  ASSERT_EQ(d.roles.size(), 2u);
  EXPECT_EQ(d.roles[0].role, "producer");
  EXPECT_EQ(d.roles[0].warps, 1u);
  EXPECT_DOUBLE_EQ(d.roles[0].wait_fraction, 0.5);
  const RoleSummary& c = d.roles[1];
  EXPECT_EQ(c.warps, 2u);
  EXPECT_DOUBLE_EQ(c.lifetime_ns, 2000);
  ASSERT_NE(share(c, Span::kFullWait), nullptr);
  EXPECT_DOUBLE_EQ(share(c, Span::kFullWait)->fraction, 100.0 / 2000);
  EXPECT_DOUBLE_EQ(share(c, Span::kPingPongWait)->ns, 400);
  EXPECT_DOUBLE_EQ(share(c, Span::kPingPongWait)->fraction, 400.0 / 2000);
  EXPECT_EQ(share(c, Span::kSoftmax), nullptr);
  EXPECT_DOUBLE_EQ(c.wait_fraction, 500.0 / 2000);
  EXPECT_EQ(d.sm_roles.size(), 2u);
}

// A build that stamps every k-th item only: a warp's stamps cover its sampled items, so its
// role's wait fraction is a share of those items' time, not of its lifetime.
TEST(TimelineDecode, UnderSamplingWaitFractionsAreSharesOfTheStampedItems) {
  // One consumer warp of 1000 ns whose one stamped item lasts 400 ns, 100 ns of it waiting.
  Builder b(1, 1, 16);
  b.start(0, 0, 0, 0, kEpochNs);
  b.stamp(0, 0, Span::kItem, false, 300, 5);
  b.stamp(0, 0, Span::kFullWait, false, 400, 5);
  b.stamp(0, 0, Span::kFullWait, true, 500, 5);
  b.stamp(0, 0, Span::kItem, true, 700, 5);
  b.end(0, 0, 1000, kEpochNs + 1000);
  DecodeOptions o = at_mhz(1000);
  const TimelineDecoded every = decode(b.raw, o);
  ASSERT_EQ(every.roles.size(), 1u);
  EXPECT_DOUBLE_EQ(every.roles[0].lifetime_ns, 1000);
  EXPECT_DOUBLE_EQ(every.roles[0].wait_fraction, 100.0 / 1000);
  o.sample_every = 4;
  const TimelineDecoded sampled = decode(b.raw, o);
  ASSERT_EQ(sampled.roles.size(), 1u);
  EXPECT_DOUBLE_EQ(sampled.roles[0].lifetime_ns, 400);
  EXPECT_DOUBLE_EQ(sampled.roles[0].wait_fraction, 100.0 / 400);
  EXPECT_DOUBLE_EQ(share(sampled.roles[0], Span::kFullWait)->fraction, 100.0 / 400);
  EXPECT_DOUBLE_EQ(sampled.span_ns, 1000);  // the span is the anchors', sampled or not
}

// Every k-th item: a persistent block of a static schedule (items b, b + grid, ...) stamps every
// k-th of its own, the blocks staggered; a grid of one item per block stamps every k-th block.
TEST(TimelineSampling, EveryKthItemOfEachBlockAndEveryKthBlock) {
  constexpr std::uint32_t kGrid = 132, kEvery = 8, kRounds = 32;
  for (std::uint32_t block = 0; block < kGrid; ++block) {
    std::uint32_t stamped = 0, first = kRounds;
    for (std::uint32_t n = 0; n < kRounds; ++n)
      if (sampled_item(block + n * kGrid, kGrid, kEvery)) {
        ++stamped;
        first = std::min(first, n);
      }
    EXPECT_EQ(stamped, kRounds / kEvery) << "block " << block;
    EXPECT_EQ(first, (kEvery - block % kEvery) % kEvery) << "block " << block;  // staggered
  }
  std::uint32_t blocks = 0;
  for (std::uint32_t b = 0; b < kGrid; ++b) blocks += sampled_item(b, kGrid, kEvery);
  EXPECT_EQ(blocks, (kGrid + kEvery - 1) / kEvery);
  for (std::uint32_t item = 0; item < 1000; ++item) EXPECT_TRUE(sampled_item(item, kGrid, 1));
}

TEST(TimelineDecode, AlignsSmsOnTheGlobaltimerAndPicturesOne) {
  // The SMs' cycle counters are unrelated; their warps started 200 ns apart on the globaltimer.
  Builder b(2, 1, 8);
  b.start(0, 0, 5, 1'000'000, kEpochNs);
  b.end(0, 0, 1'001'000, kEpochNs + 1000);
  b.start(1, 0, 9, 77'000'000'000ull, kEpochNs + 200);
  b.stamp(1, 0, Span::kSoftmax, false, 77'000'000'100ull);
  b.stamp(1, 0, Span::kSoftmax, true, 77'000'000'300ull);
  b.end(1, 0, 77'000'001'000ull, kEpochNs + 1200);
  b.stamp(0, 0, Span::kSoftmax, false, 1'000'010);
  b.stamp(0, 0, Span::kSoftmax, true, 1'000'020);
  DecodeOptions o = at_mhz(1000);
  o.sm = 9;
  const TimelineDecoded d = decode(b.raw, o);
  EXPECT_EQ(d.pictured_sm, 9u);
  ASSERT_EQ(d.warps.size(), 1u);
  EXPECT_EQ(d.warps[0].cta, 1u);
  EXPECT_DOUBLE_EQ(d.warps[0].start_ns, 200);
  EXPECT_DOUBLE_EQ(d.warps[0].spans[0].begin_ns, 300);
  EXPECT_DOUBLE_EQ(d.span_ns, 1200);
  EXPECT_EQ(d.roles.at(0).warps, 2u);     // every SM
  EXPECT_EQ(d.sm_roles.at(0).warps, 1u);  // the pictured one
  // The default pictures the first CTA's SM.
  EXPECT_EQ(decode(b.raw, at_mhz(1000)).pictured_sm, 5u);
  o.sm = 4;
  EXPECT_THROW(decode(b.raw, o), std::invalid_argument);
}

// The decoded block keeps the pictured SM's warps alone, and every SM's work items' critical
// paths (record/timeline_paths.hpp): here one item per SM, each bound by its own wait.
TEST(TimelineDecode, EverySmsItemsHaveTheirCriticalPaths) {
  Builder b(2, 1, 8);
  b.start(0, 0, 5, 1000, kEpochNs);
  b.stamp(0, 0, Span::kItem, false, 1000, 4);
  b.stamp(0, 0, Span::kFullWait, false, 1000, 4);
  b.stamp(0, 0, Span::kFullWait, true, 1600, 4);
  b.stamp(0, 0, Span::kItem, true, 2000, 4);
  b.end(0, 0, 2000, kEpochNs + 1000);
  b.start(1, 0, 9, 50'000, kEpochNs);
  b.stamp(1, 0, Span::kItem, false, 50'000, 7);
  b.stamp(1, 0, Span::kSoftmax, false, 50'100, 7);
  b.stamp(1, 0, Span::kSoftmax, true, 50'400, 7);
  b.stamp(1, 0, Span::kItem, true, 50'500, 7);
  b.end(1, 0, 51'000, kEpochNs + 1000);
  DecodeOptions o = at_mhz(1000);
  o.sm = 9;
  o.role = [](std::uint32_t) { return std::string("consumer 0"); };
  const TimelineDecoded d = decode(b.raw, o);
  ASSERT_EQ(d.warps.size(), 1u);
  ASSERT_TRUE(d.paths);
  ASSERT_EQ(d.paths->size(), 2u);
  // In order of their end: SM 9's item ends 500 ns after the launch's start, SM 5's at 1000 ns.
  const ItemPath& first = d.paths->at(0);
  EXPECT_EQ(first.smid, 9u);
  EXPECT_EQ(first.cta, 1u);
  EXPECT_EQ(first.item, 7u);
  EXPECT_EQ(first.role, "consumer 0");
  EXPECT_DOUBLE_EQ(first.ns[std::size_t(PathClass::kSoftmax)], 300);
  EXPECT_DOUBLE_EQ(first.ns[std::size_t(PathClass::kBetween)], 200);
  EXPECT_EQ(first.bound, PathClass::kSoftmax);
  const ItemPath& second = d.paths->at(1);
  EXPECT_EQ(second.smid, 5u);
  EXPECT_EQ(second.item, 4u);
  EXPECT_DOUBLE_EQ(second.ns[std::size_t(PathClass::kLoads)], 600);
  EXPECT_EQ(second.bound, PathClass::kLoads);
}

TEST(TimelineDecode, RefusesABadClockOrGeometry) {
  Builder b(1, 2, 4);
  EXPECT_THROW(decode(b.raw, at_mhz(0)), std::invalid_argument);
  EXPECT_THROW(decode(b.raw, at_mhz(NAN)), std::invalid_argument);
  b.raw.events.pop_back();
  EXPECT_THROW(decode(b.raw, at_mhz(1000)), std::invalid_argument);
}

TEST(TimelineDecode, SlotsThatNeverRanAreIgnored) {
  Builder b(2, 2, 4);
  b.start(0, 0, 1, 0, kEpochNs);
  b.stamp(0, 0, Span::kItem, false, 10);
  b.stamp(0, 0, Span::kItem, true, 20);
  b.end(0, 0, 30, kEpochNs + 30);
  const TimelineDecoded d = decode(b.raw, at_mhz(1000));
  EXPECT_EQ(d.warps.size(), 1u);
  EXPECT_DOUBLE_EQ(d.span_ns, 30);
}

// Two SMs whose counters start at unrelated values and tick at `mhz` (cycles per us), each
// running `ctas` CTAs of one warp one after another, each CTA `cta_ns` long; the globaltimer
// advances in steps of `tick_ns`, as the hardware's does, so each anchor is read up to a tick late.
RawTimeline steady_clock_launch(double mhz, std::uint32_t ctas, double cta_ns, std::uint64_t tick_ns) {
  Builder b(2 * ctas, 1, 4);
  const std::uint64_t counter0[2] = {123'456'789ull, 987'000'000'000ull};
  for (std::uint32_t sm = 0; sm < 2; ++sm)
    for (std::uint32_t i = 0; i < ctas; ++i) {
      const std::uint32_t cta = sm * ctas + i;
      const double start = i * cta_ns + sm * 37.0, end = start + cta_ns;  // [ns] true times
      const auto clock = [&](double ns) { return counter0[sm] + std::uint64_t(ns * mhz / 1000); };
      const auto timer = [&](double ns) { return kEpochNs + std::uint64_t(ns) / tick_ns * tick_ns; };
      b.start(cta, 0, sm, clock(start), timer(start));
      b.stamp(cta, 0, Span::kItem, false, clock(start + 10), i);
      b.stamp(cta, 0, Span::kItem, true, clock(end - 10), i);
      b.end(cta, 0, clock(end), timer(end));
    }
  return b.raw;
}

TEST(TimelineDecode, TheTimeAxisComesFromTheWarpsAnchors) {
  // Eight CTAs of 50 us per SM at 1792 MHz: the launch lasts 400 us (and 37 ns).
  const RawTimeline raw = steady_clock_launch(1792, 8, 50'000, 1000);
  const double truth = 8 * 50'000 + 37;
  const TimelineDecoded d = decode(raw, DecodeOptions{});
  EXPECT_EQ(d.clock_source, kClockAnchors);
  EXPECT_NEAR(d.anchor_clock_mhz, 1792, 1792 * 1e-3);
  EXPECT_DOUBLE_EQ(d.sm_clock_mhz, d.anchor_clock_mhz);  // the rate applied
  EXPECT_NEAR(d.span_ns, truth, truth * 0.005);
  ASSERT_FALSE(d.warps.empty());
  EXPECT_NEAR(d.warps[0].spans.at(0).end_ns - d.warps[0].spans.at(0).begin_ns, 50'000 - 20, 50);
  TimelineOverhead o;
  o.traced_launch_ns = truth;
  o.span_ns = d.span_ns;
  EXPECT_TRUE(span_agrees(o));
  // Converted at a clock 10% faster than the launch ran (a probe of the idle GPU), the span
  // comes out a tenth short and the check says so.
  const TimelineDecoded fast = decode(raw, at_mhz(1.1 * 1792));
  EXPECT_EQ(fast.clock_source, kClockGiven);
  EXPECT_NEAR(fast.span_ns, truth / 1.1, truth * 0.01);
  o.span_ns = fast.span_ns;
  EXPECT_FALSE(span_agrees(o));
}

TEST(TimelineDecode, WithoutAClockAnchorsThatGiveNoRateAreAnError) {
  // One warp whose start and end fall in one globaltimer tick: no rate to fit.
  Builder b(1, 1, 4);
  b.start(0, 0, 0, 1000, kEpochNs);
  b.end(0, 0, 1500, kEpochNs);
  EXPECT_THROW(decode(b.raw, DecodeOptions{}), std::runtime_error);
  EXPECT_NO_THROW(decode(b.raw, at_mhz(1000)));
}

// The tensor pipe over time, on a warp whose every span is known: at 1000 MHz (a cycle a ns), a
// rate of 100 FLOP per SM per cycle and 4 bins of 200 ns over its 800 ns.
//   QK^T issue of tile 1 [0, 100), PV issue of tile 0 [100, 200), wgmma wait of tile 1 [200, 300),
//   softmax [300, 500), wgmma wait of tile 0 [500, 600), a QK^T issue of tile 2 [650, 700) that
//   no wait covers. QK^T: 3000 FLOP over [0, 300); PV: 5000 FLOP over [100, 600).
// Bins: [0, 200) 2000 + 1000, [200, 400) 1000 + 2000, [400, 600) 2000, [600, 800) 0; over 200 ns
// x 100 FLOP per ns each: 15%, 15%, 10%, 0%; the whole 8000 over 800 ns x 100: 10%. A producer
// warp of the same SM and lifetime adds no active time (the SM's is the union of its warps').
TensorPipeInputs pipe_inputs() {
  TensorPipeInputs in;
  in.qk_flops = 3000;
  in.pv_flops = 5000;
  in.rate_name = "wgmma_fp16_m64n256k16";
  in.flop_per_sm_cycle = 100;
  in.rate_source = "test";
  in.bins = 4;
  return in;
}

RawTimeline pipe_launch() {
  Builder b(1, 2, 32);
  for (std::uint32_t w = 0; w < 2; ++w) b.start(0, w, 0, 0, kEpochNs);
  b.stamp(0, 1, Span::kQkIssue, false, 0, 1);
  b.stamp(0, 1, Span::kQkIssue, true, 100, 1);
  b.stamp(0, 1, Span::kPvIssue, false, 100, 0);
  b.stamp(0, 1, Span::kPvIssue, true, 200, 0);
  b.stamp(0, 1, Span::kWgmmaWait, false, 200, 1);
  b.stamp(0, 1, Span::kWgmmaWait, true, 300, 1);
  b.stamp(0, 1, Span::kSoftmax, false, 300, 1);
  b.stamp(0, 1, Span::kSoftmax, true, 500, 1);
  b.stamp(0, 1, Span::kWgmmaWait, false, 500, 0);
  b.stamp(0, 1, Span::kWgmmaWait, true, 600, 0);
  b.stamp(0, 1, Span::kQkIssue, false, 650, 2);
  b.stamp(0, 1, Span::kQkIssue, true, 700, 2);
  b.stamp(0, 0, Span::kEmptyWait, false, 100, 0);
  b.stamp(0, 0, Span::kEmptyWait, true, 700, 0);
  for (std::uint32_t w = 0; w < 2; ++w) b.end(0, w, 800, kEpochNs + 800);
  return b.raw;
}

TEST(TimelineTensorPipe, SpreadsEachIssueToItsCoveringWaitAndBinsIt) {
  DecodeOptions o = at_mhz(1000);
  o.role = [](std::uint32_t warp) { return warp == 0 ? std::string("producer") : std::string("consumer 0"); };
  o.tensor_pipe = pipe_inputs();
  const TimelineDecoded d = decode(pipe_launch(), o);
  ASSERT_TRUE(d.tensor_pipe);
  const TimelineTensorPipe& t = *d.tensor_pipe;
  EXPECT_FALSE(t.not_measured);
  EXPECT_EQ(t.issues, 2u);
  EXPECT_EQ(t.uncovered, 1u);
  EXPECT_DOUBLE_EQ(t.issued_flops, 8000);
  EXPECT_DOUBLE_EQ(t.active_sm_ns, 800);
  EXPECT_DOUBLE_EQ(t.bin_ns, 200);
  EXPECT_NEAR(t.average, 0.10, 1e-12);
  ASSERT_EQ(t.roles.size(), 1u);  // the producer issues no GEMM
  EXPECT_EQ(t.roles[0].role, "consumer 0");
  EXPECT_NEAR(t.roles[0].average, 0.10, 1e-12);
  const std::vector<double> want = {0.15, 0.15, 0.10, 0.0};
  ASSERT_EQ(t.roles[0].bins.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(t.roles[0].bins[i], want[i], 1e-12) << "bin " << i;
}

// Under sampling an SM is active for the tensor pipe while its GEMM-issuing warps are in a
// stamped item: the consumer's item [0, 800) here, not the producer's, which begins 400 ns
// before it (the producer loads ahead while the consumers finish an item that is not stamped).
TEST(TimelineTensorPipe, UnderSamplingTheActiveTimeIsTheConsumersStampedItems) {
  Builder b(1, 2, 32);
  b.start(0, 0, 0, 0, kEpochNs);
  b.start(0, 1, 0, 0, kEpochNs);
  b.stamp(0, 0, Span::kItem, false, 0, 5);
  b.stamp(0, 0, Span::kItem, true, 300, 5);
  b.stamp(0, 1, Span::kItem, false, 400, 5);
  b.stamp(0, 1, Span::kQkIssue, false, 400, 0);
  b.stamp(0, 1, Span::kQkIssue, true, 500, 0);
  b.stamp(0, 1, Span::kWgmmaWait, false, 500, 0);
  b.stamp(0, 1, Span::kWgmmaWait, true, 700, 0);
  b.stamp(0, 1, Span::kItem, true, 1200, 5);
  for (std::uint32_t w = 0; w < 2; ++w) b.end(0, w, 1200, kEpochNs + 1200);
  DecodeOptions o = at_mhz(1000);
  o.sample_every = 4;
  o.tensor_pipe = pipe_inputs();
  const TimelineDecoded d = decode(b.raw, o);
  ASSERT_TRUE(d.tensor_pipe);
  EXPECT_DOUBLE_EQ(d.tensor_pipe->active_sm_ns, 800);
  EXPECT_NEAR(d.tensor_pipe->average, 3000.0 / (100 * 800), 1e-12);
  o.sample_every = 1;  // every item stamped: the warps' lifetimes
  EXPECT_DOUBLE_EQ(decode(b.raw, o).tensor_pipe->active_sm_ns, 1200);
}

TEST(TimelineTensorPipe, APolicyWithoutIssueSpansSaysNotMeasured) {
  DecodeOptions o = at_mhz(1000);
  o.tensor_pipe = pipe_inputs();
  o.tensor_pipe->not_measured = "the stamp policy global-boundaries stamps no issue spans";
  const TimelineDecoded d = decode(pipe_launch(), o);
  ASSERT_TRUE(d.tensor_pipe);
  EXPECT_EQ(d.tensor_pipe->not_measured, o.tensor_pipe->not_measured);
  EXPECT_EQ(d.tensor_pipe->issues, 0u);
  EXPECT_TRUE(d.tensor_pipe->roles.empty());
  const auto j = to_json([&] {
    TimelineRecord r;
    r.timeline = d;
    return r;
  }());
  EXPECT_FALSE(j["timeline"]["tensor_pipe"].contains("average"));
  EXPECT_FALSE(stamps_issue_spans(StampPolicy::kGlobalBoundaries));
  EXPECT_FALSE(stamps_issue_spans(StampPolicy::kSharedBoundaries));
  EXPECT_FALSE(stamps_issue_spans(StampPolicy::kGlobalConsumers));
  EXPECT_TRUE(stamps_issue_spans(StampPolicy::kGlobal));
  EXPECT_TRUE(stamps_issue_spans(StampPolicy::kShared));
}

TimelineRecord sample_record() {
  Builder b(1, 2, 8);
  for (std::uint32_t w = 0; w < 2; ++w) {
    b.start(0, w, 0, 0, kEpochNs);
    b.stamp(0, w, Span::kQkIssue, false, 100, 3);
    b.stamp(0, w, Span::kQkIssue, true, 150, 3);
    b.stamp(0, w, Span::kWgmmaWait, false, 150, 3);
    b.stamp(0, w, Span::kWgmmaWait, true, 400, 3);
    b.end(0, w, 500, kEpochNs + 500);
  }
  DecodeOptions o = at_mhz(1000);
  o.role = [](std::uint32_t warp) { return "consumer " + std::to_string(warp); };
  o.tensor_pipe = pipe_inputs();
  TimelineRecord r = test::phase5_record("2026-11-26T00:00:00Z");
  r.provenance.gpu.name = "H100";
  r.events_per_warp = 16;
  r.launches = 5;
  r.requested_sm = 0;
  r.stamps = "shared";
  r.stamp_sample = 4;
  r.grid_ctas = 1;
  r.block_threads = 64;
  r.sm_clock_mhz_before = 1000;
  r.sm_clock_mhz_after = 1000;
  TimelineOverhead ov;
  ov.normal_ns = {400, 410, 420};
  ov.timeline_ns = {450, 460, 470};
  ov.normal_median_ns = 410;
  ov.timeline_median_ns = 460;
  ov.overhead_ns = 50;
  ov.overhead_fraction = 50.0 / 410;
  ov.traced_launch_ns = 520;
  ov.span_ns = 500;
  ov.tolerance_ns = 50;
  ov.span_matches = true;
  r.overhead = ov;
  r.timeline = decode(b.raw, o);
  return r;
}

TEST(TimelineRecord, RoundTripsThroughItsJson) {
  const TimelineRecord r = sample_record();
  const auto j = to_json(r);
  EXPECT_EQ(j["schema"], kTimelineSchema);
  const TimelineRecord back = read_timeline_record(j);
  EXPECT_EQ(to_json(back), j);
  ASSERT_TRUE(back.timeline);
  ASSERT_EQ(back.timeline->warps.size(), 2u);
  EXPECT_EQ(back.timeline->warps[1].spans[1].kind, Span::kWgmmaWait);
  EXPECT_DOUBLE_EQ(back.timeline->roles[0].waits.at(0).fraction, 250.0 / 500);
  EXPECT_EQ(back.stamps, std::optional<std::string>("shared"));
  EXPECT_EQ(back.stamp_sample, std::optional<std::uint32_t>(4));
  ASSERT_TRUE(back.timeline->tensor_pipe);
  EXPECT_EQ(back.timeline->tensor_pipe->roles.size(), 2u);
  // Whether a calibration gave the rate; records made before that was written say it by the
  // rate's source, which began "calibration " where one did.
  EXPECT_EQ(j["timeline"]["tensor_pipe"]["rate_from"], "ceiling");
  auto unsaid = j;
  unsaid["timeline"]["tensor_pipe"].erase("rate_from");
  EXPECT_FALSE(read_timeline_record(unsaid).timeline->tensor_pipe->from_calibration);
  unsaid["timeline"]["tensor_pipe"]["rate_source"] = "calibration c.json (wgmma_fp16_m64n256k16, per SM per cycle)";
  EXPECT_TRUE(read_timeline_record(unsaid).timeline->tensor_pipe->from_calibration);
  // Records made before the tensor pipe was measured have none.
  auto before = j;
  before["timeline"].erase("tensor_pipe");
  EXPECT_FALSE(read_timeline_record(before).timeline->tensor_pipe);
  // Records made before the policy and the sampling were choices have neither.
  auto old = j;
  old["options"].erase("stamps");
  old["options"].erase("stamp_sample");
  EXPECT_FALSE(read_timeline_record(old).stamps);
  EXPECT_FALSE(read_timeline_record(old).stamp_sample);
}

// Whether the launches were cold (attnlab-timeline --cold) goes through the record; a record made
// before it was a choice ran warm.
TEST(TimelineRecord, TheRegimeRoundTripsAndAnOlderRecordWasWarm) {
  TimelineRecord r = sample_record();
  EXPECT_EQ(to_json(r)["options"]["cold"], false);
  r.cold = true;
  const auto j = to_json(r);
  EXPECT_EQ(j["options"]["cold"], true);
  EXPECT_TRUE(read_timeline_record(j).cold);
  auto old = j;
  old["options"].erase("cold");
  EXPECT_FALSE(read_timeline_record(old).cold);
  auto wrong = j;
  wrong["options"]["cold"] = "yes";
  EXPECT_THROW(read_timeline_record(wrong), FieldError);
}

// Every SM's item paths and the launch's work items go through the record: rows of the classes
// with time; a record made before either has neither, and an unknown class is named.
TEST(TimelineRecord, PathsAndWorkItemsRoundTrip) {
  TimelineRecord r = sample_record();
  r.work_items = 4096;
  ItemPath p;
  p.cta = 3;
  p.item = 130;
  p.smid = 17;
  p.warp = 9;
  p.role = "consumer 1";
  p.begin_ns = 100;
  p.end_ns = 400;
  p.ns[std::size_t(PathClass::kLoads)] = 200;
  p.ns[std::size_t(PathClass::kBetween)] = 100;
  p.bound = PathClass::kLoads;
  r.timeline->paths = std::vector<ItemPath>{p};
  const auto j = to_json(r);
  EXPECT_EQ(j["timeline"]["paths"][0][7].size(), 2u) << "only the classes with time";
  EXPECT_EQ(j["kernel"]["work_items"], 4096);
  const TimelineRecord back = read_timeline_record(j);
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.work_items, std::optional<std::int64_t>(4096));
  ASSERT_TRUE(back.timeline->paths);
  ASSERT_EQ(back.timeline->paths->size(), 1u);
  const ItemPath& q = back.timeline->paths->at(0);
  EXPECT_EQ(q.smid, 17u);
  EXPECT_EQ(q.role, "consumer 1");
  EXPECT_DOUBLE_EQ(q.ns[std::size_t(PathClass::kLoads)], 200);
  EXPECT_EQ(q.bound, PathClass::kLoads);
  auto old = j;
  old["timeline"].erase("paths");
  old["kernel"].erase("work_items");
  EXPECT_FALSE(read_timeline_record(old).timeline->paths);
  EXPECT_FALSE(read_timeline_record(old).work_items);
  auto bad = j;
  bad["timeline"]["paths"][0][7]["naps"] = 5;
  try {
    read_timeline_record(bad);
    FAIL() << "an unknown path class was read";
  } catch (const FieldError& e) {
    EXPECT_NE(std::string(e.what()).find("/timeline/paths/0/7"), std::string::npos) << e.what();
  }
  std::ifstream fixture(ATTNLAB_FIXTURES_DIR "/h100-phase4-run.json");
  r.provenance = read_provenance(nlohmann::ordered_json::parse(fixture), "/provenance");
  attnlab::testing::expect_valid_record(ATTNLAB_SOURCE_DIR, to_json(r), "timeline");
}

TEST(TimelineRecord, ReaderNamesAMissingOrWrongField) {
  auto j = to_json(sample_record());
  j["schema"] = "attnlab.timeline/0";
  EXPECT_THROW(read_timeline_record(j), FieldError);
  j = to_json(sample_record());
  j["timeline"]["warps"][0]["spans"][0][0] = "nap";
  try {
    read_timeline_record(j);
    FAIL() << "an unknown span kind was read";
  } catch (const FieldError& e) {
    EXPECT_NE(std::string(e.what()).find("/timeline/warps/0/spans/0/0"), std::string::npos) << e.what();
  }
  j = to_json(sample_record());
  j["overhead"].erase("span_matches");
  EXPECT_THROW(read_timeline_record(j), FieldError);
}

TEST(TimelineRecord, SpanAgreesWithinFivePercentOfCuptiAndTheLaunchFloor) {
  TimelineOverhead o;
  o.traced_launch_ns = 1000;  // kSpanAgreement of it: 50 ns
  o.tolerance_ns = 1e9;       // what the record says it allowed plays no part
  o.span_ns = 1050;           // longer than the launch by the bound: stamps shifted
  EXPECT_TRUE(span_agrees(o));
  o.span_ns = 1051;
  EXPECT_FALSE(span_agrees(o));
  o.span_ns = 940;  // shorter by more than the bound, no launch floor
  EXPECT_FALSE(span_agrees(o));
  o.launch_floor_ns = 10;  // the launch floor covers the rest
  EXPECT_TRUE(span_agrees(o));
  o.span_ns = 939;
  EXPECT_FALSE(span_agrees(o));
  o.span_ns = 800;  // a tenth short, as cycles converted at a clock 10% too fast read
  EXPECT_FALSE(span_agrees(o));
  TimelineRecord r = sample_record();
  r.overhead->launch_floor_ns = 900;
  const TimelineRecord back = read_timeline_record(to_json(r));
  EXPECT_EQ(back.overhead->launch_floor_ns, 900);
}

TEST(TimelineRecord, SpanNamesRoundTrip) {
  for (unsigned k = 0; k < unsigned(Span::kCount); ++k)
    EXPECT_EQ(parse_span(span_name(Span(k)), "/x"), Span(k));
}

TEST(TimelineRecord, ChromeTraceHasOneCompleteEventPerSpanInMicroseconds) {
  const TimelineRecord r = sample_record();
  const auto t = chrome_trace_json(r);
  int complete = 0, meta = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_GE(e["dur"].get<double>(), 0);
    } else if (e["ph"] == "M") {
      ++meta;
    }
  }
  EXPECT_EQ(complete, 4);
  EXPECT_EQ(meta, 6);  // process name, thread name and order per warp
  const auto& first = t["traceEvents"][3];
  EXPECT_EQ(first["name"], "QK^T issue");
  EXPECT_DOUBLE_EQ(first["ts"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(first["dur"].get<double>(), 0.05);
  EXPECT_EQ(t["traceEvents"][4]["cat"], "wait");
}

// The writer's output against record/schema/attnlab.timeline-1.schema.json, through the same
// validator CI runs on committed records (skipped without python3's jsonschema: exit 77).
TEST(TimelineRecord, MatchesItsJsonSchema) {
  TimelineRecord r = sample_record();
  // A real provenance block: the committed H100 fixture's.
  std::ifstream fixture(ATTNLAB_FIXTURES_DIR "/h100-phase4-run.json");
  r.provenance = read_provenance(nlohmann::ordered_json::parse(fixture), "/provenance");
  attnlab::testing::expect_valid_record(ATTNLAB_SOURCE_DIR, to_json(r), "timeline");
}

}  // namespace
}  // namespace attnlab::timeline
