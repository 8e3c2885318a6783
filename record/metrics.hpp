// One hardware-counter group of one shape, /results/<i>/metrics/<group> of a run record: the
// typed form the CUPTI collector (profiler/metrics.hpp) returns and readers use, with its one
// JSON mapping. Host-only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

struct MetricValue {
  std::string name;  // full metric name
  std::string unit;  // as in profiler/metric_groups.cpp
  double value;
};

// The value of `metric` among `values`, nullopt when absent.
std::optional<double> find_value(const std::vector<MetricValue>& values, std::string_view metric);

// A replay pass's gpu__time_duration.sum longer than this many times the launch's device time
// (the timing regime's median) is mostly the range profiler's own overhead: a rate divided by
// it (derived.dram_gbps_measured) is the replay's, not the kernel's. Short kernels (5-10 us)
// replay in 70-137 us on the H100, long ones within a few percent of their time.
inline constexpr double kReplayDominatedRatio = 3.0;

// One kernel's values of a group, for launches of several kernels: CUPTI's auto range (one
// range per kernel launch, numbered in launch order) under the same user replay.
struct KernelMetricValues {
  std::string name;  // the launched function, as static.kernels names it (mangled for C++)
  int index = 0;     // its place in the launch, 0-based: static.kernels[index]
  std::vector<MetricValue> values;

  std::optional<double> value(std::string_view metric) const;  // nullopt when not collected
};

struct GroupResult {
  std::string group;             // the group's name; the key it is recorded under
  bool available = false;
  std::string reason;            // when unavailable: CUPTI's error and how to fix it, one line
  int passes = 0;                // replay passes CUPTI asked for
  double collection_wall_s = 0;  // [s] host time of the whole collection, passes and flushes
  std::vector<MetricValue> values;
  // Metrics of the group left out while the others were collected: name -> why.
  std::vector<std::pair<std::string, std::string>> unavailable_metrics;
  // Per kernel, in launch order, when the launch ran several kernels and their ranges were
  // collected; otherwise empty, with kernels_reason saying why where it was tried. The
  // launch-wide values above come from their own passes (one user range around the launch).
  std::vector<KernelMetricValues> kernels;
  int kernel_passes = 0;  // replay passes of the per-kernel collection
  std::string kernels_reason;

  std::optional<double> value(std::string_view metric) const;  // nullopt when not collected
};

// The record's metrics.<group> object: {"available": true, "passes", "collection_wall_s",
// "values": {"<metric>": {"value", "unit"}}[, "unavailable_metrics": {"<metric>": reason}]}
// or {"available": false, "reason": ...}; for launches of several kernels also "kernels":
// [{"name", "index", "values": {...}}] and "kernel_passes", or "kernels_reason".
nlohmann::ordered_json to_json(const GroupResult& group);

// Reads the group recorded at JSON pointer `base` (its last segment is the group's name);
// throws FieldError naming the field.
GroupResult read_group_result(const nlohmann::ordered_json& root, const std::string& base);

// A result's "metrics" block at `base`: its groups in record order (read_group_result each);
// nullopt where the block is absent or null (the run collected none).
std::optional<std::vector<GroupResult>> read_metric_groups(const nlohmann::ordered_json& root,
                                                           const std::string& base);
// The group named `name`, nullptr where not collected.
const GroupResult* find_group(const std::vector<GroupResult>& groups, std::string_view name);

// The record's top-level "metrics_config": what was requested and how it is collected
// (profiler::HardwareEvidence fills it), or, for a run that collects nothing, why.
struct MetricsConfig {
  std::vector<std::string> groups;  // as requested, in order
  // Set for a run that collects nothing (--check-only, --profile-launch): why; the record then
  // holds only "groups" and "unavailable". Otherwise the fields below.
  std::optional<std::string> not_collected;
  std::string method;               // how the range profiler collects, one paragraph
  std::string range_name;           // the NVTX range a profiled launch runs in
  std::optional<std::string> chip;  // CUPTI's chip name ("GH100"); nullopt: not named
  std::optional<std::string> unavailable;  // why no group can be collected on this device
  std::vector<std::pair<std::string, std::vector<std::string>>> metrics;  // group -> metrics
  std::vector<std::pair<std::string, std::string>> derived;  // derived figure -> how computed
};
nlohmann::ordered_json to_json(const MetricsConfig& c);
// Reads the block at `base` (every committed harness record's reads; the SDPA baseline's records
// have none); throws FieldError naming the field.
MetricsConfig read_metrics_config(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab
