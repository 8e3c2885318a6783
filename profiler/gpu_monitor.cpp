#include "profiler/gpu_monitor.hpp"

#include <cuda_runtime.h>
#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <string>

#include "common/stats.hpp"

namespace attnlab::profiler {

namespace clock_event {
const std::vector<std::pair<std::uint64_t, const char*>>& names() {
  static const std::vector<std::pair<std::uint64_t, const char*>> n = {
      {kGpuIdle, "gpu_idle"},
      {kApplicationsClocksSetting, "applications_clocks_setting"},
      {kSwPowerCap, "sw_power_cap"},
      {kHwSlowdown, "hw_slowdown"},
      {kSyncBoost, "sync_boost"},
      {kSwThermalSlowdown, "sw_thermal_slowdown"},
      {kHwThermalSlowdown, "hw_thermal_slowdown"},
      {kHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
      {kDisplayClockSetting, "display_clock_setting"}};
  return n;
}
}  // namespace clock_event

// The few NVML entry points used, declared by their documented C signatures (nvml.h):
// nvmlReturn_t is an int (0: success), nvmlDevice_t an opaque pointer.
struct GpuMonitor::Api {
  using Device = void*;
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*handle_by_pci)(const char*, Device*) = nullptr;
  int (*clock_info)(Device, int, unsigned*) = nullptr;
  int (*max_clock_info)(Device, int, unsigned*) = nullptr;
  int (*power_usage)(Device, unsigned*) = nullptr;
  int (*temperature)(Device, int, unsigned*) = nullptr;
  int (*event_reasons)(Device, unsigned long long*) = nullptr;
  Device device = nullptr;
  bool initialised = false;

  static constexpr int kClockSm = 1, kClockMem = 2, kTemperatureGpu = 0;

  std::string error(const char* call, int code) const {
    return std::string(call) + " failed: " + (error_string ? error_string(code) : "NVML error") +
           " (" + std::to_string(code) + ")";
  }
  template <class F>
  bool bind(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    return fn != nullptr;
  }
};

GpuMonitor::GpuMonitor(int device) : api_(std::make_unique<Api>()) {
  Api& a = *api_;
  a.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!a.lib) {
    unavailable_ = std::string("NVML not loadable (libnvidia-ml.so.1 comes with the NVIDIA driver): ") +
                   dlerror();
    return;
  }
  const bool bound = a.bind(a.init, "nvmlInit_v2") && a.bind(a.shutdown, "nvmlShutdown") &&
                     a.bind(a.error_string, "nvmlErrorString") &&
                     a.bind(a.handle_by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
                     a.bind(a.clock_info, "nvmlDeviceGetClockInfo") &&
                     a.bind(a.max_clock_info, "nvmlDeviceGetMaxClockInfo") &&
                     a.bind(a.power_usage, "nvmlDeviceGetPowerUsage") &&
                     a.bind(a.temperature, "nvmlDeviceGetTemperature") &&
                     (a.bind(a.event_reasons, "nvmlDeviceGetCurrentClocksEventReasons") ||
                      a.bind(a.event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!bound) {
    unavailable_ = "NVML lacks an entry point this monitor uses (driver too old?)";
    return;
  }
  if (int rc = a.init(); rc != 0) {
    unavailable_ = a.error("nvmlInit_v2", rc);
    return;
  }
  a.initialised = true;
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess) {
    unavailable_ = "cudaDeviceGetPCIBusId failed for CUDA device " + std::to_string(device);
    return;
  }
  if (int rc = a.handle_by_pci(bus_id, &a.device); rc != 0) {
    unavailable_ = a.error("nvmlDeviceGetHandleByPciBusId_v2", rc);
    return;
  }
  unsigned mhz = 0;
  if (int rc = a.max_clock_info(a.device, Api::kClockSm, &mhz); rc != 0) {
    unavailable_ = a.error("nvmlDeviceGetMaxClockInfo", rc);
    return;
  }
  max_sm_clock_mhz_ = mhz;
  if (!read()) unavailable_ = "NVML read of clocks, power, temperature or clock-event reasons failed";
}

GpuMonitor::~GpuMonitor() {
  if (polling_) stop();
  if (api_->initialised) api_->shutdown();
  if (api_->lib) dlclose(api_->lib);
}

std::optional<GpuReading> GpuMonitor::read() const {
  const Api& a = *api_;
  if (!a.device) return std::nullopt;
  GpuReading r;
  unsigned sm = 0, mem = 0, mw = 0, temp = 0;
  unsigned long long reasons = 0;
  if (a.clock_info(a.device, Api::kClockSm, &sm) != 0 ||
      a.clock_info(a.device, Api::kClockMem, &mem) != 0 || a.power_usage(a.device, &mw) != 0 ||
      a.temperature(a.device, Api::kTemperatureGpu, &temp) != 0 ||
      a.event_reasons(a.device, &reasons) != 0)
    return std::nullopt;
  uint64_t t = 0;
  if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS) return std::nullopt;
  r.t_ns = t;
  r.sm_clock_mhz = sm;
  r.mem_clock_mhz = mem;
  r.power_w = mw / 1000.0;
  r.temperature_c = temp;
  r.reasons = reasons;
  return r;
}

