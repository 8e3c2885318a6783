// The timeline's what-if, validated on a known change: phase 5's stamped kernels, whose producer
// spins a given number of cycles before each K/V copy it issues (DeviceView's
// producer_delay_cycles, kernels/timeline.cuh; the timed kernels have no such code), run with and
// without the delay. The delay must move the decoded critical path to the loads (the consumers'
// full-barrier waits), and the what-if model (reports/timeline_paths.hpp: an item would take a
// class's time on its path less, were that wait gone) must predict the slowdown the delay
// causes within 20%: the loads' added time on the pictured SM's paths against the added kernel
// time (CUDA events, medians).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

#include "attnlab_timeline_policy.hpp"
#include "common/check.hpp"
#include "common/shapes.hpp"
#include "common/stats.hpp"
#include "experiments/harness/gate.hpp"
#include "experiments/harness/run_main.hpp"
#include "kernels/registry.hpp"
#include "kernels/timeline_host.hpp"
#include "profiler/timeline_decode.hpp"
#include "reports/timeline_paths.hpp"

namespace attnlab {
namespace {

using report::PathClass;

// [cycles] Before each K/V copy: two copies per key tile against about a thousand cycles of one
// item's two GEMMs on a tile at D 64, so the producer, not the tensor cores, paces the items.
constexpr std::uint32_t kDelayCycles = 2000;
// The what-if's prediction of the slowdown, against the measured one.
constexpr double kWhatIfTolerance = 0.20;
constexpr int kTimedLaunches = 15;

// What one run of the stamped build gives: its kernel time and its pictured SM's item paths.
struct StampedRun {
  double kernel_ns = 0;  // [ns] median over kTimedLaunches (CUDA events around each launch)
  double items_ns = 0;   // [ns] the pictured SM's items, summed
  std::array<double, report::kPathClasses> path_ns{};  // [ns] on those items' paths, by class
  std::size_t items = 0;
  PathClass most_bound = PathClass::kBetween;  // the class that bounds the most items
};

class Events {
 public:
  Events() {
    ATTNLAB_CUDA_CHECK(cudaEventCreate(&start_));
    ATTNLAB_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~Events() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  // [ns] one launch of `launch` on `stream`.
  template <class Fn>
  double time(Fn&& launch, cudaStream_t stream) {
    ATTNLAB_CUDA_CHECK(cudaEventRecord(start_, stream));
    launch();
    ATTNLAB_CUDA_CHECK(cudaEventRecord(stop_, stream));
    ATTNLAB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    ATTNLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return 1e6 * double(ms);
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

StampedRun run_stamped(const Phase& phase, const Problem& p, const timeline::DeviceTimeline& buffer, std::uint32_t delay,
                cudaStream_t stream) {
  buffer.attach(delay);
  const auto launch = [&] { phase.launch_timeline(p, stream); };
  for (int i = 0; i < 3; ++i) launch();
  Events ev;
  std::vector<double> ns;
  for (int i = 0; i < kTimedLaunches; ++i) {
    buffer.clear(stream);
    ns.push_back(ev.time(launch, stream));
  }
  StampedRun r;
  r.kernel_ns = stats::median(ns);
  buffer.clear(stream);
  launch();
  ATTNLAB_CHECK_LAUNCH();
  timeline::DecodeOptions o;
  o.role = phase.warp_role;
  o.sample_every = timeline::kBuildStampSample;
  const TimelineDecoded d = timeline::decode(buffer.pull(stream), o);
  const auto paths = report::item_paths(d);
  r.items = paths.size();
  std::array<std::size_t, report::kPathClasses> bound{};
  for (const auto& path : paths) {
    r.items_ns += path.end_ns - path.begin_ns;
    for (std::size_t c = 0; c < report::kPathClasses; ++c) r.path_ns[c] += path.ns[c];
    ++bound[std::size_t(path.bound)];
  }
  r.most_bound = PathClass(std::max_element(bound.begin(), bound.end()) - bound.begin());
  return r;
}

void print(const char* what, const StampedRun& r) {
  std::cout << "[ what-if ] " << what << ": kernel " << r.kernel_ns / 1e3 << " us, " << r.items
            << " items on the pictured SM, " << r.items_ns / 1e3 << " us summed; most items bound by "
            << report::path_class_name(r.most_bound) << "; on the paths:";
  for (std::size_t c = 0; c < report::kPathClasses; ++c)
    if (r.path_ns[c] > 0) std::cout << " " << report::path_class_name(PathClass(c)) << " " << r.path_ns[c] / 1e3 << " us;";
  std::cout << std::endl;
}

TEST(TimelineWhatIf, ADelayedProducerMovesThePathToTheLoadsAsPredicted) {
  const Phase* phase = find_phase("5");
  ASSERT_NE(phase, nullptr);
  ASSERT_NE(phase->launch_timeline, nullptr);
  ASSERT_NE(phase->launch_geometry, nullptr);
  // Several items per SM, so each SM's items follow one another as the kernel's do.
  const Shape s = parse_shape("4x16x2048x64");
  int dev = 0, sms = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const auto g = phase->launch_geometry(s, sms);
  ASSERT_TRUE(g);
  const std::uint32_t ctas = g->grid.x * g->grid.y * g->grid.z;
  const std::uint32_t warps = (g->block.x * g->block.y * g->block.z + 31) / 32;

  const GateInputs in = make_gate_inputs(s, 45, Inputs::kNormal, {phase->input_format});
  const ProblemBuffers buffers(s, in, phase->input_format, workspace_bytes(*phase, s), phase->emits_lse);
  const Problem p = buffers.problem(float(s.default_scale()));
  const Stream stream;
  const timeline::DeviceTimeline buffer(ctas, warps, 8192);

  const StampedRun base = run_stamped(*phase, p, buffer, 0, stream.get());
  const StampedRun delayed = run_stamped(*phase, p, buffer, kDelayCycles, stream.get());
  timeline::detach_all();
  print("no delay", base);
  print("delayed producer", delayed);
  ASSERT_GT(base.items, 0u);
  ASSERT_GT(delayed.items, 0u);

  // (a) The delay puts the loads on the path of most items.
  EXPECT_EQ(delayed.most_bound, PathClass::kLoads)
      << "the delayed run's items are bound by " << report::path_class_name(delayed.most_bound);
  // (b) The model's slowdown: the loads' added time on an item's path, times the pictured SM's
  // items (they follow one another, so the SM's added time is its items' added path time, and
  // the kernel's that of its SMs), against the measured one.
  constexpr std::size_t kLoads = std::size_t(PathClass::kLoads);
  const double added_per_item =
      delayed.path_ns[kLoads] / double(delayed.items) - base.path_ns[kLoads] / double(base.items);
  const double predicted = added_per_item * double(delayed.items);
  const double measured = delayed.kernel_ns - base.kernel_ns;
  std::cout << "[ what-if ] slowdown: predicted " << predicted / 1e3 << " us (the loads' added time on the paths), "
            << "measured " << measured / 1e3 << " us (" << 100 * measured / base.kernel_ns << "% of "
            << base.kernel_ns / 1e3 << " us); off by " << 100 * (predicted - measured) / measured << "%" << std::endl;
  ASSERT_GT(measured, 0) << "the delay did not slow the kernel";
  EXPECT_LE(std::fabs(predicted - measured), kWhatIfTolerance * measured);
}

}  // namespace
}  // namespace attnlab
