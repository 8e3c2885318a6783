// The Range Profiler collector behind MetricsCollector, and HardwareEvidence, which turns its
// groups, the static facts and the derived figures into a run record's result entry.
//
// One group, start to end: a host object validates each metric name for the chip and builds
// the config image (scheduling of counters into passes); the range profiler is enabled on
// the context with a counter-data image for one range; then, per pass, the L2 is flushed
// clean, the profiler started, the user range pushed, the launch run and waited for, the range
// popped and the profiler stopped, until CUPTI says every pass was submitted; the counter
// data is decoded once and evaluated to metric values. A launch of several kernels is then
// profiled again with CUPTI's auto range: one range per kernel, numbered in launch order.
#include "profiler/metrics.hpp"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "common/check.hpp"
#include "profiler/detail/cupti_check.hpp"
#include "profiler/derived.hpp"
#include "profiler/detail/driver_api.hpp"
#include "profiler/detail/nvperf_host.hpp"
#include "profiler/detail/l2_clean_flush.hpp"
#include "profiler/detail/profiler_support.hpp"
#include "profiler/detail/range_profiler.hpp"
#include "profiler/kernel_activity.hpp"
#include "profiler/metric_groups.hpp"
#include "profiler/nvtx.hpp"
#include "profiler/static_facts.hpp"

