// Calibration of the PC-sampling collector (profiler/pc_sampling.hpp) on two kernels whose hot
// loop is known, launched together as one two-kernel launch: a dependent global-load chain
// (pointer chasing over a single-cycle permutation 5x the L2) whose every iteration is one
// source line, and a dependent chain of mma.sync (m16n8k16) written inline on another line (an
// HMMA reached through wmma's inline functions is attributed by the line table to the header
// that defines them, crt/mma.hpp, not to the caller's line). Each kernel must put most of its
// samples on its loop's line, that line's SASS must be the expected instructions (LDG for the
// chase, HMMA for the mma loop), the chase must stall on long_scoreboard above all, and the mma
// loop on a math-pipe or fixed-latency reason (H100 reports `wait` for a dependent HMMA chain),
// never a memory one. Checked as the harness samples: in a process in which PC sampling is the
// only CUPTI client (the harness runs it in a child process of its own,
// experiments/harness/pc_sampling_child.hpp; its path through the experiment binary is
// tests/gpu/pc_sampling_child.sh), the module loaded by a first launch before PC sampling is
// enabled for the sampled launch alone.
// Skipped (ctest's skip code) without a GPU or where CUPTI refuses PC sampling for want of
// permission or because another profiler holds the GPU; any other CUPTI failure fails.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "profiler/pc_sampling.hpp"

using namespace attnlab;
using namespace attnlab::profiler;

