// The profiler layer in one header: the instruments that measure a launch, what each is for,
// and where it lives. Callers (the harness, attnlab-ab, the GPU tests) include this; CUPTI's
// and the driver's plumbing (error checks, the NVPW host API, driver entry points, the clean L2
// flush the counters need) sit under profiler/detail/ and are nobody else's business.
//
// Instruments, in the order a timed shape meets them:
//   NVTX ranges             nvtx.hpp          NvtxRange: what Nsight Systems shows and Nsight
//                                             Compute selects a launch by (its name:
//                                             metric_groups.hpp's profile_range_name)
//   L2 flush                l2_flush.hpp      L2Flush: evicts the L2 before a cold sample
//   CUPTI kernel timing     kernel_activity.hpp  KernelActivity: device start and end of every
//                                             kernel, tagged per sample; cupti_version
//   timing regimes          sampler.hpp       Sampler, Regime, StoppingRule: cold, warm and
//                                             graph, sampled until the noise settles
//   statistics              common/stats.hpp  summarize: median, p10/p90, noise
//   GPU monitor             gpu_monitor.hpp   GpuMonitor: NVML clocks, power, temperature and
//                                             throttle reasons while a regime is sampled
//   SM clock probe          clock_probe.hpp   the SM clock without NVML
//   range-profiler metrics  metrics.hpp       HardwareEvidence: counter groups of one launch
//                                             (metric_groups.hpp names them), the static facts
//                                             and the derived figures (derived.hpp)
//   static facts            static_facts.hpp  capture_static_facts: launch configuration,
//                                             registers, memory; occupancy.hpp its limits
//   PC sampling             pc_sampling.hpp   collect_pc_samples: stalls by source line
//                                             (pc_sampling_plan.hpp: the CUDA-free planning)
//   SASS metrics            sass_metrics.hpp  add_sass_counts: executed instructions per SASS
//                                             instruction
// What they measure is recorded through record/ (record/result.hpp): the profiler fills the
// record's structs and never writes JSON.
#pragma once

#include "profiler/clock_probe.hpp"
#include "profiler/derived.hpp"
#include "profiler/gpu_monitor.hpp"
#include "profiler/kernel_activity.hpp"
#include "profiler/l2_flush.hpp"
#include "profiler/metric_groups.hpp"
#include "profiler/metrics.hpp"
#include "profiler/nvtx.hpp"
#include "profiler/occupancy.hpp"
#include "profiler/pc_sampling.hpp"
#include "profiler/pc_sampling_plan.hpp"
#include "profiler/sampler.hpp"
#include "profiler/sass_metrics.hpp"
#include "profiler/static_facts.hpp"
#include "common/stats.hpp"
