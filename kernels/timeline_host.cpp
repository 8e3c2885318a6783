#include "kernels/timeline_host.hpp"

#include "common/check.hpp"

namespace attnlab::timeline {

namespace {
DeviceView& attached() {
  static DeviceView v;
  return v;
}
}  // namespace

void detach_all() { attached() = DeviceView{}; }
const DeviceView& attached_view() { return attached(); }

std::uint64_t DeviceTimeline::bytes(std::uint32_t ctas, std::uint32_t warps_per_cta,
                                    std::uint32_t capacity) {
  const std::uint64_t slots = std::uint64_t(ctas) * warps_per_cta;
  return slots * sizeof(RawSlot) + slots * ((capacity + 1) & ~std::uint64_t(1)) * sizeof(RawEvent);
}

// The capacity rounded up to even: the shared policies write a slot out in 16-byte pieces, two
// stamps each (kernels/timeline.cuh).
DeviceTimeline::DeviceTimeline(std::uint32_t ctas, std::uint32_t warps_per_cta,
                               std::uint32_t capacity)
    : ctas_(ctas), warps_(warps_per_cta), capacity_((capacity + 1) & ~1u) {
  const std::size_t slots = std::size_t(ctas) * warps_per_cta;
  ATTNLAB_CUDA_CHECK(cudaMalloc(&slots_, slots * sizeof(RawSlot)));
  try {
    ATTNLAB_CUDA_CHECK(cudaMalloc(&events_, slots * capacity_ * sizeof(RawEvent)));
    ATTNLAB_CUDA_CHECK(cudaMemset(slots_, 0, slots * sizeof(RawSlot)));
  } catch (...) {
    cudaFree(events_);
    cudaFree(slots_);
    throw;
  }
}

// A launch already queued keeps the view it was given: cudaFree waits for the device first.
DeviceTimeline::~DeviceTimeline() {
  detach_all();
  cudaFree(events_);
  cudaFree(slots_);
}

void DeviceTimeline::attach(std::uint32_t producer_delay_cycles) const {
  attached() = DeviceView{slots_, events_, warps_, ctas_, capacity_, producer_delay_cycles};
}

void DeviceTimeline::clear(cudaStream_t stream) const {
  ATTNLAB_CUDA_CHECK(cudaMemsetAsync(slots_, 0, std::size_t(ctas_) * warps_ * sizeof(RawSlot), stream));
}

RawTimeline DeviceTimeline::pull(cudaStream_t stream) const {
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  RawTimeline r;
  r.ctas = ctas_;
  r.warps_per_cta = warps_;
  r.capacity = capacity_;
  r.slots.resize(std::size_t(ctas_) * warps_);
  r.events.resize(r.slots.size() * capacity_);
  ATTNLAB_CUDA_CHECK(cudaMemcpy(r.slots.data(), slots_, r.slots.size() * sizeof(RawSlot),
                                cudaMemcpyDeviceToHost));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(r.events.data(), events_, r.events.size() * sizeof(RawEvent),
                                cudaMemcpyDeviceToHost));
  return r;
}

}  // namespace attnlab::timeline
