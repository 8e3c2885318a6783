// Stalls by source line and by instruction: CUPTI PC sampling (cupti_pcsampling.h) of one
// launch, on launches of its own after timing. Every warp-state sample is kept per kernel and
// PC (function offset) with its stall reasons; each PC is mapped to its source line with
// cuptiGetSassToSourceCorrelation on the cubin the samples name (by CUPTI's cubin CRC), and to
// its SASS instruction from `cuobjdump -sass` of that cubin. The builds use -lineinfo.
//
// Cubins: the kernels' modules are loaded (lazily, at their first launch) before any sampler
// exists, and CUPTI allows one callback subscriber at a time, which static facts take for
// each capture; so CUPTI_CBID_RESOURCE_MODULE_LOADED cannot be kept subscribed for the whole
// run. The cubins come instead from the running executable (`cuobjdump -xelf all`), matched
// to the samples by cuptiGetCubinCrc, the CRC CUPTI itself puts in every PC record. Kernels
// of other libraries (cuBLAS) keep their samples per PC, without lines or SASS, and say why.
//
// Unavailable (another profiler attached, counters restricted, any CUPTI error) -> the result
// says {"available": false, "reason"}; every CUPTI and CUDA return code is checked. Host-only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "profiler/sampler.hpp"
#include "profiler/pc_sampling_plan.hpp"
#include "record/pc_sampling.hpp"

namespace attnlab::profiler {

struct PcSamplingOptions {
  // 2^n cycles between samples per SM, 5..31; 0: chosen from `expected_ns` so that one launch
  // gives about kTargetSamples samples.
  int period_log2 = 0;
  double expected_ns = 0;  // [ns] the unsampled launch's device time (its timing median)
  std::string executable = "/proc/self/exe";  // where the cubins are extracted from
};

// Samples one launch of `launch` on `stream` (the device current). Suspends KernelActivity
// meanwhile. Never throws for a CUPTI refusal (the result says why); CUDA errors of the launch
// propagate as CudaError.
// PC sampling is enabled for this launch alone and disabled after it: it cannot stay enabled
// for the run, since CUPTI then refuses the kernel activity tracing that times the launches
// (cuptiActivityEnable: CUPTI_ERROR_NOT_COMPATIBLE, H100, CUDA 13.0).
//
// Call it in a process in which PC sampling is the only CUPTI client, after a first launch
// has loaded the kernels' module: on the H100, in a process where CUPTI kernel activity tracing
// and a CUPTI callback subscriber (static facts) had been used before, every sample came back
// as a "non-user kernel" sample without PCs (non_user_samples), CUDA_MODULE_LOADING=EAGER or
// not. The harness therefore samples in a child process of its own
// (experiments/harness/pc_sampling_child.hpp).
PcSamplingResult collect_pc_samples(const LaunchFn& launch, cudaStream_t stream,
                                    const PcSamplingOptions& options);

// Each counted instruction of `f` (CUPTI SASS metrics, profiler/sass_metrics.hpp) with its
// source line, from the cubin of `executable` that a kernel's samples were matched to (CUPTI's
// cubin CRC `cubin_crc`, else the function's name in the SASS listing), through
// cuptiGetSassToSourceCorrelation as the sampled PCs got theirs. Without such a cubin (a
// library's kernel) the instructions keep their counts and have no line.
std::vector<CountedInstruction> counted_instructions(const FunctionCounts& f, std::uint64_t cubin_crc,
                                                     const std::string& executable);

}  // namespace attnlab::profiler
