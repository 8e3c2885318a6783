// The record's structs filled from what a run measured (experiments/harness/record_fill.hpp).
#include "experiments/harness/record_fill.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "experiments/harness/build_info.hpp"
#include "experiments/harness/console.hpp"
#include "experiments/harness/gpu_attributes.hpp"
#include "experiments/harness/run_context.hpp"
#include "experiments/harness/run_setup.hpp"
#include "kernels/phase_cudnn.hpp"
#include "record/constants.hpp"
#include "profiler/profiler.hpp"

namespace attnlab {

GpuIdentity gpu_identity(int dev) { return gpu_identity(gpu_attributes(dev)); }

Provenance provenance(int argc, char** argv, std::uint64_t seed, int dev, bool runs_cudnn) {
  Provenance pv;
  const RunContext ctx = run_context();
  pv.git = ctx.git;
  pv.argv.assign(argv, argv + argc);
  pv.build = {build_info::kBuildType, build_info::kCudaArchitectures, build_info::kCudaFlags,
              build_info::kCxxFlags, build_info::kCxxCompiler};
  pv.versions.nvcc = build_info::kNvccVersion;
  pv.versions.driver = driver_version();
  ATTNLAB_CUDA_CHECK(cudaRuntimeGetVersion(&pv.versions.runtime));
  pv.versions.cupti = profiler::cupti_version();
  // The C++ baselines run cuDNN: which one is part of what they measured.
  if (const auto v = phase_cudnn::versions(); v && runs_cudnn) {
    pv.versions.cudnn = static_cast<long long>(v->loaded);
    pv.versions.cudnn_header = v->header;
  }
  pv.gpu = gpu_identity(dev);
  pv.seed = seed;
  pv.host = ctx.host;
  pv.sweep_id = ctx.sweep_id;
  return pv;
}

namespace {

// What NVML said during a regime, summarised for the record.
GpuState gpu_state(const profiler::RegimeResult& r) {
  GpuState g;
  if (r.gpu_readings.empty()) {
    g.unavailable = r.gpu_unavailable.empty() ? "no NVML reading was taken" : r.gpu_unavailable;
    return g;
  }
  g = profiler::summarize_readings(r.gpu_readings, r.max_sm_clock_mhz,
                                   "NVML (nvmlDeviceGetClockInfo, GetPowerUsage, GetTemperature, "
                                   "GetCurrentClocksEventReasons), polled every " +
                                       console::human_ns(r.gpu_poll_ms * 1e6) + " while sampling");
  g.throttled_samples_ns = r.throttled_samples_ns;
  g.throttled_policy = r.throttled_policy;
  return g;
}

}  // namespace

RegimeTiming regime_timing(const profiler::RegimeResult& r, const Shape& s, Direction d) {
  const auto& m = r.summary;
  RegimeTiming t;
  t.method = profiler::regime_method(r.regime);
  profiler::copy_statistics(m, t);
  t.stop_reason = stats::stop_reason_name(r.stop);
  t.wall_s = r.wall_seconds;
  t.launches_per_sample = r.launches_per_sample;
  t.clock_before_mhz = r.sm_clock_mhz_before;
  t.clock_after_mhz = r.sm_clock_mhz_after;
  t.tflops = pass_flops(s, d) / m.median / 1e3;               // FLOP/ns = GFLOP/s
  t.dram_gbps_min_bytes = pass_min_bytes(s, d) / m.median;    // byte/ns = GB/s
  t.kernels = r.kernel_names;
  if (!r.busy_ns.empty()) {
    // The span above includes the idle gaps between a multi-kernel launch's kernels; this is
    // the time any of them ran (equal to the span for a single kernel).
    t.kernels_per_launch = r.kernels_per_launch;
    const auto busy = stats::summarize(r.busy_ns);
    t.busy_median_ns = busy.median;
    t.busy_p10_ns = busy.p10;
    t.busy_p90_ns = busy.p90;
  }
  t.samples_ns = r.samples_ns;
  if (!r.clock_source.empty()) t.clock_source = r.clock_source;
  t.gpu_state = gpu_state(r);
  return t;
}

Correctness correctness_block(const GateResult& g, const Shape& s, Inputs inputs) {
  Correctness corr = correctness_block(g.check, s, inputs);
  corr.passed = g.passed;
  corr.repeat_identical = g.repeat_identical;
  corr.failure.reset();
  if (!g.passed) corr.failure = g.failure;
  corr.input_format = input_format_name(g.format);
  corr.input_scales = g.scales;
  corr.rmse_unquantised = g.rmse_unquantised;
  if (g.lse) {
    corr.lse_max_abs_err = g.lse->max_abs_err;
    corr.lse_err_ratio = g.lse->worst_ratio;
  }
  return corr;
}

}  // namespace attnlab
