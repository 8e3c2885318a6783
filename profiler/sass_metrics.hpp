// Executed-instruction counts per SASS instruction (Nsight Compute's Source page "Instructions
// Executed" and "Thread Instructions Executed"): CUPTI's SASS metrics API (cupti_sass_metrics.h)
// patches the kernels' SASS to count, per instruction, its warp-level executions
// (smsp__sass_inst_executed) and the threads active in them (smsp__sass_thread_inst_executed),
// for ONE launch of its own. Exact counts, not samples; the patched launch runs slower, so it
// is never a timed one.
//
// Where: in the PC-sampling child process (experiments/harness/pc_sampling_child.hpp), after PC sampling
// is done and disabled, on one more launch; add_sass_counts puts the counts on the sampled PCs
// and on every line of the sampled kernels (record/pc_sampling.hpp attach_instruction_counts).
//
// Sequence: cuptiProfilerInitialize (the SASS metrics API needs it: NVIDIA's sass_metrics sample
// calls it first, and cuptiProfilerDeviceSupported has an api value for it), device support for
// CUPTI_PROFILER_SASS_METRICS, the chip (cuptiDeviceGetChipName), the metrics' ids for the chip
// (cuptiSassMetricsGetProperties), cuptiSassMetricsSetConfig (GPU granularity: one value per
// instruction), cuptiSassMetricsEnable, the launch and a synchronize, GetDataProperties,
// FlushData, Disable, UnsetConfig, cuptiProfilerDeInitialize. Every return code is checked; a
// refusal gives an unavailable result with its reason, never invented values. Host-only.
//
// Seen on the H100 (CUDA 13.0), tests/gpu/test_sass_metrics.cu: once per process (a second
// cuptiSassMetricsSetConfig was refused with CUPTI_ERROR_OUT_OF_MEMORY), which the child is; and
// as the first CUPTI client of a process the collector counted only the first kernel of a
// two-kernel launch, while after PC sampling, as in the child, it counts every kernel (its
// calibration, phase 3b's three). add_sass_counts says which sampled kernels were counted.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "profiler/pc_sampling.hpp"
#include "profiler/sampler.hpp"
#include "record/pc_sampling.hpp"

namespace attnlab::profiler {

inline constexpr const char* kSassInstExecuted = "smsp__sass_inst_executed";
inline constexpr const char* kSassThreadInstExecuted = "smsp__sass_thread_inst_executed";

struct SassCountsOptions {
  // cuptiSassMetricsEnable's enableLazyPatching. true (the default): a function is patched at
  // its first execution inside the enable/disable range, so exactly the kernels of the counted
  // launch are patched, whenever their module was loaded. false: every function of every loaded
  // module is patched by the Enable call itself; on the H100 (CUDA 13.0) that call was refused
  // with CUPTI_ERROR_INVALID_PARAMETER in phase 3b's process (cuBLAS's modules loaded).
  bool lazy_patching = true;
};

struct SassCounts {
  bool available = false;
  std::string reason;                    // when unavailable
  std::string chip;                      // cuptiDeviceGetChipName
  std::vector<FunctionCounts> functions; // every function CUPTI counted in the launch
  std::size_t records = 0;               // CUPTI's patched-instruction records flushed
  std::size_t dropped_records = 0;       // cuptiSassMetricsDisable's numOfDroppedRecords
  double wall_s = 0;                     // the whole collection
};

// Counts one launch of `launch` on `stream` (the device current; the kernels' module loaded
// by an earlier launch). Never throws for a CUPTI refusal (the result says why); CUDA errors
// of the launch propagate as CudaError, after CUPTI's state is undone.
SassCounts collect_sass_counts(const LaunchFn& launch, cudaStream_t stream, const SassCountsOptions& options = {});

// The counts of one more launch onto `res`, a PC-sampling result of the same launch: each
// sampled kernel's counted function (counts_for_kernel: by name, then CUPTI's cubin CRC), its
// instructions placed on lines through the cubin its samples used (counted_instructions), then
// attach_instruction_counts. Sets res.sass_counts (method, wall time, or the reason) and adds a
// sentence to res.method. Never throws: a CUDA error of the launch becomes the reason.
// Nothing is done to an unavailable `res`.
void add_sass_counts(PcSamplingResult& res, const LaunchFn& launch, cudaStream_t stream,
                     const PcSamplingOptions& pc_options, const SassCountsOptions& options = {});

}  // namespace attnlab::profiler
