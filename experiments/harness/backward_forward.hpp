// The backward gate's forward pass: O (fp16) and the row LSE (fp32) that a backward phase reads,
// made on the device from the gate's Q, K and V before any backward launch and outside every
// timed region.
#pragma once

#include <cuda_runtime.h>

#include "common/shape.hpp"

namespace attnlab {

// The largest head dimension it takes (each lane holds D / 32 elements of a row); larger is a
// std::invalid_argument.
constexpr int kForwardMaxHeadDim = 256;

// Plain fp32 attention, one warp per query row with an online softmax over every visible key:
// scores, row max, row sum and the accumulation of P V in fp32, O rounded to fp16 once, LSE =
// max + log(sum) (natural log, over the row's unmasked keys). Its own code rather than a phase or
// cuDNN, so that every backward phase, and cuDNN's backward alike, reads the same O and LSE,
// accurate to fp32 arithmetic (O within its fp16 rounding of the exact output, which the
// backward rule's floor accounts for), on a build without cuDNN too. q, k, v and o in the
// layouts of kernels/problem.hpp, lse [B, H, S]. Enqueues on `stream`; checks the launch error.
void attention_forward_fp32(const Shape& s, float scale, const void* q, const void* k, const void* v,
                            void* o, float* lse, cudaStream_t stream);

}  // namespace attnlab
