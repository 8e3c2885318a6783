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
// of buffers. It allocates no device memory and never synchronises, so it is capturable in a
// CUDA graph once its engine has run (the harness's gate and warm-up launch it before the graph
// regime captures): PyTorch captures the same engines through the frontend, whose execute is
// this call. A configuration cuDNN declines at prepare time throws PhaseRefusal with cuDNN's
// reason (exit 2).
#include "kernels/phase_cudnn.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "common/check.hpp"

#if ATTNLAB_HAVE_CUDNN
#include <cudnn_backend.h>
#include <cudnn_version.h>

#include "kernels/cudnn_check.hpp"
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

// A cuDNN backend descriptor, owned. Set attributes, finalize, then read or use it.
class Descriptor {
 public:
  explicit Descriptor(cudnnBackendDescriptorType_t type) {
    ATTNLAB_CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &d_));
  }
  ~Descriptor() {
    if (d_) (void)cudnnBackendDestroyDescriptor(d_);  // a destructor must not throw
  }
  Descriptor(Descriptor&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor& operator=(Descriptor&&) = delete;

  cudnnBackendDescriptor_t get() const noexcept { return d_; }

  // `name` is the attribute's spelling, so a failure names the attribute it was setting.
  template <class T>
  Descriptor& set(cudnnBackendAttributeName_t attr, const char* name, cudnnBackendAttributeType_t type,
                  const T* values, std::int64_t count = 1) {
    const std::string call = std::string("cudnnBackendSetAttribute(") + name + ")";
    detail::cudnn_check(cudnnBackendSetAttribute(d_, attr, type, count, values), call.c_str(),
                        __FILE__, __LINE__);
    return *this;
  }
  Descriptor& set_desc(cudnnBackendAttributeName_t attr, const char* name, cudnnBackendDescriptor_t d) {
    return set(attr, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, &d);
  }
  Descriptor& finalize() {
    ATTNLAB_CUDNN_CHECK(cudnnBackendFinalize(d_));
    return *this;
  }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

#define ATTNLAB_ATTR(a) a, #a

struct HandleDeleter {
  void operator()(cudnnHandle_t h) const noexcept { (void)cudnnDestroy(h); }
};
using Handle = std::unique_ptr<std::remove_pointer_t<cudnnHandle_t>, HandleDeleter>;

struct CudaFreeDeleter {
  void operator()(void* p) const noexcept { (void)cudaFree(p); }
};
using DeviceMemory = std::unique_ptr<void, CudaFreeDeleter>;

using Dims = std::vector<std::int64_t>;

// Unique ids of the tensors the variant pack binds; the virtual ones are numbered from kFirstVirtual.
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kScale, kMaskedScore, kFirstVirtual = 100 };

// The operation graph under construction: it owns every descriptor the graph refers to.
class GraphBuilder {
 public:
  explicit GraphBuilder(cudnnHandle_t handle) : handle_(handle) {}

  // A tensor. by_value: a host scalar passed in the variant pack (the softmax scale) or baked
  // into the graph; cuDNN needs 16-byte alignment for the fused engines' vector loads.
  cudnnBackendDescriptor_t tensor(std::int64_t uid, const Dims& dims, const Dims& strides,
                                  cudnnDataType_t type, bool is_virtual, bool by_value = false) {
    Descriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const std::int64_t alignment = 16;
    const bool v = is_virtual, b = by_value;
    t.set(ATTNLAB_ATTR(CUDNN_ATTR_TENSOR_DATA_TYPE), CUDNN_TYPE_DATA_TYPE, &type)
        .set(ATTNLAB_ATTR(CUDNN_ATTR_TENSOR_DIMENSIONS), CUDNN_TYPE_INT64, dims.data(),
             std::int64_t(dims.size()))
        .set(ATTNLAB_ATTR(CUDNN_ATTR_TENSOR_STRIDES), CUDNN_TYPE_INT64, strides.data(),
             std::int64_t(strides.size()))
        .set(ATTNLAB_ATTR(CUDNN_ATTR_TENSOR_UNIQUE_ID), CUDNN_TYPE_INT64, &uid)
        .set(ATTNLAB_ATTR(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT), CUDNN_TYPE_INT64, &alignment)
        .set(ATTNLAB_ATTR(CUDNN_ATTR_TENSOR_IS_VIRTUAL), CUDNN_TYPE_BOOLEAN, &v);
    if (by_value) t.set(ATTNLAB_ATTR(CUDNN_ATTR_TENSOR_IS_BY_VALUE), CUDNN_TYPE_BOOLEAN, &b);
    t.finalize();
    return keep(std::move(t));
  }
  cudnnBackendDescriptor_t virtual_tensor(const Dims& dims, const Dims& strides, cudnnDataType_t type) {
    return tensor(next_virtual_++, dims, strides, type, true);
  }

