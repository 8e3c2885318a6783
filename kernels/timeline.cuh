// Warp-role timelines, an instrument chosen at compile time: an instrumented kernel takes its
// stamp policy as a template parameter. Under a stamping policy, every warp stamps the SM clock
// (RawEvent: its low 32 bits) at the events the kernel marks into its own slot of a bounded
// device buffer
// (kernels/timeline_host.hpp owns it; profiler/timeline_decode.hpp reads it back); under
// NoStamps every call is empty, so the timed kernels compile to the same instructions as
// without the stamps. The stamped kernel takes the buffer's view (DeviceView) as its last
// parameter, the timed one has no such parameter (with_view below). A phase declares both launches (Phase::launch and Phase::launch_timeline),
// the stamped one under timeline::Stamped (kernels/timeline_stamped.cuh), the policy the build's
// ATTNLAB_TIMELINE_STAMPS names:
//   GlobalStamps<kEverySpan>       (global) each stamp stored to the warp's global slot;
//   GlobalStamps<kBoundarySpans>   (global-boundaries) the same without the issue spans;
//   GlobalStamps<kConsumerSpans>   (global-consumers) global-boundaries without the empty-barrier
//                                  waits, so that phase 5's producer stamps only its items, and
//                                  without the mbarrier waits that pass at once;
//   SharedStamps<kEverySpan>       (shared) stamps buffered in a shared-memory ring per warp and
//                                  written out by a bulk copy when half of it fills;
//   SharedStamps<kBoundarySpans>   (shared-boundaries) the same without the issue spans;
//   GlobalStamps<kPhaseSpans>      (global-phases) per work item only: the item, its prologue,
//                                  the epilogue, the merge and cluster waits, nothing per key tile;
//   GlobalStamps<kPhaseSpans | kLeadWarpsOnly>   (global-phases-leads) the same, stamped by the
//                                  first warp of each warpgroup alone;
// each of them stamping every work item, or with ATTNLAB_TIMELINE_SAMPLE = k > 1 only every
// k-th (sampled_item): the others run their stamp sites as a skipped branch.
//
// In a kernel templated on `class Stamps`, given `entry...` (the stamped kernel's KernelEntry,
// nothing in the timed kernel):
//   Stamps tl{entry...};                       once, early, by every thread (anchors the block)
//   tl.begin(Span::kSoftmax, j); ... tl.end(Span::kSoftmax, j);   (Span, common/timeline_events.hpp)
//   and a __device__ function that stamps too takes `Stamps& tl`.
// A warp's slot takes `capacity` stamps; later ones are counted, never written.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "common/check.hpp"
#include "common/hopper.cuh"
#include "common/timeline_events.hpp"
#include "kernels/timeline_host.hpp"

