// Warp-role timelines on the device, for every stamping policy (each test is typed over them,
// whichever one the build's ATTNLAB_TIMELINE_STAMPS picks for the phases): a kernel with a known
// wait (one warp spins a given number of clock64 cycles before it arrives at a named barrier
// that another warp waits on) must decode to a wait of that many cycles, and a slot that
// overflows must count its lost stamps without writing into its neighbour's.
#include "kernels/timeline.cuh"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/check.hpp"
#include "kernels/timeline_host.hpp"
#include "profiler/timeline_decode.hpp"
#include "tests/gpu/known_spin.cuh"

namespace attnlab::timeline {
namespace {

using test::kCyclesAsNs;
using test::kSpin;
using test::stamped_spin;

// Warp 1 works (spins) for `spin` cycles, then arrives at barrier 1; warp 0 waits there.
template <class Stamps>
__global__ void known_wait(long long spin, const __grid_constant__ DeviceView view) {
  Stamps tl{view};
  if (threadIdx.x / 32 == 1) {
    stamped_spin(tl, spin, Span::kSoftmax);
    asm volatile("bar.arrive 1, 64;" ::: "memory");
  } else {
    tl.begin(Span::kPingPongWait, 0);
    asm volatile("bar.sync 1, 64;" ::: "memory");
    tl.end(Span::kPingPongWait, 0);
  }
}

// The same known wait on an mbarrier, as a consumer waits for a copy to land, through the
// stamped wait (StampCalls::wait): the full-barrier wait, whose end stamp reads the clock
// without the ordering load (needs_ordering), since the wait's try_wait loop branches on its
// result.
template <class Stamps>
__global__ void known_mbarrier_wait(long long spin, const __grid_constant__ DeviceView view) {
  __shared__ std::uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  Stamps tl{view};
  if (threadIdx.x / 32 == 1) {
    stamped_spin(tl, spin, Span::kSoftmax);
    if (threadIdx.x == 32) (void)cuda::ptx::mbarrier_arrive(&bar);
  } else {
    tl.wait(Span::kFullWait, 0, [&] { return hopper::barrier_ready(&bar, 0); }, [&] { hopper::wait_barrier(&bar, 0); });
  }
}

// A stamped wait on an mbarrier whose phase has completed before it is asked for: no stamps.
template <class Stamps>
__global__ void ready_mbarrier_wait(const __grid_constant__ DeviceView view) {
  __shared__ std::uint64_t bar;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&bar, 1);
    (void)cuda::ptx::mbarrier_arrive(&bar);
  }
  __syncthreads();
  Stamps tl{view};
  tl.wait(Span::kFullWait, 0, [&] { return hopper::barrier_ready(&bar, 0); }, [&] { hopper::wait_barrier(&bar, 0); });
}

// Every warp stamps `n` begin/end pairs.
template <class Stamps>
__global__ void many_stamps(int n, const __grid_constant__ DeviceView view) {
  Stamps tl{view};
  for (int i = 0; i < n; ++i) {
    tl.begin(Span::kSoftmax, i);
    tl.end(Span::kSoftmax, i);
  }
}

// As a producer stamps: lane 0 of each warp alone, while the warp's other lanes have left (a
// span every policy stamps, the full-barrier wait).
template <class Stamps>
__global__ void lane0_stamps(int n, const __grid_constant__ DeviceView view) {
  Stamps tl{view};
  if (threadIdx.x % 32 != 0) return;
  for (int i = 0; i < n; ++i) {
    tl.begin(Span::kFullWait, i);
    tl.end(Span::kFullWait, i);
  }
}

// Every span kind once, begin and end, by every warp.
template <class Stamps>
__global__ void every_span(const __grid_constant__ DeviceView view) {
  Stamps tl{view};
  for (unsigned k = 0; k < unsigned(Span::kCount); ++k) {
    tl.begin(Span(k), k);
    tl.end(Span(k), k);
  }
}

// Every warp walks `items` work items of its block, the block's share of a static schedule
// (items b, b + grid, ...), stamping each item and a softmax inside it, and a wait before each
// item, outside it.
template <class Stamps>
__global__ void items_walk(int items, const __grid_constant__ DeviceView view) {
  Stamps tl{view};
  for (int n = 0; n < items; ++n) {
    const std::uint32_t w = blockIdx.x + n * gridDim.x;
    tl.begin(Span::kFullWait, w);
    tl.end(Span::kFullWait, w);
    tl.begin(Span::kItem, w);
    tl.begin(Span::kSoftmax, w);
    tl.end(Span::kSoftmax, w);
    tl.end(Span::kItem, w);
  }
}

