// Calibration of the CUPTI range-profiler collector against kernels whose counters are known
// in advance: a streaming copy of N bytes reads and writes N bytes of DRAM, a tensor-core loop
// keeps the tensor pipe busy and executes a countable number of HMMAs, and a chain of
// dependent loads stalls on long_scoreboard above all; the calibration's e4m3 wgmma loop
// (profiler/calibration/microbench.hpp) keeps the tensor pipe as busy as its fp16 one, at about
// twice its FLOPs per clock. The collector is used as the harness
// uses it: a KernelActivity alive, MetricsCollector::collect per group, one user range.
// Where counters cannot be read (not Hopper, restricted to admin, held by another profiler)
// the tests are skipped with the collector's reason; ctest reports them as skipped.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "profiler/calibration/microbench.hpp"
#include "profiler/kernel_activity.hpp"
#include "profiler/metric_groups.hpp"
#include "profiler/metrics.hpp"
#include "profiler/static_facts.hpp"

using namespace attnlab::profiler;

namespace {

// ---- streaming copy: N bytes read, N bytes written, 16-byte accesses, fully coalesced ----
// The L2 is write-back: up to its size (50 MB on H100) of the copy's last writes can still be
// dirty in it when the range ends, uncounted by dram__bytes_write (ncu sees the same). At
// 4 GiB that shortfall stays under 1.2%, inside the tolerance.
constexpr std::size_t kCopyBytes = std::size_t{4} << 30;  // [bytes]
constexpr double kCopyTolerance = 0.02;                   // the issue's 2%

__global__ void stream_copy(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// ---- tensor loop: independent mma.sync chains on register operands, no memory traffic ----
constexpr int kTensorThreads = 128;  // 4 warps
constexpr int kTensorBlocksPerSm = 8;  // 32 warps per SM, all resident in one wave
constexpr int kTensorChains = 8;     // independent accumulators per warp hide HMMA latency
constexpr int kTensorIters = 4096;   // about a millisecond on an H100

__device__ __forceinline__ void mma_16816(float (&d)[4], const std::uint32_t (&a)[4],
                                          const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

__global__ void tensor_loop(float* out, int iters) {
  // fp16 operands built from the thread index, so nothing is a compile-time constant.
  const std::uint32_t h = 0x1400u + (threadIdx.x & 7u);  // small positive halves
  const std::uint32_t pair = h | (h << 16);
  const std::uint32_t a[4] = {pair, pair ^ 1u, pair ^ 2u, pair ^ 3u};
  const std::uint32_t b[2] = {pair ^ 4u, pair ^ 5u};
  // Distinct starting accumulators: identical chains could be merged into one by the compiler.
  float acc[kTensorChains][4];
#pragma unroll
  for (int c = 0; c < kTensorChains; ++c)
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[c][e] = 1e-3f * float(4 * c + e);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < kTensorChains; ++c) mma_16816(acc[c], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kTensorChains; ++c) sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// ---- pointer chase: every load's address is the previous load's value ----
constexpr std::uint32_t kChaseLog2 = 26;                     // 64 Mi entries, 256 MiB: 5x the L2
constexpr std::uint32_t kChaseEntries = 1u << kChaseLog2;
constexpr std::uint32_t kChaseMult = 0x9E3779B5u;            // = 1 mod 4 ...
constexpr std::uint32_t kChaseAdd = 12345u;                  // ... and odd: one full cycle
constexpr int kChaseSteps = 1024;

// next[i] = (a*i + c) mod 2^k is a single cycle through every index (Hull-Dobell), with
// successive addresses far apart.
__global__ void chase_init(std::uint32_t* next) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < kChaseEntries;
       i += gridDim.x * blockDim.x)
    next[i] = (kChaseMult * i + kChaseAdd) & (kChaseEntries - 1);
}

__global__ void chase(const std::uint32_t* __restrict__ next, std::uint32_t* out, int steps) {
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t idx = (tid * 7919u) & (kChaseEntries - 1);
  for (int s = 0; s < steps; ++s) idx = next[idx];
  out[tid] = idx;
}

// ---- occupancy probe: a kernel whose residency only its launch configuration decides ----
__global__ void occupancy_probe(int* out) {
  extern __shared__ int buf[];
  if (out != nullptr && threadIdx.x == 0) {  // never taken: the launches pass nullptr
    buf[0] = int(blockIdx.x);
    out[blockIdx.x] = buf[0];
  }
}

int sm_count() {
  int device = 0, sms = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&device));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

