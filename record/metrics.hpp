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

struct GroupResult {
  std::string group;             // the group's name; the key it is recorded under
  bool available = false;
  std::string reason;            // when unavailable: CUPTI's error and how to fix it, one line
  int passes = 0;                // replay passes CUPTI asked for
  double collection_wall_s = 0;  // [s] host time of the whole collection, passes and flushes
  std::vector<MetricValue> values;
  // Metrics of the group left out while the others were collected: name -> why.
  std::vector<std::pair<std::string, std::string>> unavailable_metrics;

  std::optional<double> value(std::string_view metric) const;  // nullopt when not collected
};

// The record's metrics.<group> object: {"available": true, "passes", "collection_wall_s",
// "values": {"<metric>": {"value", "unit"}}[, "unavailable_metrics": {"<metric>": reason}]}
// or {"available": false, "reason": ...}.
nlohmann::ordered_json to_json(const GroupResult& group);

// Reads the group recorded at JSON pointer `base` (its last segment is the group's name);
// throws FieldError naming the field.
GroupResult read_group_result(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab
