// Calibration of the executed-instruction counts (CUPTI SASS metrics, profiler/sass_metrics.hpp)
// on two kernels whose loop is known exactly: G blocks of W warps, each thread running a loop of
// N iterations (two dependent FFMA chains, on one source line). Every warp runs the same path,
// so every instruction of a kernel is executed a multiple of G*W times as a warp instruction,
// and each instruction of the loop body exactly N*G*W times. In `sass_uniform` every lane runs
// the loop: every instruction has 32 threads active (thread-level count = 32x the warp-level
// one). In `sass_half` only lanes 0-15 of each warp run it: the loop body's instructions have
// 16 threads active.
//
// Two checks: (1) as the harness's PC-sampling child does it (experiments/harness/pc_sampling_child.hpp,
// harness.cpp): the module loaded by a first launch, one PC-sampled launch, then one counted
// launch (add_sass_counts) with the default, lazy patching; the loop line is the hottest line,
// its sampled FFMAs are executed exactly N*G*W times with 32 (or 16) threads, and the line's
// count covers every instruction of it. (2) The collector alone, with eager and with lazy
// patching of the already-loaded kernels (a test each): exact counts per instruction.
// Skipped (ctest's skip code) without a GPU, or where CUPTI refuses for want of permission or
// support; any other failure fails.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/check.hpp"
#include "profiler/pc_sampling.hpp"
#include "profiler/sass_metrics.hpp"

using namespace attnlab;
using namespace attnlab::profiler;

