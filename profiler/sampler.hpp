// Timing regimes: how one launch of a phase is timed, sampled until the noise settles, and
// summarised. Device clocks only; nothing the host does falls inside a timed interval.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "profiler/gpu_monitor.hpp"
#include "profiler/kernel_activity.hpp"
#include "profiler/l2_flush.hpp"
#include "common/stats.hpp"
#include "record/timing.hpp"

namespace attnlab::profiler {

// How the sampler batches launches (record/constants.json carries the same values for
// experiments/baselines/sdpa_baseline.py; tests/cpu/test_constants.cpp keeps the two equal).
namespace sampling {
inline constexpr int kMinWarmupLaunches = 3;
inline constexpr double kWarmupSeconds = 0.2;       // [s] long enough for clocks to ramp up
inline constexpr double kBatchSeconds = 0.05;       // [s] device work per batch between CUPTI flushes
inline constexpr int kMaxBatch = 64;                // launches per batch, bounds CUPTI buffer use
inline constexpr double kGraphWorkNs = 200e3;       // [ns] device work per graph replay
inline constexpr int kMaxGraphLaunches = 20;        // launches per graph (SDPA's graphs too)
inline constexpr std::uint64_t kSpinLeadNs = 1000000;  // [ns] time the host gets to queue a batch
// [us] NVML polling period while a regime samples (readings of clocks and throttle reasons).
inline constexpr int kGpuPollMicroseconds = 2000;
}  // namespace sampling

// The regimes and their names are the record's (record/timing.hpp), which names them to the
// reports without the profiler.
using attnlab::parse_regime;
using attnlab::Regime;
using attnlab::regime_name;
const char* regime_method(Regime r);   // one line for records and reports
// A regime's statistics into its record block (median, p10, p90, min, max, mean, stdev, noise,
// count); the rest of the block is the caller's.
void copy_statistics(const stats::Summary& m, RegimeTiming& t);

inline constexpr const char* kProbeClockSource = "clock64 probe (SM cycles per globaltimer ns, one 2 ms spin)";

struct RegimeResult {
  Regime regime;
  std::vector<double> samples_ns;  // [ns] device time of one launch, one entry per sample
  stats::Summary summary;                 // of samples_ns
  stats::StopReason stop = stats::StopReason::kContinue;
  double wall_seconds = 0;         // [s] host time spent sampling
  int launches_per_sample = 1;     // graph regime: launches captured in the graph
  double sm_clock_mhz_before = 0;  // [MHz] measured just before sampling
  double sm_clock_mhz_after = 0;   // [MHz] measured just after
  // How: "NVML current SM clock" when NVML answers, else kProbeClockSource (records written
  // before the probe named itself leave it empty, and the reports read empty as the probe).
  std::string clock_source;
  // NVML readings polled every gpu_poll_ms while sampling; empty, with gpu_unavailable saying
  // why, without NVML. max_sm_clock_mhz is NVML's maximum SM clock.
  std::vector<GpuReading> gpu_readings;
  std::string gpu_unavailable;
  double gpu_poll_ms = 0;
  double max_sm_clock_mhz = 0;
  // CUPTI regimes: the samples a throttled reading (gpu_monitor.hpp) fell in or next to, and
  // what was done with them (throttled_policy): kept in samples_ns and the summary, or left
  // out of both (and of busy_ns) when the sampler excludes throttled samples and some were not.
  std::vector<double> throttled_samples_ns;
  std::string throttled_policy;
  std::vector<std::string> kernel_names;  // distinct kernels one launch ran (CUPTI regimes)
  // CUPTI regimes: per sample, the time at least one of the launch's kernels ran [ns]; below
  // samples_ns (the span) by the idle gaps between a multi-kernel launch's kernels.
  std::vector<double> busy_ns;
  int kernels_per_launch = 0;  // CUPTI regimes: most kernels one timed launch ran
  // CUPTI regimes: per kernel name (first-seen order), its time in each launch [ns] (summed over
  // its instances in that launch) and the most instances one launch ran; every CUPTI sample,
  // throttled or not (the per-kernel breakdown, record/pc_sampling.hpp).
  std::vector<std::pair<std::string, std::vector<double>>> kernel_ns;
  std::vector<std::pair<std::string, int>> kernel_instances;
  // CUPTI regimes: per sample, its first kernel's start and last kernel's end (CUPTI clock).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sample_windows;
};

using LaunchFn = std::function<void(cudaStream_t)>;

class Sampler {
 public:
  // `monitor` (may be null) reads the GPU's clocks and throttle reasons through NVML during
  // every regime; without it the clock comes from the clock64 probe and nothing is excluded.
  Sampler(KernelActivity& activity, L2Flush& flush, cudaStream_t stream, stats::StoppingRule rule,
          GpuMonitor* monitor = nullptr);

  // Launches until the GPU is warm: at least kMinWarmupLaunches and kWarmupSeconds.
  // Returns the median device time of the warm-up launches [ns], an estimate that sizes
  // batches and graphs.
  double warm_up(const LaunchFn& launch);

  // With NVML readings, leave throttled CUPTI samples out of the statistics (nvbench's rule)
  // instead of only counting them. Off by default: the SDPA baseline keeps every sample.
  void exclude_throttled(bool on) { exclude_throttled_ = on; }

  // Samples one regime. `estimate_ns` is warm_up's result.
  RegimeResult run(Regime regime, const LaunchFn& launch, double estimate_ns);

 private:
  // One batch of CUPTI-timed launches; appends one span per launch to `spans` and, when `res`
  // is given, the launch's busy time, kernel count and kernel names to it.
  void cupti_batch(const LaunchFn& launch, int count, bool flush_l2, std::vector<double>& spans,
                   RegimeResult* res);

  KernelActivity& activity_;
  L2Flush& flush_;
  cudaStream_t stream_;
  stats::StoppingRule rule_;
  GpuMonitor* monitor_;
  bool exclude_throttled_ = false;
  std::uint64_t next_tag_ = 1;
};

}  // namespace attnlab::profiler
