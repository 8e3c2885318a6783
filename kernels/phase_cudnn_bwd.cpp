// Phase cudnn_bwd: a baseline, not a kernel of ours. cuDNN 9's fused flash-attention backward,
// reached through the backend graph API as phase cudnn reaches its forward, so that the harness
// that gates and times our backward phases measures it too.
//
// The operation graph is the one cuDNN's fused attention backward engines match, as the public
// cudnn-frontend builds it for an SDPA backward without dropout, bias or padding (learned from its scaled_dot_product_flash_attention.h backward node; written
// here against cudnn_backend.h, in that node's order):
//   softmax_sum = rowsum(dO * O)        pointwise MUL, reduction ADD, MUL by a by-value 1 into
//                                       an fp32 [B, H, S, 1] tensor cuDNN reads back (in the
//                                       launch's workspace)
//   S = Q K^T * scale - LSE             matmul (K as its [D, S] view), MUL by value, SUB of the
//                                       fp32 stats [B, H, S, 1] (the LSE the phase is given)
//   causal only: S masked               GEN_INDEX, CMP_GE, BINARY_SELECT, after the SUB as the
//                                       node applies its diagonal band
//   P = exp(S)
//   dV = P^T dO                         P seen transposed through a RESHAPE (fp16), matmul; with
//                                       GQA into a per-query-head virtual dV summed over the
//                                       group by a reduction ADD
//   dS = P (dO V^T - softmax_sum) scale matmul (V as its [D, S] view), SUB, MUL, MUL by value
//   dK = dS^T Q                         dS seen transposed (fp16), matmul; GQA as dV
//   dQ = dS K                           K seen as [S, D] through a RESHAPE, matmul into an fp32
//                                       [B, H, S, D] accumulator (the launch's workspace), then
//                                       an IDENTITY pointwise into the fp16 dQ
// softmax_sum is the reduction times a by-value 1 (the node's dropout-inverse scale, 1 without
// dropout), as every graph the frontend builds has it: cuDNN 9.19 also takes the graph without
// that MUL, and its dQ and dK from that graph are wrong while its dV is right (kernels/NOTES.md,
// cudnn_bwd's graph against the frontend's). kernels/phase_cudnn_bwd.hpp keeps that graph, and
// both with dQ straight from its matmul, selectable for the device probe
// (experiments/bin/cudnn_bwd_probe.cpp), which prints each one's errors. The deterministic mode
// (BackwardProblem::deterministic) runs the frontend's graph with dQ straight from its matmul,
// the graph the frontend builds for its deterministic algorithm.
// The fp32 softmax_sum and dQ accumulator are the BackwardProblem's workspace (the frontend
// puts them in its own); cuDNN from 9.6 initialises the accumulator itself, as the frontend's
// node relies on. prepare() builds the plan per shape (kernels/cudnn_graph.hpp's PlanCache);
// a configuration cuDNN declines throws PhaseRefusal with cuDNN's reason (exit 2).
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/backward_problem.hpp"
#include "kernels/phase_cudnn_bwd.hpp"
#include "kernels/phase_cudnn.hpp"
#include "kernels/registry.hpp"

#if ATTNLAB_HAVE_CUDNN
#include "kernels/cudnn_graph.hpp"
#endif

namespace attnlab::phase_cudnn_bwd {

Refusal can_implement(const Shape& s) {
  if (auto missing = phase_cudnn::missing_reason()) return "built without cuDNN: " + *missing;
  return fp16_head_dim_refusal(s, "phase cudnn_bwd");
}

const std::vector<GraphChoice>& graph_choices() {
  static const std::vector<GraphChoice> choices{
      {"frontend", true, true},
      {"no-sum-scale", false, true},
      {"frontend-direct-dq", true, false},
      {"no-sum-scale-direct-dq", false, false},
  };
  return choices;
}

std::size_t sum_bytes(const Shape& s) { return (std::size_t(s.B) * s.H * s.S * sizeof(float) + 255) / 256 * 256; }
std::size_t workspace_bytes(const Shape& s) { return sum_bytes(s) + std::size_t(s.q_elems()) * sizeof(float); }

namespace {
void check_choice(std::size_t choice) {
  if (choice >= graph_choices().size())
    throw std::invalid_argument("phase cudnn_bwd has " + std::to_string(graph_choices().size()) +
                                " graph choices, not " + std::to_string(choice + 1));
}

std::size_t deterministic_choice() {
  const auto& all = graph_choices();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].sum_times_one && !all[i].dq_accumulator) return i;
  throw std::logic_error("phase cudnn_bwd lists no frontend graph with dQ straight from its matmul");
}
}  // namespace

// The deterministic mode runs the frontend's deterministic graph: dQ straight from its matmul,
// with no accumulator to add into in an order that varies. Its plan is built on the first
// deterministic launch (the gate's, never a timed one: the harness times the default graph).
void prepare(const Shape& s) { prepare_choice(s, 0); }
void launch(const BackwardProblem& p, cudaStream_t stream) {
  if (!p.deterministic) return launch_choice(p, 0, stream);
  const std::size_t choice = deterministic_choice();
  prepare_choice(p.shape, choice);
  launch_choice(p, choice, stream);
}

