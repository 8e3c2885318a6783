// The per-item stamp policies on the device, global-phases and global-phases-leads (each test is
// typed over both): a prologue that ends with a full-barrier wait covers the known spin that
// wait waited for, a merge wait on a named barrier likewise, the policies stamp their spans and
// nothing per key tile, and under -leads only each warpgroup's first warp writes its slot, the
// last warpgroup's first warp holding the block's anchors, which the decoder reads as the
// policy's empty slots.
#include "kernels/timeline.cuh"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "common/check.hpp"
#include "kernels/timeline_host.hpp"
#include "profiler/timeline_decode.hpp"
#include "tests/gpu/known_spin.cuh"

namespace attnlab::timeline {
namespace {

// Warps 0 and 4 lead their warpgroups, so both stamp under either policy; warp 4 is the last
// warpgroup's first warp of a block of 5 warps, the one that anchors the block under both.
constexpr unsigned kWaiter = 0, kWorker = 4, kThreads = 5 * 32;

using test::kSpin;
using test::stamped_spin;

// The worker spins, then arrives on an mbarrier; the waiter begins a work item and waits on the
// barrier as a consumer waits for its first tile, which ends the item's prologue.
template <class Stamps>
__global__ void known_prologue(long long spin, const __grid_constant__ DeviceView view) {
  __shared__ std::uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  Stamps tl{view};
  const unsigned warp = threadIdx.x / 32;
  if (warp == kWorker) {
    stamped_spin(tl, spin, Span::kEpilogue);  // a span both policies stamp
    if (threadIdx.x == kWorker * 32) (void)cuda::ptx::mbarrier_arrive(&bar);
  } else if (warp == kWaiter) {
    tl.begin(Span::kItem, 9);
    tl.wait(
        Span::kFullWait, 0, [&] { return hopper::barrier_ready(&bar, 0); }, [&] { hopper::wait_barrier(&bar, 0); });
    tl.end(Span::kPrologue, 0);
    tl.end(Span::kItem, 9);
  }
}

// The worker spins, then arrives at named barrier 1; the waiter waits there in a merge wait.
template <class Stamps>
__global__ void known_merge_wait(long long spin, const __grid_constant__ DeviceView view) {
  Stamps tl{view};
  const unsigned warp = threadIdx.x / 32;
  if (warp == kWorker) {
    stamped_spin(tl, spin, Span::kEpilogue);  // a span both policies stamp
    asm volatile("bar.arrive 1, 64;" ::: "memory");
  } else if (warp == kWaiter) {
    tl.begin(Span::kMergeWait, 0);
    asm volatile("bar.sync 1, 64;" ::: "memory");
    tl.end(Span::kMergeWait, 0);
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

// Every warp stamps one work item as a consumer does under these policies: its begin, the
// prologue's end, the epilogue and its end.
template <class Stamps>
__global__ void one_item_each(const __grid_constant__ DeviceView view) {
  Stamps tl{view};
  tl.begin(Span::kItem, blockIdx.x);
  tl.end(Span::kPrologue, 0);
  tl.begin(Span::kEpilogue, blockIdx.x);
  tl.end(Span::kEpilogue, blockIdx.x);
  tl.end(Span::kItem, blockIdx.x);
}

template <class Stamps>
class TimelinePhasesGpu : public ::testing::Test {
 public:
  static constexpr StampPolicy kPolicy =
      Stamps::kLeadsOnly ? StampPolicy::kGlobalPhasesLeads : StampPolicy::kGlobalPhases;
};
using PhasePolicies = ::testing::Types<GlobalStamps<kPhaseSpans>, GlobalStamps<kPhaseSpans | kLeadWarpsOnly>>;
class PhaseName {
 public:
  template <class T>
  static std::string GetName(int) {
    return T::kLeadsOnly ? "global_phases_leads" : "global_phases";
  }
};
TYPED_TEST_SUITE(TimelinePhasesGpu, PhasePolicies, PhaseName);

// At test::kCyclesAsNs a decoded nanosecond is one cycle.
DecodeOptions in_cycles(StampPolicy policy) {
  DecodeOptions o;
  o.sm_clock_mhz = test::kCyclesAsNs;
  o.policy = policy;
  return o;
}

const TimelineSpan* find_span(const TimelineDecoded& d, std::uint32_t warp, Span k) {
  for (const auto& w : d.warps)
    if (w.warp == warp)
      for (const auto& s : w.spans)
        if (s.kind == k) return &s;
  return nullptr;
}

// Launches `kernel` on one block of kThreads (the worker spins kSpin cycles in an epilogue span,
// the waiter waits for it in a span of kind `wait_kind`) and checks that the wait covers the spin.
void expect_wait_covers_spin(void (*kernel)(long long, DeviceView), Span wait_kind, StampPolicy policy) {
  const TimelineDecoded d = test::run_known_spin(kernel, kThreads, in_cycles(policy));
  ASSERT_EQ(d.warps.size(), 2u);
  EXPECT_EQ(d.unmatched, 0u);
  const TimelineSpan* wait = find_span(d, kWaiter, wait_kind);
  const TimelineSpan* spin = find_span(d, kWorker, Span::kEpilogue);
  ASSERT_NE(wait, nullptr);
  ASSERT_NE(spin, nullptr);
  const double tol = kSpin / 20.0;  // the barrier's release and the warps' start skew, widely
  EXPECT_GE(spin->end_ns - spin->begin_ns, kSpin);
  EXPECT_NEAR(wait->end_ns - wait->begin_ns, spin->end_ns - spin->begin_ns, tol);
  EXPECT_GT(wait->end_ns, spin->end_ns);  // one SM, one counter: the wait ends after the spin
}

TYPED_TEST(TimelinePhasesGpu, APrologueCoversTheWaitForTheFirstTile) {
  expect_wait_covers_spin(known_prologue<TypeParam>, Span::kPrologue, TestFixture::kPolicy);
}

TYPED_TEST(TimelinePhasesGpu, AMergeWaitOnANamedBarrierCoversTheKnownSpin) {
  expect_wait_covers_spin(known_merge_wait<TypeParam>, Span::kMergeWait, TestFixture::kPolicy);
}

// The item, the prologue's (begin and end, where a kernel stamps both), the epilogue, the cluster
// and merge waits; none of the per-tile spans.
TYPED_TEST(TimelinePhasesGpu, StampsItsSpansAndNothingPerTile) {
  const DeviceTimeline buffer(1, 1, 64);
  buffer.attach();
  buffer.clear(nullptr);
  every_span<TypeParam><<<1, 32>>>(attached_view());
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  std::vector<std::uint16_t> expected;
  for (Span k : {Span::kItem, Span::kEpilogue, Span::kClusterWait, Span::kMergeWait, Span::kPrologue}) {
    expected.push_back(event_code(k, false));
    expected.push_back(event_code(k, true));
  }
  ASSERT_EQ(raw.slots[0].count, expected.size());
  const std::vector<Stamp> ev = widen(raw.events.data(), raw.slots[0].count, raw.slots[0].start_clock);
  for (std::size_t e = 0; e < expected.size(); ++e) EXPECT_EQ(ev[e].code, expected[e]) << "event " << e;
}

// Two blocks of 8 warps: every warp that the policy stamps writes its item (5 stamps), the
// block's anchoring warp its anchors too; under -leads the other 6 warps of a block write
// nothing, and the decoder counts their slots as the policy's.
TYPED_TEST(TimelinePhasesGpu, OnlyTheWarpsOfItsPolicyWriteTheirSlots) {
  constexpr std::uint32_t kBlocks = 2, kWarps = 8;
  const DeviceTimeline buffer(kBlocks, kWarps, 16);
  buffer.attach();
  buffer.clear(nullptr);
  one_item_each<TypeParam><<<kBlocks, 32 * kWarps>>>(attached_view());
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  const std::uint32_t anchoring = TypeParam::kLeadsOnly ? kWarps - kWarpsPerWarpgroup : kWarps - 1;
  std::uint32_t stamping = 0;
  for (std::uint32_t b = 0; b < kBlocks; ++b)
    for (std::uint32_t w = 0; w < kWarps; ++w) {
      const RawSlot& s = raw.slots[b * kWarps + w];
      const bool stamps = policy_stamps_warp(TestFixture::kPolicy, w);
      stamping += stamps;
      EXPECT_EQ(s.count, stamps ? 5u : 0u) << "block " << b << " warp " << w;
      EXPECT_EQ(s.started, w == anchoring ? 1u : 0u) << "block " << b << " warp " << w;
    }
  const TimelineDecoded d = decode(raw, in_cycles(TestFixture::kPolicy));
  EXPECT_EQ(d.unmatched, 0u);
  EXPECT_EQ(d.stamps, 5u * stamping);
  EXPECT_EQ(d.warps_unstamped_by_policy, kBlocks * kWarps - stamping);
  for (const auto& w : d.warps) {
    EXPECT_TRUE(policy_stamps_warp(TestFixture::kPolicy, w.warp)) << "warp " << w.warp;
    EXPECT_EQ(w.spans.size(), 3u) << "warp " << w.warp;  // item, prologue, epilogue
  }
}

}  // namespace
}  // namespace attnlab::timeline
