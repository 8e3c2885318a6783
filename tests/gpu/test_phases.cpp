// Every registered phase against the fp64 reference over the seed test shapes and odd
// sequence lengths, both head dims, causal and not, on fresh random inputs each run.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>

#include "common/shapes.hpp"
#include "experiments/gate.hpp"
#include "common/check.hpp"
#include "kernels/registry.hpp"

using namespace attnlab;

namespace {

struct Case {
  const Phase* phase;
  Shape shape;
};

void PrintTo(const Case& c, std::ostream* os) { *os << "phase " << c.phase->id << " " << shape_name(c.shape); }

std::vector<Case> all_cases() {
  std::vector<std::string> specs;
  for (int d : {64, 128}) {
    const std::string D = std::to_string(d);
    // ../shared/SEEDS.md's test shapes.
    for (const char* bhs : {"1x1x32", "1x2x64", "1x4x128", "4x8x256", "1x8x1024"})
      specs.push_back(std::string(bhs) + "x" + D);
    // Sequence lengths that are not multiples of any tile: every tail path runs.
    for (int s : {1, 17, 100, 333, 1000}) specs.push_back("2x3x" + std::to_string(s) + "x" + D);
    specs.push_back("1x8x200x" + D + ":hkv=2");  // grouped KV heads
    // The latency shape: d4 splits each query tile over a cluster of two blocks there (with two
    // key warpgroups per block at D = 64), a path no other shape here takes.
    specs.push_back("1x8x512x" + D);
  }
  // More work items than a 132-SM H100 has blocks for the persistent phases (phase 5 runs one
  // block per SM over items of 192 or 128 query rows), with key-tile counts that are not a
  // multiple of their K/V stages (4 at D = 64, 3 at D = 128): the ring positions, Q buffer
  // parity and consumer ping-pong then carry across items inside a block.
  specs.push_back("8x16x333x64");
  specs.push_back("8x16x400x128");
  std::vector<Case> out;
  for (const auto& p : phases())
    for (const auto& spec : specs)
      for (const char* mask : {"", ":causal"}) {
        const Shape s = parse_shape(spec + mask);
        if (!p.can_implement(s)) out.push_back({&p, s});
      }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = std::string("phase_") + info.param.phase->id + "_" + shape_name(info.param.shape);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class PhaseCorrectness : public ::testing::TestWithParam<Case> {};

TEST_P(PhaseCorrectness, MatchesFp64Reference) {
  const auto& [phase, s] = GetParam();
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (auto why = device_refusal(*phase, prop.major, prop.minor)) GTEST_SKIP() << *why;

  const std::uint64_t seed = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  const HostTensors in = make_inputs(s, seed);
  const ProblemBuffers buffers(s, in);
  const GateResult g = run_gate(*phase, buffers.problem(float(s.default_scale())), in, seed, nullptr);
  EXPECT_TRUE(g.passed) << "seed " << seed << ": " << g.failure << " (max_abs_err "
                        << g.check.max_abs_err << ", tolerance " << g.check.tolerance << ")";
  EXPECT_EQ(g.check.nonfinite, 0);
  EXPECT_TRUE(g.repeat_identical);
  ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

INSTANTIATE_TEST_SUITE_P(Registry, PhaseCorrectness, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
