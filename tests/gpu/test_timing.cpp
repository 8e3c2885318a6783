// The timing machinery against a kernel of known duration: a spin kernel must measure as
// what it spins for in every regime, and the clock probe must read a plausible SM clock.
#include <gtest/gtest.h>

#include "common/check.hpp"
#include "profiler/clock_probe.hpp"
#include "profiler/gpu_spin.hpp"
#include "profiler/kernel_activity.hpp"
#include "profiler/l2_flush.hpp"
#include "profiler/sampler.hpp"

using namespace attnlab::profiler;

namespace {

constexpr std::uint64_t kSpinNs = 100000;  // [ns] long against timer resolution and launch gaps

class Timing : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    activity = new KernelActivity();
    flush = new L2Flush();
  }
  static void TearDownTestSuite() {
    delete flush;
    delete activity;
  }
  static KernelActivity* activity;
  static L2Flush* flush;
};
KernelActivity* Timing::activity = nullptr;
L2Flush* Timing::flush = nullptr;

TEST_F(Timing, SpinKernelMeasuresItsDurationInEveryRegime) {
  cudaStream_t stream{};
  ATTNLAB_CUDA_CHECK(cudaStreamCreate(&stream));
  attnlab::stats::StoppingRule rule;
  rule.min_samples = 10;
  rule.max_seconds = 0.5;
  rule.max_samples = 50;  // below one batch of 100 us launches: the cap must cut a batch short
  Sampler sampler(*activity, *flush, stream, rule);
  const LaunchFn spin = [](cudaStream_t s) { gpu_spin(s, kSpinNs); };
  const double estimate = sampler.warm_up(spin);
  EXPECT_NEAR(estimate, double(kSpinNs), 0.05 * kSpinNs);
  for (Regime r : {Regime::kCold, Regime::kWarm, Regime::kGraph}) {
    const auto res = sampler.run(r, spin, estimate);
    EXPECT_GE(res.summary.count, rule.min_samples) << regime_name(r);
    EXPECT_LE(res.summary.count, rule.max_samples) << regime_name(r);
    // CUPTI spans and graph replays both add only a few microseconds of overhead at most.
    EXPECT_GE(res.summary.median, double(kSpinNs)) << regime_name(r);
    EXPECT_LT(res.summary.median, 1.05 * kSpinNs) << regime_name(r);
    EXPECT_GT(res.sm_clock_mhz_before, 100.0);
    if (r != Regime::kGraph) {  // one kernel: busy time is its span, sample for sample
      EXPECT_EQ(res.kernels_per_launch, 1) << regime_name(r);
      EXPECT_EQ(res.busy_ns, res.samples_ns) << regime_name(r);
    }
  }
  ATTNLAB_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_F(Timing, BusyTimeOfAForkedLaunchCountsOverlapOnce) {
  // One "launch" of two spin kernels, the second on a forked stream, as phase 3c runs its
  // chunk GEMMs: the span covers both, busy time counts time when either ran once.
  cudaStream_t stream{}, side{};
  cudaEvent_t fork{}, join{};
  ATTNLAB_CUDA_CHECK(cudaStreamCreate(&stream));
  ATTNLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  ATTNLAB_CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  ATTNLAB_CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  attnlab::stats::StoppingRule rule;
  rule.min_samples = 10;
  rule.max_seconds = 0.3;
  rule.max_samples = 30;
  Sampler sampler(*activity, *flush, stream, rule);
  const LaunchFn forked = [&](cudaStream_t s) {
    ATTNLAB_CUDA_CHECK(cudaEventRecord(fork, s));
    ATTNLAB_CUDA_CHECK(cudaStreamWaitEvent(side, fork, 0));
    gpu_spin(s, kSpinNs);
    gpu_spin(side, kSpinNs);
    ATTNLAB_CUDA_CHECK(cudaEventRecord(join, side));
    ATTNLAB_CUDA_CHECK(cudaStreamWaitEvent(s, join, 0));
  };
  const auto res = sampler.run(Regime::kWarm, forked, sampler.warm_up(forked));
  EXPECT_EQ(res.kernels_per_launch, 2);
  ASSERT_EQ(res.busy_ns.size(), res.samples_ns.size());
  for (std::size_t i = 0; i < res.busy_ns.size(); ++i) {
    // A sum of kernel times would exceed the span whenever the two overlap.
    EXPECT_LE(res.busy_ns[i], res.samples_ns[i]) << i;
    EXPECT_GE(res.busy_ns[i], double(kSpinNs)) << i;
  }
  ATTNLAB_CUDA_CHECK(cudaEventDestroy(join));
  ATTNLAB_CUDA_CHECK(cudaEventDestroy(fork));
  ATTNLAB_CUDA_CHECK(cudaStreamDestroy(side));
  ATTNLAB_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_F(Timing, ClockProbeIsWithinTheDeviceRange) {
  const double mhz = measure_sm_clock_mhz(nullptr);
  EXPECT_GT(mhz, 100.0);
  EXPECT_LE(mhz, 1.02 * max_sm_clock_mhz(0));
}

}  // namespace
