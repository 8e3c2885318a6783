// The SDPA baseline's raw measurements (record/sdpa_raw.hpp) turned into its run record
// (record/result.hpp, the harness's): the statistics, busy times, per-kernel shares and NVML summaries computed by
// the harness's own code (profiler/), the provenance from the build and host. CUDA-free, so the
// CPU tests check it on synthetic raw files; attnlab-sdpa-import (sdpa_import_main.cpp) runs it.
#pragma once

#include "experiments/run_context.hpp"
#include "record/result.hpp"
#include "record/sdpa_raw.hpp"

namespace attnlab {

// Throws std::runtime_error (one line) where the raw numbers cannot make a record: a timed
// regime with a non-positive median, say.
RunRecord sdpa_record(const SdpaRaw& raw, const RunContext& ctx);

}  // namespace attnlab
