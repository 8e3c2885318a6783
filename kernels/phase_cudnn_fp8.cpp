// Phase cudnn_fp8: a baseline, not a kernel of ours. cuDNN 9's fused FP8 (e4m3) attention
// forward through the backend graph API, measured by the harness that measures our FP8 phase.
//
// The operation graph is the one cudnn-frontend builds for an FP8 SDPA forward with per-tensor
// scaling (learned from its scaled_dot_product_flash_attention.h and matmul_fp8.h; the pieces it
// shares with the fp16 graph are kernels/cudnn_graph.hpp's):
//   S  = Q8 K8^T                   matmul of the e4m3 codes, fp32 accumulate
//   S *= scale; S *= descale_q; S *= descale_k
//                                  pointwise MULs (scale by value, the descales device scalars)
//   causal mask and softmax        as the fp16 graph's (masked_softmax), P in fp32
//   amax_s = max |P|               AMAX reduction into a device scalar (unread)
//   P8 = P * scale_s               e4m3 P, scale_s = 448 (P <= 1 fills e4m3's range)
//   O' = P8 V8; O' *= descale_s; O' *= descale_v
//   O8 = O' * scale_o              e4m3 output; amax_o = max |O'| (unread)
// cuDNN on Hopper writes O in e4m3 only (the frontend's support surface: fp16 or bf16 O needs
// Blackwell), so the launch ends with a conversion of O8 to the fp16 output every phase writes
// (kernels/e4m3_output.hpp), timed with it as a second kernel (the record's per-kernel shares
// tell the two apart). O's e4m3 rounding (4 significant bits) is well inside the FP8 gate's
// bound, set by P's e4m3 rounding (tests/cpu/test_fp8_gate.cpp emulates an e4m3 output).
//
// Scalars: the engine multiplies the fp32 scores and O' by each factor in fp32. The inputs'
// descales are powers of two (experiments/harness/fp8_inputs.hpp), so this phase folds descale_q and
// descale_k into the by-value scale, and takes scale_o = scale_v / 2 (|O| <= max |V|, so O8
// stays within e4m3's range with a binade of headroom for P's rounding), which makes
// descale_v * scale_o = 1/2: every device scalar is then a constant that prepare() writes once,
// and a launch copies nothing from the host (capturable in a CUDA graph, as the fp16 phase is).
// The conversion multiplies by 2 * descale_v. O8 lives in the caller's workspace
// (Problem::workspace), so that two launches on two streams never share it.
//
// Where cuDNN cannot run a shape, prepare() throws PhaseRefusal with cuDNN's reason (exit 2).
#include <cuda_runtime.h>

#include <cstdint>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "kernels/e4m3_output.hpp"
#include "kernels/phase_cudnn.hpp"
#include "kernels/registry.hpp"

#if ATTNLAB_HAVE_CUDNN
#include "kernels/cudnn_graph.hpp"
#endif

namespace attnlab::phase_cudnn_fp8 {
namespace {

// O8, the e4m3 output cuDNN writes, rounded up to 256 bytes.
std::size_t workspace_bytes(const Shape& s) { return (std::size_t(s.q_elems()) + 255) / 256 * 256; }

Refusal can_implement(const Shape& s) {
  if (auto missing = phase_cudnn::missing_reason()) return "built without cuDNN: " + *missing;
  // cuDNN's heuristics offer no engine for the FP8 SDPA forward at S = 1, where they do for
  // the fp16 one: said here, so that the refusal comes before any plan is built.
  if (s.S < 2) return "phase cudnn_fp8: cuDNN's FP8 SDPA forward has no engine for a sequence of one";
  // As the fp16 baseline: the lab's reference, sweep and phases stop at D 64 and 128.
  return fp16_head_dim_refusal(s, "phase cudnn_fp8");
}

void check_problem(const Problem& p) {
  if (auto r = can_implement(p.shape)) throw std::invalid_argument(*r);
  if (p.format != InputFormat::kE4m3)
    throw std::invalid_argument("phase cudnn_fp8 reads e4m3 inputs; the problem holds fp16");
  if (!p.workspace || p.workspace_bytes < workspace_bytes(p.shape))
    throw std::invalid_argument("phase cudnn_fp8 needs " + std::to_string(workspace_bytes(p.shape)) +
                                " bytes of workspace for its e4m3 output");
}

#if !ATTNLAB_HAVE_CUDNN

void prepare(const Shape& s) {
  if (auto r = can_implement(s)) throw PhaseRefusal(*r);
}
void launch(const Problem& p, cudaStream_t) { check_problem(p); }

#else

using namespace cudnn_graph;

// Unique ids of the tensors the variant pack binds (below kFirstVirtualUid).
enum Uid : std::int64_t {
  kQ = 1, kK, kV, kO8, kScale, kMaskedScore,
  kDescaleQ, kDescaleK, kDescaleV, kDescaleS, kScaleS, kScaleO, kAmaxS, kAmaxO
};

// The device scalars, in this order from the first (prepare() writes them once).
constexpr Uid kScalarUids[] = {kDescaleQ, kDescaleK, kDescaleV, kDescaleS, kScaleS, kScaleO, kAmaxS, kAmaxO};
constexpr float kScaleSValue = 448.f;  // P <= 1 times 448: e4m3's largest finite value
constexpr float kScaleOValue = 0.5f;   // descale_v * scale_o, with scale_o = scale_v / 2
const float kScalarValues[] = {1.f, 1.f, 1.f, 1.f / kScaleSValue, kScaleSValue, kScaleOValue, 0.f, 0.f};

// y = x * t, fp32, into a fresh virtual tensor of `type`.
cudnnBackendDescriptor_t times(GraphBuilder& g, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t t,
                               const Dims& dims, cudnnDataType_t type = CUDNN_DATA_FLOAT) {
  auto y = g.virtual_tensor(dims, packed(dims), type);
  g.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, x, t, nullptr, y);
  return y;
}

// Builds the FP8 SDPA forward graph of the header comment into g.
void build_sdpa_fp8(GraphBuilder& g, const Shape& s) {
  const std::int64_t B = s.B, H = s.H, Hkv = s.H_kv, S = s.S, D = s.D;
  const cudnnDataType_t e4m3 = CUDNN_DATA_FP8_E4M3, f32 = CUDNN_DATA_FLOAT;
  const Dims qo{B, H, S, D}, kv{B, Hkv, S, D}, scores{B, H, S, S}, one{1, 1, 1, 1};
  auto q = g.tensor(kQ, qo, packed(qo), e4m3, false);
  // K^T: K's [S, D] rows seen as a D x S matrix, i.e. the last two dims and strides swapped.
  auto kt = g.tensor(kK, {B, Hkv, D, S}, {Hkv * S * D, S * D, 1, D}, e4m3, false);
  auto v = g.tensor(kV, kv, packed(kv), e4m3, false);
  auto o8 = g.tensor(kO8, qo, packed(qo), e4m3, false);
  auto scale = g.tensor(kScale, one, one, f32, false, /*by_value=*/true);
  std::map<Uid, cudnnBackendDescriptor_t> scalar;
  for (const Uid uid : kScalarUids) scalar[uid] = g.tensor(uid, one, one, f32, false);

  auto s0 = g.virtual_tensor(scores, packed(scores), f32);
  g.matmul(q, kt, s0);
  auto s1 = times(g, times(g, times(g, s0, scale, scores), scalar[kDescaleQ], scores), scalar[kDescaleK], scores);
  auto p = masked_softmax(g, s, s1, kMaskedScore, f32);
  g.reduction(CUDNN_REDUCE_TENSOR_AMAX, p, scalar[kAmaxS]);
  auto p8 = times(g, p, scalar[kScaleS], scores, e4m3);
  auto o0 = g.virtual_tensor(qo, packed(qo), f32);
  g.matmul(p8, v, o0);
  auto o1 = times(g, times(g, o0, scalar[kDescaleS], qo), scalar[kDescaleV], qo);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, o1, scalar[kScaleO], nullptr, o8);
  g.reduction(CUDNN_REDUCE_TENSOR_AMAX, o1, scalar[kAmaxO]);
}