namespace attnlab::profiler {

namespace detail {

struct CollectorState {
  int device = 0;
  CUcontext context = nullptr;
  std::string chip;
  std::vector<std::uint8_t> availability;  // CUPTI's counter-availability image
  std::optional<std::string> unavailable;
  bool profiler_initialized = false;
  std::unique_ptr<CleanL2Flush> flush;
};

}  // namespace detail

namespace {

using detail::failed;
using detail::HostObject;
using detail::OpenPass;
using detail::RangeProfiler;
using detail::warn_on_failure;
using Clock = std::chrono::steady_clock;

// The metric groups are GH100's (metric_groups.hpp); other chips name counters differently.
constexpr const char* kChip = "GH100";

// A group's metrics as the chip knows them, scheduled into passes (CUPTI's config image).
struct GroupConfig {
  HostObject host;
  std::vector<const char*> names;
  std::vector<const MetricSpec*> specs;
  std::vector<std::uint8_t> image;
  std::size_t expected_passes = 0;
};

// Fills `c` for group `g`; metrics the chip lacks go to res.unavailable_metrics. Returns false,
// with res.reason set, at the first refusal.
bool build_config(const detail::CollectorState& s, const MetricGroup& g, GroupConfig& c, GroupResult& res) {
  {
    auto p = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = s.chip.c_str();
    p.pCounterAvailabilityImage = s.availability.data();
    if (failed(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize", res.reason)) return false;
    c.host.object = p.pHostObject;
  }
  // One unknown name would fail the whole config image: validate each first, collect the rest.
  for (const MetricSpec& m : g.metrics) {
    auto p = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params);
    p.pHostObject = c.host.object;
    p.pMetricName = m.name;
    const CUptiResult code = cuptiProfilerHostGetMetricProperties(&p);
    if (code == CUPTI_SUCCESS) {
      c.names.push_back(m.name);
      c.specs.push_back(&m);
    } else {
      res.unavailable_metrics.emplace_back(
          m.name, CuptiError::refusal("cuptiProfilerHostGetMetricProperties", code) + " (chip " + s.chip + ")");
    }
  }
  if (c.names.empty()) {
    res.reason = "none of the group's metrics exists on chip " + s.chip;
    return false;
  }
  auto add = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = c.host.object;
  add.ppMetricNames = c.names.data();
  add.numMetrics = c.names.size();
  if (failed(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics", res.reason))
    return false;
  auto size = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = c.host.object;
  if (failed(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize", res.reason))
    return false;
  c.image.resize(size.configImageSize);
  auto image = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  image.pHostObject = c.host.object;
  image.configImageSize = c.image.size();
  image.pConfigImage = c.image.data();
  if (failed(cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage", res.reason))
    return false;
  auto passes = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  passes.configImageSize = c.image.size();
  passes.pConfigImage = c.image.data();
  if (failed(cuptiProfilerHostGetNumOfPasses(&passes), "cuptiProfilerHostGetNumOfPasses", res.reason))
    return false;
  c.expected_passes = passes.numOfPasses;
  return true;
}

// What one profiling session delimits: one user range named `user_range` around the launch, or
// (user_range empty) CUPTI's auto range, one range per kernel the launch starts, `ranges` of them.
// Auto range gets room for one range more: CUPTI stops at the room it has without saying so,
// so a launch starting more kernels than named only shows as that extra range.
struct Ranges {
  std::string user_range;
  std::size_t ranges = 1;
  std::size_t room() const { return user_range.empty() ? ranges + 1 : ranges; }
};

// The session's counter-data image, sized for `want`'s ranges and initialized.
bool init_counter_data(const RangeProfiler& profiler, GroupConfig& c, const Ranges& want,
                       std::vector<std::uint8_t>& counter_data, std::string& why) {
  auto size = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  size.pRangeProfilerObject = profiler.object;
  size.pMetricNames = c.names.data();
  size.numMetrics = c.names.size();
  size.maxNumOfRanges = want.room();
  size.maxNumRangeTreeNodes = want.room();
  if (failed(cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize", why))
    return false;
  counter_data.assign(size.counterDataSize, 0);
  auto init = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  init.pRangeProfilerObject = profiler.object;
  init.counterDataSize = counter_data.size();
  init.pCounterData = counter_data.data();
  return !failed(cuptiRangeProfilerCounterDataImageInitialize(&init),
                 "cuptiRangeProfilerCounterDataImageInitialize", why);
}

// The group's config image and the counter data on the session: user replay, user or auto range.
bool set_config(const RangeProfiler& profiler, GroupConfig& c, const Ranges& want,
                std::vector<std::uint8_t>& counter_data, std::string& why) {
  auto p = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  p.pRangeProfilerObject = profiler.object;
  p.configSize = c.image.size();
  p.pConfig = c.image.data();
  p.counterDataImageSize = counter_data.size();
  p.pCounterDataImage = counter_data.data();
  p.range = want.user_range.empty() ? CUPTI_AutoRange : CUPTI_UserRange;
  p.replayMode = CUPTI_UserReplay;
  p.maxRangesPerPass = want.room();
  p.numNestingLevels = 1;  // auto range requires 1
  p.minNestingLevel = 1;
  p.passIndex = 0;
  p.targetNestingLevel = 1;  // in-process replay starts at the lowest profiled level
  return !failed(cuptiRangeProfilerSetConfig(&p), "cuptiRangeProfilerSetConfig", why);
}

// One pass: the L2 flushed clean and the GPU idle, the profiler started (and the user range
// pushed), the launch run and waited for, then popped and stopped; `all_submitted` says whether
// CUPTI needs no further pass.
bool run_pass(detail::CollectorState& s, const RangeProfiler& profiler, const Ranges& want, const LaunchFn& launch,
              cudaStream_t stream, bool& all_submitted, std::string& why) {
  const bool user = !want.user_range.empty();
  // Clean L2 and an idle GPU: every pass starts from the state ncu's cache control gives.
  s.flush->flush_and_wait(stream);
  OpenPass pass(profiler.object);
  auto start = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
  start.pRangeProfilerObject = profiler.object;
  if (failed(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart", why)) return false;
  pass.started = true;
  if (user) {
    auto push = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params);
    push.pRangeProfilerObject = profiler.object;
    push.pRangeName = want.user_range.c_str();
    if (failed(cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange", why)) return false;
    pass.pushed = true;
  }
  launch(stream);
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (user) {
    auto pop = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params);
    pop.pRangeProfilerObject = profiler.object;
    pass.pushed = false;
    if (failed(cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange", why)) return false;
  }
  auto stop = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
  stop.pRangeProfilerObject = profiler.object;
  pass.started = false;
  if (failed(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop", why)) return false;
  all_submitted = stop.isAllPassSubmitted != 0;
  return true;
}

// The passes until CUPTI says every one was submitted; the cap only stops a runaway loop.
bool run_passes(detail::CollectorState& s, const RangeProfiler& profiler, const GroupConfig& c, const Ranges& want,
                const LaunchFn& launch, cudaStream_t stream, int& passes, std::string& why) {
  const std::size_t expected = c.expected_passes;
  const std::size_t max_passes = std::max<std::size_t>(2 * expected, expected + 4);
  passes = 0;
  for (bool all_submitted = false; !all_submitted; ++passes) {
    if (std::size_t(passes) >= max_passes) {
      why = "CUPTI asked for more than " + std::to_string(max_passes) +
            " passes where its config image declared " + std::to_string(expected);
      return false;
    }
    if (!run_pass(s, profiler, want, launch, stream, all_submitted, why)) return false;
  }
  return true;
}

// The counter data decoded, with every range kept and as many ranges as `want` names.
bool decode(const RangeProfiler& profiler, const Ranges& want, std::vector<std::uint8_t>& counter_data,
            std::string& why) {
  const bool user = !want.user_range.empty();
  auto p = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  p.pRangeProfilerObject = profiler.object;
  if (failed(cuptiRangeProfilerDecodeData(&p), "cuptiRangeProfilerDecodeData", why)) return false;
  if (p.numOfRangeDropped != 0) {
    why = "CUPTI dropped " + std::to_string(p.numOfRangeDropped) + " profiled ranges (the counter-data image holds " +
          std::to_string(want.room()) + (user ? ")" : "; did the launch start more kernels than its static facts name?)");
    return false;
  }
  auto info = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  if (failed(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo", why))
    return false;
  if (info.numTotalRanges != want.ranges) {
    why = "CUPTI recorded " + std::to_string(info.numTotalRanges) +
          (user ? " ranges where 1 user range was pushed; did the launch start a kernel?"
                : std::string(info.numTotalRanges > want.ranges ? " or more" : "") + " ranges where " +
                      std::to_string(want.ranges) +
                      " kernels were named (static facts); the ranges cannot be matched to kernels");
    return false;
  }
  return true;
}

// One session of the range profiler over `launch`, user replay: enabled on the context, its
// counter data and config set, the passes run, the counter data decoded. Returns false, with
// `why` set, at the first refusal or when the ranges are not as expected.
bool profile(detail::CollectorState& s, GroupConfig& c, const LaunchFn& launch, cudaStream_t stream,
             const Ranges& want, std::vector<std::uint8_t>& counter_data, int& passes, std::string& why) {
  RangeProfiler profiler;
  auto p = ATTNLAB_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  p.ctx = s.context;
  if (failed(cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable", why)) return false;
  profiler.object = p.pRangeProfilerObject;
  return init_counter_data(profiler, c, want, counter_data, why) && set_config(profiler, c, want, counter_data, why) &&
         run_passes(s, profiler, c, want, launch, stream, passes, why) && decode(profiler, want, counter_data, why);
}

// The values of range `index` of decoded counter data; metrics evaluated non-finite go to
// `dropped`. Returns false, with `why` set, when CUPTI refuses.
bool evaluate(GroupConfig& c, const std::vector<std::uint8_t>& counter_data, std::size_t index,
              std::vector<MetricValue>& out, std::vector<std::pair<std::string, std::string>>* dropped,
              std::string& why) {
  std::vector<double> values(c.names.size());
  auto p = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  p.pHostObject = c.host.object;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = index;
  p.ppMetricNames = c.names.data();
  p.numMetrics = c.names.size();
  p.pMetricValues = values.data();
  if (failed(cuptiProfilerHostEvaluateToGpuValues(&p), "cuptiProfilerHostEvaluateToGpuValues", why)) return false;
  for (std::size_t i = 0; i < c.names.size(); ++i) {
    if (!std::isfinite(values[i])) {
      if (dropped) dropped->emplace_back(c.names[i], "CUPTI evaluated a non-finite value");
      continue;
    }
    out.push_back({c.specs[i]->name, c.specs[i]->unit, values[i]});
  }
  return true;
}

// The whole collection of one group: the launch-wide values from one user range, then, for a
// launch of several kernels (`kernels`: their names in launch order), one auto range per kernel
// in passes of their own. Returns early, with res.reason set, at the first refusal of the
// launch-wide collection; a refusal of the per-kernel one only sets res.kernels_reason.
void collect_group(detail::CollectorState& s, const MetricGroup& g, const LaunchFn& launch,
                   cudaStream_t stream, const std::string& range_name,
                   const std::vector<std::string>& kernels, GroupResult& res) {
  GroupConfig c;
  if (!build_config(s, g, c, res)) return;

  // Activity tracing stays off while the range profiler replays the launch.
  std::optional<ActivityPause> pause;
  try {
    pause.emplace();
  } catch (const CuptiError& e) {
    res.reason = std::string("cannot pause CUPTI activity tracing for collection: ") + e.what();
    return;
  }

  std::vector<std::uint8_t> counter_data;
  if (!profile(s, c, launch, stream, Ranges{range_name, 1}, counter_data, res.passes, res.reason)) return;
  if (!evaluate(c, counter_data, 0, res.values, &res.unavailable_metrics, res.reason)) return;
  if (res.values.empty()) {
    res.reason = "CUPTI evaluated no finite value for any metric of the group";
    return;
  }
  res.available = true;

  if (kernels.size() < 2) return;  // one kernel: the launch-wide values are its own
  std::string why;
  std::vector<KernelMetricValues> per_kernel;
  if (profile(s, c, launch, stream, Ranges{"", kernels.size()}, counter_data, res.kernel_passes, why)) {
    for (std::size_t i = 0; i < kernels.size() && why.empty(); ++i) {
      KernelMetricValues k;
      k.name = kernels[i];
      k.index = int(i);
      if (evaluate(c, counter_data, i, k.values, nullptr, why)) per_kernel.push_back(std::move(k));
    }
  }
  if (why.empty()) {
    res.kernels = std::move(per_kernel);
  } else {
    res.kernels_reason = "per-kernel counters (CUPTI auto range, one range per kernel): " + why;
    res.kernel_passes = 0;
  }
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The collector's set-up, one step a function: nullopt to go on, else why the counter groups
// cannot be collected on this GPU (every CUPTI and driver refusal named).
using SetupStep = std::optional<std::string> (*)(detail::CollectorState&, const cudaDeviceProp&);

std::optional<std::string> hopper_only(detail::CollectorState&, const cudaDeviceProp& prop) {
  if (prop.major == 9) return std::nullopt;
  return std::string("the metric groups are GH100's (Hopper: H100, H200); this GPU is ") + prop.name +
         " (compute capability " + std::to_string(prop.major) + "." + std::to_string(prop.minor) +
         "): profile it with Nsight Compute instead";
}

std::optional<std::string> current_context(detail::CollectorState& s, const cudaDeviceProp&) {
  try {
    const detail::DriverApi& driver = detail::driver_api();
    const CUresult code = driver.ctx_get_current(&s.context);
    if (code != CUDA_SUCCESS || s.context == nullptr)
      return "cuCtxGetCurrent found no CUDA context (" + driver.describe(code) + ")";
  } catch (const CudaError& e) {
    return std::string("the CUDA driver lacks an entry point the collector needs: ") + e.what();
  }
  return std::nullopt;
}

std::optional<std::string> initialize_profiler(detail::CollectorState& s, const cudaDeviceProp&) {
  detail::preload_nvperf_host();
  auto p = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  const CUptiResult code = cuptiProfilerInitialize(&p);
  if (code != CUPTI_SUCCESS) return CuptiError::refusal("cuptiProfilerInitialize", code);
  s.profiler_initialized = true;
  return std::nullopt;
}

std::optional<std::string> device_supported(detail::CollectorState& s, const cudaDeviceProp&) {
  auto p = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  p.cuDevice = s.device;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  const CUptiResult code = cuptiProfilerDeviceSupported(&p);
  if (code != CUPTI_SUCCESS) return CuptiError::refusal("cuptiProfilerDeviceSupported", code);
  if (p.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return detail::unsupported_configuration(p, "CUPTI range profiling");
  return std::nullopt;
}

std::optional<std::string> chip_name(detail::CollectorState& s, const cudaDeviceProp& prop) {
  auto p = ATTNLAB_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  p.deviceIndex = std::size_t(s.device);
  const CUptiResult code = cuptiDeviceGetChipName(&p);
  if (code != CUPTI_SUCCESS) return CuptiError::refusal("cuptiDeviceGetChipName", code);
  if (p.pChipName == nullptr) return "cuptiDeviceGetChipName named no chip for device " + std::to_string(s.device);
  s.chip = p.pChipName;
  if (s.chip != kChip)
    return "the metric groups are " + std::string(kChip) + "'s; this GPU (" + prop.name + ") is chip " + s.chip +
           ": profile it with Nsight Compute instead";
  return std::nullopt;
}

// Counters restricted to admin users are usually refused here first.
std::optional<std::string> counter_availability(detail::CollectorState& s, const cudaDeviceProp&) {
  auto p = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  p.ctx = s.context;
  CUptiResult code = cuptiProfilerGetCounterAvailability(&p);
  if (code == CUPTI_SUCCESS) {
    s.availability.resize(p.counterAvailabilityImageSize);
    p.pCounterAvailabilityImage = s.availability.data();
    code = cuptiProfilerGetCounterAvailability(&p);
  }
  if (code != CUPTI_SUCCESS) return CuptiError::refusal("cuptiProfilerGetCounterAvailability", code);
  return std::nullopt;
}

}  // namespace

MetricsCollector::MetricsCollector(int device) : state_(std::make_unique<detail::CollectorState>()) {
  detail::CollectorState& s = *state_;
  s.device = device;
  ATTNLAB_CUDA_CHECK(cudaSetDevice(device));
  ATTNLAB_CUDA_CHECK(cudaFree(nullptr));  // the runtime's primary context, current from here
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  for (const SetupStep step :
       {&hopper_only, &current_context, &initialize_profiler, &device_supported, &chip_name, &counter_availability})
    if ((s.unavailable = step(s, prop))) return;
  s.flush = std::make_unique<detail::CleanL2Flush>();
}

MetricsCollector::~MetricsCollector() {
  if (state_->profiler_initialized) {
    auto p = ATTNLAB_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params);
    warn_on_failure(cuptiProfilerDeInitialize(&p), "cuptiProfilerDeInitialize");
  }
}

const std::optional<std::string>& MetricsCollector::unavailable() const { return state_->unavailable; }
const std::string& MetricsCollector::chip() const { return state_->chip; }

GroupResult MetricsCollector::collect(const std::string& group, const LaunchFn& launch,
                                      cudaStream_t stream, const std::string& range_name,
                                      const std::vector<std::string>& kernels) {
  const MetricGroup* g = find_metric_group(group);
  if (g == nullptr) throw std::invalid_argument("unknown metric group '" + group + "'");
  GroupResult res;
  res.group = group;
  if (state_->unavailable) {
    res.reason = *state_->unavailable;
    return res;
  }
  const auto t0 = Clock::now();
  collect_group(*state_, *g, launch, stream, range_name, kernels, res);
  res.collection_wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!res.available) res.values.clear();  // an unavailable group carries no values at all
  return res;
}

std::string console_line(const GroupResult& group) {
  if (!group.available) return group.group + ": unavailable: " + group.reason;
  std::string line = group.group + ": " + std::to_string(group.values.size()) + " metrics, " +
                     std::to_string(group.passes) + " passes";
  if (!group.kernels.empty())
    line += " + " + std::to_string(group.kernel_passes) + " for " + std::to_string(group.kernels.size()) +
            " kernels";
  line += ", " + fmt("%.3f s", group.collection_wall_s);
  if (!group.kernels_reason.empty()) line += "; " + group.kernels_reason;
  for (const auto& [name, why] : group.unavailable_metrics) line += "; " + name + " unavailable: " + why;
  return line;
}

HardwareEvidence::HardwareEvidence(int device, std::vector<std::string> groups)
    : groups_(std::move(groups)) {
  for (const auto& g : groups_)
    if (find_metric_group(g) == nullptr) throw std::invalid_argument("unknown metric group '" + g + "'");
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  gpu_name_ = prop.name;
  if (!groups_.empty()) collector_.emplace(device);
}

HardwareEvidence::~HardwareEvidence() = default;

ShapeEvidence HardwareEvidence::collect(const LaunchFn& launch, cudaStream_t stream,
                                       const std::string& range_name, double flops,
                                       std::optional<double> tflops, bool e4m3_operands) {
  ShapeEvidence ev;
  ev.facts = capture_static_facts(launch, stream);
  // Counters per kernel need the kernels' names in launch order: CUPTI numbers its auto ranges.
  std::vector<std::string> kernels;
  for (const KernelFacts& k : ev.facts.kernels) kernels.push_back(k.name);
  for (const auto& g : groups_) {
    GroupResult res = collector_->collect(g, launch, stream, range_name, kernels);
    if (res.available && !ev.facts.available)
      res.kernels_reason = "per-kernel counters: not measured, the launch's kernels are unnamed (static facts: " +
                           ev.facts.reason + ")";
    ev.groups.push_back(std::move(res));
  }

  DerivedInputs in;
  in.flops = flops;
  in.gpu_name = gpu_name_;
  in.tflops = tflops;
  in.e4m3_operands = e4m3_operands;
  for (const GroupResult& g : ev.groups) {
    if (auto v = g.value("dram__bytes_read.sum")) in.dram_read_bytes = v;
    if (auto v = g.value("dram__bytes_write.sum")) in.dram_write_bytes = v;
    if (auto v = g.value("gpu__time_duration.sum")) in.duration_ns = v;
  }
  ev.derived = derived_figures(in);
  return ev;
}

MetricsConfig HardwareEvidence::config() const {
  MetricsConfig c;
  c.groups = groups_;
  c.method =
      "CUPTI range profiler (cupti_range_profiler.h): user range around one launch, user replay "
      "(one launch per pass), one group at a time, after timing; before every pass the stream "
      "is idle and the L2 flushed clean by reading 2x its size. For a launch of several kernels, "
      "each group is collected again in passes of its own with CUPTI's auto range (one range per "
      "kernel, numbered in launch order and matched to static.kernels), same replay and flush: "
      "metrics.<group>.kernels";
  c.range_name = "attnlab.profile.<phase>.<shape>";
  if (collector_ && !collector_->chip().empty()) c.chip = collector_->chip();
  if (collector_ && collector_->unavailable()) c.unavailable = *collector_->unavailable();
  for (const auto& g : groups_) c.metrics.emplace_back(g, metric_names({g}));
  c.derived = derived_method();
  return c;
}

void launch_for_profiler(const LaunchFn& launch, cudaStream_t stream, const std::string& range_name) {
  detail::CleanL2Flush flush;
  flush.flush_and_wait(stream);
  const NvtxRange range(range_name);
  launch(stream);
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace attnlab::profiler
