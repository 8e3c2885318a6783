// Two launches of phase 5 in flight at once, on two streams, each with its own workspace
// (Problem::workspace): both outputs must match the fp64 reference. The shapes take the key
// split (D = 128 without the mask, S >= 2048, more items than blocks and not a multiple of
// them), whose partials and ready flags live in the workspace; two launches sharing them would
// merge each other's partials or clear each other's flags.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/gate.hpp"
#include "experiments/harness/run_main.hpp"
#include "kernels/registry.hpp"
#include "kernels/work_order.hpp"

using namespace attnlab;

namespace {

constexpr int kTile = 128;  // phase 5's query and key tiles at D = 128 up to S = 4096

// 1 x H x S x 128 with the fewest heads whose items split over keys on a grid of `sms` blocks
// (KeySplit::make, as phase 5's launch calls it).
Shape split_shape(int S, int sms) {
  for (int H = 1;; ++H) {
    const std::int64_t items = std::int64_t(ceil_div(S, kTile)) * H;
    const int grid = int(std::min<std::int64_t>(items, sms));
    if (KeySplit::make(items, grid, ceil_div(S, kTile), true).splits())
      return parse_shape("1x" + std::to_string(H) + "x" + std::to_string(S) + "x128");
  }
}

TEST(ConcurrentLaunches, Phase5KeySplitOnTwoStreamsWithTheirOwnWorkspaces) {
  const Phase* phase = find_phase("5");
  ASSERT_NE(phase, nullptr);
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (auto why = device_refusal(*phase, prop.major, prop.minor)) GTEST_SKIP() << *why;

  struct Side {
    Shape shape;
    std::uint64_t seed;
    GateInputs in;
    std::unique_ptr<ProblemBuffers> buffers;
    Problem problem;
    Stream stream;
  };
  // Different shapes: different tile counts per item, so the two launches' ranges differ.
  std::vector<std::unique_ptr<Side>> sides;
  for (const int S : {2048, 3200}) {
    auto side = std::make_unique<Side>();
    side->shape = split_shape(S, prop.multiProcessorCount);
    ASSERT_EQ(phase->can_implement(side->shape), std::nullopt) << shape_name(side->shape);
    side->seed = fresh_seed();
    side->in = make_gate_inputs(side->shape, side->seed, Inputs::kNormal, {phase->input_format});
    side->buffers = std::make_unique<ProblemBuffers>(side->shape, side->in, phase->input_format,
                                                     workspace_bytes(*phase, side->shape));
    side->problem = side->buffers->problem(float(side->shape.default_scale()));
    ASSERT_NE(side->problem.workspace, nullptr);
    ATTNLAB_CUDA_CHECK(cudaMemset(side->problem.o, 0xFF, std::size_t(side->shape.q_elems()) * sizeof(__half)));
    sides.push_back(std::move(side));
  }
  ASSERT_NE(sides[0]->problem.workspace, sides[1]->problem.workspace);
  // Alternating launches on the two streams, never waiting in between: each stream keeps the
  // GPU busy while the other's blocks start on the SMs its last blocks free.
  constexpr int kRounds = 20;
  for (int i = 0; i < kRounds; ++i)
    for (const auto& side : sides) phase->launch(side->problem, side->stream.get());
  for (const auto& side : sides) ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(side->stream.get()));

  for (const auto& side : sides) {
    const Shape& s = side->shape;
    std::vector<__half> out(std::size_t(s.q_elems()));
    ATTNLAB_CUDA_CHECK(cudaMemcpy(out.data(), side->problem.o, out.size() * sizeof(__half),
                                  cudaMemcpyDeviceToHost));
    const CheckResult c = check_output(s, side->in.tensors, s.default_scale(), out, rows_to_check(s, side->seed));
    EXPECT_TRUE(c.passed) << shape_name(s) << ", seed " << side->seed << ": " << c.first_failure;
    EXPECT_EQ(c.nonfinite, 0) << shape_name(s);
  }
}

}  // namespace
