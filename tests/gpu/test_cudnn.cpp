// The cuDNN baseline phases (cudnn, cudnn_fp8) on a GPU beyond the shared gate suite
// (test_phases.cpp): a launch captured in a CUDA graph, as the harness's graph regime captures
// it, writes the very output the gate checked; and its plan is built once per shape.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <utility>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/gate.hpp"
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

}  // namespace