void GpuMonitor::start(std::chrono::microseconds period) {
  if (unavailable_ || polling_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    readings_.clear();
  }
  polling_ = true;
  poller_ = std::thread([this, period] {
    auto next = std::chrono::steady_clock::now();
    while (polling_) {
      if (auto r = read()) {
        std::lock_guard<std::mutex> lock(mutex_);
        readings_.push_back(*r);
      }
      next += period;
      std::this_thread::sleep_until(next);
    }
  });
}

std::vector<GpuReading> GpuMonitor::stop() {
  if (polling_) {
    polling_ = false;
    poller_.join();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return std::move(readings_);
}

bool is_throttled(const GpuReading& r, double max_sm_clock_mhz) {
  if (r.reasons & clock_event::kSlowdown) return true;
  const bool idle = (r.reasons & clock_event::kGpuIdle) != 0;
  return !idle && max_sm_clock_mhz > 0 && r.sm_clock_mhz < kThrottledBelowMaxClock * max_sm_clock_mhz;
}

GpuState summarize_readings(const std::vector<GpuReading>& readings, double max_sm_clock_mhz, std::string source) {
  GpuState g;
  g.source = std::move(source);
  g.readings = static_cast<long long>(readings.size());
  g.max_sm_clock_mhz = max_sm_clock_mhz;
  std::vector<double> sm;
  for (const GpuReading& x : readings) {
    sm.push_back(x.sm_clock_mhz);
    g.power_max_w = std::max(g.power_max_w, x.power_w);
    g.temperature_max_c = std::max(g.temperature_max_c, x.temperature_c);
    if (is_throttled(x, max_sm_clock_mhz)) ++g.throttled_readings;
  }
  const stats::Summary s = stats::summarize(sm);
  g.sm_clock_min_mhz = s.min;
  g.sm_clock_median_mhz = s.median;
  g.sm_clock_max_mhz = s.max;
  for (const auto& [bit, name] : clock_event::names()) {
    long long n = 0;
    for (const GpuReading& x : readings) n += (x.reasons & bit) != 0;
    if (n > 0) g.clock_event_readings.emplace_back(name, n);
  }
  return g;
}

std::vector<bool> throttled_windows(
    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& windows,
    const std::vector<GpuReading>& readings, double max_sm_clock_mhz, std::uint64_t slack_ns) {
  std::vector<std::uint64_t> bad;  // times of throttled readings, ascending
  for (const auto& r : readings)
    if (is_throttled(r, max_sm_clock_mhz)) bad.push_back(r.t_ns);
  std::sort(bad.begin(), bad.end());
  std::vector<bool> out;
  out.reserve(windows.size());
  for (const auto& [start, end] : windows) {
    const std::uint64_t lo = start > slack_ns ? start - slack_ns : 0;
    const auto it = std::lower_bound(bad.begin(), bad.end(), lo);
    out.push_back(it != bad.end() && *it <= end + slack_ns);
  }
  return out;
}

}  // namespace attnlab::profiler
