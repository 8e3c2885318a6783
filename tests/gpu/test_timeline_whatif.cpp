// The timeline's what-if, validated on a known change: phase 5's stamped kernels, whose producer
// spins a given number of cycles before each K/V copy it issues (DeviceView's
// producer_delay_cycles, kernels/timeline.cuh; the timed kernels have no such code), run with and
// without the delay. The delay must move the decoded critical path to the loads (the consumers'
// full-barrier waits), the loads' wait must be the wait that grows most on the paths, and the
// what-if model (reports/timeline_paths.hpp, predict_slowdown: an item's whole path growth, once
// per item of the SMs with the most) must predict the slowdown the delay causes within 20%,
// against the added kernel time (CUPTI kernel records, medians).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <vector>

#include "attnlab_timeline_policy.hpp"
#include "common/check.hpp"
#include "common/shapes.hpp"
#include "common/stats.hpp"
#include "experiments/harness/gate.hpp"
#include "experiments/harness/run_main.hpp"
#include "kernels/registry.hpp"
#include "kernels/timeline_host.hpp"
#include "profiler/kernel_activity.hpp"
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

// What one run of the stamped build gives: its kernel time and every SM's item paths, the ones
// the timeline's report takes its what-if from.
struct StampedRun {
  double kernel_ns = 0;  // [ns] median over kTimedLaunches (CUPTI kernel records)
  double items_ns = 0;   // [ns] every SM's items, summed
  std::array<double, report::kPathClasses> path_ns{};  // [ns] on those items' paths, by class
  std::size_t items = 0;
  PathClass most_bound = PathClass::kBetween;  // the class that bounds the most items
  std::vector<report::ItemPath> paths;         // every SM's items
};

// CUPTI's kernel time of each of kTimedLaunches launches, as attnlab-timeline times its builds.
StampedRun run_stamped(const Phase& phase, const Problem& p, const timeline::DeviceTimeline& buffer, std::uint32_t delay,
                       profiler::KernelActivity& activity, cudaStream_t stream) {
  buffer.attach(delay);
  const auto launch = [&] { phase.launch_timeline(p, stream); };
  for (int i = 0; i < 3; ++i) launch();
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  activity.collect();  // the warm-up
  constexpr std::uint64_t kTag = 1;
  for (int i = 0; i < kTimedLaunches; ++i) {
    buffer.clear(stream);
    activity.push_tag(kTag);
    launch();
    activity.pop_tag();
  }
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> ns;
  for (const auto& k : activity.collect())
    if (k.tag == kTag) ns.push_back(double(k.end_ns - k.start_ns));
  EXPECT_EQ(ns.size(), std::size_t(kTimedLaunches)) << "CUPTI delivered another number of kernel records";
  StampedRun r;
  r.kernel_ns = stats::median(ns);
  buffer.clear(stream);
  launch();
  ATTNLAB_CHECK_LAUNCH();
  timeline::DecodeOptions o;
  o.role = phase.warp_role;
  o.sample_every = timeline::kBuildStampSample;
  const TimelineDecoded d = timeline::decode(buffer.pull(stream), o);
  r.paths = report::launch_paths(d).paths;
  r.items = r.paths.size();
  for (const auto& path : r.paths) r.items_ns += path.end_ns - path.begin_ns;
  std::size_t most = 0;
  for (const auto& c : report::summarize_paths(r.paths)) {
    r.path_ns[std::size_t(c.cls)] = c.ns;
    if (c.items_bound > most) {
      most = c.items_bound;
      r.most_bound = c.cls;
    }
  }
  return r;
}

// The path classes that are waits on another party (the others are the warp's own work).
bool timeline_wait_class(PathClass c) {
  return c == PathClass::kLoads || c == PathClass::kTensorCores || c == PathClass::kPartner ||
         c == PathClass::kConsumers || c == PathClass::kOtherRanks;
}

void print(const char* what, const StampedRun& r) {
  std::cout << "[ what-if ] " << what << ": kernel " << r.kernel_ns / 1e3 << " us, " << r.items
            << " items on every SM, " << r.items_ns / 1e3 << " us summed; most items bound by "
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

  std::optional<profiler::KernelActivity> activity;
  start_kernel_activity(activity);
  const StampedRun base = run_stamped(*phase, p, buffer, 0, *activity, stream.get());
  const StampedRun delayed = run_stamped(*phase, p, buffer, kDelayCycles, *activity, stream.get());
  timeline::detach_all();
  print("no delay", base);
  print("delayed producer", delayed);
  ASSERT_GT(base.items, 0u);
  ASSERT_GT(delayed.items, 0u);

  // (a) The delay puts the loads on the path of most items.
  EXPECT_EQ(delayed.most_bound, PathClass::kLoads)
      << "the delayed run's items are bound by " << report::path_class_name(delayed.most_bound);
  // (b) Of the waits, the loads' grows most on an item's path: the delay is theirs.
  const double items_per_sm = report::busiest_sm_items(*phase->work_items(s, sms), ctas, std::uint32_t(sms));
  const report::SlowdownPrediction model = report::predict_slowdown(base.paths, delayed.paths, items_per_sm);
  std::cout << "[ what-if ] per item on the paths: " << model.base_item_ns / 1e3 << " us without the delay, "
            << model.delayed_item_ns / 1e3 << " us with it; the growth by class:";
  PathClass most_grown = PathClass::kLoads;
  for (std::size_t c = 0; c < report::kPathClasses; ++c) {
    if (model.class_growth_ns[c] != 0)
      std::cout << " " << report::path_class_name(PathClass(c)) << " " << model.class_growth_ns[c] / 1e3 << " us;";
    if (timeline_wait_class(PathClass(c)) && model.class_growth_ns[c] > model.class_growth_ns[std::size_t(most_grown)])
      most_grown = PathClass(c);
  }
  std::cout << std::endl;
  EXPECT_EQ(most_grown, PathClass::kLoads) << "the wait that grew most: " << report::path_class_name(most_grown);
  // (c) The model's slowdown against the measured one; beside it, what the loads' own added time
  // alone predicts, which leaves out what the delay moves into issue and between-stamps time.
  const double measured = delayed.kernel_ns - base.kernel_ns;
  const double loads_alone = model.class_growth_ns[std::size_t(PathClass::kLoads)] * items_per_sm;
  std::cout << "[ what-if ] slowdown: predicted " << model.predicted_ns / 1e3 << " us (an item's path growth x "
            << items_per_sm << " items on the SMs with the most), measured " << measured / 1e3 << " us ("
            << 100 * measured / base.kernel_ns << "% of " << base.kernel_ns / 1e3 << " us); off by "
            << 100 * (model.predicted_ns - measured) / measured << "%; the loads' own growth alone would predict "
            << loads_alone / 1e3 << " us (" << 100 * (loads_alone - measured) / measured << "%)" << std::endl;
  ASSERT_GT(measured, 0) << "the delay did not slow the kernel";
  EXPECT_LE(std::fabs(model.predicted_ns - measured), kWhatIfTolerance * measured);
}

}  // namespace
}  // namespace attnlab
