// The SDPA baseline's raw measurements (record/sdpa_raw.hpp) turned into its run record
// (record/result.hpp, the harness's): the statistics, busy times, per-kernel shares and NVML summaries computed by
// the harness's own code (profiler/), the provenance from the build and host. CUDA-free, so the
// CPU tests check it on synthetic raw files; attnlab-sdpa-import (sdpa_import_main.cpp) runs it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <vector>

#include "common/stats.hpp"
#include "experiments/reference.hpp"
#include "experiments/run_context.hpp"
#include "profiler/gpu_monitor.hpp"
#include "record/result.hpp"
#include "record/sdpa_raw.hpp"

namespace attnlab {

// One backend's output on one shape checked with the phases' code (experiments/reference.hpp):
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

// Throws std::runtime_error (one line) where the raw numbers cannot make a record: a timed
// regime with a non-positive median, say.
RunRecord sdpa_record(const SdpaRaw& raw, const RunContext& ctx);

}  // namespace attnlab