namespace attnlab::timeline {

// Launches a kernel written once for both builds: fn() for NoStamps, fn(view) for a stamping
// policy, the view of the buffer attached now (DeviceTimeline::attach), which the stamped kernel
// takes as its last parameter, `const __grid_constant__ DeviceView view`, and hands its
// recorders as `entered(view)` (KernelEntry, below), first thing. A parameter, not a
// __constant__ variable: the kernel's reads of it are the parameter bank's, whose lines every
// launch fetches anyway, where a view in the constant bank cost each SM a miss of its own at the
// kernel's start, on the path of its first copies (kernels/NOTES.md, "Why phase 5 and d4 are
// as they are": the buffer's view as a kernel parameter).
template <class Stamps, class Fn>
void with_view(Fn&& fn) {
  if constexpr (Stamps::kTakesView)
    fn(attached_view());
  else
    fn();
}

namespace {
__device__ __forceinline__ std::uint64_t clock_now() {
  std::uint64_t c;
  // volatile and "memory": the read stays between the barrier, wgmma and store instructions
  // around it (register-only arithmetic may still move across it).
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
// The low half of clock64 (%clock reads the same counter): what a stamp stores (RawEvent).
__device__ __forceinline__ std::uint32_t clock_lo_now() {
  std::uint32_t c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
  return c;
}
__device__ __forceinline__ std::uint64_t globaltimer_now() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ std::uint32_t smid_now() {
  std::uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ std::uint32_t linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ std::uint32_t linear_cta() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
// Whether the calling warp anchors its block's timeline (GlobalStamps): the block's last warp, or
// where only the warpgroups' first warps stamp (leads_only), the last warpgroup's first warp.
__device__ __forceinline__ bool anchors_block(bool leads_only) {
  const std::uint32_t warp = linear_tid() / 32, last = (blockDim.x * blockDim.y * blockDim.z) / 32 - 1;
  return warp == (leads_only ? last - last % kWarpsPerWarpgroup : last);
}
// A shared-memory word of the block, which a stamp loads for its timing only (ordered_clock):
// never written, its value is never used, and its address is a constant of the kernel, so a
// stamp keeps no register for it. Declared in the function, so only the kernels that stamp
// have it.
__device__ __forceinline__ std::uint32_t block_word_address() {
  __shared__ std::uint32_t word;
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(&word));
}

// The calling warp's slot in the attached buffer, or kNoSlot where it has none (no buffer
// attached: a launch that sizes the buffer; a warp or block beyond the buffer's geometry).
constexpr std::uint32_t kNoSlot = ~0u;
__device__ __forceinline__ std::uint32_t slot_of_warp(const DeviceView& v) {
  const std::uint32_t warp = linear_tid() / 32, cta = linear_cta();
  return v.slots != nullptr && warp < v.warps_per_cta && cta < v.ctas ? cta * v.warps_per_cta + warp : kNoSlot;
}
// The slot header's anchors (RawSlot), written by one lane; `entry`: the kernel's first clock.
__device__ __forceinline__ void write_start_anchors(RawSlot& s, std::uint64_t entry) {
  s.entry_clock = entry;
  s.start_clock = clock_now();
  s.start_ns = globaltimer_now();
  s.smid = smid_now();
  s.cta = linear_cta();
  s.started = 1;
}
__device__ __forceinline__ void write_end_anchors(RawSlot& s, std::uint32_t count) {
  s.end_clock = clock_now();
  s.end_ns = globaltimer_now();
  s.count = count;
}

// The clock, read once the instruction before it has issued. A named barrier on sm_90 compiles to
// BAR.SYNC.DEFER_BLOCKING, after which a warp goes on issuing instructions that touch no memory
// until the barrier completes. A clock read is one, so a stamp right after `bar.sync` would read
// the time the warp reached the barrier, not when it left
// (TimelineGpu.DecodedWaitCoversTheKnownSpin catches it; kernels/NOTES.md, "Why phase 5 and d4
// are as they are": a load before each stamp's clock read). A volatile load is a memory
// instruction: it issues only once the barrier is done, and the clock read issues after it. It
// reads a shared-memory word (`word`, a shared-space address): a shared load's round trip is
// short, where a global one cost a memory round trip per stamp. Still, ptxas gives the clock
// read the load's destination register, so the read waits out that round trip: the stamps that
// do not need the load go without it (needs_ordering).
__device__ __forceinline__ std::uint32_t ordered_clock(std::uint32_t word) {
  [[maybe_unused]] std::uint32_t after_barrier;  // loaded for its timing only
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(after_barrier) : "r"(word) : "memory");
  return clock_lo_now();
}
}  // namespace

// What a stamped kernel hands its recorders: the buffer's view (its parameter) and clock64 read
// at its first instruction (entered()), which the anchoring warps write beside their start
// anchors (RawSlot::entry_clock): the recorders are made after the kernel's prologue, and the
// decoded span then still covers the kernel from its entry, not from the first recorder.
// entered() without a view, in a timed kernel, is NoEntry: nothing is read.
struct KernelEntry {
  const DeviceView& view;
  std::uint64_t clock;  // [cycles]
};
struct NoEntry {};
__device__ __forceinline__ KernelEntry entered(const DeviceView& view) { return {view, clock_now()}; }
__device__ __forceinline__ NoEntry entered() { return {}; }

// Whether a stamp's clock read needs the ordering load (ordered_clock): only the end of a wait
// on an instruction after which a warp may go on issuing before the wait is over. The named
// barriers (the ping-pong turn) and barrier.cluster.wait are such; the wgmma wait, the merge
// wait, the epilogue's end (its last instruction may be a named barrier) and the item's end keep
// the load as well, being few per item. The others need none: an mbarrier wait (the full- and
// empty-barrier waits) is a try_wait loop whose exit branches on the wait's predicate, so nothing
// after it issues before the wait has completed; a begin stamp, and the end of a span of work,
// time the point where the instructions before them have issued, which is what an in-order
// warp's clock read gives without a load. Each load dropped is a shared-memory round trip off the
// warp's path (TimelineGpu.DecodedMbarrierWaitCoversTheKnownSpin holds the mbarrier case).
constexpr bool needs_ordering(Span span, bool end) {
  if (!end) return false;
  switch (span) {
    case Span::kFullWait:
    case Span::kEmptyWait:
    case Span::kTmaIssue:
    case Span::kQkIssue:
    case Span::kPvIssue:
    case Span::kSoftmax:
    case Span::kPrologue: return false;  // it ends as a full-barrier wait does
    default: return true;
  }
}

// Which spans a policy stamps, a bit per Span: the calls for the others compile to nothing.
constexpr std::uint32_t span_bit(Span s) { return 1u << unsigned(s); }
// Every span but the prologue, whose end is that of a full-barrier wait these policies stamp.
inline constexpr std::uint32_t kEverySpan = (span_bit(Span::kCount) - 1) & ~span_bit(Span::kPrologue);
// Without the issue spans, which sit between a wait's end and the next wait's begin: a consumer
// takes 4 of its 16 stamps per key tile there, the producer half of its own. Their time counts
// as the warp's time between stamps.
inline constexpr std::uint32_t kBoundarySpans =
    kEverySpan & ~(span_bit(Span::kTmaIssue) | span_bit(Span::kQkIssue) | span_bit(Span::kPvIssue));
// The boundaries without the empty-barrier waits, which only a warp that issues copies stamps
// (phase 5's producer, d4's refilling thread): phase 5's producer then stamps its work items
// alone, and keeps the registers its stamps took from its 24 or 32 (the .ptxas reports beside
// the objects give each policy's spills). The critical path loses the consumers'
// (empty-barrier) class, which only a producer on the path shows.
// It also leaves unstamped the mbarrier waits that pass at once (kPassingWaitsUnstamped).
inline constexpr std::uint32_t kPassingWaitsUnstamped = 1u << 31;  // a flag above every span's bit
static_assert(unsigned(Span::kCount) < 31, "the flag stays clear of the spans' bits");
inline constexpr std::uint32_t kConsumerSpans =
    (kBoundarySpans & ~span_bit(Span::kEmptyWait)) | kPassingWaitsUnstamped;
// Per work item only, nothing per key tile: a consumer takes 5 stamps an item (its begin, the
// prologue's end, the epilogue's two, its end), d4's warps the merge's and cluster's waits too,
// phase 5's producer none (it has no recorder, ProducerStamps). At the latency shapes, one item
// per block, the per-tile stamps are about half of the measured cost (the timeline's sections of
// kernels/NOTES.md) and sampling cannot thin them. The prologue, from the item's begin to its
// first tile's landing, keeps the loads' part of the item in view without a stamp per tile.
inline constexpr std::uint32_t kPhaseSpans = span_bit(Span::kItem) | span_bit(Span::kPrologue) |
                                             span_bit(Span::kEpilogue) | span_bit(Span::kClusterWait) |
                                             span_bit(Span::kMergeWait);
// A flag beside the spans' bits: only the first warp of each warpgroup stores its stamps (and
// anchors the block); the other warps have no slot and store nothing: a quarter of the global
// stores of a warpgroup's rows, whose warps run the same code in step.
inline constexpr std::uint32_t kLeadWarpsOnly = 1u << 30;
static_assert(unsigned(Span::kCount) < 30, "the flags stay clear of the spans' bits");

// The timed build: every stamp is empty, no buffer is read, no delay is spun; a stamped wait
// is the wait alone. Made from a view where a stamped kernel's producer records nothing
// (ProducerStamps).
struct NoStamps {
  static constexpr bool kTakesView = false;
  NoStamps() = default;
  __device__ __forceinline__ explicit NoStamps(const KernelEntry&) {}
  __device__ __forceinline__ explicit NoStamps(NoEntry) {}
  template <class Item>
  __device__ __forceinline__ void begin(Span, Item) {}
  template <class Item>
  __device__ __forceinline__ void end(Span, Item) {}
  template <class Item, class Ready, class Wait>
  __device__ __forceinline__ void wait(Span, Item, Ready&&, Wait&& wait) {
    wait();
  }
  __device__ __forceinline__ void producer_delay() {}
};

// What a stamping policy offers a kernel: a span's begin and end, each one stamp
// (Policy::stamp(span, end, item)) where the span is one of kSpans. With kSampleEvery > 1, a
// warp stamps only from the begin of a sampled item (sampled_item) to that item's end: the stamp
// sites of the other items are a branch the warp skips whole (its lanes agree, as the item
// index does), so they cost it no ordering load, clock read or store. Stamps outside any item
// (a wait for the next item's Q) are then not taken.
template <class Policy, std::uint32_t kSpans, std::uint32_t kSampleEvery>
class StampCalls {
  static_assert(kSampleEvery >= 1, "every item is the densest sampling");

