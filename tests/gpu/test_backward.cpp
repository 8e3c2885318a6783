// Every backward phase against the fp64 reference gradients over the GPU suite's shapes (causal
// and not, D 64 and 128, grouped KV heads, odd S) on every input distribution; its deterministic
// launch bit-identical twice; and phase b1 with the causal mask dropped in the backward (the
// build of tests/CMakeLists.txt) rejected by the gate.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/backward_gate.hpp"
#include "kernels/registry.hpp"
#include "tests/gpu_cases.hpp"
#include "tests/gpu/suite_cases.hpp"

namespace attnlab::phase_b1_mask_dropped {
Phase declaration();
}

using namespace attnlab;

namespace {

// The phase's gate at a shape on fresh inputs, and their seed.
struct Outcome {
  BackwardGateResult gate;
  std::uint64_t seed = 0;
};

Outcome gate(const Phase& phase, const Shape& s, Inputs inputs, bool deterministic) {
  Outcome o;
  o.seed = fresh_seed();
  const BackwardHostInputs in = make_backward_inputs(s, o.seed, inputs);
  const BackwardBuffers buffers(s, in, workspace_bytes(phase, s));
  o.gate = run_backward_gate(phase, buffers.problem(float(s.default_scale()), deterministic), in, o.seed, nullptr);
  ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
  return o;
}

std::string device_refusal_here(const Phase& phase) {
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return device_refusal(phase, prop.major, prop.minor).value_or("");
}

// The cuDNN backward baseline's known defects, each as the one way the gate may fail there; any
// other failure still fails the test (kernels/NOTES.md, "Backward: phase b5
// (kernels/phase_b5_wgmma.cu)": cudnn_bwd's graph against the frontend's). On wide inputs under the causal mask, cuDNN's dK misses the
// rule's floor at keys that few rows see, by a few times, with dQ and dV within the rule; at the
// suite's S = 64 shapes on negative inputs, its dQ holds NaN or inf, with dK and dV within the
// rule. A case that passes passes; one that fails the documented way is skipped with the reason.
std::optional<std::string> known_baseline_defect(const Phase& phase, const Shape& s, const std::string& spec,
                                                 Inputs inputs, const BackwardCheck& c) {
  if (std::string(phase.id) != "cudnn_bwd") return std::nullopt;
  constexpr double kFloorAllowance = 10;  // how far past the floor the documented dK may go
  if (inputs == Inputs::kWide && s.causal && c.nonfinite == 0 && c.dq.worst_ratio <= 1 &&
      c.dv.worst_ratio <= 1 && c.dk.worst_ratio <= kFloorAllowance)
    return "cuDNN's dK misses the rule's floor on wide causal inputs (a known defect of the baseline)";
  if (inputs == Inputs::kNegative && (spec == "1x2x64x64" || spec == "1x2x64x128") && c.nonfinite > 0 &&
      c.dk.worst_ratio <= 1 && c.dv.worst_ratio <= 1)
    return "cuDNN's dQ holds NaN or inf at S = 64 on negative inputs (a known defect of the baseline)";
  return std::nullopt;
}

class BackwardPhaseCorrectness : public ::testing::TestWithParam<test::Case> {};

TEST_P(BackwardPhaseCorrectness, MatchesFp64Gradients) {
  const auto& [phase, s, spec, inputs] = GetParam();
  if (auto why = phase->can_implement(s)) {
    EXPECT_TRUE(test::expected_refusals().count({phase->id, spec})) << "unexpected refusal: " << *why;
    return;
  }
  if (const std::string why = device_refusal_here(*phase); !why.empty()) GTEST_SKIP() << why;
  Outcome o;
  try {
    o = gate(*phase, s, inputs, false);
  } catch (const PhaseRefusal& r) {
    FAIL() << "refused at prepare time: " << r.what();
  }
  const BackwardCheck& c = o.gate.check;
  if (!o.gate.passed)
    if (auto why = known_baseline_defect(*phase, s, spec, inputs, c))
      GTEST_SKIP() << *why << "; seed " << o.seed << ": " << o.gate.failure;
  EXPECT_TRUE(o.gate.passed) << "seed " << o.seed << ": " << o.gate.failure << " (ratios dQ " << c.dq.worst_ratio
                             << ", dK " << c.dk.worst_ratio << ", dV " << c.dv.worst_ratio << ")";
  EXPECT_EQ(c.nonfinite, 0);
  EXPECT_EQ(c.elements_scanned, s.q_elems() + 2 * s.kv_elems());
}

INSTANTIATE_TEST_SUITE_P(Registry, BackwardPhaseCorrectness, ::testing::ValuesIn(test::suite_cases(true)), test::case_name);

// With BackwardProblem::deterministic, two launches of each backward phase give the same bits,
// and they pass the gate: at shapes with many key blocks per query row, grouped heads and a
// causal odd S. The cuDNN baseline's deterministic mode is cuDNN's deterministic graph.
TEST(BackwardDeterministic, TwoLaunchesBitIdentical) {
  for (const auto& p : phases()) {
    if (!is_backward(p)) continue;
    if (const std::string why = device_refusal_here(p); !why.empty()) continue;
    for (const char* spec : {"2x4x1000x64:causal:hkv=2", "1x8x1024x128", "2x3x333x128:causal"}) {
      const Shape s = parse_shape(spec);
      if (p.can_implement(s)) continue;
      const Outcome o = gate(p, s, Inputs::kNormal, true);
      EXPECT_TRUE(o.gate.repeat_identical) << "phase " << p.id << " " << spec;
      EXPECT_TRUE(o.gate.passed) << "phase " << p.id << " " << spec << " seed " << o.seed << ": " << o.gate.failure;
    }
  }
}

// Phase b1 with the causal mask dropped in the backward (its forward LSE still causal): every
// query row then takes weight on keys it never saw, and the gate must reject it on every
// distribution; at a non-causal shape the mutation changes nothing and it must pass.
TEST(BackwardMutation, DroppedCausalMaskIsRejected) {
  const Phase mutant = phase_b1_mask_dropped::declaration();
  for (Inputs d : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative})
    for (const char* spec : {"1x4x200x64:causal", "2x4x333x128:causal:hkv=2"}) {
      const Outcome o = gate(mutant, parse_shape(spec), d, false);
      EXPECT_FALSE(o.gate.passed) << spec << " " << inputs_name(d) << ": the gate accepted ratio "
                                  << o.gate.check.worst_ratio;
    }
  EXPECT_TRUE(gate(mutant, parse_shape("1x4x200x64"), Inputs::kNormal, false).gate.passed);
}

}  // namespace
