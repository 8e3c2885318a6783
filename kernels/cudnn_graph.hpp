// The pieces of a cuDNN backend-API attention graph that the cuDNN baseline phases share
// (kernels/phase_cudnn.cpp: fp16; kernels/phase_cudnn_fp8.cpp: e4m3): owned descriptors, a
// graph builder, the causal mask and softmax both graphs run, the choice of an execution plan
// and its refusal with cuDNN's reason, and a variant pack. Host C++, only in a build with cuDNN.
#pragma once

#include <cudnn_backend.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/shape.hpp"
#include "kernels/cudnn_check.hpp"

namespace attnlab::cudnn_graph {

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

using Dims = std::vector<std::int64_t>;

// The uids of virtual tensors start here; a graph numbers its bound tensors below it.
constexpr std::int64_t kFirstVirtualUid = 100;

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

  // y = x seen with y's dimensions and strides (a transpose of the last two axes, for the
  // backward's P^T and dS^T and K).
  void reshape(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    Descriptor op(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    op.set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_RESHAPE_XDESC), x)
        .set_desc(ATTNLAB_ATTR(CUDNN_ATTR_OPERATION_RESHAPE_YDESC), y)
        .finalize();
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
  std::int64_t next_virtual_ = kFirstVirtualUid;
  std::vector<Descriptor> owned_;  // tensors and operator descriptors the ops point to
  std::vector<Descriptor> ops_;    // in topological order, as the graph lists them
};

// Contiguous strides of dims, innermost last.
Dims packed(const Dims& d);

// The masked score's host value: cuDNN before 9.10 wants the most negative finite float (the
// frontend's get_negative_inf_value), later versions -inf.
float masked_score();

// The causal mask of the [B, H, S, S] fp32 scores, top-left aligned (row i keeps keys 0..i),
// the masked score by value under uid masked_score_uid; returns the masked virtual scores.
cudnnBackendDescriptor_t causal_mask(GraphBuilder& g, const Shape& s, cudnnBackendDescriptor_t scores,
                                     std::int64_t masked_score_uid);

// The causal mask (when s.causal; its by-value masked score bound to uid masked_score_uid) and
// the softmax of the [B, H, S, S] fp32 scores, as the frontend's SDPA node builds them; returns
// the virtual P, of type p_type.
cudnnBackendDescriptor_t masked_softmax(GraphBuilder& g, const Shape& s, cudnnBackendDescriptor_t scores,
                                        std::int64_t masked_score_uid, cudnnDataType_t p_type);

// "9.19.0" of cudnnGetVersion()'s 91900.
std::string version_text(std::size_t v);
// The shape as a plan's log line and a refusal name it: "4x16x4096x128:causal:hkv=2".
std::string shape_text(const Shape& s);

// What is wrong with running on cuDNN `loaded` (cudnnGetVersion()'s number) a program built
// against the headers of `header` (CUDNN_VERSION): another major version, or an older release
// than the headers'; empty when nothing is.
std::string loaded_version_problem(std::size_t loaded, std::size_t header);
// Throws std::runtime_error with loaded_version_problem's text where there is one (an RPATH or
// LD_LIBRARY_PATH that loads another cuDNN than the headers describe); `phase` names the caller.
void check_loaded_version(const char* phase);

// One shape's graph and execution plan, with everything they point at. The graph's operations,
// the chosen engine config and the plan keep pointing at one another's descriptors, so all of
// them live as long as the plan, as the frontend keeps them.
struct Plan {
  Handle handle;
  std::unique_ptr<GraphBuilder> ops;
  std::unique_ptr<Descriptor> graph;
  std::unique_ptr<Descriptor> engine_config;
  std::unique_ptr<Descriptor> plan;
  DeviceMemory workspace;
};

// Builds the graph `build` adds to a fresh builder and picks its plan: the first engine config,
// in heuristics mode A's order and then the fallback mode's, whose execution plan finalizes
// (logged once to std::clog with `phase`'s name, cuDNN's version and the engine). A graph or
// configuration cuDNN declines throws PhaseRefusal with cuDNN's first reason.
template <class Build>
Plan make_plan(const char* phase, const Shape& s, Build&& build);
Plan finish_plan(const char* phase, const Shape& s, Plan plan);