 public:
  static constexpr std::uint32_t kSpanSet = kSpans, kSampled = kSampleEvery;

  template <class Item>
  __device__ __forceinline__ void begin(Span span, Item item) {
    if constexpr (kSampleEvery > 1)
      if (span == Span::kItem) on_ = sampled_item(std::uint32_t(item), gridDim.x, kSampleEvery);
    if ((kSpans & span_bit(span)) != 0 && on()) self().stamp(span, false, std::uint32_t(item));
  }
  template <class Item>
  __device__ __forceinline__ void end(Span span, Item item) {
    if ((kSpans & span_bit(span)) != 0 && on()) self().stamp(span, true, std::uint32_t(item));
    if constexpr (kSampleEvery > 1)
      if (span == Span::kItem) on_ = false;
  }
  // A wait on an mbarrier (the full- and empty-barrier waits). Under kPassingWaitsUnstamped it is
  // stamped only where it waits: `ready` tests the barrier once without blocking, and where its
  // phase has completed the wait leaves no span (the decoder counts none). In steady state a
  // consumer's tiles have landed before it asks for them, so its full-barrier stamps, which sit
  // between its turn and the partner's in the ping-pong, are mostly not taken. The price, seen
  // but not explained: with the passing waits unstamped, a delayed producer shows on the
  // critical path as QK^T and PV issue time more than as loads, so the other policies, which the
  // what-if reads, stamp every wait.
  template <class Item, class Ready, class Wait>
  __device__ __forceinline__ void wait(Span span, Item item, Ready&& ready, Wait&& wait) {
    if ((kSpans & span_bit(span)) == 0 || !on()) {
      wait();
      return;
    }
    if constexpr ((kSpans & kPassingWaitsUnstamped) != 0)
      if (ready()) return;  // the test acquires as the wait would
    begin(span, item);
    wait();
    end(span, item);
  }
  // A known delay in one role, the validation of the timeline's what-if (a producer calls it
  // before each K/V copy it issues): DeviceView::producer_delay_cycles of spinning on clock64,
  // none where it is 0 (every run but that validation), in every item, sampled or not. Only
  // stamped kernels have it; the timed ones (NoStamps) compile it to nothing.
  // One asm block on the 32-bit clock (its wrap-around subtracts out): the producer it runs in
  // has 24 or 32 registers, and a loop of 64-bit clock reads in C++ kept more of them live
  // across the copies' code, which ptxas spilled.
  __device__ __forceinline__ void producer_delay() {
    const std::uint32_t cycles = self().view().producer_delay_cycles;
    if (cycles == 0) return;
    asm volatile(
        "{\n\t.reg .u32 t0, t;\n\t.reg .pred p;\n\tmov.u32 t0, %%clock;\n"
        "SPIN:\n\tmov.u32 t, %%clock;\n\tsub.u32 t, t, t0;\n\tsetp.lt.u32 p, t, %0;\n\t@p bra SPIN;\n\t}" ::"r"(cycles)
        : "memory");
  }