namespace {

constexpr int kIters = 1 << 16;  // N
constexpr int kBlocks = 264;     // G
constexpr int kWarps = 4;        // W, warps per block
constexpr std::uint64_t kLoopWarpInsts = std::uint64_t(kIters) * kBlocks * kWarps;  // N*G*W
constexpr std::uint64_t kWarpsLaunched = std::uint64_t(kBlocks) * kWarps;            // G*W

constexpr int kUniformLine = __LINE__ + 5;  // the loop below, on one line
__global__ void sass_uniform(float* out, int iters, float a, float b) {
  float x = float(threadIdx.x), y = float(blockIdx.x);
#pragma unroll 1
  // Two dependent FFMA chains (a, b are run-time values: nothing folds).
  for (int i = 0; i < iters; ++i) { x = fmaf(x, a, b); y = fmaf(y, b, a); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

constexpr int kHalfLine = __LINE__ + 6;  // the loop below, on one line
__global__ void sass_half(float* out, int iters, float a, float b) {
  float x = float(threadIdx.x), y = float(blockIdx.x);
  if ((threadIdx.x & 31u) < 16u) {
#pragma unroll 1
    // Lanes 0-15 only.
    for (int i = 0; i < iters; ++i) { x = fmaf(x, b, a); y = fmaf(y, a, b); }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x - y;
}

// Permission or support refused: the environment's, not the collector's.
bool refusal(const std::string& reason) {
  for (const char* what : {"INSUFFICIENT_PRIVILEGES", "NOT_SUPPORTED", "MULTIPLE_SUBSCRIBERS", "NOT_COMPATIBLE",
                           "not supported on this device configuration"})
    if (reason.find(what) != std::string::npos) return true;
  return false;
}

// The kernels as one launch on their own stream and buffer (both, or one of them); the first
// launch loads them.
enum class Kernels { both, uniform, half };
struct Launch {
  float* out = nullptr;
  cudaStream_t stream{};
  LaunchFn fn;
  explicit Launch(Kernels which = Kernels::both) {
    ATTNLAB_CUDA_CHECK(cudaMalloc(&out, std::size_t(kBlocks) * kWarps * 32 * sizeof(float)));
    ATTNLAB_CUDA_CHECK(cudaStreamCreate(&stream));
    fn = [this, which](cudaStream_t s) {
      if (which != Kernels::half) {
        sass_uniform<<<kBlocks, kWarps * 32, 0, s>>>(out, kIters, 0.999f, 0.5f);
        ATTNLAB_CUDA_CHECK(cudaGetLastError());
      }
      if (which != Kernels::uniform) {
        sass_half<<<kBlocks, kWarps * 32, 0, s>>>(out, kIters, 0.998f, 0.25f);
        ATTNLAB_CUDA_CHECK(cudaGetLastError());
      }
    };
    fn(stream);  // loads the module before any CUPTI collection
    ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  ~Launch() {
    cudaStreamDestroy(stream);
    cudaFree(out);
  }
};

const KernelPcSamples* kernel_named(const PcSamplingResult& r, const char* part) {
  for (const auto& k : r.kernels)
    if (k.name.find(part) != std::string::npos) return &k;
  return nullptr;
}

const FunctionCounts* function_named(const SassCounts& c, const char* part) {
  for (const auto& f : c.functions)
    if (f.name.find(part) != std::string::npos) return &f;
  return nullptr;
}

std::string opcode(std::string sass) {
  if (!sass.empty() && sass[0] == '@') sass = sass.substr(sass.find(' ') + 1);
  return sass.substr(0, sass.find_first_of(" ."));
}

// (1) The child's sequence: PC sampling, then one counted launch, merged.
TEST(SassMetricsCalibration, ChildSequenceCountsTheSampledLoopExactly) {
  Launch l;
  PcSamplingResult r = collect_pc_samples(l.fn, l.stream, PcSamplingOptions{});
  if (!r.available && refusal(r.reason)) GTEST_SKIP() << "PC sampling: " << r.reason;
  ASSERT_TRUE(r.available) << r.reason;
  add_sass_counts(r, l.fn, l.stream, PcSamplingOptions{});
  ASSERT_TRUE(r.sass_counts) << "add_sass_counts left no sass_counts";
  if (!r.sass_counts->available && refusal(r.sass_counts->reason)) GTEST_SKIP() << r.sass_counts->reason;
  ASSERT_TRUE(r.sass_counts->available) << r.sass_counts->reason;
  std::printf("method: %s\nSASS counts: %s (%.3f s)\n", r.method.c_str(), r.sass_counts->method.c_str(),
              r.sass_counts->collection_wall_s);
  EXPECT_NE(r.method.find("SASS metrics"), std::string::npos) << r.method;

  for (const auto& [name, line, lanes] : {std::tuple<const char*, int, std::uint64_t>{"sass_uniform", kUniformLine, 32},
                                          std::tuple<const char*, int, std::uint64_t>{"sass_half", kHalfLine, 16}}) {
    SCOPED_TRACE(name);
    const KernelPcSamples* k = kernel_named(r, name);
    ASSERT_NE(k, nullptr) << "no samples of " << name;
    ASSERT_TRUE(k->executed && k->thread_executed) << name << " was not counted: " << r.sass_counts->method;
    std::printf("%s: %llu warp instructions, %llu thread instructions executed\n", k->name.c_str(),
                (unsigned long long)*k->executed, (unsigned long long)*k->thread_executed);
    EXPECT_EQ(*k->executed % kWarpsLaunched, 0u) << "every warp runs the same path";
    ASSERT_FALSE(k->lines.empty());
    const SourceLine& hot = k->lines.front();
    EXPECT_EQ(hot.line, line) << hot.file;
    ASSERT_TRUE(hot.executed) << "the loop line has no executed count";
    // The loop line: its two FFMAs and the loop's own instructions, N*G*W times each, plus its
    // set-up once per warp.
    EXPECT_GE(*hot.executed, 3 * kLoopWarpInsts);
    EXPECT_EQ(*hot.executed % kWarpsLaunched, 0u);
    int ffmas = 0;
    for (const auto& pc : k->pcs) {
      if (pc.line != line) continue;
      ASSERT_TRUE(pc.executed && pc.thread_executed) << "sampled PC 0x" << std::hex << pc.offset << " not counted";
      std::printf("  0x%04llx %-40s samples %llu executed %llu threads %llu\n", (unsigned long long)pc.offset,
                  pc.sass.c_str(), (unsigned long long)pc.samples, (unsigned long long)*pc.executed,
                  (unsigned long long)*pc.thread_executed);
      if (opcode(pc.sass) != "FFMA") continue;
      ++ffmas;
      EXPECT_EQ(*pc.executed, kLoopWarpInsts) << pc.sass;
      EXPECT_EQ(*pc.thread_executed, lanes * kLoopWarpInsts) << pc.sass;
    }
    EXPECT_GE(ffmas, 1) << "no sampled FFMA on the loop line";
  }
  // The uniform kernel: 32 threads active in every instruction.
  const KernelPcSamples* u = kernel_named(r, "sass_uniform");
  EXPECT_EQ(*u->thread_executed, 32 * *u->executed);
}

// (2) The collector alone, eager or lazy patching of a kernel loaded before it, each in a test
// (a process) of its own: a second cuptiSassMetricsSetConfig in one process was refused with
// CUPTI_ERROR_OUT_OF_MEMORY on the H100 (CUDA 13.0), and the child counts once per process.
// One kernel per launch here: as the first CUPTI client of a process, the collector counted only
// the first kernel of the two-kernel launch, in either mode (H100, CUDA 13.0); after PC sampling,
// as in the child, it counts every kernel of it (test (1), and phase 3b's three kernels).
void expect_exact_counts(bool lazy, Kernels which) {
  Launch l(which);
  SassCountsOptions o;
  o.lazy_patching = lazy;
  const SassCounts c = collect_sass_counts(l.fn, l.stream, o);
  if (!c.available && refusal(c.reason)) GTEST_SKIP() << c.reason;
  ASSERT_TRUE(c.available) << c.reason;
  std::printf("%s patching: chip %s, %zu records, %zu dropped, %zu functions, %.3f s\n", lazy ? "lazy" : "eager",
              c.chip.c_str(), c.records, c.dropped_records, c.functions.size(), c.wall_s);
  for (const auto& f : c.functions)
    std::printf("  %s (cubin crc %08x): %zu instructions\n", f.name.c_str(), unsigned(f.cubin_crc), f.by_offset.size());
  EXPECT_EQ(c.dropped_records, 0u);
  const char* name = which == Kernels::half ? "sass_half" : "sass_uniform";
  const std::uint64_t lanes = which == Kernels::half ? 16 : 32;
  const FunctionCounts* f = function_named(c, name);
  ASSERT_NE(f, nullptr) << "the already-loaded " << name << " was not counted";
  int loop = 0;
  for (const auto& [offset, n] : f->by_offset) {
    EXPECT_EQ(n.executed % kWarpsLaunched, 0u) << "offset 0x" << std::hex << offset;
    EXPECT_LE(n.executed, kLoopWarpInsts + kWarpsLaunched) << "offset 0x" << std::hex << offset;
    if (lanes == 32)
      EXPECT_EQ(n.thread_executed, 32 * n.executed) << "offset 0x" << std::hex << offset;
    else
      EXPECT_LE(n.thread_executed, 32 * n.executed) << "offset 0x" << std::hex << offset;
    if (n.executed == kLoopWarpInsts) {
      ++loop;
      EXPECT_EQ(n.thread_executed, lanes * kLoopWarpInsts) << "offset 0x" << std::hex << offset;
    }
  }
  // Two FFMAs and at least the loop's counter or branch, each N*G*W times.
  EXPECT_GE(loop, 3) << "instructions executed exactly N*G*W times";
}

TEST(SassMetricsCalibration, EagerPatchingCountsEveryInstructionExactly) {
  expect_exact_counts(false, Kernels::uniform);
}
TEST(SassMetricsCalibration, LazyPatchingCountsEveryInstructionExactly) { expect_exact_counts(true, Kernels::half); }

}  // namespace