  void matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
    const cudnnDataType_t fp32 = CUDNN_DATA_FLOAT;
    Descriptor mm(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    mm.set(ATTNLAB_ATTR(CUDNN_ATTR_MATMUL_COMP_TYPE), CUDNN_TYPE_DATA_TYPE, &fp32).finalize();
    Descriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    op.set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_MATMUL_ADESC), a)
        .set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_MATMUL_BDESC), b)
        .set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_MATMUL_CDESC), c)
        .set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_MATMUL_DESC), mm.get())
        .finalize();
    keep(std::move(mm));
    op_(std::move(op));
  }

  // y = mode(x [, b] [, t]); axis only for GEN_INDEX. math: the precision cuDNN computes in.
  void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t math, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y,
                 std::optional<std::int64_t> axis = std::nullopt) {
    Descriptor pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    pw.set(ATTNLAB_ATTR(CUDNN_ATTR_POINTWISE_MODE), CUDNN_TYPE_POINTWISE_MODE, &mode)
        .set(ATTNLAB_ATTR(CUDNN_ATTR_POINTWISE_MATH_PREC), CUDNN_TYPE_DATA_TYPE, &math);
    if (axis) pw.set(ATTNLAB_ATTR(CUDNN_ATTR_POINTWISE_AXIS), CUDNN_TYPE_INT64, &*axis);
    pw.finalize();
    Descriptor op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op.set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR), pw.get())
        .set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_XDESC), x);
    if (b) op.set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_BDESC), b);
    if (t) op.set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_TDESC), t);
    op.set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_POINTWISE_YDESC), y).finalize();
    keep(std::move(pw));
    op_(std::move(op));
  }

  void reduction(cudnnReduceTensorOp_t reduce, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    const cudnnDataType_t fp32 = CUDNN_DATA_FLOAT;
    Descriptor r(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    r.set(ATTNLAB_ATTR(CUDNN_ATTR_REDUCTION_OPERATOR), CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, &reduce)
        .set(ATTNLAB_ATTR(CUDNN_ATTR_REDUCTION_COMP_TYPE), CUDNN_TYPE_DATA_TYPE, &fp32)
        .finalize();
    Descriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    op.set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_REDUCTION_XDESC), x)
        .set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_REDUCTION_YDESC), y)
        .set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_REDUCTION_DESC), r.get())
        .finalize();
    keep(std::move(r));
    op_(std::move(op));
  }

  // The finalized operation graph; throws CudnnError (not_supported() for a graph cuDNN
  // declines) otherwise.
  Descriptor finish() {
    std::vector<cudnnBackendDescriptor_t> raw;
    for (const auto& o : ops_) raw.push_back(o.get());
    Descriptor g(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    g.set(ATTNLAB_ATTR(CUDNN_ATTR_OPERATIONGRAPH_OPS), CUDNN_TYPE_BACKEND_DESCRIPTOR, raw.data(),
          std::int64_t(raw.size()))
        .set(ATTNLAB_ATTR(CUDNN_ATTR_OPERATIONGRAPH_HANDLE), CUDNN_TYPE_HANDLE, &handle_)
        .finalize();
    return g;
  }

 private:
  cudnnBackendDescriptor_t keep(Descriptor d) {
    owned_.push_back(std::move(d));
    return owned_.back().get();
  }
  void op_(Descriptor d) { ops_.push_back(std::move(d)); }

  cudnnHandle_t handle_;
  std::int64_t next_virtual_ = kFirstVirtual;
  std::vector<Descriptor> owned_;  // tensors and operator descriptors the ops point to
  std::vector<Descriptor> ops_;    // in topological order, as the graph lists them
};

// Contiguous strides of dims, innermost last.
Dims packed(const Dims& d) {
  Dims s(d.size(), 1);
  for (std::size_t i = d.size() - 1; i > 0; --i) s[i - 1] = s[i] * d[i];
  return s;
}