 private:
  __device__ __forceinline__ Policy& self() { return static_cast<Policy&>(*this); }
  __device__ __forceinline__ bool on() const {
    if constexpr (kSampleEvery > 1) return on_;
    return true;
  }
  bool on_ = false;  // within a sampled item (kSampleEvery > 1 only)
};

// Per thread; records only in lane 0 of a warp whose slot exists. Its state is three registers:
// where lane 0's stamps go and how many it has taken (every other lane counts from
// kNotRecording, which never passes the capacity test); the capacity is read from the view, a
// kernel parameter, at each stamp, and the ordering word's address is a constant. One warp per block, its
// last (a consumer's in every kernel that stamps, never the thread that issues the first
// copies), writes the anchors for the block (the decoder takes the other warps' SM and clock
// reference from them, their lifetimes from their first and last stamps): fewer global stores
// at each warp's start and end, measured about a point of overhead less at the latency shape
// than an anchor pair per warp. Every warp writes its count when the recorder goes out of
// scope, early returns included. Under kLeadWarpsOnly the warps after the first of each
// warpgroup have no slot: they write nothing (no stamp, count or anchor), their stamp sites
// running as in a lane that does not record, the store predicated off. A branch around the stamp
// sites in those warps spilled more in phase 5's stamped kernels (the .ptxas reports beside the
// objects), and at a handful of stamps per item their clock reads and tags are few.
template <std::uint32_t kSpans, std::uint32_t kSampleEvery = 1>
class GlobalStamps : public StampCalls<GlobalStamps<kSpans, kSampleEvery>, kSpans, kSampleEvery> {
 public:
  // One warp per block takes the anchors (anchors_block), the others write their count alone.
  static constexpr bool kAnchorsPerBlock = true;
  static constexpr bool kLeadsOnly = (kSpans & kLeadWarpsOnly) != 0;
  static constexpr bool kTakesView = true;

