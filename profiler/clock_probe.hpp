// The SM clock the GPU runs at right now, to turn cycle counts into time and to reject
// samples taken while the clock throttled (nvbench's rule).
#pragma once

#include <cuda_runtime.h>

namespace attnlab::profiler {

// [MHz] SM cycles (clock64) per globaltimer nanosecond over a ~2 ms single-thread spin on
// `stream`. Synchronises `stream` (and its small cudaMalloc/cudaFree the device), so never
// call it inside a timed region: call it between samples or regimes. It reads the clock of the moment: after an idle period the GPU may
// still be ramping up, so run warm-up work first to read the sustained clock.
double measure_sm_clock_mhz(cudaStream_t stream);

// [MHz] the device's peak SM clock (cudaDevAttrClockRate).
int max_sm_clock_mhz(int device);

}  // namespace attnlab::profiler
