// The timing machinery against a kernel of known duration: a spin kernel must measure as
// what it spins for in every regime, and the clock probe must read a plausible SM clock.
#include <gtest/gtest.h>

#include "kernels/check.hpp"
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
  StoppingRule rule;
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
  }
  ATTNLAB_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_F(Timing, ClockProbeIsWithinTheDeviceRange) {
  const double mhz = measure_sm_clock_mhz(nullptr);
  EXPECT_GT(mhz, 100.0);
  EXPECT_LE(mhz, 1.02 * max_sm_clock_mhz(0));
}

}  // namespace
