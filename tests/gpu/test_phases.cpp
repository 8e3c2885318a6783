// Every registered phase against the fp64 reference over the seed test shapes and odd
// sequence lengths, both head dims, causal and not, on fresh random inputs of every
// distribution (reference.hpp) each run; a phase that emits the LSE (5lse) has it checked too.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>

#include "common/shapes.hpp"
#include "experiments/harness/gate.hpp"
#include "common/check.hpp"
#include "kernels/registry.hpp"
#include "tests/gpu_cases.hpp"
#include "tests/gpu/suite_cases.hpp"

using namespace attnlab;

namespace {

class PhaseCorrectness : public ::testing::TestWithParam<test::Case> {};

TEST_P(PhaseCorrectness, MatchesFp64Reference) {
  const auto& [phase, s, spec, inputs] = GetParam();
  if (auto why = phase->can_implement(s)) {
    EXPECT_TRUE(test::expected_refusals().count({phase->id, spec}))
        << "unexpected refusal: " << *why;
    return;  // an expected refusal is the expected result
  }
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (auto why = device_refusal(*phase, prop.major, prop.minor)) GTEST_SKIP() << *why;

  const std::uint64_t seed = fresh_seed();
  const GateInputs in = make_gate_inputs(s, seed, inputs, {phase->input_format});
  const ProblemBuffers buffers(s, in, phase->input_format, workspace_bytes(*phase, s), phase->emits_lse);
  GateResult g;
  try {
    g = run_gate(*phase, buffers.problem(float(s.default_scale())), in, seed, nullptr);
  } catch (const PhaseRefusal& r) {
    // A library (cuDNN) declined the shape at prepare time: if that is by design, its
    // can_implement must say so statically and expected_refusals() list it.
    FAIL() << "refused at prepare time: " << r.what();
  }
  EXPECT_TRUE(g.passed) << "seed " << seed << ": " << g.failure << " (worst row ratio "
                        << g.check.row_err_ratio << ")";
  EXPECT_EQ(g.check.nonfinite, 0);
  EXPECT_EQ(g.check.elements_scanned, s.q_elems());
  EXPECT_TRUE(g.repeat_identical);
  // A phase that emits the LSE has it checked on the same rows (its verdict is in g.passed).
  EXPECT_EQ(g.lse.has_value(), phase->emits_lse);
  if (g.lse) {
    EXPECT_EQ(g.lse->nonfinite, 0);
  }
  ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

INSTANTIATE_TEST_SUITE_P(Registry, PhaseCorrectness, ::testing::ValuesIn(test::suite_cases(false)), test::case_name);

}  // namespace
