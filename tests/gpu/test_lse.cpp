// Phase 5lse's LSE (and O) against the fp64 reference through the gate, at the shapes where
// phase 5 splits items over keys and merges the partial softmax states (kernels/key_split.cuh),
// which the suite's shapes (tests/gpu/test_phases.cpp, which checks 5lse's LSE at every suite
// shape) never reach; on every input distribution. Each shape asserts that the launch does
// split on this GPU, so a change of the split's rule cannot leave the merge untested here. The
// same kernels built to write the LSE before the merge must fail the gate there.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ostream>
#include <string>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/gate.hpp"
#include "kernels/registry.hpp"
#include "kernels/work_order.hpp"

// Phase 5lse built with its LSE written before the key split's merge (tests/CMakeLists.txt).
namespace attnlab::phase_5lse_before_merge {
Phase declaration();
}

using namespace attnlab;

namespace {

struct LseCase {
  const char* spec;
  int key_tile;  // phase 5's key tile at the shape (kernels/phase_5_traits.cuh)
};

void PrintTo(const LseCase& c, std::ostream* os) { *os << c.spec << ", " << c.key_tile << "-key tiles"; }

// Non-causal D = 128 past 16 key tiles, whose item count leaves the last round part empty:
// 128-key tiles up to S = 4096 (an odd S among them, whose last 128-row item keeps rows for
// both consumers: a consumer without rows makes the launch claim items dynamically, unsplit),
// 176 past it.
constexpr LseCase kSplitCases[] = {
    {"2x16x2048x128", 128}, {"3x5x2150x128:hkv=1", 128}, {"1x8x4096x128", 128}, {"1x6x8192x128:hkv=2", 176}};

class LseFromPhase5 : public ::testing::TestWithParam<LseCase> {
 protected:
  // The shape, once it is known that the launch splits items over keys on this GPU (the split
  // as launch_with makes it: phase 5's 128-row items at D = 128, one block per SM); false
  // where the GPU cannot run the phase.
  bool split_shape(const Phase& phase, Shape& s) {
    s = parse_shape(GetParam().spec);
    EXPECT_FALSE(phase.can_implement(s));
    cudaDeviceProp prop{};
    ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    if (device_refusal(phase, prop.major, prop.minor)) return false;
    const int tiles = (s.S + GetParam().key_tile - 1) / GetParam().key_tile;
    const std::int64_t n_work = std::int64_t((s.S + 127) / 128) * s.B * s.H;
    const int grid = int(std::min<std::int64_t>(n_work, prop.multiProcessorCount));
    EXPECT_TRUE(KeySplit::make(n_work, grid, tiles, true).splits())
        << s.S << " keys, " << n_work << " items on " << grid << " blocks do not split";
    return true;
  }
  static GateResult gate(const Phase& phase, const Shape& s, Inputs dist, std::uint64_t seed) {
    const GateInputs in = make_gate_inputs(s, seed, dist, {phase.input_format});
    const ProblemBuffers buffers(s, in, phase.input_format, workspace_bytes(phase, s), true);
    return run_gate(phase, buffers.problem(float(s.default_scale())), in, seed, nullptr);
  }
};

TEST_P(LseFromPhase5, MatchesFp64ReferenceWhereItemsSplitOverKeys) {
  const Phase* phase = find_phase("5lse");
  ASSERT_NE(phase, nullptr);
  ASSERT_TRUE(phase->emits_lse);
  Shape s;
  if (!split_shape(*phase, s)) GTEST_SKIP() << "not a compute capability 9.0 GPU";
  for (Inputs dist : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative}) {
    const std::uint64_t seed = fresh_seed();
    const GateResult g = gate(*phase, s, dist, seed);
    ASSERT_TRUE(g.lse.has_value());
    EXPECT_TRUE(g.passed) << inputs_name(dist) << ", seed " << seed << ": " << g.failure;
    EXPECT_TRUE(g.lse->passed) << inputs_name(dist) << ": " << g.lse->first_failure;
    EXPECT_LE(g.lse->worst_ratio, 1.0) << inputs_name(dist);
    EXPECT_EQ(g.lse->nonfinite, 0) << inputs_name(dist);
    EXPECT_EQ(g.lse->elements_scanned, std::int64_t(s.B) * s.H * s.S);
    EXPECT_TRUE(g.repeat_identical) << inputs_name(dist);
  }
  ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

// The same kernels with the LSE written before the merge, from the block's own key tiles: its
// O is right (the gate's O check passes), its LSE of the split items' rows is not.
TEST_P(LseFromPhase5, AnLseWrittenBeforeTheMergeFails) {
  const Phase mutant = phase_5lse_before_merge::declaration();
  Shape s;
  if (!split_shape(mutant, s)) GTEST_SKIP() << "not a compute capability 9.0 GPU";
  const std::uint64_t seed = fresh_seed();
  const GateResult g = gate(mutant, s, Inputs::kNormal, seed);
  ASSERT_TRUE(g.lse.has_value());
  EXPECT_TRUE(g.check.passed) << "seed " << seed << ": " << g.check.first_failure;
  EXPECT_FALSE(g.lse->passed) << "seed " << seed;
  EXPECT_FALSE(g.passed);
  EXPECT_GT(g.lse->worst_ratio, 5.0) << "seed " << seed;
  ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

INSTANTIATE_TEST_SUITE_P(KeySplit, LseFromPhase5, ::testing::ValuesIn(kSplitCases),
                         [](const ::testing::TestParamInfo<LseCase>& info) {
                           std::string n = info.param.spec;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