  // Every thread of a block constructs one, at the same point, with whole warps (every kernel
  // that stamps launches multiples of 32 threads): the __syncwarp at the end rejoins lane 0,
  // which took the header's stores alone, with its warp before the aligned barriers and wgmma
  // that follow, which .aligned requires of a warp.
  // `entry.view`: the kernel's view parameter, which the recorder reads at each stamp and at its
  // end. From a view alone (a test's kernel), no entry clock: the warp's life begins at its
  // start anchor.
  __device__ __forceinline__ explicit GlobalStamps(const KernelEntry& entry) : GlobalStamps(entry.view, entry.clock) {}
  __device__ __forceinline__ explicit GlobalStamps(const DeviceView& view, std::uint64_t entry_clock = 0)
      : view_(view) {
    const std::uint32_t slot = linear_tid() % 32 == 0 && stamps_here() ? slot_of_warp(view_) : kNoSlot;
    if (slot != kNoSlot) {
      if (anchors_block(kLeadsOnly)) write_start_anchors(view_.slots[slot], entry_clock);
      events_ = view_.events + std::size_t(slot) * view_.capacity;
      count_ = 0;
    }
    __syncwarp();
  }
  __device__ __forceinline__ ~GlobalStamps() {
    if (events_ == nullptr) return;
    RawSlot& slot = view_.slots[linear_cta() * view_.warps_per_cta + linear_tid() / 32];
    if (anchors_block(kLeadsOnly))
      write_end_anchors(slot, count_);
    else
      slot.count = count_;
  }
  GlobalStamps(const GlobalStamps&) = delete;
  GlobalStamps& operator=(const GlobalStamps&) = delete;

  // Every lane runs the same instructions: lane 0's store is one predicated instruction, never a
  // branch, so a stamp does not split the warp before the aligned barrier or wgmma that usually
  // follows it (an aligned barrier reached by a split warp may count each part as a warp).
  __device__ __forceinline__ void stamp(Span span, bool end, std::uint32_t item) {
    const std::uint32_t c = needs_ordering(span, end) ? ordered_clock(block_word_address()) : clock_lo_now();
    const std::uint32_t write = count_ < view_.capacity;
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, 0;\n\t@p st.global.v2.u32 [%1], {%2, %3};\n\t}" ::"r"(write),
        "l"(events_ + count_), "r"(c), "r"(event_tag(span, end, item))
        : "memory");
    ++count_;
  }
  __device__ __forceinline__ const DeviceView& view() const { return view_; }

 private:
  // Above any capacity (at most 2^24 stamps, attnlab-timeline's --events-per-warp), so far that a
  // kernel's stamps never wrap it back under.
  static constexpr std::uint32_t kNotRecording = 1u << 31;
  // Whether the calling warp has a slot: every warp, or under kLeadWarpsOnly the first of its
  // warpgroup.
  __device__ __forceinline__ static bool stamps_here() {
    if constexpr (kLeadsOnly) return linear_tid() / 32 % kWarpsPerWarpgroup == 0;
    return true;
  }

  const DeviceView& view_;
  RawEvent* events_ = nullptr;  // lane 0's slot; null in the lanes that do not record
  std::uint32_t count_ = kNotRecording;
};