template <class Stamps>
class TimelineGpu : public ::testing::Test {};
// The shared policies hand their stamps to the copy engine a half ring (kHalfStamps) at a time;
// the tests' stamp counts cross several halves and end in a partial one.
using Policies = ::testing::Types<GlobalStamps<kEverySpan>, GlobalStamps<kBoundarySpans>, SharedStamps<kEverySpan>,
                                  SharedStamps<kBoundarySpans>, GlobalStamps<kConsumerSpans>>;
class PolicyName {
 public:
  template <class T>
  static std::string GetName(int) {
    if (std::is_same_v<T, GlobalStamps<kEverySpan>>) return "global";
    if (std::is_same_v<T, GlobalStamps<kBoundarySpans>>) return "global_boundaries";
    if (std::is_same_v<T, SharedStamps<kEverySpan>>) return "shared";
    if (std::is_same_v<T, GlobalStamps<kConsumerSpans>>) return "global_consumers";
    return "shared_boundaries";
  }
};
TYPED_TEST_SUITE(TimelineGpu, Policies, PolicyName);

const TimelineSpan* find_span(const TimelineWarp& w, Span k) {
  for (const auto& s : w.spans)
    if (s.kind == k) return &s;
  return nullptr;
}

// The last warp's slot of `slot`'s block: under a policy with kAnchorsPerBlock, the one slot of
// the block that holds anchors.
std::size_t block_last_slot(const RawTimeline& raw, std::size_t slot) {
  return (slot / raw.warps_per_cta + 1) * raw.warps_per_cta - 1;
}

// Slot `slot`'s first n stamps, widened (their clocks whole, their tags split) from the start
// anchor that places them: the slot's own, or its block's anchoring slot's.
std::vector<Stamp> stamps_of(const RawTimeline& raw, std::size_t slot, std::uint32_t n) {
  const RawSlot& anchor = raw.slots[slot].started ? raw.slots[slot] : raw.slots[block_last_slot(raw, slot)];
  return widen(raw.events.data() + slot * raw.capacity, n, anchor.start_clock);
}

// Whether the policy's anchors are in slot `slot` after a launch in which its warp ran: in every
// warp's slot, or under kAnchorsPerBlock in the block's last warp's only.
template <class Policy>
std::uint32_t expected_started(const RawTimeline& raw, std::size_t slot) {
  return !Policy::kAnchorsPerBlock || slot == block_last_slot(raw, slot) ? 1u : 0u;
}

// Launches `kernel` (warp 1 spins kSpin cycles as a softmax span, warp 0 waits for it in a span
// of kind `wait_kind`) and checks that the decoded wait covers the spin.
void expect_wait_covers_spin(void (*kernel)(long long, DeviceView), Span wait_kind) {
  const TimelineDecoded d = test::run_known_spin(kernel, 64, DecodeOptions{});
  ASSERT_EQ(d.warps.size(), 2u);
  EXPECT_EQ(d.unmatched, 0u);
  EXPECT_EQ(d.overflow, 0u);
  const TimelineSpan* wait = find_span(d.warps[0], wait_kind);
  const TimelineSpan* spin = find_span(d.warps[1], Span::kSoftmax);
  ASSERT_NE(wait, nullptr);
  ASSERT_NE(spin, nullptr);
  const double spin_cycles = spin->end_ns - spin->begin_ns;
  const double wait_cycles = wait->end_ns - wait->begin_ns;
  // The spin loop ends within one iteration of kSpin; the wait adds the barrier's release and the
  // warps' start skew. A twentieth of the spin bounds both with a wide margin.
  const double tol = kSpin / 20.0;
  EXPECT_GE(spin_cycles, kSpin);
  EXPECT_LE(spin_cycles, kSpin + tol);
  EXPECT_NEAR(wait_cycles, spin_cycles, tol);
  // On one SM both warps read one counter: the wait cannot end before the spin did.
  EXPECT_EQ(d.warps[0].smid, d.warps[1].smid);
  EXPECT_GT(wait->end_ns, spin->end_ns);
  EXPECT_LE(wait->begin_ns, spin->begin_ns + tol);
  ASSERT_EQ(d.sm_roles.size(), 2u);
  EXPECT_GT(d.roles[0].wait_fraction, 0.5);  // warp 0 did nothing but wait
}

