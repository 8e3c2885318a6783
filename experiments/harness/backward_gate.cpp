// The backward gate: buffers, the fp32 forward for O and LSE, poisoned launches, the check.
#include "experiments/harness/backward_gate.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/backward_forward.hpp"
#include "record/constants.hpp"

namespace attnlab {
namespace {
std::size_t half_bytes(std::int64_t n) { return std::size_t(n) * sizeof(__half); }
std::size_t rows(const Shape& s) { return std::size_t(s.B) * s.H * s.S; }

void upload(const DeviceBuffer& to, const std::vector<__half>& from) {
  ATTNLAB_CUDA_CHECK(cudaMemcpy(to.get(), from.data(), to.bytes(), cudaMemcpyHostToDevice));
}

// O and LSE from a forward phase that emits the LSE, with its own zeroed workspace (freed once
// the launch is done: the backward's timing never runs it again).
void run_forward(const Phase& forward, const Shape& s, const void* q, const void* k, const void* v, void* o,
                 float* lse) {
  if (is_backward(forward) || !forward.emits_lse)
    throw std::invalid_argument(std::string("phase ") + forward.id +
                                " does not emit the LSE a backward reads; --forward takes a phase that does");
  if (auto why = forward.can_implement(s))
    throw std::invalid_argument(std::string("phase ") + forward.id + " cannot run shape " + shape_name(s) + ": " + *why);
  if (forward.prepare) forward.prepare(s);
  Problem p{s, q, k, v, o, float(s.default_scale())};
  p.lse = lse;
  const std::size_t bytes = workspace_bytes(forward, s);
  std::optional<DeviceBuffer> workspace;
  if (bytes > 0) {
    workspace.emplace(bytes);
    ATTNLAB_CUDA_CHECK(cudaMemset(workspace->get(), 0, bytes));
    p.workspace = workspace->get();
    p.workspace_bytes = bytes;
  }
  forward.launch(p, nullptr);
  ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
}
}  // namespace

const Phase* lse_forward(const Phase& backward, const std::string& id, const std::vector<Shape>& shapes) {
  if (id.empty()) return nullptr;
  if (!is_backward(backward))
    throw std::invalid_argument(std::string("--forward takes the forward of a backward phase; phase ") + backward.id +
                                " is a forward phase");
  const Phase* f = find_phase(id);
  if (!f || is_backward(*f) || !f->emits_lse)
    throw std::invalid_argument("--forward " + id + ": not a forward phase that emits the LSE; those are: " +
                                lse_phase_ids());
  for (const Shape& s : shapes)
    if (auto why = f->can_implement(s))
      throw std::invalid_argument("--forward phase " + id + " cannot run shape " + shape_name(s) + ": " + *why);
  return f;
}

BackwardBuffers::BackwardBuffers(const Shape& s, const BackwardHostInputs& in, std::size_t workspace_bytes,
                                 const Phase* forward)
    : shape_(s),
      forward_(forward ? forward->id : kFp32Forward),
      q_(half_bytes(s.q_elems())),
      k_(half_bytes(s.kv_elems())),
      v_(half_bytes(s.kv_elems())),
      o_(half_bytes(s.q_elems())),
      d_o_(half_bytes(s.q_elems())),
      lse_(rows(s) * sizeof(float)),
      dq_(half_bytes(s.q_elems())),
      dk_(half_bytes(s.kv_elems())),
      dv_(half_bytes(s.kv_elems())) {
  upload(q_, in.qkv.q);
  upload(k_, in.qkv.k);
  upload(v_, in.qkv.v);
  upload(d_o_, in.d_o);
  if (forward) {
    run_forward(*forward, s, q_.get(), k_.get(), v_.get(), o_.get(), static_cast<float*>(lse_.get()));
  } else {
    attention_forward_fp32(s, float(s.default_scale()), q_.get(), k_.get(), v_.get(), o_.get(),
                           static_cast<float*>(lse_.get()), nullptr);
  }
  ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());
  if (workspace_bytes > 0) {
    workspace_.emplace(workspace_bytes);
    ATTNLAB_CUDA_CHECK(cudaMemset(workspace_->get(), 0, workspace_bytes));
  }
}

BackwardProblem BackwardBuffers::problem(float scale, bool deterministic) const {
  BackwardProblem p;
  p.shape = shape_;
  p.q = q_.get();
  p.k = k_.get();
  p.v = v_.get();
  p.o = o_.get();
  p.d_o = d_o_.get();
  p.lse = static_cast<const float*>(lse_.get());
  p.dq = dq_.get();
  p.dk = dk_.get();
  p.dv = dv_.get();
  p.scale = scale;
  p.deterministic = deterministic;
  if (workspace_) {
    p.workspace = workspace_->get();
    p.workspace_bytes = workspace_->bytes();
  }
  return p;
}