// The recorder of a kernel's producer (phase 5's copy-issuing thread): the policy's own where it
// stamps the copies or the empty-barrier waits, else none. Under the other policies a recorder
// would stamp only the producer's item spans, which the consumers' bound, at the price of its
// slot's address and count in a thread of 24 or 32 registers, ahead of its first copy.
template <class Stamps, class = void>
struct ProducerRecorder {
  using type = NoStamps;
};
template <class Stamps>
struct ProducerRecorder<Stamps, std::enable_if_t<(Stamps::kSpanSet & (span_bit(Span::kTmaIssue) |
                                                                        span_bit(Span::kEmptyWait))) != 0>> {
  using type = Stamps;
};
template <class Stamps>
using ProducerStamps = typename ProducerRecorder<Stamps>::type;

// The global policy as it was the only one: every span of every item.
using WarpStamps = GlobalStamps<kEverySpan>;

// Stamps buffered in shared memory: each warp writes its stamps into a ring of two halves of
// kHalfStamps in the block's static shared memory; as a half fills, one lane hands it to the
// copy engine (a bulk copy, cp.async.bulk, to the warp's global slot) and the warp stamps on into
// the other half. A stamp is then a shared load where it needs one (the ordering, ordered_clock,
// on the entry it is about to write), the clock read, a shared store and the ring's advance; no
// global store instruction is issued per stamp, and a flush is one copy instruction and its
// bookkeeping.
//
// Its state is one register, the address of the warp's next entry: the count and where the
// stamps go live in the warp's ring header, read only by a flush, which is inlined at every stamp
// site and needs few registers. (GlobalStamps keeps three; the consumers of phase 5's
// three-consumer kernels have 160 registers and its producer 24 or 32, and ptxas spills where
// the stamps crowd them: a flush that copied the entries through registers spilled more.)
// Lane 0 of a warp records, as under GlobalStamps: it stamps in every warp that stamps (the
// producers' single threads are lane 0), and where it stamps alone (d4's first warp issues its
// copies from lane 0) the other lanes' counts fall behind its own. So the warp's ring is lane
// 0's; the other lanes' stores go to one more ring that every block's spare lanes share and whose
// header sends nothing anywhere, which spares the store a lane predicate (a register) and lets
// them run the same instructions. The warps beyond the first kRingWarps of a block (phase 5's
// 512 threads) store there with all their lanes: they do not record.
inline constexpr std::uint32_t kHalfStamps = 8;
inline constexpr std::uint32_t kRingWarps = 16;

namespace {
inline constexpr std::uint32_t kHalfBytes = kHalfStamps * sizeof(RawEvent);
inline constexpr std::uint32_t kRingBytes = 2 * kHalfBytes;  // 128: a power of two
static_assert((kRingBytes & (kRingBytes - 1)) == 0, "a ring wraps where its address's low bits do");

// Where a warp's ring is written out: its slot's events (null where it has none), the slot's
// capacity and the stamps handed to the copy engine so far.
struct RingHeader {
  RawEvent* events;
  std::uint32_t capacity;
  std::uint32_t flushed;
};

// The rings and their headers, 2.4 KiB of the block's static shared memory, declared in a
// function so only the kernels that stamp this way have them.
struct Rings {
  __device__ __forceinline__ static RawEvent (&entries())[kRingWarps + 1][2 * kHalfStamps] {
    __shared__ __align__(kRingBytes) RawEvent rings[kRingWarps + 1][2 * kHalfStamps];
    return rings;
  }
  __device__ __forceinline__ static RingHeader (&headers())[kRingWarps + 1] {
    __shared__ RingHeader h[kRingWarps + 1];
    return h;
  }
  // The header of the ring that holds shared address `at`.
  __device__ __forceinline__ static RingHeader& header_of(std::uint32_t at) {
    const auto first = static_cast<std::uint32_t>(__cvta_generic_to_shared(&entries()[0][0]));
    return headers()[(at - first) / kRingBytes];
  }
};
}  // namespace

template <std::uint32_t kSpans, std::uint32_t kSampleEvery = 1>
class SharedStamps : public StampCalls<SharedStamps<kSpans, kSampleEvery>, kSpans, kSampleEvery> {
 public:
  static_assert((kSpans & kLeadWarpsOnly) == 0, "every warp of a block has a ring");
  // Every warp takes its own anchors.
  static constexpr bool kAnchorsPerBlock = false;
  static constexpr bool kTakesView = true;

