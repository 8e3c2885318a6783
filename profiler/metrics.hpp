// Hardware counters for one launch from the CUPTI 13 Range Profiler (cupti_range_profiler.h
// with cupti_profiler_host.h): a user range around the launch, user replay (the launch is
// repeated once per pass), the L2 flushed clean and the GPU idle before every pass, one named
// group (metric_groups.hpp) at a time; for launches of several kernels, also one auto range
// per kernel. Run after timing, never inside it. When counters cannot
// be read (restricted to admin, held by another profiler, a chip other than GH100) the result
// says unavailable and why; no value is ever invented. Host-only.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/derived.hpp"
#include "profiler/sampler.hpp"
#include "profiler/static_facts.hpp"
#include "record/metrics.hpp"

namespace attnlab::profiler {

// The collector's result type is the record's (record/metrics.hpp), mapped to JSON there.
using attnlab::GroupResult;
using attnlab::MetricValue;

namespace detail {
struct CollectorState;
}

class MetricsCollector {
 public:
  // Prepares collection on `device` (made current): checks the chip, initialises the CUPTI
  // profiler and reads the counter availability. A CUPTI refusal does not throw: every
  // collect() then reports it. Throws CudaError when the device itself is unusable.
  explicit MetricsCollector(int device);
  ~MetricsCollector();
  MetricsCollector(const MetricsCollector&) = delete;
  MetricsCollector& operator=(const MetricsCollector&) = delete;
  MetricsCollector(MetricsCollector&&) = delete;
  MetricsCollector& operator=(MetricsCollector&&) = delete;

  // Collects the named group (throws std::invalid_argument for an unknown name) around
  // `launch`, in a CUPTI user range called `range_name`. When `kernels` names two or more
  // kernels (the launch's, in launch order), the group is collected again per kernel (auto
  // range, passes of its own) into GroupResult::kernels. KernelActivity is paused meanwhile.
  // CUDA errors of the launch propagate: the context may be unusable after one.
  GroupResult collect(const std::string& group, const LaunchFn& launch, cudaStream_t stream,
                      const std::string& range_name, const std::vector<std::string>& kernels = {});

  // Why no group can be collected on this device (with the fix), or nullopt.
  const std::optional<std::string>& unavailable() const;
  const std::string& chip() const;  // "GH100"; empty when CUPTI could not name it

 private:
  std::unique_ptr<detail::CollectorState> state_;
};

// One console line: "tensor: 5 metrics, 2 passes, 0.041 s" or "stalls: unavailable: <reason>".
std::string console_line(const GroupResult& group);

// What one shape gets after timing: static facts of its launch, the requested counter groups
// in order, and the figures derived from them (derived.hpp). The record maps it (results'
// "static", "metrics", "derived"); the console reporter prints it.
struct ShapeEvidence {
  StaticFacts facts;
  std::vector<GroupResult> groups;
  DerivedFigures derived;
};

class HardwareEvidence {
 public:
  // `groups` as parse_metric_groups returns them; empty: static facts and derived figures only.
  HardwareEvidence(int device, std::vector<std::string> groups);
  ~HardwareEvidence();
  HardwareEvidence(const HardwareEvidence&) = delete;
  HardwareEvidence& operator=(const HardwareEvidence&) = delete;

  // Static facts and every requested group for `launch`. `flops` is one launch's FLOP count,
  // `tflops` the timed rate (nullopt when untimed), and `e4m3_operands` whether its GEMMs read
  // FP8, all for the derived figures.
  ShapeEvidence collect(const LaunchFn& launch, cudaStream_t stream, const std::string& range_name,
                        double flops, std::optional<double> tflops, bool e4m3_operands);

  // The record's top-level "metrics_config": what was requested and how it is collected.
  MetricsConfig config() const;

 private:
  std::vector<std::string> groups_;
  std::optional<MetricsCollector> collector_;  // only when a group was requested
  std::string gpu_name_;
};

// For Nsight Compute: flushes the L2 clean, then runs `launch` once inside the NVTX range
// `range_name` (domain "attnlab") and waits for it. No CUPTI call: ncu refuses to profile
// a process that uses CUPTI's profiling APIs.
void launch_for_profiler(const LaunchFn& launch, cudaStream_t stream, const std::string& range_name);

}  // namespace attnlab::profiler