#if !ATTNLAB_HAVE_CUDNN

void prepare_choice(const Shape& s, std::size_t choice) {
  check_choice(choice);
  if (auto r = can_implement(s)) throw PhaseRefusal(*r);
}
void launch_choice(const BackwardProblem& p, std::size_t choice, cudaStream_t) {
  check_choice(choice);
  if (auto r = can_implement(p.shape)) throw PhaseRefusal(*r);
}

#else

namespace {

using namespace cudnn_graph;

// Unique ids of the tensors the variant pack binds (below kFirstVirtualUid).
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kDO, kStats, kDQ, kDK, kDV, kScale, kMaskedScore, kSum, kDQAccum, kOne };

// The by-value 1 of softmax_sum's MUL; the variant pack points at it.
const float kOneValue = 1.0f;

// [B, heads, S, D] fp16 tensors and the [B, heads, D, S] views of K and V.
struct Operands {
  cudnnBackendDescriptor_t q, kt, vt, o, d_o, stats, sum, scale;
};

Operands operands(GraphBuilder& g, const Shape& s) {
  const std::int64_t B = s.B, H = s.H, Hkv = s.H_kv, S = s.S, D = s.D;
  const Dims qo{B, H, S, D}, rows{B, H, S, 1}, one{1, 1, 1, 1}, t{B, Hkv, D, S}, t_strides{Hkv * S * D, S * D, 1, D};
  Operands x;
  x.q = g.tensor(kQ, qo, packed(qo), CUDNN_DATA_HALF, false);
  x.kt = g.tensor(kK, t, t_strides, CUDNN_DATA_HALF, false);
  x.vt = g.tensor(kV, t, t_strides, CUDNN_DATA_HALF, false);
  x.o = g.tensor(kO, qo, packed(qo), CUDNN_DATA_HALF, false);
  x.d_o = g.tensor(kDO, qo, packed(qo), CUDNN_DATA_HALF, false);
  x.stats = g.tensor(kStats, rows, packed(rows), CUDNN_DATA_FLOAT, false);
  x.sum = g.tensor(kSum, rows, packed(rows), CUDNN_DATA_FLOAT, false);
  x.scale = g.tensor(kScale, one, one, CUDNN_DATA_FLOAT, false, /*by_value=*/true);
  return x;
}

// out = a^T b per query head, a [B, H, S, S] (fp32, virtual) seen transposed in fp16; summed
// over each query-head group into out [B, H_kv, S, D] where H_kv < H.
void transposed_matmul(GraphBuilder& g, const Shape& s, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                       std::int64_t out_uid) {
  const std::int64_t B = s.B, H = s.H, Hkv = s.H_kv, S = s.S, D = s.D;
  auto at = g.virtual_tensor({B, H, S, S}, {H * S * S, S * S, 1, S}, CUDNN_DATA_HALF);
  g.reshape(a, at);
  const Dims kv{B, Hkv, S, D};
  auto out = g.tensor(out_uid, kv, packed(kv), CUDNN_DATA_HALF, false);
  if (H == Hkv) {
    g.matmul(at, b, out);
    return;
  }
  const Dims full{B, H, S, D};
  auto per_head = g.virtual_tensor(full, packed(full), CUDNN_DATA_HALF);
  g.matmul(at, b, per_head);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, per_head, out);
}

// The graph of the header comment, or the variant `c` names.
void build_sdpa_backward(GraphBuilder& g, const Shape& s, const GraphChoice& c) {
  const std::int64_t B = s.B, H = s.H, Hkv = s.H_kv, S = s.S, D = s.D;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const Dims scores{B, H, S, S}, qo{B, H, S, D};
  const Operands x = operands(g, s);
  // The frontend's dO * O product keeps a [B, S, H, D] order in its strides.
  auto prod = g.virtual_tensor(qo, {H * S * D, S * D, H * D, 1}, f32);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, x.d_o, x.o, nullptr, prod);
  if (c.sum_times_one) {
    const Dims rows{B, H, S, 1}, one{1, 1, 1, 1};
    auto reduced = g.virtual_tensor(rows, packed(rows), f32);
    g.reduction(CUDNN_REDUCE_TENSOR_ADD, prod, reduced);
    auto unit = g.tensor(kOne, one, one, f32, false, /*by_value=*/true);
    g.pointwise(CUDNN_POINTWISE_MUL, f32, reduced, unit, nullptr, x.sum);
  } else {
    g.reduction(CUDNN_REDUCE_TENSOR_ADD, prod, x.sum);
  }

  auto s0 = g.virtual_tensor(scores, packed(scores), f32);
  g.matmul(x.q, x.kt, s0);
  auto s1 = g.virtual_tensor(scores, packed(scores), f32);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, s0, x.scale, nullptr, s1);
  auto s2 = g.virtual_tensor(scores, packed(scores), f32);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, s1, x.stats, nullptr, s2);
  if (s.causal) s2 = causal_mask(g, s, s2, kMaskedScore);
  auto p = g.virtual_tensor(scores, packed(scores), f32);
  g.pointwise(CUDNN_POINTWISE_EXP, f32, s2, nullptr, nullptr, p);
  transposed_matmul(g, s, p, x.d_o, kDV);

  auto dp = g.virtual_tensor(scores, packed(scores), f32);
  g.matmul(x.d_o, x.vt, dp);
  auto dp_centred = g.virtual_tensor(scores, packed(scores), f32);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, dp, x.sum, nullptr, dp_centred);
  auto ds_unscaled = g.virtual_tensor(scores, packed(scores), f32);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, dp_centred, p, nullptr, ds_unscaled);
  auto ds = g.virtual_tensor(scores, packed(scores), f32);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, ds_unscaled, x.scale, nullptr, ds);
  transposed_matmul(g, s, ds, x.q, kDK);

  auto k = g.virtual_tensor({B, Hkv, S, D}, {Hkv * S * D, S * D, D, 1}, CUDNN_DATA_HALF);
  g.reshape(x.kt, k);
  auto dq = g.tensor(kDQ, qo, packed(qo), CUDNN_DATA_HALF, false);
  if (!c.dq_accumulator) {
    g.matmul(ds, k, dq);
    return;
  }
  auto dq_accum = g.tensor(kDQAccum, qo, packed(qo), f32, false);
  g.matmul(ds, k, dq_accum);
  g.pointwise(CUDNN_POINTWISE_IDENTITY, f32, dq_accum, nullptr, nullptr, dq);
}

