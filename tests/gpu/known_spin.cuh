// The known spin the timeline's GPU tests measure waits against (tests/gpu/test_timeline.cu,
// tests/gpu/test_timeline_phases.cu): one warp spins a known number of clock64 cycles in a
// stamped span while another waits for it; decoded at kCyclesAsNs, a nanosecond is a cycle.
#pragma once

#include <cuda_runtime.h>

#include "common/check.hpp"
#include "kernels/timeline.cuh"
#include "kernels/timeline_host.hpp"
#include "profiler/timeline_decode.hpp"

namespace attnlab::timeline::test {

// [cycles] long against everything else a warp does before and after its stamps (a few hundred
// cycles).
inline constexpr long long kSpin = 1 << 20;
// [MHz] at 1000 MHz a decoded nanosecond is one cycle: checks in cycles do not depend on the
// clock the SM ran at.
inline constexpr double kCyclesAsNs = 1000;

// `spin` cycles of work, stamped as a span of kind `kind` (one the tested policy stamps).
template <class Stamps>
__device__ void stamped_spin(Stamps& tl, long long spin, Span kind) {
  tl.begin(kind, 0);
  const long long t0 = clock64();
  while (clock64() - t0 < spin) {
  }
  tl.end(kind, 0);
}

// kernel(kSpin, view) on one block of `threads` into a fresh buffer of that block's warps,
// decoded with `o` at kCyclesAsNs.
inline TimelineDecoded run_known_spin(void (*kernel)(long long, DeviceView), unsigned threads, DecodeOptions o) {
  const DeviceTimeline buffer(1, threads / 32, 64);
  buffer.attach();
  buffer.clear(nullptr);
  kernel<<<1, threads>>>(kSpin, attached_view());
  ATTNLAB_CHECK_LAUNCH();
  o.sm_clock_mhz = kCyclesAsNs;
  return decode(buffer.pull(nullptr), o);
}

}  // namespace attnlab::timeline::test
