// Phase cudnn: a baseline, not a kernel of ours. cuDNN 9's fused flash-attention forward,
// reached through the backend graph API from C++ so that the very harness that measures our
// phases (fp64 gate, timing regimes, counters, PC sampling, NVML clocks) measures it too.
//
// The operation graph is the one cuDNN's fused attention engines match, as the public
// cudnn-frontend builds it for an SDPA forward without dropout, bias or padding (learned from
// its scaled_dot_product_flash_attention.h, softmax.h and diagonal_band_mask.h; written here
// against cudnn_backend.h, since the frontend headers are not packaged):
//   S   = Q K^T                    matmul, fp32 accumulate; K is given as its [D, S] view
//   S  *= scale                    pointwise MUL by a by-value fp32 scalar
//   causal only: S = row >= col ? S : -inf
//                                  GEN_INDEX on axes 2 and 3, CMP_GE, BINARY_SELECT
//   m = max_j S; E = exp(S - m); l = sum_j E; P = E / l (fp16)
//                                  reductions MAX and ADD, pointwise SUB, EXP, DIV
//   stats = m + log(l)             virtual: the frontend builds it even for inference, and the
//                                  engines' pattern includes it; nothing is written
//   O   = P V                      matmul into the fp16 output
// GQA needs nothing else: K and V carry H_kv heads and the engine broadcasts them over the
// H / H_kv query heads of a group, as the frontend relies on.
//
// prepare() builds, per shape, the handle, the graph, an execution plan (the first engine
// config of heuristics mode A that finalizes, else of the fallback mode) and its workspace;
// launch() sets the stream and calls cudnnBackendExecute with a variant pack built once per set
// of buffers (kernels/cudnn_graph.hpp's PlanCache, which the FP8 baseline shares). It allocates no device memory and never synchronises, so it is capturable in a
// CUDA graph once its engine has run (the harness's gate and warm-up launch it before the graph
// regime captures): PyTorch captures the same engines through the frontend, whose execute is
// this call. A configuration cuDNN declines at prepare time throws PhaseRefusal with cuDNN's
// reason (exit 2).
#include "kernels/phase_cudnn.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "common/check.hpp"

#if ATTNLAB_HAVE_CUDNN
#include <cudnn_version.h>

#include "kernels/cudnn_graph.hpp"
#endif

namespace attnlab::phase_cudnn {

Refusal static_refusal(const Shape& s, const std::optional<std::string>& missing) {
  if (missing) return "built without cuDNN: " + *missing;
  // cuDNN takes other head dims too; the lab's shape sweep, reference and other phases stop at
  // 64 and 128, and a baseline is only useful where ours run.
  return fp16_head_dim_refusal(s, "phase cudnn");
}

#if !ATTNLAB_HAVE_CUDNN

std::optional<std::string> missing_reason() { return std::string(ATTNLAB_CUDNN_MISSING); }
std::optional<Versions> versions() { return std::nullopt; }
Refusal can_implement(const Shape& s) { return static_refusal(s, missing_reason()); }
void prepare(const Shape& s) {
  if (auto r = can_implement(s)) throw PhaseRefusal(*r);
}
void launch(const Problem& p, cudaStream_t) {
  if (auto r = can_implement(p.shape)) throw PhaseRefusal(*r);
}

#else

std::optional<std::string> missing_reason() { return std::nullopt; }
std::optional<Versions> versions() { return Versions{cudnnGetVersion(), CUDNN_VERSION}; }
Refusal can_implement(const Shape& s) { return static_refusal(s, std::nullopt); }

namespace {

using namespace cudnn_graph;

// Unique ids of the tensors the variant pack binds (below kFirstVirtualUid).
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kScale, kMaskedScore };

// Builds the SDPA forward graph of the header comment into g.
void build_sdpa(GraphBuilder& g, const Shape& s) {
  const std::int64_t B = s.B, H = s.H, Hkv = s.H_kv, S = s.S, D = s.D;
  const cudnnDataType_t f16 = CUDNN_DATA_HALF, f32 = CUDNN_DATA_FLOAT;
  const Dims qo{B, H, S, D}, kv{B, Hkv, S, D}, scores{B, H, S, S};
  const Dims one{1, 1, 1, 1};
  auto q = g.tensor(kQ, qo, packed(qo), f16, false);
  // K^T: K's [S, D] rows seen as a D x S matrix, i.e. the last two dims and strides swapped.
  auto kt = g.tensor(kK, {B, Hkv, D, S}, {Hkv * S * D, S * D, 1, D}, f16, false);
  auto v = g.tensor(kV, kv, packed(kv), f16, false);
  auto o = g.tensor(kO, qo, packed(qo), f16, false);
  auto scale = g.tensor(kScale, one, one, f32, false, /*by_value=*/true);

  auto s0 = g.virtual_tensor(scores, packed(scores), f32);
  g.matmul(q, kt, s0);
  auto s1 = g.virtual_tensor(scores, packed(scores), f32);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, s0, scale, nullptr, s1);
  g.matmul(masked_softmax(g, s, s1, kMaskedScore, f16), v, o);
}

// Never destroyed (PlanCache).
PlanCache& plans() {
  static PlanCache* cache = new PlanCache("cudnn");
  return *cache;
}

}  // namespace

void prepare(const Shape& s) {
  if (auto r = can_implement(s)) throw PhaseRefusal(*r);
  plans().prepare(s, kMaskedScore, [&](GraphBuilder& g) { build_sdpa(g, s); }, [](ShapePlan&) {});
}

void launch(const Problem& p, cudaStream_t stream) {
  if (auto r = can_implement(p.shape)) throw std::invalid_argument(*r);
  Bindings b;
  b.buffers = {{kQ, const_cast<void*>(p.q)}, {kK, const_cast<void*>(p.k)}, {kV, const_cast<void*>(p.v)}, {kO, p.o}};
  b.scale_uid = kScale;
  b.scale = p.scale;
  plans().launch(p.shape, b, stream);
}

#endif  // ATTNLAB_HAVE_CUDNN

}  // namespace attnlab::phase_cudnn

// The yardstick, not ours: cuDNN's fused flash-attention forward measured by the very harness
// that measures our phases (same process layout, gate, regimes, counters and NVML clocks), so
// that a comparison with them is one yardstick instead of two tools. Claim-free. PyTorch SDPA's
// cuDNN backend (make baseline) runs the same engines, so its records should read the same times.
ATTNLAB_PHASE(cudnn) {
  p.title = "cuDNN SDPA";
  p.technique =
      "baseline, not ours: cuDNN 9's fused flash-attention forward through the backend graph "
      "API (QK^T, scale, causal mask, softmax, PV in one operation graph; the engine cuDNN's "
      "heuristics pick)";
  p.can_implement = &can_implement;
  p.launch = &launch;
  p.prepare = &prepare;
  p.baseline = true;
  p.question =
      "Baseline: cuDNN's fused SDPA forward (backend graph API, heuristics' engine) in our harness.";
  p.default_shapes = {"throughput", "latency", "4x16x4096x128", "16x16x2048x64:causal",
                      "1x8x512x64:causal", "4x16x4096x128:causal"};
}