struct DeviceMemory {
  void* p = nullptr;
  explicit DeviceMemory(std::size_t bytes) { ATTNLAB_CUDA_CHECK(cudaMalloc(&p, bytes)); }
  ~DeviceMemory() { cudaFree(p); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

// Environment, not calibration: these refusals skip the test instead of failing it. Any other
// refusal (another CUPTI client in this process, say) is this code's to fix, and fails.
bool environmental(const std::string& reason) {
  for (const char* code : {"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", "CUPTI_ERROR_HARDWARE_BUSY",
                           "CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES"})
    if (reason.find(code) != std::string::npos) return true;
  return false;
}

class Calibration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // As in the harness: tracing alive, paused by the collector while it replays.
    activity = new KernelActivity();
    collector = new MetricsCollector(0);
    ATTNLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  static void TearDownTestSuite() {
    ATTNLAB_CUDA_CHECK(cudaStreamDestroy(stream));
    delete collector;
    delete activity;
  }
  void SetUp() override {
    if (collector->unavailable()) GTEST_SKIP() << *collector->unavailable();
  }

  // One group around `launch`, its console line printed as the harness prints it.
  static GroupResult collect(const std::string& group, const LaunchFn& launch,
                             const std::string& range) {
    GroupResult g = collector->collect(group, launch, stream, range);
    std::printf("%s\n", console_line(g).c_str());
    return g;
  }

  static KernelActivity* activity;
  static MetricsCollector* collector;
  static cudaStream_t stream;
};
KernelActivity* Calibration::activity = nullptr;
MetricsCollector* Calibration::collector = nullptr;
cudaStream_t Calibration::stream = nullptr;

#define SKIP_OR_FAIL_UNLESS_AVAILABLE(g)                                  \
  do {                                                                    \
    if (!(g).available) {                                                 \
      if (environmental((g).reason)) GTEST_SKIP() << (g).reason;          \
      FAIL() << (g).group << " unavailable: " << (g).reason;              \
    }                                                                     \
  } while (0)

TEST_F(Calibration, StreamingCopyReadsAndWritesItsBytes) {
  DeviceMemory src(kCopyBytes), dst(kCopyBytes);
  ATTNLAB_CUDA_CHECK(cudaMemset(src.p, 1, kCopyBytes));
  const int blocks = sm_count() * 8;
  const LaunchFn copy = [&](cudaStream_t s) {
    stream_copy<<<blocks, 256, 0, s>>>(src.as<uint4>(), dst.as<uint4>(), kCopyBytes / sizeof(uint4));
    ATTNLAB_CHECK_LAUNCH();
  };
  const GroupResult g = collect("memory", copy, "calibration.copy");
  SKIP_OR_FAIL_UNLESS_AVAILABLE(g);
  const auto read = g.value("dram__bytes_read.sum");
  const auto write = g.value("dram__bytes_write.sum");
  ASSERT_TRUE(read && write);
  const double n = double(kCopyBytes);
  EXPECT_NEAR(*read, n, kCopyTolerance * n) << "DRAM bytes read for a copy of " << n << " bytes";
  EXPECT_NEAR(*write, n, kCopyTolerance * n) << "DRAM bytes written for a copy of " << n << " bytes";
  EXPECT_GE(g.passes, 1);
  EXPECT_GT(g.collection_wall_s, 0.0);
}

TEST_F(Calibration, TensorLoopKeepsTheTensorPipeBusy) {
  const int blocks = sm_count() * kTensorBlocksPerSm;
  DeviceMemory out(std::size_t(blocks) * kTensorThreads * sizeof(float));
  const LaunchFn loop = [&](cudaStream_t s) {
    tensor_loop<<<blocks, kTensorThreads, 0, s>>>(out.as<float>(), kTensorIters);
    ATTNLAB_CHECK_LAUNCH();
  };
  const GroupResult g = collect("tensor", loop, "calibration.tensor");
  SKIP_OR_FAIL_UNLESS_AVAILABLE(g);
  const auto pipe = g.value("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active");
  ASSERT_TRUE(pipe.has_value());
  EXPECT_GT(*pipe, 90.0) << "tensor pipe active [%] in a loop of independent mma.sync";
  // m16n8k16 is one HMMA.16816 instruction per warp on sm_80 and sm_90.
  const double expected = double(blocks) * (kTensorThreads / 32) * kTensorIters * kTensorChains;
  const auto hmma = g.value("sm__inst_executed_pipe_tensor_op_hmma.sum");
  ASSERT_TRUE(hmma.has_value());
  EXPECT_NEAR(*hmma, expected, 0.01 * expected) << "HMMA instructions executed";
}

// ---- wgmma loops: attnlab-calibrate's fp16 and e4m3 throughput kernels ----
// The loops issue the same wgmma count from the same tiles (m64n256k16 fp16 or m64n256k32 e4m3,
// 32 bytes of each operand row per k-step), so each kernel's FLOPs per SM per clock compare the
// two formats' rates on the tensor cores directly, whatever clock the power cap set for each.
constexpr std::int64_t kWgmmaIters = 16384;  // a few milliseconds each on an H100
constexpr int kWgmmaSamples = 5;
// [FLOP per SM per clock] of one launch of `kind`, from its event time and the SM clock the
// kernel counted itself (clock64 over %globaltimer).
double wgmma_per_sm_per_clock(calibration::Microbenchmarks& bench, calibration::Kind kind, cudaStream_t stream) {
  cudaEvent_t start, stop;
  ATTNLAB_CUDA_CHECK(cudaEventCreate(&start));
  ATTNLAB_CUDA_CHECK(cudaEventCreate(&stop));
  bench.launch(kind, kWgmmaIters, stream);  // warm-up
  std::vector<double> per_clock;
  for (int i = 0; i < kWgmmaSamples; ++i) {
    ATTNLAB_CUDA_CHECK(cudaEventRecord(start, stream));
    bench.launch(kind, kWgmmaIters, stream);
    ATTNLAB_CUDA_CHECK(cudaEventRecord(stop, stream));
    ATTNLAB_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    ATTNLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    const double cycles = double(ms) * 1e-3 * bench.last_sm_clock_mhz() * 1e6;
    per_clock.push_back(bench.work(kind, kWgmmaIters) / (cycles * sm_count()));
  }
  ATTNLAB_CUDA_CHECK(cudaEventDestroy(start));
  ATTNLAB_CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(per_clock.begin(), per_clock.end());
  return per_clock[per_clock.size() / 2];
}

TEST_F(Calibration, Fp8WgmmaLoopKeepsTheTensorPipeBusyAtAboutTwiceTheFp16Rate) {
  int device = 0, major = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&device));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major != 9) GTEST_SKIP() << "the wgmma loops need a compute capability 9.0 GPU (sm_90a)";
  calibration::Microbenchmarks bench(sizeof(int4));  // the DRAM kernel is not launched
  const auto loop = [&](calibration::Kind kind) -> LaunchFn {
    return [&bench, kind](cudaStream_t s) { bench.launch(kind, kWgmmaIters, s); };
  };
  const GroupResult fp8 = collect("tensor", loop(calibration::Kind::kTensorFp8), "calibration.wgmma_e4m3");
  SKIP_OR_FAIL_UNLESS_AVAILABLE(fp8);
  const auto pipe = fp8.value("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active");
  ASSERT_TRUE(pipe.has_value());
  EXPECT_GT(*pipe, 90.0) << "tensor pipe active [%] in the e4m3 wgmma loop";
  const GroupResult fp16 = collect("tensor", loop(calibration::Kind::kTensor), "calibration.wgmma_fp16");
  SKIP_OR_FAIL_UNLESS_AVAILABLE(fp16);
  const auto gmma8 = fp8.value("sm__inst_executed_pipe_tensor_op_gmma.sum");
  const auto gmma16 = fp16.value("sm__inst_executed_pipe_tensor_op_gmma.sum");
  ASSERT_TRUE(gmma8 && gmma16);
  EXPECT_GT(*gmma16, 0.0);
  EXPECT_NEAR(*gmma8, *gmma16, 0.01 * *gmma16) << "wgmma executed: the loops issue the same count";
  // Hopper's tensor cores do twice as many e4m3 FMA per SM per clock as fp16 (2048 against
  // 1024), and both loops keep them fed, so per clock the e4m3 loop does about twice the fp16
  // one's FLOPs. Above 2.1: more than the hardware's factor and the clock reading's error (block
  // 0's own span against the event time); below 1.7: the e4m3 loop lost more than 15% of its
  // rate to something the fp16 loop does not meet, and its calibration rate would understate
  // the FP8 floors' rate.
  const double r16 = wgmma_per_sm_per_clock(bench, calibration::Kind::kTensor, stream);
  const double r8 = wgmma_per_sm_per_clock(bench, calibration::Kind::kTensorFp8, stream);
  std::printf("wgmma per SM per clock: fp16 %.4g, e4m3 %.4g FLOP, ratio %.3f\n", r16, r8, r8 / r16);
  EXPECT_GT(r8 / r16, 1.7) << "e4m3 over fp16 FLOPs per SM per clock";
  EXPECT_LT(r8 / r16, 2.1) << "e4m3 over fp16 FLOPs per SM per clock";
}

