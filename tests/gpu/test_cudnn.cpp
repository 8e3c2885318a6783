// The cuDNN baseline phases (cudnn, cudnn_fp8) on a GPU beyond the shared gate suite
// (test_phases.cpp): a launch captured in a CUDA graph, as the harness's graph regime captures
// it, writes the very output the gate checked; and its plan is built once per shape.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/gate.hpp"
#include "kernels/registry.hpp"

using namespace attnlab;

namespace {

struct Stream {
  cudaStream_t s{};
  Stream() { ATTNLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// (phase id, shape spec): both cuDNN baselines, the FP8 one's launch being cuDNN's graph and
// the conversion of its e4m3 output.
class CudnnGraphCapture : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(CudnnGraphCapture, ReplayWritesTheCheckedOutput) {
  const Phase* phase = find_phase(GetParam().first);
  ASSERT_NE(phase, nullptr);
  const Shape s = parse_shape(GetParam().second);
  if (auto why = phase->can_implement(s)) GTEST_SKIP() << *why;  // a build without cuDNN
  const std::uint64_t seed = 7;
  const GateInputs in = make_gate_inputs(s, seed, Inputs::kNormal, {phase->input_format});
  const ProblemBuffers buffers(s, in, phase->input_format, workspace_bytes(*phase, s));
  const Problem p = buffers.problem(float(s.default_scale()));
  Stream stream;
  const GateResult g = run_gate(*phase, p, in, seed, stream.s);
  ASSERT_TRUE(g.passed) << g.failure;

  const std::size_t bytes = std::size_t(s.q_elems()) * sizeof(__half);
  ATTNLAB_CUDA_CHECK(cudaMemsetAsync(p.o, 0xFF, bytes, stream.s));  // poison, outside the graph
  ATTNLAB_CUDA_CHECK(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal));
  phase->launch(p, stream.s);
  cudaGraph_t graph{};
  ATTNLAB_CUDA_CHECK(cudaStreamEndCapture(stream.s, &graph));
  cudaGraphExec_t exec{};
  ATTNLAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  ATTNLAB_CUDA_CHECK(cudaGraphLaunch(exec, stream.s));
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream.s));
  std::vector<__half> out(std::size_t(s.q_elems()));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(out.data(), p.o, bytes, cudaMemcpyDeviceToHost));
  ATTNLAB_CUDA_CHECK(cudaGraphExecDestroy(exec));
  ATTNLAB_CUDA_CHECK(cudaGraphDestroy(graph));
  EXPECT_TRUE(same_bits(out, g.output)) << "the graph replay wrote another output than the launch";
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudnnGraphCapture,
                         ::testing::Values(std::pair{"cudnn", "1x8x512x64"},
                                           std::pair{"cudnn", "2x4x513x64:causal:hkv=2"},
                                           std::pair{"cudnn", "1x2x100x128:causal"},
                                           std::pair{"cudnn_fp8", "1x8x512x64"},
                                           std::pair{"cudnn_fp8", "2x4x512x64:causal:hkv=2"},
                                           std::pair{"cudnn_fp8", "1x2x1024x128:causal"},
                                           std::pair{"cudnn_fp8", "1x2x1024x128"}),
                         [](const ::testing::TestParamInfo<std::pair<const char*, const char*>>& info) {
                           std::string n = std::string(info.param.first) + "_" + info.param.second;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// The harness's FP8 path on cuDNN's FP8 forward, every input distribution: the gate on the
// dequantised inputs passes and says what it read (e4m3, the draw's scales, the error against the
// unquantised draw); the same launch with a descale forgotten (Q's, V's) fails it, so the FP8 gate
// rejects a broken FP8 launch on the device.
TEST(CudnnFp8Gate, PassesAndRejectsAForgottenDescale) {
  const Phase* phase = find_phase("cudnn_fp8");
  ASSERT_NE(phase, nullptr);
  const Shape s = parse_shape("2x4x512x64:causal:hkv=2");
  if (auto why = phase->can_implement(s)) GTEST_SKIP() << *why;  // a build without cuDNN
  for (Inputs dist : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative}) {
    const std::uint64_t seed = fresh_seed();
    const GateInputs in = make_gate_inputs(s, seed, dist, {phase->input_format});
    const ProblemBuffers buffers(s, in, phase->input_format, workspace_bytes(*phase, s));
    const Problem p = buffers.problem(float(s.default_scale()));
    const GateResult g = run_gate(*phase, p, in, seed, nullptr);
    EXPECT_TRUE(g.passed) << inputs_name(dist) << ", seed " << seed << ": " << g.failure;
    EXPECT_EQ(g.format, InputFormat::kE4m3);
    ASSERT_TRUE(g.scales.has_value());
    EXPECT_EQ(g.scales->v, in.fp8->v.scale);
    EXPECT_EQ(p.descale_v, float(1 / in.fp8->v.scale));
    EXPECT_TRUE(std::isfinite(g.rmse_unquantised) && g.rmse_unquantised > 0) << g.rmse_unquantised;

    // Mutations of the launch, not of the problem: the gate's reference reads the problem's own
    // softmax scale, so a problem with another scale is checked against that scale and passes.
    Problem no_q = p, no_v = p;
    no_q.descale_q = 1.f;
    no_v.descale_v = 1.f;
    std::vector<std::pair<const char*, const Problem*>> broken = {{"V's descale forgotten", &no_v}};
    // On wide inputs the softmax is already sharp: a sharper one (Q's descale forgotten) moves
    // the output less than P's e4m3 roundings (tests/cpu/test_fp8_gate.cpp), so Q's descale is
    // checked on the other two.
    if (dist != Inputs::kWide) broken.emplace_back("Q's descale forgotten", &no_q);
    for (const auto& [bug, b] : broken) {
      const GateResult bad = run_gate(*phase, *b, in, seed, nullptr);
      EXPECT_FALSE(bad.passed) << bug << " passed the gate on " << inputs_name(dist) << " inputs, seed " << seed
                               << " (worst row ratio " << bad.check.row_err_ratio << ")";
    }
  }
}

}  // namespace
