// CUPTI SASS metrics of one launch (see the header): the two counters resolved for the chip,
// configured, enabled around one launch, flushed, and disabled again; each step undone by a
// guard on every path out.
#include "profiler/sass_metrics.hpp"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "common/check.hpp"
#include "profiler/detail/cupti_check.hpp"
#include "profiler/detail/driver_api.hpp"
#include "profiler/detail/nvperf_host.hpp"
#include "profiler/detail/profiler_support.hpp"
#include "profiler/kernel_activity.hpp"

namespace attnlab::profiler {

namespace {

using Clock = std::chrono::steady_clock;


void warn_on_failure(CUptiResult code, const char* call) {
  if (code != CUPTI_SUCCESS)
    std::fprintf(stderr, "attnlab: warning: %s failed: %s\n", call, CuptiError::describe(code).c_str());
}

// CUPTI's state, undone in reverse order by the destructor on every path out (a refusal, or a
// CudaError of the launch).
struct SassSession {
  CUcontext ctx = nullptr;
  std::uint32_t device = 0;
  bool profiler_initialized = false, configured = false, enabled = false;

  // Disables; the dropped records (data not flushed before) through `dropped`.
  CUptiResult disable(std::size_t* dropped) {
    if (!enabled) return CUPTI_SUCCESS;
    enabled = false;
    CUpti_SassMetricsDisable_Params p{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    p.ctx = ctx;
    const CUptiResult code = cuptiSassMetricsDisable(&p);
    if (dropped) *dropped = p.numOfDroppedRecords;
    return code;
  }
  CUptiResult unset() {
    if (!configured) return CUPTI_SUCCESS;
    configured = false;
    CUpti_SassMetricsUnsetConfig_Params p{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    p.deviceIndex = device;
    return cuptiSassMetricsUnsetConfig(&p);
  }
  ~SassSession() {
    warn_on_failure(disable(nullptr), "cuptiSassMetricsDisable");
    warn_on_failure(unset(), "cuptiSassMetricsUnsetConfig");
    if (profiler_initialized) {
      CUpti_Profiler_DeInitialize_Params p{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
      warn_on_failure(cuptiProfilerDeInitialize(&p), "cuptiProfilerDeInitialize");
    }
  }
};

using Refusal = std::optional<std::string>;

// CUPTI's refusal of `call`, or nullopt where it succeeded.
Refusal refused(CUptiResult code, const char* call) {
  if (code == CUPTI_SUCCESS) return std::nullopt;
  return CuptiError::refusal(call, code);
}

// The current context, the profiler initialized, and SASS metrics supported on device `dev`.
Refusal open_session(SassSession& s, int dev) {
  try {
    const detail::DriverApi& driver = detail::driver_api();
    const CUresult code = driver.ctx_get_current(&s.ctx);
    if (code != CUDA_SUCCESS || s.ctx == nullptr)
      return "cuCtxGetCurrent found no CUDA context (" + driver.describe(code) + ")";
  } catch (const std::exception& e) {
    return std::string("the CUDA driver lacks an entry point: ") + e.what();
  }
  detail::preload_nvperf_host();
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  if (auto why = refused(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize")) return why;
  s.profiler_initialized = true;
  CUpti_Profiler_DeviceSupported_Params p{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  p.cuDevice = dev;
  p.api = CUPTI_PROFILER_SASS_METRICS;
  if (auto why = refused(cuptiProfilerDeviceSupported(&p), "cuptiProfilerDeviceSupported")) return why;
  if (p.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return detail::unsupported_configuration(p, "CUPTI SASS metrics");
  return std::nullopt;
}

Refusal chip_name(int dev, std::string& chip) {
  CUpti_Device_GetChipName_Params p{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  p.deviceIndex = std::size_t(dev);
  if (auto why = refused(cuptiDeviceGetChipName(&p), "cuptiDeviceGetChipName")) return why;
  if (p.pChipName == nullptr) return "cuptiDeviceGetChipName named no chip for device " + std::to_string(dev);
  chip = p.pChipName;
  return std::nullopt;
}

// The two metrics' ids on this chip.
struct MetricIds {
  std::uint64_t inst = 0, thread = 0;
};

// The two metrics resolved on `chip` and configured on the session's device, one value per
// instruction.
Refusal set_config(SassSession& s, const std::string& chip, MetricIds& ids) {
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const char* name : {kSassInstExecuted, kSassThreadInstExecuted}) {
    CUpti_SassMetrics_GetProperties_Params p{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    p.pChipName = chip.c_str();
    p.pMetricName = name;
    if (const CUptiResult code = cuptiSassMetricsGetProperties(&p); code != CUPTI_SUCCESS)
      return CuptiError::refusal("cuptiSassMetricsGetProperties", code) + " (metric " + name + ", chip " + chip + ")";
    (name == kSassInstExecuted ? ids.inst : ids.thread) = p.metric.metricId;
    CUpti_SassMetrics_Config c{};
    c.metricId = p.metric.metricId;
    c.outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;  // one value per instruction
    configs.push_back(c);
  }
  if (ids.inst == ids.thread)
    return "cuptiSassMetricsGetProperties gave " + std::string(kSassInstExecuted) + " and " +
           kSassThreadInstExecuted + " the same id on chip " + chip;
  CUpti_SassMetricsSetConfig_Params p{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  p.numOfMetricConfig = configs.size();
  p.pConfigs = configs.data();
  p.deviceIndex = s.device;
  if (auto why = refused(cuptiSassMetricsSetConfig(&p), "cuptiSassMetricsSetConfig")) return why;
  s.configured = true;
  return std::nullopt;
}

Refusal enable(SassSession& s, bool lazy_patching) {
  CUpti_SassMetricsEnable_Params p{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  p.ctx = s.ctx;
  p.enableLazyPatching = lazy_patching ? 1 : 0;
  if (auto why = refused(cuptiSassMetricsEnable(&p), "cuptiSassMetricsEnable")) return why;
  s.enabled = true;
  return std::nullopt;
}

// The flushed records: `per` instance values of each of `data`'s records.
struct Flushed {
  std::vector<CUpti_SassMetrics_InstanceValue> values;
  std::vector<CUpti_SassMetrics_Data> data;
  std::size_t per = 0;
  Flushed() = default;
  Flushed(const Flushed&) = delete;
  Flushed& operator=(const Flushed&) = delete;
  // CUPTI allocates each record's function name, the caller frees it (NVIDIA's sample does).
  ~Flushed() {
    for (auto& r : data) std::free(const_cast<char*>(r.functionName));
  }
};

// Flushed inside the enable/disable range: after Disable the records are dropped.
Refusal flush_records(const SassSession& s, Flushed& out) {
  CUpti_SassMetricsGetDataProperties_Params props{CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  props.ctx = s.ctx;
  if (auto why = refused(cuptiSassMetricsGetDataProperties(&props), "cuptiSassMetricsGetDataProperties")) return why;
  if (props.numOfPatchedInstructionRecords == 0 || props.numOfInstances == 0)
    return "CUPTI's SASS metrics gave no record for the launch (" +
           std::to_string(props.numOfPatchedInstructionRecords) + " patched-instruction records, " +
           std::to_string(props.numOfInstances) + " instances): no function was patched";
  const std::size_t n = props.numOfPatchedInstructionRecords;
  out.per = props.numOfInstances;
  out.values.resize(n * out.per);
  out.data.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    out.data[i].pInstanceValues = &out.values[i * out.per];
  }
  CUpti_SassMetricsFlushData_Params flush{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
  flush.ctx = s.ctx;
  flush.numOfPatchedInstructionRecords = n;
  flush.numOfInstances = out.per;
  flush.pMetricsData = out.data.data();
  return refused(cuptiSassMetricsFlushData(&flush), "cuptiSassMetricsFlushData");
}

// Per function (name and cubin) and offset, each metric's value summed over its instances
// (one at GPU granularity). A record holds one metric's values or both; the metric id says.
Refusal sum_by_function(const Flushed& flushed, const MetricIds& ids, std::vector<FunctionCounts>& out) {
  std::map<std::pair<std::string, std::uint32_t>, FunctionCounts> by_function;
  std::size_t unknown_ids = 0;
  for (const auto& r : flushed.data) {
    const std::string fn = r.functionName ? r.functionName : "(unknown function)";
    FunctionCounts& f = by_function[{fn, r.cubinCrc}];
    f.name = fn;
    f.cubin_crc = r.cubinCrc;
    InstructionCounts& c = f.by_offset[r.pcOffset];
    for (std::size_t i = 0; i < flushed.per; ++i) {
      const CUpti_SassMetrics_InstanceValue& v = r.pInstanceValues[i];
      if (v.metricId == ids.inst)
        c.executed += v.value;
      else if (v.metricId == ids.thread)
        c.thread_executed += v.value;
      else
        ++unknown_ids;
    }
  }
  if (unknown_ids > 0)
    return "cuptiSassMetricsFlushData gave " + std::to_string(unknown_ids) +
           " values of a metric id that was not configured";
  for (auto& [key, f] : by_function) out.push_back(std::move(f));
  return std::nullopt;
}

}  // namespace

SassCounts collect_sass_counts(const LaunchFn& launch, cudaStream_t stream, const SassCountsOptions& options) {
  const auto t0 = Clock::now();
  SassCounts res;
  auto unavailable = [&](std::string why) {
    res.available = false;
    res.reason = std::move(why);
    res.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    return res;
  };
  int dev = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
  ATTNLAB_CUDA_CHECK(cudaFree(nullptr));  // the primary context exists
  SassSession s;
  s.device = std::uint32_t(dev);
  MetricIds ids;
  if (auto why = open_session(s, dev)) return unavailable(*why);
  if (auto why = chip_name(dev, res.chip)) return unavailable(*why);
  if (auto why = set_config(s, res.chip, ids)) return unavailable(*why);

  const ActivityPause pause;  // no activity records of the patched launch in any timing window
  if (auto why = enable(s, options.lazy_patching)) return unavailable(*why);
  launch(stream);
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  Flushed flushed;
  if (auto why = flush_records(s, flushed)) return unavailable(*why);
  if (auto why = refused(s.disable(&res.dropped_records), "cuptiSassMetricsDisable")) return unavailable(*why);
  if (auto why = refused(s.unset(), "cuptiSassMetricsUnsetConfig")) return unavailable(*why);
  if (auto why = sum_by_function(flushed, ids, res.functions)) return unavailable(*why);
  res.records = flushed.data.size();
  res.available = true;
  res.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return res;
}

void add_sass_counts(PcSamplingResult& res, const LaunchFn& launch, cudaStream_t stream,
                     const PcSamplingOptions& pc_options, const SassCountsOptions& options) {
  if (!res.available) return;
  const auto t0 = Clock::now();
  SassCountsInfo info;
  SassCounts counts;
  try {
    counts = collect_sass_counts(launch, stream, options);
  } catch (const std::exception& e) {
    counts.available = false;
    counts.reason = std::string("the counted launch failed: ") + e.what();
  }
  if (!counts.available) {
    info.reason = counts.reason;
    res.method += "; executed-instruction counts (CUPTI SASS metrics): not collected";
  } else {
    std::size_t counted = 0;
    std::string missing;
    for (auto& k : res.kernels) {
      std::string why;
      const FunctionCounts* f = counts_for_kernel(counts.functions, k.name, k.cubin_crc, why);
      if (!f) {
        missing += (missing.empty() ? "" : "; ") + k.name + ": " + why;
        continue;
      }
      attach_instruction_counts(k, counted_instructions(*f, k.cubin_crc, pc_options.executable));
      ++counted;
    }
    info.available = true;
    info.method = std::string("CUPTI SASS metrics (cupti_sass_metrics.h) ") + kSassInstExecuted + " and " +
                  kSassThreadInstExecuted + " at GPU granularity, on one launch of its own after PC sampling was " +
                  "disabled (" +
                  (options.lazy_patching ? std::string("each function's SASS patched at its first execution in the range")
                                         : std::string("every loaded function's SASS patched at cuptiSassMetricsEnable")) +
                  "; exact counts summed over every instance of a function in the launch, chip " + counts.chip +
                  ", " + std::to_string(counts.records) + " records, " + std::to_string(counts.dropped_records) +
                  " dropped); lines of every counted instruction from cuptiGetSassToSourceCorrelation on the "
                  "samples' cubin; " +
                  std::to_string(counted) + " of " + std::to_string(res.kernels.size()) + " sampled kernels counted" +
                  (missing.empty() ? "" : " (not: " + missing + ")");
    res.method += "; executed-instruction counts per SASS instruction from CUPTI SASS metrics on one more launch";
  }
  info.collection_wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  res.sass_counts = std::move(info);
}

}  // namespace attnlab::profiler