namespace {

constexpr std::uint32_t kEntries = 1u << 24;  // 64 MiB of indices: past the 50 MB L2
constexpr int kChaseSteps = 4096;
constexpr int kMmaIters = 1 << 16;

constexpr int kChaseLine = __LINE__ + 4;  // the loop below, on one line
__global__ void pc_chase(const std::uint32_t* __restrict__ next, std::uint32_t* out, int steps) {
  std::uint32_t p = ((blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u) & (kEntries - 1);
#pragma unroll 1
  for (int i = 0; i < steps; ++i) p = next[p];
  out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

constexpr int kMmaLine = __LINE__ + 8;  // the loop below, on one line: mma.sync written there
__global__ void pc_mma(float* out, int iters) {
  // fp16 operands built from the thread index, so nothing is a compile-time constant.
  const std::uint32_t h = 0x1400u + (threadIdx.x & 7u);
  const std::uint32_t x = h | (h << 16);
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#pragma unroll 1
  // One dependent chain of HMMAs per warp.
  for (int i = 0; i < iters; ++i) asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n" : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(x), "r"(x ^ 1u), "r"(x ^ 2u), "r"(x ^ 3u), "r"(x ^ 4u), "r"(x ^ 5u));
  out[blockIdx.x * blockDim.x + threadIdx.x] = d0 + d1 + d2 + d3;
}

bool refusal(const std::string& reason) {
  for (const char* code : {"INSUFFICIENT_PRIVILEGES", "MULTIPLE_SUBSCRIBERS", "NOT_SUPPORTED", "NOT_COMPATIBLE"})
    if (reason.find(code) != std::string::npos) return true;
  return false;
}

const KernelPcSamples* kernel_named(const PcSamplingResult& r, const char* part) {
  for (const auto& k : r.kernels)
    if (k.name.find(part) != std::string::npos) return &k;
  return nullptr;
}

void print(const KernelPcSamples& k) {
  std::printf("%s: %llu samples, cubin %s\n", k.name.c_str(), (unsigned long long)k.samples, k.cubin.c_str());
  for (std::size_t i = 0; i < std::min<std::size_t>(4, k.lines.size()); ++i) {
    const auto& l = k.lines[i];
    std::printf("  %s:%d %.1f%% [%s]", l.file.c_str(), l.line, l.share_pct, l.text.c_str());
    for (const auto& [n, c] : l.stalls) std::printf(" %s=%llu", n.c_str(), (unsigned long long)c);
    std::printf("\n");
  }
}

// The line of `k` with most samples, and the SASS of its PCs.
struct Hot {
  const SourceLine* line = nullptr;
  std::set<std::string> opcodes;  // first token of each instruction (predicate guards skipped)
};
Hot hottest(const KernelPcSamples& k) {
  Hot h;
  if (k.lines.empty()) return h;
  h.line = &k.lines.front();
  for (const auto& pc : k.pcs)
    if (std::find(h.line->pcs.begin(), h.line->pcs.end(), pc.offset) != h.line->pcs.end() && !pc.sass.empty()) {
      std::string s = pc.sass;
      if (s[0] == '@') s = s.substr(s.find(' ') + 1);
      h.opcodes.insert(s.substr(0, s.find_first_of(" .")));
    }
  return h;
}

// No other CUPTI client in the process; the module loaded by a first launch.
void calibrate() {
  // A single-cycle permutation (Sattolo): every chase visits distinct addresses.
  std::vector<std::uint32_t> next(kEntries);
  std::iota(next.begin(), next.end(), 0u);
  std::mt19937 rng(13);
  for (std::uint32_t i = kEntries - 1; i > 0; --i) std::swap(next[i], next[rng() % i]);
  int sms = 0;
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int chase_blocks = sms, chase_threads = 32;
  const int mma_blocks = sms, mma_threads = 128;
  std::uint32_t *d_next = nullptr, *d_out = nullptr;
  float* d_c = nullptr;
  ATTNLAB_CUDA_CHECK(cudaMalloc(&d_next, kEntries * sizeof(std::uint32_t)));
  ATTNLAB_CUDA_CHECK(cudaMalloc(&d_out, chase_blocks * chase_threads * sizeof(std::uint32_t)));
  ATTNLAB_CUDA_CHECK(cudaMalloc(&d_c, std::size_t(mma_blocks) * mma_threads * sizeof(float)));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(d_next, next.data(), kEntries * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  cudaStream_t stream{};
  ATTNLAB_CUDA_CHECK(cudaStreamCreate(&stream));
  const LaunchFn launch = [&](cudaStream_t s) {
    pc_chase<<<chase_blocks, chase_threads, 0, s>>>(d_next, d_out, kChaseSteps);
    ATTNLAB_CUDA_CHECK(cudaGetLastError());
    pc_mma<<<mma_blocks, mma_threads, 0, s>>>(d_c, kMmaIters);
    ATTNLAB_CUDA_CHECK(cudaGetLastError());
  };
  launch(stream);  // loads the module before PC sampling is enabled
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));

  const PcSamplingResult r =
      collect_pc_samples(launch, stream, PcSamplingOptions{});
  ATTNLAB_CUDA_CHECK(cudaStreamDestroy(stream));
  ATTNLAB_CUDA_CHECK(cudaFree(d_next));
  ATTNLAB_CUDA_CHECK(cudaFree(d_out));
  ATTNLAB_CUDA_CHECK(cudaFree(d_c));
  if (!r.available && refusal(r.reason)) GTEST_SKIP() << r.reason;
  ASSERT_TRUE(r.available) << r.reason;
  std::printf("period 2^%d, %llu samples (%llu of non-user kernels), %llu dropped, sampled %.0f ns vs unsampled %.0f ns (%.1f%%)\n",
              r.sampling_period_log2,
              (unsigned long long)r.total_samples, (unsigned long long)r.non_user_samples,
              (unsigned long long)r.dropped_samples, r.sampled_launch_ns.value_or(-1),
              r.unsampled_launch_ns.value_or(-1), r.overhead_pct.value_or(0));
  std::printf("CUPTI stall reasons:");
  for (const auto& n : r.stall_reason_names) std::printf(" %s", n.c_str());
  std::printf("\n");
  for (const auto& k : r.kernels) print(k);
  ASSERT_TRUE(r.sampled_launch_ns && r.unsampled_launch_ns && r.overhead_pct);

  const KernelPcSamples* chase = kernel_named(r, "pc_chase");
  const KernelPcSamples* mma = kernel_named(r, "pc_mma");
  ASSERT_NE(chase, nullptr) << "no samples of the chase kernel";
  ASSERT_NE(mma, nullptr) << "no samples of the mma kernel";
  const std::string this_file = __FILE__;
  for (const auto* k : {chase, mma}) {
    EXPECT_GE(k->samples, 1000u) << k->name;
    EXPECT_NE(k->cubin.rfind("not found", 0), 0u) << k->cubin;
  }
  const Hot hc = hottest(*chase), hm = hottest(*mma);
  ASSERT_TRUE(hc.line && hm.line);
  // Most samples on the loop lines, read back from this very file.
  EXPECT_EQ(hc.line->line, kChaseLine);
  EXPECT_EQ(hm.line->line, kMmaLine);
  EXPECT_NE(hc.line->file.find("test_pc_sampling.cu"), std::string::npos) << hc.line->file;
  EXPECT_GT(hc.line->share_pct, 50.0);
  EXPECT_GT(hm.line->share_pct, 50.0);
  EXPECT_NE(hc.line->text.find("next[p]"), std::string::npos) << hc.line->text;
  EXPECT_NE(hm.line->text.find("mma.sync"), std::string::npos) << hm.line->text;
  EXPECT_TRUE(hc.opcodes.count("LDG")) << "the chase line's SASS has no LDG";
  EXPECT_TRUE(hm.opcodes.count("HMMA")) << "the mma line's SASS has no HMMA";
  // Dominant stalls.
  ASSERT_FALSE(hc.line->stalls.empty());
  ASSERT_FALSE(hm.line->stalls.empty());
  EXPECT_EQ(hc.line->stalls.front().first, "long_scoreboard");
  const std::set<std::string> math = {"math_pipe_throttle", "wait", "short_scoreboard", "dispatch_stall",
                                      "selected", "not_selected"};
  EXPECT_TRUE(math.count(hm.line->stalls.front().first))
      << "the mma loop's dominant stall is " << hm.line->stalls.front().first;
  // The kernels' shares of the launch's samples add up to it (no sample invented or lost).
  std::uint64_t sum = 0;
  for (const auto& k : r.kernels) sum += k.samples;
  EXPECT_LE(sum, r.total_samples);
}

TEST(PcSamplingCalibration, PerLaunchModeHotLoopsLandOnTheirLinesWithTheirStalls) { calibrate(); }

}  // namespace
