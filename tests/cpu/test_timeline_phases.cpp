// The per-item stamp policies without a GPU: global-phases (a work item's spans, its prologue
// stamped at its end alone) and global-phases-leads (the same in each warpgroup's first warp, the
// other warps' slots left empty), decoded from synthetic buffers, and their record's JSON.
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "common/shapes.hpp"
#include "profiler/timeline_decode.hpp"
#include "record/timeline.hpp"
#include "tests/cpu/timeline_builder.hpp"
#include "tests/validate_records.hpp"

namespace attnlab::timeline {
namespace {

using test::kEpochNs;

// A launch's buffer as GlobalStamps writes it: a block's anchors in one warp's slot, the other
// warps' stamps alone.
struct Buffer : test::Builder {
  using Builder::Builder;
  RawSlot& slot(std::uint32_t cta, std::uint32_t warp) {
    return raw.slots[std::size_t(cta) * raw.warps_per_cta + warp];
  }
  // The block's anchors, in slot (cta, warp), on `sm` from cycle `clock` for `cycles` (at 1000 MHz).
  void anchor(std::uint32_t cta, std::uint32_t warp, std::uint32_t sm, std::uint64_t clock, std::uint64_t cycles) {
    start(cta, warp, sm, clock, kEpochNs);
    end(cta, warp, clock + cycles, kEpochNs + cycles);
  }
  // One work item as a consumer warp stamps it under global-phases: its begin, the prologue's
  // end (no begin stamp), the epilogue's two and its end.
  void item(std::uint32_t cta, std::uint32_t warp, std::uint32_t item, std::uint64_t at) {
    stamp(cta, warp, Span::kItem, false, at, item);
    stamp(cta, warp, Span::kPrologue, true, at + 300, 0);
    stamp(cta, warp, Span::kEpilogue, false, at + 700, item);
    stamp(cta, warp, Span::kEpilogue, true, at + 800, item);
    stamp(cta, warp, Span::kItem, true, at + 850, item);
  }
};

DecodeOptions in_cycles(StampPolicy policy) {
  DecodeOptions o;
  o.sm_clock_mhz = 1000;  // a cycle a nanosecond
  o.policy = policy;
  o.role = [](std::uint32_t warp) {
    return warp < 4 ? std::string("producer") : "consumer " + std::to_string(warp / 4 - 1);
  };
  return o;
}

const TimelineSpan* find(const TimelineWarp& w, Span kind, std::size_t nth = 0) {
  for (const auto& s : w.spans)
    if (s.kind == kind && nth-- == 0) return &s;
  return nullptr;
}

// The kernels stamp a prologue's end alone: the decoder begins it at its work item's begin, and
// takes the item's index from there (the end's tag carries the key tile's).
TEST(TimelinePhases, APrologueBeginsWithItsWorkItem) {
  Buffer b(1, 1, 32);
  b.anchor(0, 0, 2, 10'000, 3000);
  b.item(0, 0, 7, 10'100);
  b.item(0, 0, 8, 11'100);
  const TimelineDecoded d = decode(b.raw, in_cycles(StampPolicy::kGlobalPhases));
  ASSERT_EQ(d.warps.size(), 1u);
  const TimelineWarp& w = d.warps[0];
  EXPECT_EQ(w.unmatched, 0u);
  EXPECT_EQ(w.spans.size(), 6u);
  for (std::size_t n = 0; n < 2; ++n) {
    const TimelineSpan* item = find(w, Span::kItem, n);
    const TimelineSpan* prologue = find(w, Span::kPrologue, n);
    ASSERT_NE(item, nullptr);
    ASSERT_NE(prologue, nullptr);
    EXPECT_DOUBLE_EQ(prologue->begin_ns, item->begin_ns) << "item " << n;
    EXPECT_DOUBLE_EQ(prologue->end_ns - prologue->begin_ns, 300) << "item " << n;
    EXPECT_EQ(prologue->item, 7u + n);
  }
  // Not a wait: the role's waiting time holds none of it.
  ASSERT_EQ(d.roles.size(), 1u);
  EXPECT_DOUBLE_EQ(d.roles[0].wait_fraction, 0);
}

// One prologue per item: a second end in the same item, or one outside any item, has no begin.
// A prologue stamped at both ends pairs as any span does.
TEST(TimelinePhases, APrologueEndWithoutItsItemIsUnmatched) {
  Buffer b(1, 1, 32);
  b.anchor(0, 0, 0, 0, 5000);
  b.stamp(0, 0, Span::kPrologue, true, 50, 0);  // before any item
  b.stamp(0, 0, Span::kItem, false, 100, 3);
  b.stamp(0, 0, Span::kPrologue, true, 200, 0);
  b.stamp(0, 0, Span::kPrologue, true, 250, 0);  // a second one in the item
  b.stamp(0, 0, Span::kItem, true, 400, 3);
  b.stamp(0, 0, Span::kPrologue, true, 450, 0);  // after the item's end
  b.stamp(0, 0, Span::kPrologue, false, 500, 4);
  b.stamp(0, 0, Span::kPrologue, true, 600, 4);
  const TimelineDecoded d = decode(b.raw, in_cycles(StampPolicy::kGlobal));
  ASSERT_EQ(d.warps.size(), 1u);
  EXPECT_EQ(d.unmatched, 3u);
  const TimelineSpan* first = find(d.warps[0], Span::kPrologue, 0);
  const TimelineSpan* both_ends = find(d.warps[0], Span::kPrologue, 1);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(both_ends, nullptr);
  EXPECT_DOUBLE_EQ(first->end_ns - first->begin_ns, 100);
  EXPECT_DOUBLE_EQ(both_ends->end_ns - both_ends->begin_ns, 100);
  EXPECT_EQ(find(d.warps[0], Span::kPrologue, 2), nullptr);
}

// Phase 5's block under global-phases-leads: 4 warpgroups of 4 warps; the producer's first warp
// stamps its item, each consumer's first warp its own, the last warpgroup's first warp anchors
// the block, and the 12 other warps store nothing. Their slots are the policy's: not warps of the
// timeline, not an error, counted apart; a block that never ran counts none.
Buffer leads_launch() {
  Buffer b(2, 16, 32);
  b.anchor(0, 12, 1, 50'000, 2000);
  b.stamp(0, 0, Span::kItem, false, 50'020, 0);
  b.stamp(0, 0, Span::kItem, true, 50'600, 0);
  for (std::uint32_t lead : {4u, 8u, 12u}) b.item(0, lead, 0, 50'100 + 10 * lead);
  return b;
}

TEST(TimelinePhases, UnderLeadsTheOtherWarpsSlotsAreEmptyByPolicy) {
  const Buffer b = leads_launch();
  const TimelineDecoded d = decode(b.raw, in_cycles(StampPolicy::kGlobalPhasesLeads));
  EXPECT_EQ(d.warps_unstamped_by_policy, 12u);
  ASSERT_EQ(d.warps.size(), 4u);
  for (const TimelineWarp& w : d.warps) {
    EXPECT_EQ(w.warp % kWarpsPerWarpgroup, 0u) << "warp " << w.warp;
    EXPECT_EQ(w.smid, 1u);
    EXPECT_EQ(w.unmatched, 0u);
  }
  EXPECT_EQ(d.stamps, 2u + 3u * 5u);
  ASSERT_EQ(d.roles.size(), 4u);
  for (const RoleSummary& r : d.roles) EXPECT_EQ(r.warps, 1u) << r.role;
  EXPECT_DOUBLE_EQ(d.span_ns, 2000);
  // The same buffer read as a build that stamps every warp: the empty slots are no one's.
  EXPECT_EQ(decode(b.raw, in_cycles(StampPolicy::kGlobalPhases)).warps_unstamped_by_policy, 0u);
}

TEST(TimelinePhases, UnderLeadsAWrittenSlotOfAnotherWarpIsAnotherBuildsBuffer) {
  Buffer b = leads_launch();
  b.slot(0, 5).count = 0;
  b.stamp(0, 5, Span::kItem, false, 50'100, 0);
  EXPECT_THROW(decode(b.raw, in_cycles(StampPolicy::kGlobalPhasesLeads)), std::invalid_argument);
  EXPECT_EQ(decode(b.raw, in_cycles(StampPolicy::kGlobalPhases)).warps.size(), 5u);
}

TEST(TimelinePhases, PoliciesNameThemselvesAndTheirWarps) {
  EXPECT_STREQ(stamp_policy_name(StampPolicy::kGlobalPhases), "global-phases");
  EXPECT_STREQ(stamp_policy_name(StampPolicy::kGlobalPhasesLeads), "global-phases-leads");
  EXPECT_STREQ(span_name(Span::kPrologue), "prologue");
  EXPECT_FALSE(is_wait(Span::kPrologue));
  EXPECT_FALSE(stamps_issue_spans(StampPolicy::kGlobalPhases));
  EXPECT_FALSE(stamps_issue_spans(StampPolicy::kGlobalPhasesLeads));
  for (std::uint32_t warp = 0; warp < 16; ++warp) {
    EXPECT_TRUE(policy_stamps_warp(StampPolicy::kGlobalPhases, warp));
    EXPECT_EQ(policy_stamps_warp(StampPolicy::kGlobalPhasesLeads, warp), warp % 4 == 0) << "warp " << warp;
  }
}

TimelineRecord leads_record() {
  TimelineRecord r = test::phase5_record("2026-11-30T00:00:00Z");
  r.events_per_warp = 32;
  r.launches = 41;
  r.stamps = stamp_policy_name(StampPolicy::kGlobalPhasesLeads);
  r.stamp_sample = 1;
  r.grid_ctas = 2;
  r.block_threads = 512;
  r.timeline = decode(leads_launch().raw, in_cycles(StampPolicy::kGlobalPhasesLeads));
  return r;
}

// The count of the policy's empty slots travels with the record (absent where there are none, as
// in every record of the other policies), and the record stays valid against its schema.
TEST(TimelinePhases, TheRecordKeepsTheEmptySlotsAndThePrologue) {
  TimelineRecord r = leads_record();
  std::ifstream fixture(ATTNLAB_FIXTURES_DIR "/h100-phase4-run.json");
  r.provenance = read_provenance(nlohmann::ordered_json::parse(fixture), "/provenance");
  const auto j = to_json(r);
  EXPECT_EQ(j["timeline"]["warps_unstamped_by_policy"], 12);
  const TimelineRecord back = read_timeline_record(j);
  EXPECT_EQ(back.timeline->warps_unstamped_by_policy, 12u);
  EXPECT_EQ(to_json(back), j);
  attnlab::testing::expect_valid_record(ATTNLAB_SOURCE_DIR, j, "timeline");
  TimelineRecord every = r;
  every.timeline->warps_unstamped_by_policy = 0;
  EXPECT_FALSE(to_json(every)["timeline"].contains("warps_unstamped_by_policy"));
  EXPECT_EQ(read_timeline_record(to_json(every)).timeline->warps_unstamped_by_policy, 0u);
}

}  // namespace
}  // namespace attnlab::timeline
