// Nsight Compute's cross-check of a run (make profile, attnlab-ncu-import): each timed result's
// /results/<i>/ncu and the record's /ncu_profile, as typed structs with their one JSON mapping.
// profiler/ncu_import.cpp fills them from ncu's CSV export. Host-only.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

struct NcuValue {
  std::string name;  // the metric, as metrics.<group>.values names it
  double value = 0;  // in `unit`, combined over the launch's kernels
  std::string unit, ncu_unit;
};

// A result's "ncu": {"report", "kernels", "kernel_names", "values": {"<metric>": {"value", "unit",
// "ncu_unit"}}, "combined"?, "rel_diff_pct": {"<metric>": pct|null}, "rel_diff_reason"?,
// "unavailable"?}; or, where nothing was imported, {"report": file|null, "unavailable": why}.
struct NcuEntry {
  std::optional<std::string> report;  // the .ncu-rep beside the record; nullopt: none there
  std::optional<std::string> unavailable_reason;  // set: nothing imported, the rest is empty
  long long kernels = 0;
  std::vector<std::string> kernel_names;
  std::vector<NcuValue> values;
  std::string combined;  // how several kernels' values were combined; empty for one kernel
  std::vector<std::pair<std::string, std::optional<double>>> rel_diff_pct;  // [%] vs CUPTI
  std::vector<std::pair<std::string, std::string>> rel_diff_reason;  // metric -> why no diff
  std::vector<std::pair<std::string, std::string>> unavailable;      // metric -> why not imported
};

// One shape's process wall times around ncu [s].
struct NcuShapeWall {
  std::string slug;
  std::optional<double> wall_s, baseline_wall_s;  // ncu_overhead_s is written when both are
};

struct NcuProfile {
  std::string ncu_version, ncu_command;
  std::string method, wall_s_meaning;  // how the reports were taken, what the walls mean
  std::vector<NcuShapeWall> shapes;
};

nlohmann::ordered_json to_json(const NcuEntry& e);
nlohmann::ordered_json to_json(const NcuProfile& p);
// Read the blocks at `base`; throw FieldError (record/fields.hpp) naming the field.
NcuEntry read_ncu_entry(const nlohmann::ordered_json& root, const std::string& base);
NcuProfile read_ncu_profile(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab
