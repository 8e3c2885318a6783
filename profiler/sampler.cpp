// The three timing regimes. CUPTI regimes tag every timed launch with an external
// correlation id and take the span of the kernels carrying it; the graph regime brackets each
// replay with events behind a spin kernel, so the host's enqueueing is never timed.
#include "profiler/sampler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "common/check.hpp"
#include "profiler/clock_probe.hpp"
#include "profiler/gpu_spin.hpp"

namespace attnlab::profiler {
namespace {

using namespace sampling;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int clamp_count(double want, int hi) {
  if (!(want >= 1)) return 1;
  return int(std::min<double>(hi, std::floor(want)));
}

struct Event {
  cudaEvent_t e{};
  Event() { ATTNLAB_CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() { cudaEventDestroy(e); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

struct GraphExec {
  cudaGraph_t graph{};
  cudaGraphExec_t exec{};
  GraphExec() = default;
  ~GraphExec() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
};

// Flags a CUPTI regime's samples whose window a throttled NVML reading touched and, with
// `exclude`, drops them from the samples (and busy times) unless that would drop them all.
void flag_throttled(RegimeResult& res, bool exclude) {
  if (res.sample_windows.size() != res.samples_ns.size() || res.gpu_readings.empty()) return;
  const auto bad = throttled_windows(res.sample_windows, res.gpu_readings, res.max_sm_clock_mhz,
                                     std::uint64_t(kGpuPollMicroseconds) * 1000);
  for (std::size_t i = 0; i < bad.size(); ++i)
    if (bad[i]) res.throttled_samples_ns.push_back(res.samples_ns[i]);
  const std::size_t n_bad = res.throttled_samples_ns.size();
  if (!exclude) {
    res.throttled_policy = "kept in the statistics";
    return;
  }
  if (n_bad == bad.size()) {
    res.throttled_policy = "kept in the statistics: every sample was throttled";
    return;
  }
  res.throttled_policy = "left out of the statistics";
  const bool busy = res.busy_ns.size() == res.samples_ns.size();
  std::vector<double> kept, kept_busy;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> kept_windows;
  for (std::size_t i = 0; i < bad.size(); ++i) {
    if (bad[i]) continue;
    kept.push_back(res.samples_ns[i]);
    kept_windows.push_back(res.sample_windows[i]);
    if (busy) kept_busy.push_back(res.busy_ns[i]);
  }
  res.samples_ns = std::move(kept);
  res.sample_windows = std::move(kept_windows);
  if (busy) res.busy_ns = std::move(kept_busy);
}

}  // namespace

void copy_statistics(const stats::Summary& m, RegimeTiming& t) {
  t.median_ns = m.median;
  t.p10_ns = m.p10;
  t.p90_ns = m.p90;
  t.min_ns = m.min;
  t.max_ns = m.max;
  t.mean_ns = m.mean;
  t.stdev_ns = m.stdev;
  t.noise_pct = m.noise_pct;
  t.count = static_cast<long long>(m.count);
}

const char* regime_method(Regime r) {
  switch (r) {
    case Regime::kCold:
      return "CUPTI kernel activity, span of one launch's kernels; L2 flushed (write of 2x L2) "
             "before every launch";
    case Regime::kWarm:
      return "CUPTI kernel activity, span of one launch's kernels; back-to-back launches over "
             "the same buffers (warm L2)";
    case Regime::kGraph:
      return "CUDA events around each replay of a graph of launches_per_sample launches, "
             "divided by launches_per_sample; queued behind a spin kernel; CUPTI activity tracing "
             "paused";
  }
  return "unknown";
}

Sampler::Sampler(KernelActivity& activity, L2Flush& flush, cudaStream_t stream, stats::StoppingRule rule,
                 GpuMonitor* monitor)
    : activity_(activity), flush_(flush), stream_(stream), rule_(rule), monitor_(monitor) {}

void Sampler::cupti_batch(const LaunchFn& launch, int count, bool flush_l2,
                          std::vector<double>& spans, RegimeResult* res) {
  const std::uint64_t first = next_tag_;
  for (int i = 0; i < count; ++i) {
    if (flush_l2) flush_.flush(stream_);
    TagScope tag(activity_, next_tag_++);
    launch(stream_);
  }
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> kernels;  // per launch
  const std::vector<KernelRecord> records = activity_.collect();
  for (const auto& r : records) {
    if (r.tag < first || r.tag >= next_tag_) continue;
    kernels[r.tag].emplace_back(r.start_ns, r.end_ns);
    if (res && std::find(res->kernel_names.begin(), res->kernel_names.end(), r.name) ==
                   res->kernel_names.end())
      res->kernel_names.push_back(r.name);
  }
  if (kernels.size() != std::size_t(count))
    throw std::runtime_error("CUPTI delivered kernel records for " + std::to_string(kernels.size()) +
                             " of " + std::to_string(count) + " timed launches");
  if (res) {  // per kernel: its time in each launch, for the per-kernel breakdown
    // Per launch, its kernels in the order they started (collect() sorts records by start).
    std::map<std::uint64_t, std::vector<std::pair<std::string, std::pair<double, int>>>> per;
    for (const auto& r : records)
      if (r.tag >= first && r.tag < next_tag_) {
        auto& names = per[r.tag];
        auto at = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == r.name; });
        if (at == names.end()) at = names.insert(names.end(), {r.name, {0.0, 0}});
        at->second.first += double(r.end_ns - r.start_ns);
        ++at->second.second;
      }
    for (const auto& [tag, names] : per)
      for (const auto& [name, x] : names) {
        auto it = std::find_if(res->kernel_ns.begin(), res->kernel_ns.end(),
                               [&](const auto& k) { return k.first == name; });
        if (it == res->kernel_ns.end()) {
          res->kernel_ns.emplace_back(name, std::vector<double>{});
          res->kernel_instances.emplace_back(name, 0);
          it = res->kernel_ns.end() - 1;
        }
        it->second.push_back(x.first);
        auto& inst = res->kernel_instances[std::size_t(it - res->kernel_ns.begin())].second;
        inst = std::max(inst, x.second);
      }
  }
  for (const auto& [tag, iv] : kernels) {
    const stats::LaunchTime t = stats::launch_time(iv);
    spans.push_back(t.span_ns);
    if (res) {
      std::uint64_t first_start = iv.front().first, last_end = iv.front().second;
      for (const auto& [b, e] : iv) {
        first_start = std::min(first_start, b);
        last_end = std::max(last_end, e);
      }
      res->sample_windows.emplace_back(first_start, last_end);
      res->busy_ns.push_back(t.busy_ns);
      res->kernels_per_launch = std::max(res->kernels_per_launch, int(iv.size()));
    }
  }
}

double Sampler::warm_up(const LaunchFn& launch) {
  std::vector<double> spans;
  const auto t0 = Clock::now();
  while (spans.size() < std::size_t(kMinWarmupLaunches) || seconds_since(t0) < kWarmupSeconds) {
    const int count = spans.empty() ? 1 : clamp_count(kBatchSeconds * 1e9 / spans.back(), kMaxBatch);
    cupti_batch(launch, count, false, spans, nullptr);
  }
  return stats::summarize(spans).median;
}

RegimeResult Sampler::run(Regime regime, const LaunchFn& launch, double estimate_ns) {
  RegimeResult res;
  res.regime = regime;
  const bool nvml = monitor_ && !monitor_->unavailable();
  if (nvml) {
    const auto r = monitor_->read();
    res.sm_clock_mhz_before = r ? r->sm_clock_mhz : std::nan("");
    res.clock_source = "NVML current SM clock";
    res.max_sm_clock_mhz = monitor_->max_sm_clock_mhz();
    res.gpu_poll_ms = double(kGpuPollMicroseconds) / 1000.0;
    monitor_->start(std::chrono::microseconds(kGpuPollMicroseconds));
  } else {
    res.sm_clock_mhz_before = measure_sm_clock_mhz(stream_);
    res.clock_source = kProbeClockSource;
    res.gpu_unavailable = monitor_ ? *monitor_->unavailable() : "no GPU monitor";
  }
  const auto t0 = Clock::now();
  auto& samples = res.samples_ns;

  if (regime == Regime::kCold || regime == Regime::kWarm) {
    const int batch = clamp_count(kBatchSeconds * 1e9 / estimate_ns, kMaxBatch);
    do {
      const int n = int(std::min<std::size_t>(batch, rule_.max_samples - samples.size()));
      cupti_batch(launch, n, regime == Regime::kCold, samples, &res);
    } while ((res.stop = stats::should_stop(rule_, samples, seconds_since(t0))) == stats::StopReason::kContinue);
  } else {
    const int k = clamp_count(kGraphWorkNs / estimate_ns, kMaxGraphLaunches);
    res.launches_per_sample = k;
    // Events time this regime, so CUPTI activity tracing is off while it runs: its per-launch
    // instrumentation would be inside the events, as it is not in the SDPA baseline's graphs.
    const ActivityPause untraced;
    GraphExec g;
    ATTNLAB_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      for (int i = 0; i < k; ++i) launch(stream_);
    } catch (...) {
      cudaStreamEndCapture(stream_, &g.graph);
      throw;
    }
    ATTNLAB_CUDA_CHECK(cudaStreamEndCapture(stream_, &g.graph));
    ATTNLAB_CUDA_CHECK(cudaGraphInstantiate(&g.exec, g.graph, 0));
    ATTNLAB_CUDA_CHECK(cudaGraphUpload(g.exec, stream_));
    ATTNLAB_CUDA_CHECK(cudaGraphLaunch(g.exec, stream_));  // first replay is not timed
    const int batch = clamp_count(kBatchSeconds * 1e9 / (estimate_ns * k), kMaxBatch);
    std::vector<Event> start(static_cast<std::size_t>(batch)), stop(static_cast<std::size_t>(batch));
    do {
      const int n = int(std::min<std::size_t>(batch, rule_.max_samples - samples.size()));
      gpu_spin(stream_, kSpinLeadNs);
      for (int i = 0; i < n; ++i) {
        ATTNLAB_CUDA_CHECK(cudaEventRecord(start[std::size_t(i)].e, stream_));
        ATTNLAB_CUDA_CHECK(cudaGraphLaunch(g.exec, stream_));
        ATTNLAB_CUDA_CHECK(cudaEventRecord(stop[std::size_t(i)].e, stream_));
      }
      ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
      for (int i = 0; i < n; ++i) {
        float ms = 0;
        ATTNLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start[std::size_t(i)].e, stop[std::size_t(i)].e));
        samples.push_back(double(ms) * 1e6 / k);
      }
    } while ((res.stop = stats::should_stop(rule_, samples, seconds_since(t0))) == stats::StopReason::kContinue);
  }
  res.wall_seconds = seconds_since(t0);
  if (nvml) {
    res.gpu_readings = monitor_->stop();
    const auto r = monitor_->read();
    res.sm_clock_mhz_after = r ? r->sm_clock_mhz : std::nan("");
    flag_throttled(res, exclude_throttled_);
  } else {
    res.sm_clock_mhz_after = measure_sm_clock_mhz(stream_);
  }
  res.summary = stats::summarize(samples);
  return res;
}

}  // namespace attnlab::profiler
