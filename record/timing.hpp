// One timing regime of one shape, /results/<i>/timing/<regime> of a run record: the typed
// form that the harness fills and the report tool reads, with its one JSON mapping.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/stats.hpp"

namespace attnlab {

// How one launch of a phase is timed (profiler/sampler.hpp takes the samples).
enum class Regime {
  kCold,   // L2 flushed before every launch; CUPTI kernel durations
  kWarm,   // back-to-back launches over the same buffers; CUPTI kernel durations
  kGraph,  // CUDA graph of several launches replayed; events around each replay
};
const char* regime_name(Regime r);             // "cold", "warm", "graph", as records name them
Regime parse_regime(const std::string& name);  // throws std::invalid_argument

// The timing a run is asked for, one value from the command line to the record's options
// (record/provenance.hpp, sampling_options): which regimes run and in what order, whether the
// run only checks, the stopping rule, and the regime every timed shape leads with.
struct TimingRequest {
  std::vector<Regime> regimes = {Regime::kCold, Regime::kWarm, Regime::kGraph};  // run order
  bool check_only = false;
  stats::StoppingRule rule;
  // Cold where it runs (each launch from a flushed L2, the regime the reports lead with), else
  // the first one run; nullopt where nothing is timed (a check-only run, or no regime).
  std::optional<Regime> headline() const;
};

// What NVML said while a regime was sampled (profiler/gpu_monitor.hpp): the record's
// timing.<regime>.gpu_state. Absent from records written before it was measured.
struct GpuState {
  std::string unavailable;  // why there are no readings; the rest is then empty
  std::string source;       // "NVML, polled every 2 ms while sampling"
  long long readings = 0;
  double max_sm_clock_mhz = 0;  // NVML's maximum SM clock
  double sm_clock_min_mhz = 0, sm_clock_median_mhz = 0, sm_clock_max_mhz = 0;
  double power_max_w = 0, temperature_max_c = 0;
  // Readings in which each clock-event reason was active (only reasons seen), in bit order.
  std::vector<std::pair<std::string, long long>> clock_event_readings;
  long long throttled_readings = 0;  // slowdown reason, or busy below 75% of the maximum clock
  // CUPTI regimes: the samples a throttled reading touched, and whether they were "kept in the
  // statistics" or "left out of the statistics" (empty policy: not flagged per sample).
  std::vector<double> throttled_samples_ns;
  std::string throttled_policy;
};

struct RegimeTiming {
  std::string method;       // how the samples were taken (the regime's description)
  double median_ns = 0, p10_ns = 0, p90_ns = 0, min_ns = 0, max_ns = 0;
  std::optional<double> mean_ns, stdev_ns;  // absent from no record written so far
  double noise_pct = 0;     // [%] 100 * stdev / mean
  long long count = 0;      // samples
  std::string stop_reason;  // why sampling stopped: noise_target, time_cap, max_samples
  std::optional<double> wall_s;               // host time spent sampling
  std::optional<int> launches_per_sample;     // graph regime: launches in one graph
  std::optional<double> clock_before_mhz, clock_after_mhz;  // SM clock around the sampling
  std::string clock_source;  // how the clock was read, where the writer says (the baseline)
  double tflops = 0;               // at the median
  double dram_gbps_min_bytes = 0;  // the shape's minimum bytes / median [GB/s]
  std::vector<std::string> kernels;  // distinct kernels one launch ran; empty: not recorded
  // Multi-kernel launches: the most kernels one launch ran, and the median time any of them
  // ran (the span minus idle gaps); absent in records written before they were measured.
  // busy_p10_ns and busy_p90_ns: the same samples' busy p10 and p90, where the writer records
  // them (the reports use them as the busy interval).
  std::optional<int> kernels_per_launch;
  std::optional<double> busy_median_ns, busy_p10_ns, busy_p90_ns;
  std::vector<double> samples_ns;  // one per sample, in sampling order
  std::optional<GpuState> gpu_state;
};

// One timing regime of one shape: its name, the record's key for it ("cold", "warm", "graph"),
// and its timing block. A result entry holds its regimes in run order (record/result.hpp).
struct TimedRegime : RegimeTiming {
  std::string name;
  TimedRegime() = default;
  TimedRegime(std::string regime, RegimeTiming t) : RegimeTiming(std::move(t)), name(std::move(regime)) {}
};

// TimingRequest::headline of a shape timed in the regimes named `regimes` (run order), by name;
// "" where none ran. Throws std::invalid_argument on a name that is not a regime.
std::string headline_regime(const std::vector<std::string>& regimes);

// The record's layout: keys in the order every record has them.
nlohmann::ordered_json to_json(const RegimeTiming& t);

// Reads the regime at JSON pointer `base` of `root`; throws FieldError naming the field
// (missing, wrong type, a median that is not positive).
RegimeTiming read_regime_timing(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab
