// The CUDA-free parts of PC sampling (profiler/pc_sampling.hpp): the --metrics spec, the
// sampling period, and the per-kernel breakdown; tested without a GPU.
#include <algorithm>
#include <cmath>
#include <map>

#include "profiler/pc_sampling_plan.hpp"
#include "common/stats.hpp"

namespace attnlab::profiler {

int choose_period_log2(double expected_ns, int sm_count, double sm_clock_mhz) {
  // One sample per period per SM sub-partition (4 per SM), at most.
  const double samples_at_1 = expected_ns * 1e-3 * sm_clock_mhz * double(sm_count) * 4.0;
  int n = 5;
  while (n < 31 && samples_at_1 / std::ldexp(1.0, n) >= kTargetSamples) ++n;
  return n;
}

std::pair<bool, std::string> split_pcsampling(const std::string& spec) {
  if (spec == "all") return {true, "all"};
  if (spec == "none") return {false, "none"};
  bool wanted = false;
  std::string rest;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string name = spec.substr(start, comma - start);
    if (name == "pcsampling")
      wanted = true;
    else
      rest += (rest.empty() ? "" : ",") + name;
    start = comma + 1;
  }
  return {wanted, wanted && rest.empty() ? "none" : rest};
}

std::vector<KernelShare> kernel_shares(
    const std::vector<std::pair<std::string, std::vector<double>>>& per_kernel_ns,
    const std::vector<std::pair<std::string, int>>& instances, const std::string& regime,
    const PcSamplingResult* pc, const std::vector<GroupResult>& groups) {
  int launched = 0;
  for (const auto& [n, c] : instances) launched += c;
  std::vector<KernelShare> out;
  double sum = 0;
  for (const auto& [name, ns] : per_kernel_ns) {
    if (ns.empty()) continue;
    const stats::Summary s = stats::summarize(ns);
    KernelShare k;
    k.name = name;
    k.regime = regime;
    for (const auto& [n, c] : instances)
      if (n == name) k.instances_per_launch = c;
    k.median_ns = s.median;
    k.p10_ns = s.p10;
    k.p90_ns = s.p90;
    sum += s.median;
    if (pc && pc->available)
      for (const auto& kp : pc->kernels)
        if (kp.name == name) {
          k.pc_samples = kp.samples;
          std::map<std::string, std::uint64_t> all;
          for (const auto& p : kp.pcs)
            for (const auto& [r, c] : p.stalls) all[r] += c;
          k.top_stalls = top_reasons(StallCounts(all.begin(), all.end()), 3);
        }
    k.metrics = kernel_counters_note(groups, name, launched);
    out.push_back(std::move(k));
  }
  for (auto& k : out) k.share_pct = sum > 0 ? 100.0 * k.median_ns / sum : 0.0;
  return out;
}

std::string kernel_counters_note(const std::vector<GroupResult>& groups, const std::string& name, int launched) {
  if (groups.empty()) return "not measured: no metric group was collected (--metrics)";
  std::string held, missing;
  const auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : "; ") + item; };
  for (const GroupResult& g : groups) {
    if (!g.available) {
      add(missing, g.group + ": " + g.reason);
      continue;
    }
    if (launched == 1) {
      add(held, g.group);
      continue;
    }
    int instances = 0;
    for (const auto& k : g.kernels) instances += k.name == name ? 1 : 0;
    if (instances > 0)
      add(held, g.group + (instances > 1 ? " (" + std::to_string(instances) + " instances)" : ""));
    else
      add(missing, g.group + ": " + (g.kernels_reason.empty() ? "no range of this kernel" : g.kernels_reason));
  }
  std::string note;
  if (!held.empty())
    note = (launched == 1 ? "metrics.<group> (the launch's only kernel): " : "metrics.<group>.kernels: ") + held;
  if (!missing.empty()) note += (note.empty() ? "not measured: " : "; not measured: ") + missing;
  return note;
}

}  // namespace attnlab::profiler