  // As GlobalStamps: every thread of a block, at the same point, with whole warps.
  __device__ __forceinline__ explicit SharedStamps(const KernelEntry& entry) : SharedStamps(entry.view, entry.clock) {}
  __device__ __forceinline__ explicit SharedStamps(const DeviceView& view, std::uint64_t entry_clock = 0)
      : view_(view) {
    const DeviceView& v = view_;
    const std::uint32_t warp = linear_tid() / 32;
    const bool lane0 = linear_tid() % 32 == 0;
    const std::uint32_t ring = warp < kRingWarps && lane0 ? warp : kRingWarps;
    const std::uint32_t slot = warp < kRingWarps ? slot_of_warp(v) : kNoSlot;
    next_ = static_cast<std::uint32_t>(__cvta_generic_to_shared(&Rings::entries()[ring][0]));
    if (lane0) {
      if (slot != kNoSlot) write_start_anchors(v.slots[slot], entry_clock);
      Rings::headers()[ring] = slot != kNoSlot ? RingHeader{v.events + std::size_t(slot) * v.capacity, v.capacity, 0}
                                               : RingHeader{nullptr, 0, 0};
    }
    __syncwarp();
  }
  // Lane 0 hands over what its ring holds, waits until every copy has landed and writes the
  // count.
  __device__ __forceinline__ ~SharedStamps() {
    const std::uint32_t pending = (next_ % kHalfBytes) / sizeof(RawEvent);
    if (pending > 0) flush(pending);
    if (linear_tid() % 32 == 0) {
      hopper::bulk_wait_group<0>();
      const RingHeader& h = Rings::header_of(next_);
      if (h.events != nullptr) write_end_anchors(view_.slots[slot_of_warp(view_)], h.flushed);
    }
  }
  SharedStamps(const SharedStamps&) = delete;
  SharedStamps& operator=(const SharedStamps&) = delete;

  __device__ __forceinline__ void stamp(Span span, bool end, std::uint32_t item) {
    const std::uint32_t c = needs_ordering(span, end) ? ordered_clock(next_) : clock_lo_now();
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(next_), "r"(c), "r"(event_tag(span, end, item)) : "memory");
    next_ += sizeof(RawEvent);
    if (next_ % kHalfBytes == 0) flush(kHalfStamps);
  }
  __device__ __forceinline__ const DeviceView& view() const { return view_; }

 private:
  // Lane 0: the n entries before next_, from the start of their half, to the slot's stamps
  // flushed, flushed + 1, ... by one bulk copy (those past the capacity are counted, not
  // copied). Every lane: next_ moves on to the other half, which lane 0 knows free once the copy
  // of that half, a half ago, has read it (the other lanes wait for it at the __syncwarp).
  __device__ __forceinline__ void flush(std::uint32_t n) {
    const std::uint32_t half = next_ - n * std::uint32_t(sizeof(RawEvent));
    if (linear_tid() % 32 == 0) {
      RingHeader& h = Rings::header_of(half);
      const std::uint32_t first = h.flushed;
      const std::uint32_t room = h.capacity > first ? h.capacity - first : 0;
      // A bulk copy moves whole 16-byte pieces: an odd count takes the stale entry after it along
      // (past the count, never read), which fits, as capacities are even (DeviceTimeline).
      const std::uint32_t even = (n + 1) & ~1u;
      const std::uint32_t bytes = (even < room ? even : room) * std::uint32_t(sizeof(RawEvent));
      // The entries were written through the generic proxy; the copy engine reads them through
      // the async proxy.
      hopper::fence_proxy_async_shared();
      if (h.events != nullptr && bytes > 0) hopper::bulk_copy_to_global(h.events + first, half, bytes);
      hopper::bulk_commit_group();
      hopper::bulk_wait_group_read<1>();  // the other half is free
      h.flushed = first + n;
    }
    next_ = half % kRingBytes == 0 ? half + kHalfBytes : half - kHalfBytes;
    __syncwarp(__activemask());
  }

  const DeviceView& view_;
  std::uint32_t next_ = 0;  // shared-memory address of the warp's next entry
};

}  // namespace attnlab::timeline