Gradients launch_backward_poisoned(const Phase& phase, const BackwardProblem& p, cudaStream_t stream) {
  const std::size_t q_bytes = half_bytes(p.shape.q_elems()), kv_bytes = half_bytes(p.shape.kv_elems());
  ATTNLAB_CUDA_CHECK(cudaMemsetAsync(p.dq, 0xFF, q_bytes, stream));
  ATTNLAB_CUDA_CHECK(cudaMemsetAsync(p.dk, 0xFF, kv_bytes, stream));
  ATTNLAB_CUDA_CHECK(cudaMemsetAsync(p.dv, 0xFF, kv_bytes, stream));
  phase.launch_backward(p, stream);
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  Gradients g;
  g.dq.resize(q_bytes / sizeof(__half));
  g.dk.resize(kv_bytes / sizeof(__half));
  g.dv.resize(kv_bytes / sizeof(__half));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(g.dq.data(), p.dq, q_bytes, cudaMemcpyDeviceToHost));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(g.dk.data(), p.dk, kv_bytes, cudaMemcpyDeviceToHost));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(g.dv.data(), p.dv, kv_bytes, cudaMemcpyDeviceToHost));
  return g;
}

bool same_bits(const Gradients& a, const Gradients& b) {
  const auto same = [](const std::vector<__half>& x, const std::vector<__half>& y) {
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), [](__half u, __half w) {
             return __half_raw(u).x == __half_raw(w).x;
           });
  };
  return same(a.dq, b.dq) && same(a.dk, b.dk) && same(a.dv, b.dv);
}

BackwardGateResult run_backward_gate(const Phase& phase, const BackwardProblem& p,
                                     const BackwardHostInputs& in, std::uint64_t seed, cudaStream_t stream) {
  const BackwardSample sample = backward_sample(p.shape, seed);
  return run_backward_gate(phase, p, sample, reference_gradients(p.shape, in, p.scale, sample), stream);
}

BackwardGateResult run_backward_gate(const Phase& phase, const BackwardProblem& p, const BackwardSample& sample,
                                     const GradientSample& reference, cudaStream_t stream) {
  BackwardGateResult g;
  if (phase.prepare) phase.prepare(p.shape);
  g.output = launch_backward_poisoned(phase, p, stream);
  g.repeat_identical = same_bits(g.output, launch_backward_poisoned(phase, p, stream));
  g.sample = sample;
  g.reference = reference;
  g.check = check_gradients(p.shape, g.sample, g.reference, g.output.dq, g.output.dk, g.output.dv);
  g.passed = g.check.passed && (g.repeat_identical || !p.deterministic);
  g.failure = g.check.first_failure;
  if (p.deterministic && !g.repeat_identical)
    g.failure += std::string(g.failure.empty() ? "" : "; ") + "two identical deterministic launches differed";
  return g;
}

Correctness backward_correctness_block(const BackwardGateResult& g, const Shape& s, Inputs inputs) {
  const BackwardCheck& c = g.check;
  const GradientCheck* worst = &c.dq;
  for (const GradientCheck* x : {&c.dk, &c.dv})
    if (x->worst_ratio > worst->worst_ratio) worst = x;
  Correctness out;
  out.passed = g.passed;
  out.max_abs_err = std::max({c.dq.max_abs_err, c.dk.max_abs_err, c.dv.max_abs_err});
  out.max_rel_err = 0;  // the rule is relative to the naive's error, not to the values
  out.tolerance_abs = worst->worst_tolerance_rms;
  out.naive_fp16_max_abs_err = std::max({c.dq.naive_max_abs_err, c.dk.naive_max_abs_err, c.dv.naive_max_abs_err});
  out.rows_checked = c.dq.rows_checked + c.dk.rows_checked;
  out.rows_total = static_cast<long long>(std::size_t(s.B) * s.H * s.S + std::size_t(s.B) * s.H_kv * s.S);
  out.nonfinite = c.nonfinite;
  out.rule = kBackwardRowRmsRule;
  out.inputs = inputs_name(inputs);
  out.row_rms_err = worst->worst_rms_err;
  out.row_err_ratio = c.worst_ratio;
  out.elements_scanned = c.elements_scanned;
  out.repeat_identical = g.repeat_identical;
  if (!g.passed) out.failure = g.failure;
  out.input_format = "fp16";
  out.forward = g.forward;
  return out;
}

}  // namespace attnlab