// cuDNN before 9.10 wants the most negative finite float as the masked score (the frontend's
// get_negative_inf_value), later versions -inf.
float masked_score() {
  return cudnnGetVersion() < 91000 ? std::numeric_limits<float>::lowest()
                                   : -std::numeric_limits<float>::infinity();
}

// Builds the SDPA forward graph of the header comment into g.
void build_sdpa(GraphBuilder& g, const Shape& s) {
  const std::int64_t B = s.B, H = s.H, Hkv = s.H_kv, S = s.S, D = s.D;
  const cudnnDataType_t f16 = CUDNN_DATA_HALF, f32 = CUDNN_DATA_FLOAT;
  const Dims qo{B, H, S, D}, kv{B, Hkv, S, D}, scores{B, H, S, S}, rows{B, H, S, 1};
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
  if (s.causal) {
    // Top-left aligned (row i sees keys 0..i): queries and keys are the same sequence here.
    auto row = g.virtual_tensor(scores, packed(scores), CUDNN_DATA_INT32);
    g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, s1, nullptr, nullptr, row, 2);
    auto col = g.virtual_tensor(scores, packed(scores), CUDNN_DATA_INT32);
    g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, s1, nullptr, nullptr, col, 3);
    auto keep = g.virtual_tensor(scores, packed(scores), CUDNN_DATA_BOOLEAN);
    g.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, col, nullptr, keep);
    // By value like the scale: the variant pack passes masked_score()'s host copy.
    auto inf = g.tensor(kMaskedScore, one, one, f32, false, /*by_value=*/true);
    auto masked = g.virtual_tensor(scores, packed(scores), f32);
    g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, s1, inf, keep, masked);
    s1 = masked;
  }
  auto max = g.virtual_tensor(rows, packed(rows), f32);
  g.reduction(CUDNN_REDUCE_TENSOR_MAX, s1, max);
  auto centred = g.virtual_tensor(scores, packed(scores), f32);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, s1, max, nullptr, centred);
  auto e = g.virtual_tensor(scores, packed(scores), f32);
  g.pointwise(CUDNN_POINTWISE_EXP, f32, centred, nullptr, nullptr, e);
  auto sum = g.virtual_tensor(rows, packed(rows), f32);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, e, sum);
  auto log_sum = g.virtual_tensor(rows, packed(rows), f32);
  g.pointwise(CUDNN_POINTWISE_LOG, f32, sum, nullptr, nullptr, log_sum);
  auto stats = g.virtual_tensor(rows, packed(rows), f32);
  g.pointwise(CUDNN_POINTWISE_ADD, f32, max, log_sum, nullptr, stats);
  auto p = g.virtual_tensor(scores, packed(scores), f16);
  g.pointwise(CUDNN_POINTWISE_DIV, f32, e, sum, nullptr, p);
  g.matmul(p, v, o);
}

// The engine configs heuristics `mode` offers for graph, best first. Throws CudnnError when
// the heuristics themselves decline the graph.
std::vector<Descriptor> engine_configs(cudnnBackendDescriptor_t graph, cudnnBackendHeurMode_t mode) {
  Descriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heur.set_desc(ATTNLAB_ATTR(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH), graph)
      .set(ATTNLAB_ATTR(CUDNN_ATTR_ENGINEHEUR_MODE), CUDNN_TYPE_HEUR_MODE, &mode)
      .finalize();
  std::int64_t count = 0;
  ATTNLAB_CUDNN_CHECK(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                               CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  std::vector<Descriptor> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < count; ++i) {
    configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(configs.back().get());
  }
  std::int64_t got = 0;
  if (count > 0)
    ATTNLAB_CUDNN_CHECK(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, raw.data()));
  while (std::int64_t(configs.size()) > got) configs.pop_back();
  return configs;
}

// cuDNN's global index of the engine behind an engine config: which kernel family ran.
std::int64_t engine_index(cudnnBackendDescriptor_t config) {
  Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t e = engine.get();
  std::int64_t n = 0, index = -1;
  ATTNLAB_CUDNN_CHECK(cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                               CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e));
  ATTNLAB_CUDNN_CHECK(cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                               &n, &index));
  return index;
}

// A variant pack for one set of buffers, with the host copy of the scale it points to.
struct Pack {
  float scale = 0;
  std::unique_ptr<Descriptor> desc;
};

