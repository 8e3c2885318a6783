// Correctness gate: upload, poisoned launches, reference comparison.
#include "experiments/harness/gate.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/check.hpp"

namespace attnlab {
namespace {
std::size_t half_bytes(std::int64_t n) { return std::size_t(n) * sizeof(__half); }
std::size_t lse_bytes(const Shape& s) { return std::size_t(s.B) * s.H * s.S * sizeof(float); }
std::size_t operand_bytes(std::int64_t n, InputFormat f) {
  return f == InputFormat::kE4m3 ? std::size_t(n) : half_bytes(n);
}
}  // namespace

ProblemBuffers::ProblemBuffers(const Shape& s, const GateInputs& in, InputFormat format,
                               std::size_t workspace_bytes, bool with_lse)
    : shape_(s),
      format_(format),
      q_(operand_bytes(s.q_elems(), format)),
      k_(operand_bytes(s.kv_elems(), format)),
      v_(operand_bytes(s.kv_elems(), format)),
      o_(half_bytes(s.q_elems())) {
  const Fp8Inputs* fp8 = in.operands(format);
  const void* q = fp8 ? static_cast<const void*>(fp8->q.codes.data()) : in.tensors.q.data();
  const void* k = fp8 ? static_cast<const void*>(fp8->k.codes.data()) : in.tensors.k.data();
  const void* v = fp8 ? static_cast<const void*>(fp8->v.codes.data()) : in.tensors.v.data();
  ATTNLAB_CUDA_CHECK(cudaMemcpy(q_.get(), q, q_.bytes(), cudaMemcpyHostToDevice));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(k_.get(), k, k_.bytes(), cudaMemcpyHostToDevice));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(v_.get(), v, v_.bytes(), cudaMemcpyHostToDevice));
  if (fp8) {  // powers of two (e4m3_scale_for), so 1 / scale is exact in fp32
    descale_q_ = float(1 / fp8->q.scale);
    descale_k_ = float(1 / fp8->k.scale);
    descale_v_ = float(1 / fp8->v.scale);
  }
  if (workspace_bytes > 0) {
    workspace_.emplace(workspace_bytes);
    ATTNLAB_CUDA_CHECK(cudaMemset(workspace_->get(), 0, workspace_bytes));
  }
  if (with_lse) lse_.emplace(lse_bytes(s));
}

Problem ProblemBuffers::problem(float scale) const {
  Problem p{shape_, q_.get(), k_.get(), v_.get(), o_.get(), scale};
  p.format = format_;
  p.descale_q = descale_q_;
  p.descale_k = descale_k_;
  p.descale_v = descale_v_;
  if (workspace_) {
    p.workspace = workspace_->get();
    p.workspace_bytes = workspace_->bytes();
  }
  if (lse_) p.lse = static_cast<float*>(lse_->get());
  return p;
}

std::vector<__half> launch_poisoned(const Phase& phase, const Problem& p, cudaStream_t stream) {
  const std::size_t bytes = half_bytes(p.shape.q_elems());
  ATTNLAB_CUDA_CHECK(cudaMemsetAsync(p.o, 0xFF, bytes, stream));
  if (p.lse) ATTNLAB_CUDA_CHECK(cudaMemsetAsync(p.lse, 0xFF, lse_bytes(p.shape), stream));
  phase.launch(p, stream);
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<__half> out(std::size_t(p.shape.q_elems()));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(out.data(), p.o, bytes, cudaMemcpyDeviceToHost));
  return out;
}

std::vector<float> read_lse(const Problem& p) {
  std::vector<float> out(lse_bytes(p.shape) / sizeof(float));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(out.data(), p.lse, lse_bytes(p.shape), cudaMemcpyDeviceToHost));
  return out;
}

bool same_bits(const std::vector<__half>& a, const std::vector<__half>& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](__half x, __half y) {
           return __half_as_ushort(x) == __half_as_ushort(y);
         });
}

bool same_result_again(const Phase& phase, const Problem& p, const GateResult& g, cudaStream_t stream) {
  if (!same_bits(g.output, launch_poisoned(phase, p, stream))) return false;
  if (!phase.emits_lse) return true;
  const std::vector<float> again = read_lse(p);
  return again.size() == g.lse_output.size() &&
         std::memcmp(again.data(), g.lse_output.data(), again.size() * sizeof(float)) == 0;
}

GateResult run_gate(const Phase& phase, const Problem& p, const GateInputs& in,
                    std::uint64_t seed, cudaStream_t stream) {
  if (p.format != phase.input_format)
    throw std::logic_error(std::string("phase ") + phase.id + " reads " + input_format_name(phase.input_format) +
                           " inputs, and the problem holds " + input_format_name(p.format));
  if (phase.emits_lse && p.lse == nullptr)
    throw std::logic_error(std::string("phase ") + phase.id + " emits the LSE, and the problem has no buffer for it");
  const Fp8Inputs* fp8 = in.operands(p.format);
  GateResult g;
  if (phase.prepare) phase.prepare(p.shape);
  // Twice, each into fresh poison: a result that changes between identical launches is a race.
  g.output = launch_poisoned(phase, p, stream);
  if (phase.emits_lse) g.lse_output = read_lse(p);
  g.repeat_identical = same_result_again(phase, p, g, stream);
  const std::vector<RowRef> rows = rows_to_check(p.shape, seed);
  g.check = check_output(p.shape, in.reference(p.format), p.scale, g.output, rows,
                         fp8 ? Grade::kFp8 : Grade::kFp16);
  if (phase.emits_lse) g.lse = check_lse(p.shape, in.reference(p.format), p.scale, g.lse_output, rows);
  g.rmse_unquantised = rms_error(p.shape, in.tensors, p.scale, g.output, rows);
  g.format = p.format;
  if (fp8) g.scales = InputScales{fp8->q.scale, fp8->k.scale, fp8->v.scale};
  g.passed = g.check.passed && g.repeat_identical && (!g.lse || g.lse->passed);
  g.failure = g.check.first_failure;
  if (g.lse && !g.lse->passed)
    g.failure += std::string(g.failure.empty() ? "" : "; ") + g.lse->first_failure;
  if (!g.repeat_identical)
    g.failure += std::string(g.failure.empty() ? "" : "; ") + "two identical launches differed";
  return g;
}

}  // namespace attnlab
