// The host half of warp-role timelines (kernels/timeline.cuh): the device buffer a stamped
// launch (a kernel under a stamping policy) writes into, whose view the launch passes its
// kernel, cleared before a launch and copied back after it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/timeline_events.hpp"

namespace attnlab::timeline {

// Where a launch's stamps go: slot (cta, warp) = cta * warps_per_cta + warp, its events at
// events + slot * capacity. slots == nullptr: nothing is recorded (a launch to size the buffer).
struct DeviceView {
  RawSlot* slots = nullptr;
  RawEvent* events = nullptr;
  std::uint32_t warps_per_cta = 0;
  std::uint32_t ctas = 0;
  std::uint32_t capacity = 0;
  // [cycles] a known delay the stamped kernels' producers spin before issuing each K/V copy
  // (Stamps::producer_delay): 0 but in a run that validates the timeline's what-if on it.
  std::uint32_t producer_delay_cycles = 0;
};

// Owns the slots and events of `ctas` x `warps_per_cta` warps, `capacity` stamps each (rounded
// up to even).
// While attached, every instrumented kernel of the process records into it; the destructor
// detaches (so no kernel writes into freed memory) and frees.
class DeviceTimeline {
 public:
  DeviceTimeline(std::uint32_t ctas, std::uint32_t warps_per_cta, std::uint32_t capacity);
  ~DeviceTimeline();
  DeviceTimeline(const DeviceTimeline&) = delete;
  DeviceTimeline& operator=(const DeviceTimeline&) = delete;
  DeviceTimeline(DeviceTimeline&&) = delete;
  DeviceTimeline& operator=(DeviceTimeline&&) = delete;

  // [bytes] what the buffer of that geometry takes on the device.
  static std::uint64_t bytes(std::uint32_t ctas, std::uint32_t warps_per_cta, std::uint32_t capacity);

  // producer_delay_cycles: DeviceView's, for every stamped kernel while attached.
  void attach(std::uint32_t producer_delay_cycles = 0) const;
  // Zeroes every slot header (counts, anchors) on `stream`: events past a count are never read.
  void clear(cudaStream_t stream) const;
  // Synchronises `stream` and copies the buffer back.
  RawTimeline pull(cudaStream_t stream) const;

 private:
  std::uint32_t ctas_, warps_, capacity_;
  RawSlot* slots_ = nullptr;
  RawEvent* events_ = nullptr;
};

// Makes every stamped launch record nothing (a launch that only sizes the buffer): the view it
// passes (attached_view) is then empty.
void detach_all();
// The view of the buffer attached now (DeviceTimeline::attach; empty before any or after
// detach_all), which a stamped launch passes its kernel (timeline::with_view,
// kernels/timeline.cuh).
const DeviceView& attached_view();
}  // namespace attnlab::timeline
