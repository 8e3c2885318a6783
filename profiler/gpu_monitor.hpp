// What the GPU's own management library says about it while a regime is sampled: SM and memory
// clock, power, temperature and the clock-event (throttle) reasons, read through NVML. NVML
// is loaded at run time (libnvidia-ml.so.1, installed with the driver), so the build needs
// neither its header nor its library, and a machine without it records why instead of values.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "record/timing.hpp"

namespace attnlab::profiler {

// NVML's clock-event reason bits (nvml.h, nvmlClocksEventReason*; same values under their
// older nvmlClocksThrottleReason* names).
namespace clock_event {
inline constexpr std::uint64_t kGpuIdle = 0x1;
inline constexpr std::uint64_t kApplicationsClocksSetting = 0x2;
inline constexpr std::uint64_t kSwPowerCap = 0x4;
inline constexpr std::uint64_t kHwSlowdown = 0x8;
inline constexpr std::uint64_t kSyncBoost = 0x10;
inline constexpr std::uint64_t kSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t kDisplayClockSetting = 0x100;
// Reasons that mean the clock was pulled down by heat or a hardware protection, not by the
// normal power management of a busy GPU.
inline constexpr std::uint64_t kSlowdown =
    kHwSlowdown | kSwThermalSlowdown | kHwThermalSlowdown | kHwPowerBrakeSlowdown;
// {bit, record name} for every reason above, in bit order.
const std::vector<std::pair<std::uint64_t, const char*>>& names();
}  // namespace clock_event

struct GpuReading {
  std::uint64_t t_ns = 0;      // CUPTI timestamp (the clock of kernel activity records)
  double sm_clock_mhz = 0;
  double mem_clock_mhz = 0;
  double power_w = 0;
  double temperature_c = 0;
  std::uint64_t reasons = 0;   // clock_event bits active at the reading
};

// A reading taken while the GPU was slowed down: a slowdown reason (clock_event::kSlowdown) was
// active, or the GPU was busy (not idle) with its SM clock below 75% of `max_sm_clock_mhz`
// (nvbench's threshold for discarding a sample).
bool is_throttled(const GpuReading& r, double max_sm_clock_mhz);
inline constexpr double kThrottledBelowMaxClock = 0.75;  // the fraction in is_throttled

// The readings of one sampling run summarised as the record's GPU state: how many, the SM clock's
// min, median and max, the highest power and temperature, the throttled readings (is_throttled)
// and how many readings each clock-event reason was active in; `source` says how they were taken.
// The caller has checked that there are readings.
GpuState summarize_readings(const std::vector<GpuReading>& readings, double max_sm_clock_mhz, std::string source);

// For each sample window [start, end] (CUPTI timestamps), whether a throttled reading was taken
// inside it or within `slack_ns` of either end (readings are `slack_ns` apart).
std::vector<bool> throttled_windows(
    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& windows,
    const std::vector<GpuReading>& readings, double max_sm_clock_mhz, std::uint64_t slack_ns);

class GpuMonitor {
 public:
  // NVML for CUDA device `device` (matched by PCI bus id). Never throws for a missing or
  // failing NVML: unavailable() then says why and read() returns nullopt.
  explicit GpuMonitor(int device);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  const std::optional<std::string>& unavailable() const { return unavailable_; }
  double max_sm_clock_mhz() const { return max_sm_clock_mhz_; }  // NVML's maximum SM clock
  std::optional<GpuReading> read() const;

  // Polls every `period` on a thread of its own until stop(), which returns the readings.
  void start(std::chrono::microseconds period);
  std::vector<GpuReading> stop();

  bool throttled(const GpuReading& r) const { return is_throttled(r, max_sm_clock_mhz_); }

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  std::optional<std::string> unavailable_;
  double max_sm_clock_mhz_ = 0;
  std::thread poller_;
  std::atomic<bool> polling_{false};
  std::mutex mutex_;
  std::vector<GpuReading> readings_;
};

}  // namespace attnlab::profiler
