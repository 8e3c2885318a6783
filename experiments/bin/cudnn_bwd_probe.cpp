// attnlab-cudnn-bwd-probe: phase cudnn_bwd's graph choices (kernels/phase_cudnn_bwd.hpp) side by
// side on the device, each through the backward gate of the harness (NaN-poisoned outputs, the
// fp64 reference on the gate's sample), so that one run shows which choice of graph gives right
// gradients and how the others are wrong. Per shape, choice and gradient it prints the gate's
// figures and, over the checked elements, the rms error, the reference's rms and `fit`, the
// least-squares factor f of out ~ f ref (1 for a right tensor; a scale applied twice or missed
// shows as a factor, a wrong term as a fit far from 1 with a large error); and the softmax_sum
// cuDNN wrote into the workspace against rowsum(dO * O) of the fp16 O and dO the launch read.
// Not a test: it prints, and exits 0 unless a choice cannot run at all.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/backward_gate.hpp"
#include "experiments/harness/reference.hpp"
#include "kernels/phase_cudnn_bwd.hpp"
#include "kernels/registry.hpp"

namespace attnlab {
namespace {

// The choice the probe's Phase launches: the gate takes plain function pointers.
std::size_t g_choice = 0;
void prepare_current(const Shape& s) { phase_cudnn_bwd::prepare_choice(s, g_choice); }
void launch_current(const BackwardProblem& p, cudaStream_t stream) {
  phase_cudnn_bwd::launch_choice(p, g_choice, stream);
}

struct Fit {
  double rms_err = 0, rms_ref = 0, fit = 0;
};

// Over the checked rows: out's elements at offsets row_at(i) + d against ref[i * D + d].
template <class Offset>
Fit fit(const std::vector<__half>& out, const std::vector<double>& ref, std::size_t rows, int D, Offset row_at) {
  double ee = 0, rr = 0, or_ = 0;
  for (std::size_t i = 0; i < rows; ++i)
    for (int d = 0; d < D; ++d) {
      const double o = __half2float(out[row_at(i) + std::size_t(d)]), r = ref[i * std::size_t(D) + std::size_t(d)];
      ee += (o - r) * (o - r);
      rr += r * r;
      or_ += o * r;
    }
  const double n = double(rows) * D;
  return {std::sqrt(ee / n), std::sqrt(rr / n), rr > 0 ? or_ / rr : 0};
}

void print_tensor(const char* name, const GradientCheck& c, const Fit& f) {
  std::printf("  %s: max_abs_err %.4g rms_err %.4g rms_ref %.4g fit %.4f gate_ratio %.4g (%s)\n", name,
              c.max_abs_err, f.rms_err, f.rms_ref, f.fit, c.worst_ratio, c.worst_ratio <= 1 ? "ok" : "FAIL");
}

// softmax_sum as cuDNN left it in the workspace against rowsum(dO * O) in double from the same
// fp16 O and dO.
void print_softmax_sum(const Shape& s, const BackwardProblem& p, const BackwardHostInputs& in) {
  const std::size_t rows = std::size_t(s.B) * s.H * s.S, D = std::size_t(s.D);
  std::vector<float> sum(rows);
  std::vector<__half> o(rows * D);
  ATTNLAB_CUDA_CHECK(cudaMemcpy(sum.data(), p.workspace, rows * sizeof(float), cudaMemcpyDeviceToHost));
  ATTNLAB_CUDA_CHECK(cudaMemcpy(o.data(), p.o, o.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  double max_err = 0, ee = 0, rr = 0, sr = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    double delta = 0;
    for (std::size_t d = 0; d < D; ++d)
      delta += double(__half2float(o[r * D + d])) * double(__half2float(in.d_o[r * D + d]));
    const double e = double(sum[r]) - delta;
    max_err = std::max(max_err, std::fabs(e));
    ee += e * e;
    rr += delta * delta;
    sr += double(sum[r]) * delta;
  }
  std::printf("  softmax_sum (workspace) vs rowsum(dO*O): max_abs_err %.4g rms_err %.4g rms_ref %.4g fit %.4f\n",
              max_err, std::sqrt(ee / double(rows)), std::sqrt(rr / double(rows)), rr > 0 ? sr / rr : 0);
}

int probe(const std::vector<std::string>& shapes, const std::vector<std::string>& wanted, Inputs dist,
          std::uint64_t seed) {
  const Phase* registered = find_phase("cudnn_bwd");
  if (!registered) {
    std::fprintf(stderr, "attnlab-cudnn-bwd-probe: phase cudnn_bwd is not in the registry\n");
    return 2;
  }
  Phase phase = *registered;
  phase.prepare = &prepare_current;
  phase.launch_backward = &launch_current;
  const auto& choices = phase_cudnn_bwd::graph_choices();
  int unusable = 0;
  for (const std::string& spec : shapes) {
    const Shape s = parse_shape(spec);
    const BackwardHostInputs in = make_backward_inputs(s, seed, dist);
    const BackwardBuffers buffers(s, in, phase_cudnn_bwd::workspace_bytes(s));
    const BackwardProblem p = buffers.problem(float(s.default_scale()), /*deterministic=*/false);
    for (std::size_t c = 0; c < choices.size(); ++c) {
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), choices[c].name) == wanted.end()) continue;
      g_choice = c;
      std::printf("shape %s choice %s (%s) inputs %s seed %llu\n", spec.c_str(), choices[c].name.c_str(),
                  c == 0 ? "the phase's graph" : "probe only", inputs_name(dist),
                  static_cast<unsigned long long>(seed));
      try {
        // Each choice starts from the zeroed workspace the harness gives a phase.
        ATTNLAB_CUDA_CHECK(cudaMemset(p.workspace, 0, p.workspace_bytes));
        const BackwardGateResult g = run_backward_gate(phase, p, in, seed, nullptr);
        const int D = s.D;
        const auto q_at = [&](std::size_t i) {
          const RowRef& r = g.sample.rows[i];
          return ((std::size_t(r.b) * s.H + std::size_t(r.h)) * s.S + std::size_t(r.row)) * std::size_t(D);
        };
        const auto kv_at = [&](std::size_t i) {
          const KeyRef& k = g.sample.keys[i];
          return ((std::size_t(k.b) * s.H_kv + std::size_t(k.kvh)) * s.S + std::size_t(k.key)) * std::size_t(D);
        };
        print_tensor("dQ", g.check.dq, fit(g.output.dq, g.reference.dq, g.sample.rows.size(), D, q_at));
        print_tensor("dK", g.check.dk, fit(g.output.dk, g.reference.dk, g.sample.keys.size(), D, kv_at));
        print_tensor("dV", g.check.dv, fit(g.output.dv, g.reference.dv, g.sample.keys.size(), D, kv_at));
        print_softmax_sum(s, p, in);
        // A third launch on the workspace the first two left: dQ's fit near 3 would mean the
        // fp32 accumulator is not re-initialised by cuDNN between launches.
        const Gradients third = launch_backward_poisoned(phase, p, nullptr);
        std::printf("  repeat launches bit-identical: %s; third launch's dQ fit %.4f\n",
                    g.repeat_identical ? "yes" : "no",
                    fit(third.dq, g.reference.dq, g.sample.rows.size(), D, q_at).fit);
        std::printf("  gate: %s%s%s\n", g.check.passed ? "PASS" : "FAIL", g.failure.empty() ? "" : ": ",
                    g.failure.c_str());
      } catch (const PhaseRefusal& e) {
        std::printf("  refused: %s\n", e.what());
        ++unusable;
      } catch (const std::exception& e) {
        std::printf("  error: %s\n", e.what());
        ++unusable;
        ATTNLAB_CUDA_CHECK(cudaDeviceSynchronize());  // a fault stops the probe here, named
      }
      std::fflush(stdout);
    }
  }
  return unusable == 0 ? 0 : 1;
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) {
  CLI::App app{"attnlab-cudnn-bwd-probe: phase cudnn_bwd's graph choices through the backward gate"};
  std::vector<std::string> shapes{"1x2x128x64", "1x4x256x128:causal:hkv=2"};
  std::vector<std::string> choices;
  std::string inputs = "normal";
  std::uint64_t seed = 1;
  app.add_option("--shape", shapes, "shapes, as attnlab-phase-<id> takes them");
  app.add_option("--choice", choices, "graph choices by name (default: all)");
  app.add_option("--inputs", inputs, "input distribution: normal, wide or negative");
  app.add_option("--seed", seed, "input seed");
  bool list = false;
  app.add_flag("--list", list, "print the graph choices and exit");
  CLI11_PARSE(app, argc, argv);
  if (list) {
    for (const auto& c : attnlab::phase_cudnn_bwd::graph_choices())
      std::printf("%s: sum_times_one %d dq_accumulator %d\n", c.name.c_str(), int(c.sum_times_one),
                  int(c.dq_accumulator));
    return 0;
  }
  const auto dist = attnlab::parse_inputs(inputs);
  if (!dist) {
    std::fprintf(stderr, "attnlab-cudnn-bwd-probe: unknown --inputs %s\n", inputs.c_str());
    return 2;
  }
  try {
    return attnlab::probe(shapes, choices, *dist, seed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab-cudnn-bwd-probe: %s\n", e.what());
    return 1;
  }
}
