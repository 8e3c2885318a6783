// Correctness gate: upload, poisoned launches, reference comparison.
#include "experiments/gate.hpp"

#include <algorithm>

#include "common/check.hpp"

namespace attnlab {
namespace {
std::size_t half_bytes(std::int64_t n) { return std::size_t(n) * sizeof(__half); }
}  // namespace

ProblemBuffers::ProblemBuffers(const Shape& s, const HostTensors& in, std::size_t workspace_bytes)
    : shape_(s),
      q_(half_bytes(s.q_elems())),
      k_(half_bytes(s.kv_elems())),
      v_(half_bytes(s.kv_elems())),
      o_(half_bytes(s.q_elems())) {
  ATTNLAB_CUDA_CHECK(cudaMemcpy(q_.get(), in.q.data(), q_.bytes(), cudaMemcpyHostToDevice));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(k_.get(), in.k.data(), k_.bytes(), cudaMemcpyHostToDevice));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(v_.get(), in.v.data(), v_.bytes(), cudaMemcpyHostToDevice));
  if (workspace_bytes > 0) {
    workspace_.emplace(workspace_bytes);
    ATTNLAB_CUDA_CHECK(cudaMemset(workspace_->get(), 0, workspace_bytes));
  }
}

Problem ProblemBuffers::problem(float scale) const {
  Problem p{shape_, q_.get(), k_.get(), v_.get(), o_.get(), scale};
  if (workspace_) {
    p.workspace = workspace_->get();
    p.workspace_bytes = workspace_->bytes();
  }
  return p;
}

std::vector<__half> launch_poisoned(const Phase& phase, const Problem& p, cudaStream_t stream) {
  const std::size_t bytes = half_bytes(p.shape.q_elems());
  ATTNLAB_CUDA_CHECK(cudaMemsetAsync(p.o, 0xFF, bytes, stream));
  phase.launch(p, stream);
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<__half> out(std::size_t(p.shape.q_elems()));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(out.data(), p.o, bytes, cudaMemcpyDeviceToHost));
  return out;
}

bool same_bits(const std::vector<__half>& a, const std::vector<__half>& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](__half x, __half y) {
           return __half_as_ushort(x) == __half_as_ushort(y);
         });
}

GateResult run_gate(const Phase& phase, const Problem& p, const HostTensors& in,
                    std::uint64_t seed, cudaStream_t stream) {
  GateResult g;
  if (phase.prepare) phase.prepare(p.shape);
  // Twice, each into fresh poison: a result that changes between identical launches is a race.
  g.output = launch_poisoned(phase, p, stream);
  g.repeat_identical = same_bits(g.output, launch_poisoned(phase, p, stream));
  g.check = check_output(p.shape, in, p.scale, g.output, rows_to_check(p.shape, seed));
  g.passed = g.check.passed && g.repeat_identical;
  g.failure = g.check.first_failure;
  if (!g.repeat_identical)
    g.failure += std::string(g.failure.empty() ? "" : "; ") + "two identical launches differed";
  return g;
}

}  // namespace attnlab