TYPED_TEST(TimelineGpu, DecodedWaitCoversTheKnownSpin) {
  expect_wait_covers_spin(known_wait<TypeParam>, Span::kPingPongWait);
}

TYPED_TEST(TimelineGpu, DecodedMbarrierWaitCoversTheKnownSpin) {
  expect_wait_covers_spin(known_mbarrier_wait<TypeParam>, Span::kFullWait);
}

TYPED_TEST(TimelineGpu, OverflowIsCountedAndStaysInItsSlot) {
  const DeviceTimeline buffer(2, 2, 8);
  buffer.attach();
  buffer.clear(nullptr);
  many_stamps<TypeParam><<<2, 64>>>(10, attached_view());  // 20 stamps per warp into 8 places
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  for (std::size_t slot = 0; slot < raw.slots.size(); ++slot) {
    EXPECT_EQ(raw.slots[slot].count, 20u);
    EXPECT_EQ(raw.slots[slot].started, expected_started<TypeParam>(raw, slot)) << "slot " << slot;
    // Each slot holds its own first 8 stamps: 4 begin/end pairs of items 0..3.
    const std::vector<Stamp> ev = stamps_of(raw, slot, raw.capacity);
    for (std::uint32_t e = 0; e < raw.capacity; ++e) EXPECT_EQ(ev[e].item, e / 2) << "slot " << slot << " event " << e;
  }
  DecodeOptions o;
  o.sm_clock_mhz = kCyclesAsNs;
  const TimelineDecoded d = decode(raw, o);
  EXPECT_EQ(d.overflow, 4u * 12u);
  EXPECT_EQ(d.warps_overflowed, 4u);
  EXPECT_EQ(d.unmatched, 0u);
}

TYPED_TEST(TimelineGpu, DetachedKernelsRecordNothing) {
  const DeviceTimeline buffer(1, 2, 8);
  buffer.attach();
  buffer.clear(nullptr);
  detach_all();
  many_stamps<TypeParam><<<1, 64>>>(2, attached_view());
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  for (const RawSlot& s : raw.slots) EXPECT_EQ(s.started, 0u);
}

// Past a ring's worth of stamps (the shared policies write them out as it fills) and with a
// partial ring left at the end, every stamp lands in order, in its own slot.
TYPED_TEST(TimelineGpu, EveryStampLandsInOrderAcrossRingFlushes) {
  constexpr int kPairs = 3 * kHalfStamps + 3;  // six halves of a ring and 6 stamps over
  const DeviceTimeline buffer(2, 3, 8 * kHalfStamps);
  buffer.attach();
  buffer.clear(nullptr);
  many_stamps<TypeParam><<<2, 96>>>(kPairs, attached_view());
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  for (std::size_t slot = 0; slot < raw.slots.size(); ++slot) {
    ASSERT_EQ(raw.slots[slot].count, 2u * kPairs) << "slot " << slot;
    const std::vector<Stamp> ev = stamps_of(raw, slot, 2u * kPairs);
    for (std::uint32_t e = 0; e < 2u * kPairs; ++e) {
      EXPECT_EQ(ev[e].item, e / 2) << "slot " << slot << " event " << e;
      EXPECT_EQ(ev[e].code, event_code(Span::kSoftmax, e % 2 == 1)) << "slot " << slot << " event " << e;
      if (e > 0) EXPECT_GE(ev[e].clock, ev[e - 1].clock) << "slot " << slot;
    }
  }
  DecodeOptions o;
  o.sm_clock_mhz = kCyclesAsNs;
  const TimelineDecoded d = decode(raw, o);
  EXPECT_EQ(d.unmatched, 0u);
  EXPECT_EQ(d.overflow, 0u);
}

// A warp of which lane 0 alone stamps (a producer's thread) writes out every stamp, its other
// lanes having left the kernel first.
TYPED_TEST(TimelineGpu, OneLaneStampsAloneAfterItsWarpLeft) {
  constexpr int kPairs = kHalfStamps + 1;
  const DeviceTimeline buffer(1, 2, 4 * kHalfStamps);
  buffer.attach();
  buffer.clear(nullptr);
  lane0_stamps<TypeParam><<<1, 64>>>(kPairs, attached_view());
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  for (std::size_t slot = 0; slot < raw.slots.size(); ++slot) {
    ASSERT_EQ(raw.slots[slot].count, 2u * kPairs) << "slot " << slot;
    const std::vector<Stamp> ev = stamps_of(raw, slot, 2u * kPairs);
    for (std::uint32_t e = 0; e < 2u * kPairs; ++e) EXPECT_EQ(ev[e].item, e / 2) << "slot " << slot << " event " << e;
  }
}