TEST_F(Calibration, PointerChaseStallsOnLongScoreboardMost) {
  DeviceMemory next(std::size_t(kChaseEntries) * sizeof(std::uint32_t));
  const int blocks = sm_count() * 4;
  DeviceMemory out(std::size_t(blocks) * 128 * sizeof(std::uint32_t));
  chase_init<<<sm_count() * 8, 256, 0, stream>>>(next.as<std::uint32_t>());
  ATTNLAB_CHECK_LAUNCH();
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  const LaunchFn walk = [&](cudaStream_t s) {
    chase<<<blocks, 128, 0, s>>>(next.as<std::uint32_t>(), out.as<std::uint32_t>(), kChaseSteps);
    ATTNLAB_CHECK_LAUNCH();
  };
  const GroupResult g = collect("stalls", walk, "calibration.chase");
  SKIP_OR_FAIL_UNLESS_AVAILABLE(g);
  ASSERT_EQ(g.values.size(), gh100_stall_reasons().size()) << "every GH100 stall reason collected";
  const auto top = std::max_element(g.values.begin(), g.values.end(),
                                    [](const MetricValue& a, const MetricValue& b) { return a.value < b.value; });
  EXPECT_EQ(top->name, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio")
      << "top stall " << top->name << " = " << top->value;
}

TEST_F(Calibration, EveryGroupCollectsEveryMetricOnThisChip) {
  const int blocks = sm_count() * kTensorBlocksPerSm;
  DeviceMemory out(std::size_t(blocks) * kTensorThreads * sizeof(float));
  const LaunchFn loop = [&](cudaStream_t s) {
    tensor_loop<<<blocks, kTensorThreads, 0, s>>>(out.as<float>(), 64);
    ATTNLAB_CHECK_LAUNCH();
  };
  for (const MetricGroup& group : metric_groups()) {
    const GroupResult g = collect(group.name, loop, "calibration.groups");
    SKIP_OR_FAIL_UNLESS_AVAILABLE(g);
    EXPECT_EQ(g.values.size(), group.metrics.size()) << group.name;
    for (const auto& [name, why] : g.unavailable_metrics) ADD_FAILURE() << name << ": " << why;
    const auto j = to_json(g);
    EXPECT_TRUE(j["available"].get<bool>());
    EXPECT_EQ(j["values"].size(), group.metrics.size());
  }
}

TEST_F(Calibration, StaticFactsDescribeTheLaunchedKernel) {
  const int blocks = sm_count() * kTensorBlocksPerSm;
  DeviceMemory out(std::size_t(blocks) * kTensorThreads * sizeof(float));
  const LaunchFn loop = [&](cudaStream_t s) {
    tensor_loop<<<blocks, kTensorThreads, 0, s>>>(out.as<float>(), 1);
    ATTNLAB_CHECK_LAUNCH();
  };
  const StaticFacts facts = capture_static_facts(loop, stream);
  if (!facts.available && environmental(facts.reason)) GTEST_SKIP() << facts.reason;
  ASSERT_TRUE(facts.available) << facts.reason;
  ASSERT_EQ(facts.kernels.size(), 1u);
  const KernelFacts& k = facts.kernels[0];
  EXPECT_NE(k.name.find("tensor_loop"), std::string::npos) << k.name;
  EXPECT_EQ(k.grid[0], unsigned(blocks));
  EXPECT_EQ(k.block[0], unsigned(kTensorThreads));
  ASSERT_TRUE(k.registers.has_value()) << k.attributes_reason;
  EXPECT_GT(*k.registers, 0);
  cudaFuncAttributes attr{};
  ATTNLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, tensor_loop));
  EXPECT_EQ(*k.registers, attr.numRegs) << "registers agree with cudaFuncGetAttributes";
  EXPECT_EQ(*k.local_bytes, std::int64_t(attr.localSizeBytes));
  ASSERT_TRUE(k.theoretical_occupancy_pct.has_value()) << k.attributes_reason;
  EXPECT_GT(*k.theoretical_occupancy_pct, 0.0);
  EXPECT_LE(*k.theoretical_occupancy_pct, 100.0);
  // The limits per resource, computed, agree with the driver's answer.
  ASSERT_TRUE(facts.device.has_value());
  EXPECT_EQ(facts.device->sm_count, sm_count());
  ASSERT_TRUE(k.occupancy.has_value()) << k.occupancy_reason;
  ASSERT_TRUE(k.active_blocks_per_sm.has_value());
  EXPECT_EQ(k.occupancy->active_blocks_per_sm, *k.active_blocks_per_sm);
  EXPECT_FALSE(k.occupancy->limited_by.empty());
  EXPECT_DOUBLE_EQ(k.occupancy->theoretical_occupancy_pct, *k.theoretical_occupancy_pct);
}