// The variant pack of one launch: the tensors' uids, their pointers (device buffers, or host
// scalars of by-value tensors) and the plan's workspace.
Descriptor variant_pack(const std::vector<std::int64_t>& uids, const std::vector<void*>& ptrs,
                        void* workspace);

// Runs the plan on the stream with the pack: cuDNN enqueues and never synchronises.
void execute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t pack,
             cudaStream_t stream);

// What one launch binds: its device buffers by uid and the by-value softmax scale.
struct Bindings {
  std::vector<std::pair<std::int64_t, void*>> buffers;
  std::int64_t scale_uid = 0;
  float scale = 0;
};

// One shape's plan and what its launches bind besides their own buffers.
struct ShapePlan {
  Plan plan;
  DeviceMemory scalars;  // device scalars a graph reads (the FP8 graph's); null where none
  // Bound by every launch: those device scalars, and the host values of by-value constants
  // (the backward's 1 of softmax_sum's MUL).
  std::vector<std::pair<std::int64_t, void*>> fixed;
  std::int64_t masked_score_uid = 0;  // causal only: the by-value masked score
  float masked_score = 0;
  bool causal = false;
  // A variant pack per set of buffers and scale, with the host copy of the scale it points to:
  // the harness launches one shape's buffers many times, so the pack is built on the first
  // launch and reused; building it touches host memory only, so even a first launch under
  // stream capture is safe.
  struct Pack {
    float scale = 0;
    std::unique_ptr<Descriptor> desc;
  };
  std::map<std::pair<std::vector<const void*>, std::uint32_t>, Pack> packs;
};

// A phase's plans, one per shape, built by prepare() outside every timed region and kept until
// the process ends (its owner never destroys it: destructors after the CUDA runtime's shutdown at
// exit would free into a dead context). launch() allocates nothing and never synchronises, so it
// is capturable in a CUDA graph once its engine has run.
class PlanCache {
 public:
  explicit PlanCache(const char* phase) : phase_(phase) {}
  // Builds shape s's plan once: `build` adds the graph (make_plan), then `setup` may add device
  // scalars to the fresh ShapePlan. masked_score_uid: the causal mask's by-value scalar.
  template <class Build, class Setup>
  void prepare(const Shape& s, std::int64_t masked_score_uid, Build&& build, Setup&& setup);
  // Enqueues shape s's plan with these bindings; std::logic_error where prepare() was not called.
  void launch(const Shape& s, const Bindings& b, cudaStream_t stream);

 private:
  using Key = std::tuple<int, int, int, int, int, bool>;
  static Key key(const Shape& s) { return {s.B, s.H, s.H_kv, s.S, s.D, s.causal}; }
  ShapePlan& find(const Shape& s);
  cudnnBackendDescriptor_t pack(ShapePlan& plan, const Bindings& b);

  const char* phase_;
  std::mutex mutex_;
  std::map<Key, std::unique_ptr<ShapePlan>> plans_;
};

template <class Build>
Plan make_plan(const char* phase, const Shape& s, Build&& build) {
  Plan plan;
  cudnnHandle_t raw = nullptr;
  ATTNLAB_CUDNN_CHECK(cudnnCreate(&raw));
  plan.handle.reset(raw);
  plan.ops = std::make_unique<GraphBuilder>(raw);
  build(*plan.ops);
  return finish_plan(phase, s, std::move(plan));
}

template <class Build, class Setup>
void PlanCache::prepare(const Shape& s, std::int64_t masked_score_uid, Build&& build, Setup&& setup) {
  check_loaded_version(phase_);
  const std::lock_guard<std::mutex> lock(mutex_);
  if (plans_.count(key(s))) return;
  auto plan = std::make_unique<ShapePlan>();
  plan->causal = s.causal;
  plan->masked_score_uid = masked_score_uid;
  plan->masked_score = masked_score();
  plan->plan = make_plan(phase_, s, build);
  setup(*plan);
  plans_.emplace(key(s), std::move(plan));
}

}  // namespace attnlab::cudnn_graph