// Never destroyed (PlanCache).
PlanCache& plans() {
  static PlanCache* cache = new PlanCache("cudnn_fp8");
  return *cache;
}

// The device scalars of one plan, written once: a launch copies nothing from the host.
void add_scalars(ShapePlan& plan) {
  void* scalars = nullptr;
  ATTNLAB_CUDA_CHECK(cudaMalloc(&scalars, sizeof kScalarValues));
  plan.scalars.reset(scalars);
  ATTNLAB_CUDA_CHECK(cudaMemcpy(scalars, kScalarValues, sizeof kScalarValues, cudaMemcpyHostToDevice));
  for (std::size_t i = 0; i < std::size(kScalarUids); ++i)
    plan.fixed.emplace_back(kScalarUids[i], static_cast<float*>(scalars) + i);
}

void prepare(const Shape& s) {
  if (auto r = can_implement(s)) throw PhaseRefusal(*r);
  plans().prepare(s, kMaskedScore, [&](GraphBuilder& g) { build_sdpa_fp8(g, s); }, &add_scalars);
}

void launch(const Problem& p, cudaStream_t stream) {
  check_problem(p);
  Bindings b;
  b.buffers = {{kQ, const_cast<void*>(p.q)}, {kK, const_cast<void*>(p.k)}, {kV, const_cast<void*>(p.v)},
               {kO8, p.workspace}};
  b.scale_uid = kScale;
  b.scale = p.scale * p.descale_q * p.descale_k;  // powers of two: exact
  plans().launch(p.shape, b, stream);
  // O = O8 / scale_o * descale_v = O8 * 2 * descale_v.
  launch_e4m3_to_fp16(p.workspace, p.o, p.shape.q_elems(), p.descale_v / kScaleOValue, stream);
}

#endif  // ATTNLAB_HAVE_CUDNN

}  // namespace
}  // namespace attnlab::phase_cudnn_fp8

// The FP8 yardstick, not ours: cuDNN's fused FP8 attention forward in the harness that measures
// our phases, so that the FP8 phase's A/B against it is one yardstick. Claim-free.
ATTNLAB_PHASE(cudnn_fp8) {
  p.title = "cuDNN FP8 SDPA";
  p.technique =
      "baseline, not ours: cuDNN 9's fused FP8 (e4m3) attention forward through the backend graph "
      "API (Q, K, V e4m3 with per-tensor descales, P and O e4m3; the heuristics' engine), then "
      "O converted to fp16 by a second kernel";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.prepare = &prepare;
  p.baseline = true;
  p.input_format = InputFormat::kE4m3;
  p.workspace_bytes = &workspace_bytes;
  p.question =
      "Baseline: cuDNN's fused FP8 SDPA forward (backend graph API, heuristics' engine) in our harness.";
  p.default_shapes = {"throughput", "latency", "4x16x4096x128", "16x16x2048x64:causal",
                      "4x16x4096x128:causal"};
}