// The CTA limits per resource (profiler/occupancy.hpp) against the driver over launch
// configurations that reach each limit: warp slots (1024 threads), shared memory (100 KiB and
// 200 KiB per CTA), CTA slots (64 threads, no shared memory).
TEST_F(Calibration, OccupancyLimitsAgreeWithTheDriverOverLaunchConfigurations) {
  int device = 0, optin = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&device));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  ATTNLAB_CUDA_CHECK(cudaFuncSetAttribute(occupancy_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  int compared = 0;
  for (int threads : {64, 256, 1024})
    for (int smem : {0, 13824, 100 * 1024, 200 * 1024}) {
      if (smem > optin) continue;
      const LaunchFn probe = [&](cudaStream_t s) {
        occupancy_probe<<<sm_count(), threads, std::size_t(smem), s>>>(nullptr);
        ATTNLAB_CHECK_LAUNCH();
      };
      const StaticFacts facts = capture_static_facts(probe, stream);
      if (!facts.available && environmental(facts.reason)) GTEST_SKIP() << facts.reason;
      ASSERT_TRUE(facts.available) << facts.reason;
      ASSERT_EQ(facts.kernels.size(), 1u);
      const KernelFacts& k = facts.kernels[0];
      ASSERT_TRUE(k.occupancy.has_value()) << k.occupancy_reason;
      int driver = 0;
      ATTNLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&driver, occupancy_probe, threads, std::size_t(smem)));
      EXPECT_EQ(k.occupancy->active_blocks_per_sm, driver) << threads << " threads, " << smem << " B dynamic";
      ASSERT_TRUE(k.active_blocks_per_sm.has_value());
      EXPECT_EQ(*k.active_blocks_per_sm, driver);
      ++compared;
    }
  EXPECT_GT(compared, 0);
}