// One cache per graph choice, never destroyed (PlanCache).
PlanCache& plans(std::size_t choice) {
  static std::vector<PlanCache*>* caches = [] {
    auto* v = new std::vector<PlanCache*>;
    for (std::size_t i = 0; i < graph_choices().size(); ++i) v->push_back(new PlanCache("cudnn_bwd"));
    return v;
  }();
  return *caches->at(choice);
}

}  // namespace

void prepare_choice(const Shape& s, std::size_t choice) {
  check_choice(choice);
  if (auto r = can_implement(s)) throw PhaseRefusal(*r);
  const GraphChoice& c = graph_choices()[choice];
  plans(choice).prepare(
      s, kMaskedScore, [&](GraphBuilder& g) { build_sdpa_backward(g, s, c); },
      [&](ShapePlan& plan) {
        if (c.sum_times_one) plan.fixed.push_back({kOne, const_cast<float*>(&kOneValue)});
      });
}

void launch_choice(const BackwardProblem& p, std::size_t choice, cudaStream_t stream) {
  check_choice(choice);
  if (auto r = can_implement(p.shape)) throw std::invalid_argument(*r);
  const GraphChoice& c = graph_choices()[choice];
  if (p.deterministic && c.dq_accumulator)
    throw std::invalid_argument("phase cudnn_bwd's graph '" + c.name +
                                "' adds dQ through an accumulator in no fixed order: not deterministic");
  if (p.workspace_bytes < workspace_bytes(p.shape))
    throw std::invalid_argument("phase cudnn_bwd needs " + std::to_string(workspace_bytes(p.shape)) +
                                " bytes of workspace, got " + std::to_string(p.workspace_bytes));
  char* ws = static_cast<char*>(p.workspace);
  Bindings b;
  b.buffers = {{kQ, const_cast<void*>(p.q)},     {kK, const_cast<void*>(p.k)},
               {kV, const_cast<void*>(p.v)},     {kO, const_cast<void*>(p.o)},
               {kDO, const_cast<void*>(p.d_o)},  {kStats, const_cast<float*>(p.lse)},
               {kDQ, p.dq},                      {kDK, p.dk},
               {kDV, p.dv},                      {kSum, ws}};
  if (c.dq_accumulator) b.buffers.push_back({kDQAccum, ws + sum_bytes(p.shape)});
  b.scale_uid = kScale;
  b.scale = p.scale;
  plans(choice).launch(p.shape, b, stream);
}

#endif  // ATTNLAB_HAVE_CUDNN

}  // namespace attnlab::phase_cudnn_bwd

// The backward's yardstick, not ours: cuDNN's fused flash-attention backward measured by the
// harness that measures our backward phases, on the same O and LSE. Claim-free.
ATTNLAB_PHASE(cudnn_bwd) {
  p.title = "cuDNN SDPA backward";
  p.technique =
      "baseline, not ours: cuDNN 9's fused flash-attention backward through the backend graph API "
      "(P rebuilt from the LSE, dV, dP, dS, dK and dQ in one operation graph, dQ through an fp32 "
      "accumulator, or straight from its matmul in the deterministic mode; the engine cuDNN's heuristics "
      "pick)";
  p.can_implement = &can_implement;
  p.launch = nullptr;
  p.prepare = &prepare;
  p.direction = Direction::kBackward;
  p.launch_backward = &launch;
  p.backward_workspace_bytes = &workspace_bytes;
  p.baseline = true;
  p.question = "Baseline: cuDNN's fused SDPA backward (backend graph API, heuristics' engine) in our harness.";
  p.default_shapes = {"16x16x2048x64", "16x16x2048x64:causal", "4x16x4096x128", "4x16x4096x128:causal"};
}