// Everything one shape needs, built once by prepare() and kept until the process ends.
// The graph's operations, the chosen engine config and the plan keep pointing at one another's
// descriptors, so all of them live as long as the plan, as the frontend keeps them.
struct Plan {
  Handle handle;
  std::unique_ptr<GraphBuilder> ops;
  std::unique_ptr<Descriptor> graph;
  std::unique_ptr<Descriptor> engine_config;
  std::unique_ptr<Descriptor> plan;
  DeviceMemory workspace;
  float masked_score = 0;  // host value of the by-value mask scalar (causal only)
  bool causal = false;
  // Keyed by the buffers and the scale's bits: the harness launches one shape's buffers many
  // times, so the pack is built on the first launch and reused; building it touches host
  // memory only, so even a first launch under stream capture is safe.
  std::map<std::tuple<const void*, const void*, const void*, void*, std::uint32_t>, Pack> packs;
};

using PlanKey = std::tuple<int, int, int, int, int, bool>;
PlanKey plan_key(const Shape& s) { return {s.B, s.H, s.H_kv, s.S, s.D, s.causal}; }

struct PlanCache {
  std::mutex mutex;
  std::map<PlanKey, std::unique_ptr<Plan>> plans;
};

// Deliberately never destroyed, like phase 3b's: destructors running after the CUDA runtime
// has shut down at exit would free into a dead context.
PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache;
  return *cache;
}

std::string shape_text(const Shape& s) {
  return std::to_string(s.B) + "x" + std::to_string(s.H) + "x" + std::to_string(s.S) + "x" +
         std::to_string(s.D) + (s.causal ? ":causal" : "") +
         (s.H_kv != s.H ? ":hkv=" + std::to_string(s.H_kv) : "");
}

std::string version_text(std::size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

// The first engine config, in heuristics mode A's order and then the fallback mode's, whose
// execution plan finalizes. A graph or configuration no engine takes is a PhaseRefusal that
// carries cuDNN's first reason.
void choose_plan(Plan& plan, const Shape& s) {
  std::string first_reason;
  const auto note = [&](const std::string& why) {
    if (first_reason.empty()) first_reason = why;
  };
  const std::pair<cudnnBackendHeurMode_t, const char*> modes[] = {{CUDNN_HEUR_MODE_A, "A"},
                                                                  {CUDNN_HEUR_MODE_FALLBACK, "fallback"}};
  for (const auto& [mode, mode_name] : modes) {
    std::vector<Descriptor> configs;
    try {
      configs = engine_configs(plan.graph->get(), mode);
    } catch (const CudnnError& e) {
      if (!e.not_supported()) throw;  // a bad call of ours, not cuDNN declining
      note(e.what());
      continue;
    }
    for (std::size_t rank = 0; rank < configs.size(); ++rank) {
      auto candidate = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      cudnnHandle_t h = plan.handle.get();
      cudnnBackendDescriptor_t cfg = configs[rank].get();
      candidate->set(ATTNLAB_ATTR(CUDNN_ATTR_EXECUTION_PLAN_HANDLE), CUDNN_TYPE_HANDLE, &h)
          .set_desc(ATTNLAB_ATTR(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG), cfg);
      if (const cudnnStatus_t st = cudnnBackendFinalize(candidate->get()); st != CUDNN_STATUS_SUCCESS) {
        note(cudnn_error_message(st, "cudnnBackendFinalize(execution plan)", __FILE__, __LINE__,
                                 cudnn_last_error()));
        continue;
      }
      std::int64_t n = 0, workspace = 0;
      ATTNLAB_CUDNN_CHECK(cudnnBackendGetAttribute(candidate->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                   CUDNN_TYPE_INT64, 1, &n, &workspace));
      if (workspace > 0) {
        void* p = nullptr;
        ATTNLAB_CUDA_CHECK(cudaMalloc(&p, std::size_t(workspace)));
        plan.workspace.reset(p);
      }
      // Once per shape, outside every timed region: which engine ran is part of what a reader
      // of the run needs to interpret it.
      std::clog << "attnlab phase cudnn plan " << shape_text(s) << ": cuDNN "
                << version_text(cudnnGetVersion()) << ", engine " << engine_index(cfg)
                << " (heuristics mode " << mode_name << ", rank " << rank << " of " << configs.size()
                << "), workspace " << workspace << " B" << std::endl;
      plan.plan = std::move(candidate);
      plan.engine_config = std::make_unique<Descriptor>(std::move(configs[rank]));
      return;
    }
    if (configs.empty()) note(std::string("heuristics mode ") + mode_name + " offered no engine config");
  }
  throw PhaseRefusal("cuDNN " + version_text(cudnnGetVersion()) + " has no engine for shape " +
                     shape_text(s) + ": " + first_reason);
}

Plan& find_plan(const Shape& s) {
  PlanCache& cache = plan_cache();
  const auto it = cache.plans.find(plan_key(s));
  if (it == cache.plans.end())
    throw std::logic_error("phase cudnn: prepare() was not called for shape " + shape_text(s) +
                           " (launch never allocates)");
  return *it->second;
}

cudnnBackendDescriptor_t variant_pack(Plan& plan, const Problem& p) {
  std::uint32_t scale_bits = 0;
  std::memcpy(&scale_bits, &p.scale, sizeof scale_bits);
  const auto key = std::make_tuple(p.q, p.k, p.v, p.o, scale_bits);
  auto [it, fresh] = plan.packs.try_emplace(key);
  Pack& pack = it->second;
  if (!fresh) return pack.desc->get();
  pack.scale = p.scale;
  std::vector<std::int64_t> uids = {kQ, kK, kV, kO, kScale};
  std::vector<void*> ptrs = {const_cast<void*>(p.q), const_cast<void*>(p.k), const_cast<void*>(p.v),
                             p.o, &pack.scale};
  if (plan.causal) {
    uids.push_back(kMaskedScore);
    ptrs.push_back(&plan.masked_score);
  }
  void* workspace = plan.workspace.get();
  try {
    pack.desc = std::make_unique<Descriptor>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    pack.desc->set(ATTNLAB_ATTR(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS), CUDNN_TYPE_INT64, uids.data(),
                   std::int64_t(uids.size()))
        .set(ATTNLAB_ATTR(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS), CUDNN_TYPE_VOID_PTR, ptrs.data(),
             std::int64_t(ptrs.size()))
        .set(ATTNLAB_ATTR(CUDNN_ATTR_VARIANT_PACK_WORKSPACE), CUDNN_TYPE_VOID_PTR, &workspace)
        .finalize();
  } catch (...) {
    plan.packs.erase(it);  // no half-built pack stays behind for the next launch
    throw;
  }
  return pack.desc->get();
}

}  // namespace