// SM busy balance (sm__cycles_active .min/.avg/.max): a full resident wave keeps every SM about
// equally busy; a grid of half as many CTAs as SMs leaves SMs without any.
TEST_F(Calibration, SmBusyBalanceSeesIdleSms) {
  const int full = sm_count() * kTensorBlocksPerSm;
  DeviceMemory out(std::size_t(full) * kTensorThreads * sizeof(float));
  auto balance = [&](int blocks, const std::string& range) {
    const LaunchFn loop = [&](cudaStream_t s) {
      tensor_loop<<<blocks, kTensorThreads, 0, s>>>(out.as<float>(), kTensorIters);
      ATTNLAB_CHECK_LAUNCH();
    };
    return collect("throughput", loop, range);
  };
  const GroupResult even = balance(full, "calibration.balance.full");
  SKIP_OR_FAIL_UNLESS_AVAILABLE(even);
  const auto lo = even.value("sm__cycles_active.min"), hi = even.value("sm__cycles_active.max");
  ASSERT_TRUE(lo && hi);
  EXPECT_GT(*lo, 0.9 * *hi) << "least busy SM against the busiest, a full resident wave";
  const GroupResult half = balance(sm_count() / 2, "calibration.balance.half");
  SKIP_OR_FAIL_UNLESS_AVAILABLE(half);
  const auto hlo = half.value("sm__cycles_active.min"), hhi = half.value("sm__cycles_active.max");
  ASSERT_TRUE(hlo && hhi);
  EXPECT_GT(*hhi, 0.0);
  EXPECT_LT(*hlo, 0.01 * *hhi) << "least busy SM against the busiest, CTAs for half the SMs";
}

