// The CUDA-free parts of PC sampling (profiler/pc_sampling.hpp): the --metrics spec, the
// sampling period and the per-kernel breakdown of a launch. Host-only; tested without a GPU.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "record/metrics.hpp"
#include "record/pc_sampling.hpp"

namespace attnlab::profiler {

// Samples one launch should give at most, by the estimate below (which counts every SM
// sub-partition busy all the launch, so it overestimates: on H100 a period of 2^5 cycles on a
// 31 us launch gave fewer samples than a tenth of the estimate, a third of them dropped).
inline constexpr double kTargetSamples = 2e5;
inline constexpr int kUnsampledLaunches = 3;  // unsampled launches whose median is the baseline

// The period for a launch of `expected_ns` on `sm_count` SMs at `sm_clock_mhz`: the smallest
// 2^n (5 <= n <= 31) with fewer than kTargetSamples samples expected. CUDA-free.
int choose_period_log2(double expected_ns, int sm_count, double sm_clock_mhz);

// The --metrics spec with "pcsampling" taken out: {wanted, what is left for
// parse_metric_groups}. "all" wants it and leaves "all"; a spec of "pcsampling" alone leaves
// "none". CUDA-free.
std::pair<bool, std::string> split_pcsampling(const std::string& spec);

// The per-kernel breakdown of one result entry: each kernel's time per launch from the
// headline regime's CUPTI records (`per_kernel_ns`: name -> one value per sample, summed over
// its instances in that launch), its share, its PC-sampling summary when `pc` has one, and
// where its counters are among `groups` (kernel_counters_note).
std::vector<KernelShare> kernel_shares(
    const std::vector<std::pair<std::string, std::vector<double>>>& per_kernel_ns,
    const std::vector<std::pair<std::string, int>>& instances, const std::string& regime,
    const PcSamplingResult* pc, const std::vector<GroupResult>& groups);

// KernelShare::metrics for kernel `name` of a launch of `launched` kernels (instances
// counted): which groups hold its counters (metrics.<group>.kernels for a launch of several;
// the launch-wide values when it is the launch's only kernel), or why none does. CUDA-free.
std::string kernel_counters_note(const std::vector<GroupResult>& groups, const std::string& name, int launched);

}  // namespace attnlab::profiler
