// The SDPA baseline's raw measurements (record/sdpa_raw.hpp) turned into its run record
// (record/result.hpp, the harness's): the statistics, busy times, per-kernel shares and NVML summaries computed by
// the harness's own code (profiler/), the provenance from the build and host. CUDA-free, so the
// CPU tests check it on synthetic raw files; attnlab-sdpa-import (sdpa_import_main.cpp) runs it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "common/stats.hpp"
#include "experiments/harness/reference.hpp"
#include "experiments/harness/run_context.hpp"
#include "profiler/gpu_monitor.hpp"
#include "record/result.hpp"
#include "record/sdpa_raw.hpp"

namespace attnlab {

// One backend's output on one shape checked with the phases' code (experiments/harness/reference.hpp):
// the rows rows_to_check picks for `seed`, the fp64 reference on `in` (torch's inputs, as the
// baseline drew them) at the harness's softmax scale, the row rule, and every element scanned
// for NaN and inf. `repeat_identical`: a second call on the same inputs gave the same bits. torch
// allocates the output, so it is not poisoned first and the block says so.
Correctness sdpa_check(const Shape& s, std::uint64_t seed, const HostTensors& in, const std::vector<__half>& out,
                       bool repeat_identical);

// What the baseline writes for a check, in `dir`: q.f16, k.f16, v.f16 and out.f16, fp16 in
// [B,H,S,D] order ([B,H_kv,S,D] for k and v), the host's byte order. Throws std::runtime_error
// "<file>: <what is wrong>" for a file missing or of the wrong size.
struct SdpaTensors {
  HostTensors in;
  std::vector<__half> out;
};
SdpaTensors read_sdpa_tensors(const std::filesystem::path& dir, const Shape& s);

// The stopping rule (common/stats.hpp) answered line by line while the baseline's graph regime
// samples: each line read is one batch, "<seconds since sampling began> <sample ns>...", and
// each line written, flushed, is "continue" or the reason to stop after every sample so far.
// Throws std::runtime_error on a line that is not numbers.
void serve_stopping_rule(const stats::StoppingRule& rule, std::istream& in, std::ostream& out);

// The harness's NVML monitor (profiler/gpu_monitor.hpp) served to the baseline while it samples,
// a command a line, each answered with one JSON line, flushed: "clock", the SM clock now (null
// without NVML); "start", polling begins at the harness's period, answered as "clock"; "stop",
// polling ends, answered with the nvml block of the readings since "start" (record/sdpa_raw.hpp).
// Throws std::runtime_error on another command.
void serve_monitor(profiler::GpuMonitor& monitor, std::istream& in, std::ostream& out);

// The cold and warm regimes' number of calls, fixed before they sample: all of a regime's calls
// run in one torch.profiler session (sdpa_timing.py says why), so the regime cannot stop on low
// noise. The rule's max_seconds of device time over one call's estimate (per_call_ns, the flush
// included in the cold regime), within [min_samples, max_samples], and the stop reason the raw
// regime records for it: max_samples where that bound set the number, else time_cap. Throws
// std::invalid_argument for an estimate that is not a positive number.
struct SdpaSamplePlan {
  std::size_t samples = 0;
  stats::StopReason stop_reason = stats::StopReason::kTimeCap;
};
SdpaSamplePlan sdpa_sample_plan(const stats::StoppingRule& rule, double per_call_ns);
// "<samples> <stop reason>" ("200 max_samples"): attnlab-sdpa-import plan's answer, plain text
// as the stopping rule's answers are.
std::string sample_plan_answer(const SdpaSamplePlan& plan);

// Why the baseline cannot hold shape `s`, or nullopt: on the device torch's Q, K, V and two
// outputs (the checked one is kept while a second call writes another), on the host what the
// harness's footprint counts (experiments/harness/reference.hpp), against device_free (torch's
// cudaMemGetInfo: the importer's own context would count against it) and host_available.
std::optional<std::string> sdpa_memory_refusal(const Shape& s, std::uint64_t device_free,
                                               std::uint64_t host_available);

// attnlab-sdpa-import gpu's answer: the GPU's attributes by the runtime in the importer's process
// (experiments/harness/gpu_attributes.hpp) and the driver's version, a "<key> <value>" line each, keyed
// as the raw file's gpu block (record/sdpa_raw.hpp) and "driver"; the baseline puts them into
// the raw file's header as it writes it. The name, the one value with spaces, runs to the end of
// its line; the uuid is 32 hex digits; the rest are integers.
std::string sdpa_gpu_answer(const GpuAttributes& gpu, int driver);

// Throws std::runtime_error (one line) where the raw numbers cannot make a record: a timed
// regime with a non-positive median, say.
RunRecord sdpa_record(const SdpaRaw& raw, const RunContext& ctx);

}  // namespace attnlab