void prepare(const Shape& s) {
  if (auto r = can_implement(s)) throw PhaseRefusal(*r);
  // cuDNN 9's libraries check this themselves for their sub-libraries; here it guards against
  // an RPATH or LD_LIBRARY_PATH that loads another major version than the headers describe.
  if (cudnnGetVersion() / 10000 != CUDNN_MAJOR)
    throw std::runtime_error("phase cudnn was built against cuDNN " + version_text(CUDNN_VERSION) +
                             " but loaded " + version_text(cudnnGetVersion()));
  PlanCache& cache = plan_cache();
  const std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.plans.count(plan_key(s))) return;

  auto plan = std::make_unique<Plan>();
  cudnnHandle_t raw = nullptr;
  ATTNLAB_CUDNN_CHECK(cudnnCreate(&raw));
  plan->handle.reset(raw);
  plan->causal = s.causal;
  plan->masked_score = masked_score();
  plan->ops = std::make_unique<GraphBuilder>(raw);
  build_sdpa(*plan->ops, s);
  try {
    plan->graph = std::make_unique<Descriptor>(plan->ops->finish());
  } catch (const CudnnError& e) {
    if (!e.not_supported()) throw;
    throw PhaseRefusal("cuDNN " + version_text(cudnnGetVersion()) + " declines the graph of shape " +
                       shape_text(s) + ": " + e.what());
  }
  choose_plan(*plan, s);
  cache.plans.emplace(plan_key(s), std::move(plan));
}

void launch(const Problem& p, cudaStream_t stream) {
  if (auto r = can_implement(p.shape)) throw std::invalid_argument(*r);
  cudnnHandle_t handle;
  cudnnBackendDescriptor_t exec, pack;
  {
    PlanCache& cache = plan_cache();
    const std::lock_guard<std::mutex> lock(cache.mutex);
    Plan& plan = find_plan(p.shape);
    handle = plan.handle.get();
    exec = plan.plan->get();
    pack = variant_pack(plan, p);
  }
  ATTNLAB_CUDNN_CHECK(cudnnSetStream(handle, stream));
  ATTNLAB_CUDNN_CHECK(cudnnBackendExecute(handle, exec, pack));
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