// Under kPassingWaitsUnstamped a wait that does not wait leaves no stamp (one that does is
// stamped: the known spins above); the other policies stamp it, begin and end.
TYPED_TEST(TimelineGpu, AWaitThatPassesAtOnceIsStampedByItsPolicy) {
  const DeviceTimeline buffer(1, 1, 8);
  buffer.attach();
  buffer.clear(nullptr);
  ready_mbarrier_wait<TypeParam><<<1, 32>>>(attached_view());
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  EXPECT_EQ(raw.slots[0].started, 1u);
  EXPECT_EQ(raw.slots[0].count, (TypeParam::kSpanSet & kPassingWaitsUnstamped) != 0 ? 0u : 2u);
}

// The policy stamps the spans it names and no others.
TYPED_TEST(TimelineGpu, StampsTheSpansOfItsPolicy) {
  const DeviceTimeline buffer(1, 1, 64);
  buffer.attach();
  buffer.clear(nullptr);
  every_span<TypeParam><<<1, 32>>>(attached_view());
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  const std::uint32_t spans = TypeParam::kSpanSet;
  std::vector<std::uint16_t> expected;
  for (unsigned k = 0; k < unsigned(Span::kCount); ++k)
    if (spans & span_bit(Span(k))) {
      expected.push_back(event_code(Span(k), false));
      expected.push_back(event_code(Span(k), true));
    }
  ASSERT_EQ(raw.slots[0].count, expected.size());
  const std::vector<Stamp> ev = stamps_of(raw, 0, raw.slots[0].count);
  for (std::size_t e = 0; e < expected.size(); ++e) EXPECT_EQ(ev[e].code, expected[e]) << "event " << e;
}

// A build that stamps every k-th item (ATTNLAB_TIMELINE_SAMPLE) stamps, in every warp, the
// sampled items' spans and nothing else: not the others, not the waits between items.
template <class Stamps>
class TimelineSampledGpu : public ::testing::Test {};
using SampledPolicies = ::testing::Types<GlobalStamps<kEverySpan, 3>, SharedStamps<kEverySpan, 3>>;
class SampledName {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, GlobalStamps<kEverySpan, 3>> ? "global_every_3" : "shared_every_3";
  }
};
TYPED_TEST_SUITE(TimelineSampledGpu, SampledPolicies, SampledName);

TYPED_TEST(TimelineSampledGpu, StampsOnlyTheSampledItems) {
  constexpr std::uint32_t kBlocks = 5, kWarps = 2, kItems = 7;
  const DeviceTimeline buffer(kBlocks, kWarps, 64);
  buffer.attach();
  buffer.clear(nullptr);
  items_walk<TypeParam><<<kBlocks, 32 * kWarps>>>(kItems, attached_view());
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  for (std::uint32_t b = 0; b < kBlocks; ++b) {
    std::vector<std::pair<std::uint16_t, std::uint32_t>> expected;  // code, item
    for (std::uint32_t n = 0; n < kItems; ++n) {
      const std::uint32_t w = b + n * kBlocks;
      if (!sampled_item(w, kBlocks, TypeParam::kSampled)) continue;
      for (const auto code : {event_code(Span::kItem, false), event_code(Span::kSoftmax, false),
                              event_code(Span::kSoftmax, true), event_code(Span::kItem, true)})
        expected.emplace_back(code, w);
    }
    ASSERT_FALSE(expected.empty()) << "block " << b << ": the test needs a sampled item in every block";
    for (std::uint32_t warp = 0; warp < kWarps; ++warp) {
      const std::size_t slot = std::size_t(b) * kWarps + warp;
      ASSERT_EQ(raw.slots[slot].started, expected_started<TypeParam>(raw, slot)) << "slot " << slot;
      ASSERT_EQ(raw.slots[slot].count, expected.size()) << "slot " << slot;
      const std::vector<Stamp> ev = stamps_of(raw, slot, raw.slots[slot].count);
      for (std::size_t e = 0; e < expected.size(); ++e) {
        EXPECT_EQ(ev[e].code, expected[e].first) << "slot " << slot << " event " << e;
        EXPECT_EQ(ev[e].item, expected[e].second) << "slot " << slot << " event " << e;
      }
    }
  }
}

}  // namespace
}  // namespace attnlab::timeline
