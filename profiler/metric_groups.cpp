// The metric-group table and its parsing. Names are GH100's, verified with ncu and CUPTI
// on the H100; units are the ones the values are recorded in.
#include "profiler/metric_groups.hpp"

#include <algorithm>
#include <stdexcept>

namespace attnlab::profiler {
namespace {

constexpr const char* kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr const char* kStallSuffix = "_per_issue_active.ratio";

std::vector<MetricGroup> build_groups() {
  std::vector<MetricGroup> groups = {
      {"tensor",
       "tensor-core activity: pipe utilisation and instruction counts",
       {
           // pct_of_peak_sustained_active: busy cycles over the SM's active cycles, the
           // utilisation ncu's Compute Workload Analysis shows.
           {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "%",
            "tensor pipes (all) active, % of peak over active cycles"},
           // On GH100 this pipe counts HGMMA (wgmma) too; there is no separate gmma pipe
           // counter (sm__pipe_tensor_op_gmma_cycles_active does not exist there).
           {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "%",
            "HMMA/HGMMA pipe active (with HFMA2.MMA), % of peak over active cycles"},
           {"sm__inst_executed_pipe_tensor_op_hmma.sum", "inst",
            "warp-level HMMA (mma.sync) instructions executed, HFMA2.MMA included"},
           // Part of the count above: ncu's description of it reads "HMMA/HFMA2.MMA/HGMMA/QGMMA
           // ops", and scalar code executes HFMA2.MMA too (ptxas moves constants with it).
           {"sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum", "inst",
            "HFMA2.MMA instructions executed on the HMMA pipe (not matrix math)"},
           {"sm__inst_executed_pipe_tensor_op_gmma.sum", "inst",
            "warpgroup GMMA (wgmma) instructions executed"},
           {"sm__ops_path_tensor_op_hgmma_src_fp16.sum", "ops",
            "fp16-source HGMMA tensor operations"},
       }},
      {"memory",
       "DRAM traffic, L2 hit rate and shared-memory bank conflicts",
       {
           {"dram__bytes_read.sum", "bytes", "DRAM bytes read"},
           {"dram__bytes_write.sum", "bytes", "DRAM bytes written"},
           {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "%",
            "DRAM throughput, % of peak over elapsed cycles"},
           {"lts__t_sector_hit_rate.pct", "%", "L2 sector hit rate"},
           {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "count",
            "shared-memory bank conflicts (LSU pipe)"},
       }},
      {"throughput",
       "speed of light, duration, achieved occupancy and SM busy balance",
       {
           // Needs about 8 passes on its own (ncu on the H100): the costliest metric here.
           {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%",
            "SM throughput (speed of light), % of peak over elapsed cycles"},
           {"gpu__time_duration.sum", "ns", "GPU time of the profiled range"},
           {"sm__warps_active.avg.pct_of_peak_sustained_active", "%", "achieved occupancy"},
           // Cycles with a warp resident, per SM, rolled up over the SMs: how evenly the launch
           // kept them busy (Nsight Compute's workload-distribution figures). Names accepted by
           // CUPTI 13.0's profiler host for chip GH100 (cuptiProfilerHostGetMetricProperties).
           {"sm__cycles_active.min", "cycles", "active cycles of the least busy SM"},
           {"sm__cycles_active.avg", "cycles", "active cycles per SM, mean over the SMs"},
           {"sm__cycles_active.max", "cycles", "active cycles of the busiest SM"},
       }},
      {"stalls",
       "warp-stall reasons per issued instruction, so they can be ranked",
       {}},
  };
  // The stall metrics' names are composed, and the table hands out const char*: the strings
  // live in a static vector that outlives every caller.
  static const std::vector<std::string> stall_names = [] {
    std::vector<std::string> names;
    for (const auto& r : gh100_stall_reasons()) names.push_back(kStallPrefix + r + kStallSuffix);
    return names;
  }();
  for (const auto& n : stall_names)
    groups.back().metrics.push_back({n.c_str(), "ratio", "warps stalled per issued instruction"});
  return groups;
}

bool slug_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

}  // namespace

const std::vector<std::string>& gh100_stall_reasons() {
  static const std::vector<std::string> reasons = {
      "barrier",         "branch_resolving", "dispatch_stall",     "drain",
      "gmma",            "imc_miss",         "lg_throttle",        "long_scoreboard",
      "math_pipe_throttle", "membar",        "mio_throttle",       "misc",
      "no_instruction",  "not_selected",     "selected",           "short_scoreboard",
      "sleeping",        "tex_throttle",     "wait"};
  return reasons;
}

const std::vector<MetricGroup>& metric_groups() {
  static const std::vector<MetricGroup> groups = build_groups();
  return groups;
}

const MetricGroup* find_metric_group(std::string_view name) {
  for (const auto& g : metric_groups())
    if (name == g.name) return &g;
  return nullptr;
}

std::vector<std::string> parse_metric_groups(const std::string& spec) {
  std::string valid;
  for (const auto& g : metric_groups()) valid += std::string(valid.empty() ? "" : ", ") + g.name;
  if (spec == "none") return {};
  std::vector<std::string> wanted;
  if (spec == "all") {
    for (const auto& g : metric_groups()) wanted.push_back(g.name);
    return wanted;
  }
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string name = spec.substr(start, comma - start);
    if (!find_metric_group(name))
      throw std::invalid_argument("unknown metric group '" + name + "'; expected a comma-separated " +
                                  "list of " + valid + ", pcsampling (PC sampling: stalls by source line), or all, or none");
    if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) wanted.push_back(name);
    start = comma + 1;
  }
  // Table order, whatever the order on the command line: records diff stably.
  std::vector<std::string> ordered;
  for (const auto& g : metric_groups())
    if (std::find(wanted.begin(), wanted.end(), g.name) != wanted.end()) ordered.push_back(g.name);
  return ordered;
}

std::vector<std::string> metric_names(const std::vector<std::string>& groups) {
  std::vector<std::string> names;
  for (const auto& g : metric_groups())
    if (std::find(groups.begin(), groups.end(), g.name) != groups.end())
      for (const auto& m : g.metrics) names.emplace_back(m.name);
  return names;
}

const MetricSpec* find_metric(std::string_view name, const MetricGroup** group) {
  for (const auto& g : metric_groups())
    for (const auto& m : g.metrics)
      if (name == m.name) {
        if (group) *group = &g;
        return &m;
      }
  return nullptr;
}

std::string shape_slug(const std::string& shape_name) {
  std::string s = shape_name;
  for (char& c : s)
    if (!slug_char(c)) c = '_';
  return s;
}

std::string profile_range_name(const std::string& phase, const std::string& shape_name) {
  return "attnlab.profile." + shape_slug(phase) + "." + shape_slug(shape_name);
}

}  // namespace attnlab::profiler
