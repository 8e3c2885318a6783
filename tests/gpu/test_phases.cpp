// Every registered phase against the fp64 reference over the seed test shapes and odd
// sequence lengths, both head dims, causal and not, on fresh random inputs of every
// distribution (reference.hpp) each run.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>

#include "common/shapes.hpp"
#include "experiments/gate.hpp"
#include "common/check.hpp"
#include "kernels/registry.hpp"
#include "tests/gpu_cases.hpp"

using namespace attnlab;

namespace {

struct Case {
  const Phase* phase;
  Shape shape;
  std::string spec;
  Inputs inputs;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "phase " << c.phase->id << " " << c.spec << " " << inputs_name(c.inputs);
}

// Every forward phase at every suite shape on every input distribution; shapes a phase refuses
// stay in the list and must be refusals tests/gpu_cases.hpp expects. The backward phases have
// their own suite (tests/gpu/test_backward.cpp).
std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (const auto& p : phases())
    for (const auto& spec : is_backward(p) ? std::vector<std::string>{} : test::gpu_suite_specs())
      for (Inputs d : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative})
        out.push_back({&p, parse_shape(spec), spec, d});
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = std::string("phase_") + info.param.phase->id + "_" + shape_name(info.param.shape) +
                  "_" + inputs_name(info.param.inputs);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class PhaseCorrectness : public ::testing::TestWithParam<Case> {};

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
  const ProblemBuffers buffers(s, in, phase->input_format, workspace_bytes(*phase, s));
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
  ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

INSTANTIATE_TEST_SUITE_P(Registry, PhaseCorrectness, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
