// The named hardware-metric groups (tensor, memory, throughput, stalls): the one list of
// counter names and units that the CUPTI collector, the ncu run and the run records share.
// Host-only and CUDA-free, so command-line parsing and the ncu import are tested without a GPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::profiler {

struct MetricSpec {
  const char* name;  // full CUPTI/ncu metric name, e.g. "dram__bytes_read.sum"
  const char* unit;  // unit of the value as recorded: "%", "bytes", "ns", "inst", "ops", "count", "ratio",
                     // "cycles"
  const char* what;  // one line for reports
};

struct MetricGroup {
  const char* name;  // "tensor", "memory", "throughput", "stalls"
  const char* what;  // one line for reports
  std::vector<MetricSpec> metrics;
};

// Every group, in the order they are collected and recorded. The names were checked on GH100
// (H100) with `ncu --query-metrics --chip gh100` and CUPTI.
const std::vector<MetricGroup>& metric_groups();
const MetricGroup* find_metric_group(std::string_view name);  // nullptr when unknown

// The 19 warp-stall reasons GH100 reports; "gmma" is Hopper's wait on warpgroup MMAs.
const std::vector<std::string>& gh100_stall_reasons();

// "tensor,memory" -> those groups in table order; "all" -> every group; "none" -> empty.
// Throws std::invalid_argument naming the unknown group and the valid names.
std::vector<std::string> parse_metric_groups(const std::string& spec);

// Every metric name of the given groups, in table order (ncu's --metrics list).
std::vector<std::string> metric_names(const std::vector<std::string>& groups);
// The spec and group of a metric name from any group; nullptr when it is not in the table.
const MetricSpec* find_metric(std::string_view name, const MetricGroup** group = nullptr);

// The name of the NVTX range (domain "attnlab") and CUPTI user range around the one launch
// that metric collection and Nsight Compute measure: "attnlab.profile.<phase>.<shape>" with
// every character outside [A-Za-z0-9._-] replaced by '_', because ncu's --nvtx-include gives
// '/', '@', '[' and ']' meanings of their own ("4", "1x8x512x64:causal" ->
// "attnlab.profile.4.1x8x512x64_causal").
std::string profile_range_name(const std::string& phase, const std::string& shape_name);
// The shape part alone, used for file names beside the run record ("1x8x512x64_causal").
std::string shape_slug(const std::string& shape_name);

}  // namespace attnlab::profiler