// Counters per kernel (CUPTI auto range): a launch of a 1 GiB copy, a tensor loop and a 256 MiB
// copy, its kernels named by static facts in launch order as the harness names them. Each
// kernel's DRAM reads and HMMA count are its own, and the per-kernel reads add up to the
// launch-wide ones. Naming fewer kernels than the launch starts leaves the launch-wide values
// and says why there are no per-kernel ones.
TEST_F(Calibration, PerKernelCountersSeparateTheKernelsOfOneLaunch) {
  constexpr std::size_t kBig = std::size_t{1} << 30, kSmall = std::size_t{256} << 20;
  DeviceMemory a_src(kBig), a_dst(kBig), b_src(kSmall), b_dst(kSmall);
  ATTNLAB_CUDA_CHECK(cudaMemset(a_src.p, 1, kBig));
  ATTNLAB_CUDA_CHECK(cudaMemset(b_src.p, 2, kSmall));
  const int copy_blocks = sm_count() * 8, tensor_blocks = sm_count() * kTensorBlocksPerSm;
  DeviceMemory out(std::size_t(tensor_blocks) * kTensorThreads * sizeof(float));
  constexpr int kIters = 256;
  const LaunchFn three = [&](cudaStream_t s) {
    stream_copy<<<copy_blocks, 256, 0, s>>>(a_src.as<uint4>(), a_dst.as<uint4>(), kBig / sizeof(uint4));
    ATTNLAB_CHECK_LAUNCH();
    tensor_loop<<<tensor_blocks, kTensorThreads, 0, s>>>(out.as<float>(), kIters);
    ATTNLAB_CHECK_LAUNCH();
    stream_copy<<<copy_blocks, 256, 0, s>>>(b_src.as<uint4>(), b_dst.as<uint4>(), kSmall / sizeof(uint4));
    ATTNLAB_CHECK_LAUNCH();
  };
  const StaticFacts facts = capture_static_facts(three, stream);
  if (!facts.available && environmental(facts.reason)) GTEST_SKIP() << facts.reason;
  ASSERT_TRUE(facts.available) << facts.reason;
  std::vector<std::string> names;
  for (const KernelFacts& k : facts.kernels) names.push_back(k.name);
  ASSERT_EQ(names.size(), 3u);
  EXPECT_NE(names[1].find("tensor_loop"), std::string::npos) << names[1];

  const GroupResult mem = collector->collect("memory", three, stream, "calibration.per_kernel", names);
  std::printf("%s\n", console_line(mem).c_str());
  SKIP_OR_FAIL_UNLESS_AVAILABLE(mem);
  ASSERT_EQ(mem.kernels.size(), 3u) << mem.kernels_reason;
  EXPECT_GE(mem.kernel_passes, 1);
  double sum = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(mem.kernels[i].name, names[i]);
    EXPECT_EQ(mem.kernels[i].index, int(i));
    const auto r = mem.kernels[i].value("dram__bytes_read.sum");
    ASSERT_TRUE(r.has_value()) << i;
    sum += *r;
  }
  EXPECT_NEAR(*mem.kernels[0].value("dram__bytes_read.sum"), double(kBig), kCopyTolerance * double(kBig));
  EXPECT_LT(*mem.kernels[1].value("dram__bytes_read.sum"), 0.01 * double(kSmall)) << "the tensor loop reads no DRAM";
  EXPECT_NEAR(*mem.kernels[2].value("dram__bytes_read.sum"), double(kSmall), 0.05 * double(kSmall));
  const auto launch_read = mem.value("dram__bytes_read.sum");
  ASSERT_TRUE(launch_read.has_value());
  EXPECT_NEAR(sum, *launch_read, kCopyTolerance * *launch_read) << "per-kernel reads against the launch's";

  const GroupResult tensor = collector->collect("tensor", three, stream, "calibration.per_kernel", names);
  std::printf("%s\n", console_line(tensor).c_str());
  SKIP_OR_FAIL_UNLESS_AVAILABLE(tensor);
  ASSERT_EQ(tensor.kernels.size(), 3u) << tensor.kernels_reason;
  const double hmma = double(tensor_blocks) * (kTensorThreads / 32) * kIters * kTensorChains;
  EXPECT_NEAR(*tensor.kernels[1].value("sm__inst_executed_pipe_tensor_op_hmma.sum"), hmma, 0.01 * hmma);
  EXPECT_LT(*tensor.kernels[0].value("sm__inst_executed_pipe_tensor_op_hmma.sum"), 0.01 * hmma)
      << "a copy executes no matrix HMMA";

  // Two names for three kernels: the ranges cannot be matched, so none are kept.
  const GroupResult short_list =
      collector->collect("memory", three, stream, "calibration.per_kernel", {names[0], names[1]});
  std::printf("%s\n", console_line(short_list).c_str());
  SKIP_OR_FAIL_UNLESS_AVAILABLE(short_list);
  EXPECT_TRUE(short_list.kernels.empty());
  EXPECT_FALSE(short_list.kernels_reason.empty());
  EXPECT_TRUE(short_list.value("dram__bytes_read.sum").has_value());
}

}  // namespace
