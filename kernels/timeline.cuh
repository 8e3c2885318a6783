// Warp-role timelines, an instrument chosen at compile time: an instrumented kernel takes its
// stamp policy as a template parameter. Under WarpStamps, lane 0 of every warp stamps clock64 at
// the events the kernel marks into its own slot of a bounded device buffer
// (kernels/timeline_host.hpp owns it; profiler/timeline_decode.hpp reads it back); under
// NoStamps every call is empty, so the timed kernels compile to the same instructions as
// without the stamps. A phase declares both launches (Phase::launch and Phase::launch_timeline).
//
// In a kernel templated on `class Stamps`:
//   Stamps tl;                                 once, early, by every thread (anchors the warp)
//   tl.begin(Span::kSoftmax, j); ... tl.end(Span::kSoftmax, j);   (Span, common/timeline_events.hpp)
//   and a __device__ function that stamps too takes `Stamps& tl`.
// A warp's slot takes `capacity` stamps; later ones are counted, never written.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/check.hpp"
#include "common/timeline_events.hpp"
#include "kernels/timeline_host.hpp"

namespace attnlab::timeline {

namespace {
// One per translation unit (the kernels are not built with relocatable device code).
__device__ DeviceView g_view;

void set_view(const DeviceView& v) { ATTNLAB_CUDA_CHECK(cudaMemcpyToSymbol(g_view, &v, sizeof v)); }
[[maybe_unused]] const bool g_view_registered = (register_view_setter(&set_view), true);

__device__ __forceinline__ std::uint64_t clock_now() {
  std::uint64_t c;
  // volatile and "memory": the read stays between the barrier, wgmma and store instructions
  // around it (register-only arithmetic may still move across it).
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
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
// A shared-memory word per warp of the block (at most 32), which a stamp loads for its timing
// only (WarpStamps::stamp). Declared in the function, so only the kernels that stamp have it.
__device__ __forceinline__ std::uint32_t warp_word_address() {
  __shared__ std::uint32_t words[32];
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(&words[linear_tid() / 32 % 32]));
}
}  // namespace

// The timed build: every stamp is empty, no buffer is read.
struct NoStamps {
  template <class Item>
  __device__ __forceinline__ void begin(Span, Item) {}
  template <class Item>
  __device__ __forceinline__ void end(Span, Item) {}
};

// Per thread; records only in lane 0 of a warp whose slot exists. Its count lives in a
// register (a global read-modify-write per stamp would cost a memory round trip) and is
// written with the end anchor when the recorder goes out of scope, early returns included.
class WarpStamps {
 public:
  // Every thread of a block constructs one, at the same point, with whole warps (every kernel
  // that stamps launches multiples of 32 threads): the __syncwarp at the end rejoins lane 0,
  // which took the header's stores alone, with its warp before the aligned barriers and wgmma
  // that follow, which .aligned requires of a warp.
  __device__ __forceinline__ WarpStamps() {
    const DeviceView v = g_view;
    const std::uint32_t tid = linear_tid(), cta = linear_cta();
    if (v.slots != nullptr && tid % 32 == 0 && tid / 32 < v.warps_per_cta && cta < v.ctas) {
      RawSlot& s = v.slots[cta * v.warps_per_cta + tid / 32];
      s.start_clock = clock_now();
      s.start_ns = globaltimer_now();
      s.smid = smid_now();
      s.cta = cta;
      s.started = 1;
      events_ = v.events + std::size_t(cta * v.warps_per_cta + tid / 32) * v.capacity;
      capacity_ = v.capacity;
    }
    word_ = warp_word_address();
    if (tid % 32 == 0) asm volatile("st.shared.u32 [%0], 0;" ::"r"(word_) : "memory");
    __syncwarp();
  }
  __device__ __forceinline__ ~WarpStamps() {
    if (events_ == nullptr) return;
    RawSlot& s = g_view.slots[linear_cta() * g_view.warps_per_cta + linear_tid() / 32];
    s.end_clock = clock_now();
    s.end_ns = globaltimer_now();
    s.count = count_;
  }
  WarpStamps(const WarpStamps&) = delete;
  WarpStamps& operator=(const WarpStamps&) = delete;
  template <class Item>
  __device__ __forceinline__ void begin(Span span, Item item) { stamp(span, false, std::uint32_t(item)); }
  template <class Item>
  __device__ __forceinline__ void end(Span span, Item item) { stamp(span, true, std::uint32_t(item)); }

  // Every lane runs the same instructions: lane 0's store is one predicated instruction, never a
  // branch, so a stamp does not split the warp before the aligned barrier or wgmma that usually
  // follows it (an aligned barrier reached by a split warp may count each part as a warp).
  //
  // The load first: a named barrier on sm_90 compiles to BAR.SYNC.DEFER_BLOCKING, after which a
  // warp goes on issuing instructions that touch no memory until the barrier completes. A clock
  // read is one, so a stamp right after `bar.sync` would read the time the warp reached the
  // barrier, not when it left (TimelineGpu.DecodedWaitCoversTheKnownSpin catches it; the probe
  // kernels/NOTES.md, "Why phase 5 and d4 are as they are": a load before each stamp's clock
  // read). A volatile load is a memory instruction: it issues only once the barrier is done, and
  // the clock read issues after it. The warp's own shared-memory word, which its lane 0 wrote
  // before the warp's first stamp: a shared load's round trip is short, where a global one
  // (the word this read once) cost a memory round trip per stamp, most of the stamps' overhead.
  __device__ __forceinline__ void stamp(Span span, bool end, std::uint32_t item) {
    [[maybe_unused]] std::uint32_t after_barrier;  // loaded for its timing only
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(after_barrier) : "r"(word_) : "memory");
    const std::uint64_t c = clock_now();
    const std::uint32_t write = events_ != nullptr && count_ < capacity_;
    // RawEvent's second 8 bytes: item, then code, then the reserved half (0), little-endian.
    const std::uint64_t rest = std::uint64_t(item) | std::uint64_t(event_code(span, end)) << 32;
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, 0;\n\t@p st.v2.u64 [%1], {%2, %3};\n\t}" ::"r"(write),
        "l"(events_ + count_), "l"(c), "l"(rest)
        : "memory");
    count_ += events_ != nullptr;
  }

 private:
  std::uint32_t word_ = 0;  // shared-memory address of warp_word_address()'s word
  RawEvent* events_ = nullptr;
  std::uint32_t capacity_ = 0;
  std::uint32_t count_ = 0;
};

}  // namespace attnlab::timeline
