// An e4m3 tensor turned into the fp16 output every phase writes: y = e4m3 value x descale.
// For a library that writes O in e4m3 (cuDNN's FP8 attention forward on Hopper); its launch
// runs this after the library's kernel, and the harness times both.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace attnlab {

// n elements, n a multiple of 16; in and out 16-byte aligned. Enqueued on the stream, never
// synchronises; checks its launch.
void launch_e4m3_to_fp16(const void* in, void* out, std::int64_t n, float descale, cudaStream_t stream);

}  // namespace attnlab
