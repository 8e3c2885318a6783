// Warp-role timelines on the device: a kernel with a known wait (one warp spins a given number
// of clock64 cycles before it arrives at a named barrier that another warp waits on) must decode
// to a wait of that many cycles, and a slot that overflows must count its lost stamps without
// writing into its neighbour's.
#include "kernels/timeline.cuh"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>

#include "common/check.hpp"
#include "kernels/timeline_host.hpp"
#include "profiler/timeline_decode.hpp"

namespace attnlab::timeline {
namespace {

// Warp 1 works (spins) for `spin` cycles, then arrives at barrier 1; warp 0 waits there.
__global__ void known_wait(long long spin) {
  WarpStamps tl;
  if (threadIdx.x / 32 == 1) {
    tl.begin(Span::kSoftmax, 0);
    const long long t0 = clock64();
    while (clock64() - t0 < spin) {
    }
    tl.end(Span::kSoftmax, 0);
    asm volatile("bar.arrive 1, 64;" ::: "memory");
  } else {
    tl.begin(Span::kPingPongWait, 0);
    asm volatile("bar.sync 1, 64;" ::: "memory");
    tl.end(Span::kPingPongWait, 0);
  }
}

// Every warp stamps `n` begin/end pairs.
__global__ void many_stamps(int n) {
  WarpStamps tl;
  for (int i = 0; i < n; ++i) {
    tl.begin(Span::kQkIssue, i);
    tl.end(Span::kQkIssue, i);
  }
}

const TimelineSpan* find_span(const TimelineWarp& w, Span k) {
  for (const auto& s : w.spans)
    if (s.kind == k) return &s;
  return nullptr;
}

// At 1000 MHz a decoded nanosecond is one cycle: the checks below are in cycles, so they do not
// depend on the clock the SM ran at.
constexpr double kCyclesAsNs = 1000;

TEST(TimelineGpu, DecodedWaitCoversTheKnownSpin) {
  const DeviceTimeline buffer(1, 2, 64);
  buffer.attach();
  buffer.clear(nullptr);
  // Long against everything else a warp does before and after its stamps (a few hundred cycles).
  constexpr long long kSpin = 1 << 20;
  known_wait<<<1, 64>>>(kSpin);
  ATTNLAB_CHECK_LAUNCH();
  DecodeOptions o;
  o.sm_clock_mhz = kCyclesAsNs;
  const TimelineDecoded d = decode(buffer.pull(nullptr), o);
  ASSERT_EQ(d.warps.size(), 2u);
  EXPECT_EQ(d.unmatched, 0u);
  EXPECT_EQ(d.overflow, 0u);
  const TimelineSpan* wait = find_span(d.warps[0], Span::kPingPongWait);
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

TEST(TimelineGpu, OverflowIsCountedAndStaysInItsSlot) {
  const DeviceTimeline buffer(2, 2, 8);
  buffer.attach();
  buffer.clear(nullptr);
  many_stamps<<<2, 64>>>(10);  // 20 stamps per warp into 8 places
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  for (std::size_t slot = 0; slot < raw.slots.size(); ++slot) {
    EXPECT_EQ(raw.slots[slot].count, 20u);
    EXPECT_EQ(raw.slots[slot].started, 1u);
    // Each slot holds its own first 8 stamps: 4 begin/end pairs of items 0..3.
    for (std::uint32_t e = 0; e < raw.capacity; ++e)
      EXPECT_EQ(raw.events[slot * raw.capacity + e].item, e / 2) << "slot " << slot << " event " << e;
  }
  DecodeOptions o;
  o.sm_clock_mhz = kCyclesAsNs;
  const TimelineDecoded d = decode(raw, o);
  EXPECT_EQ(d.overflow, 4u * 12u);
  EXPECT_EQ(d.warps_overflowed, 4u);
  EXPECT_EQ(d.unmatched, 0u);
}

TEST(TimelineGpu, DetachedKernelsRecordNothing) {
  const DeviceTimeline buffer(1, 2, 8);
  buffer.attach();
  buffer.clear(nullptr);
  detach_all();
  many_stamps<<<1, 64>>>(2);
  ATTNLAB_CHECK_LAUNCH();
  const RawTimeline raw = buffer.pull(nullptr);
  for (const RawSlot& s : raw.slots) EXPECT_EQ(s.started, 0u);
}

}  // namespace
}  // namespace attnlab::timeline
