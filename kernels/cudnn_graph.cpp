// Shared pieces of the cuDNN baseline phases' graphs (kernels/cudnn_graph.hpp); empty in a
// build without cuDNN.
#if ATTNLAB_HAVE_CUDNN
#include "kernels/cudnn_graph.hpp"

#include <cudnn_version.h>

#include <cstring>
#include <iostream>
#include <limits>
#include <stdexcept>

#include "common/check.hpp"
#include "kernels/registry.hpp"

namespace attnlab::cudnn_graph {

Dims packed(const Dims& d) {
  Dims s(d.size(), 1);
  for (std::size_t i = d.size() - 1; i > 0; --i) s[i - 1] = s[i] * d[i];
  return s;
}

float masked_score() {
  return cudnnGetVersion() < 91000 ? std::numeric_limits<float>::lowest()
                                   : -std::numeric_limits<float>::infinity();
}

cudnnBackendDescriptor_t causal_mask(GraphBuilder& g, const Shape& s, cudnnBackendDescriptor_t scores,
                                     std::int64_t masked_score_uid) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const Dims all{s.B, s.H, s.S, s.S}, one{1, 1, 1, 1};
  // Top-left aligned (row i sees keys 0..i): queries and keys are the same sequence here.
  auto row = g.virtual_tensor(all, packed(all), CUDNN_DATA_INT32);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, scores, nullptr, nullptr, row, 2);
  auto col = g.virtual_tensor(all, packed(all), CUDNN_DATA_INT32);
  g.pointwise(CUDNN_POINTWISE_GEN_INDEX, f32, scores, nullptr, nullptr, col, 3);
  auto keep = g.virtual_tensor(all, packed(all), CUDNN_DATA_BOOLEAN);
  g.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, col, nullptr, keep);
  // By value like the softmax scale: the variant pack passes masked_score()'s host copy.
  auto inf = g.tensor(masked_score_uid, one, one, f32, false, /*by_value=*/true);
  auto masked = g.virtual_tensor(all, packed(all), f32);
  g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, scores, inf, keep, masked);
  return masked;
}

cudnnBackendDescriptor_t masked_softmax(GraphBuilder& g, const Shape& s, cudnnBackendDescriptor_t scores,
                                        std::int64_t masked_score_uid, cudnnDataType_t p_type) {
  const std::int64_t B = s.B, H = s.H, S = s.S;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const Dims all{B, H, S, S}, rows{B, H, S, 1};
  if (s.causal) scores = causal_mask(g, s, scores, masked_score_uid);
  auto max = g.virtual_tensor(rows, packed(rows), f32);
  g.reduction(CUDNN_REDUCE_TENSOR_MAX, scores, max);
  auto centred = g.virtual_tensor(all, packed(all), f32);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, scores, max, nullptr, centred);
  auto e = g.virtual_tensor(all, packed(all), f32);
  g.pointwise(CUDNN_POINTWISE_EXP, f32, centred, nullptr, nullptr, e);
  auto sum = g.virtual_tensor(rows, packed(rows), f32);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, e, sum);
  // stats = m + log(l), virtual: the frontend builds it even for inference, and the engines'
  // pattern includes it; nothing is written.
  auto log_sum = g.virtual_tensor(rows, packed(rows), f32);
  g.pointwise(CUDNN_POINTWISE_LOG, f32, sum, nullptr, nullptr, log_sum);
  auto stats = g.virtual_tensor(rows, packed(rows), f32);
  g.pointwise(CUDNN_POINTWISE_ADD, f32, max, log_sum, nullptr, stats);
  auto p = g.virtual_tensor(all, packed(all), p_type);
  g.pointwise(CUDNN_POINTWISE_DIV, f32, e, sum, nullptr, p);
  return p;
}

std::string version_text(std::size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::string shape_text(const Shape& s) {
  return std::to_string(s.B) + "x" + std::to_string(s.H) + "x" + std::to_string(s.S) + "x" +
         std::to_string(s.D) + (s.causal ? ":causal" : "") +
         (s.H_kv != s.H ? ":hkv=" + std::to_string(s.H_kv) : "");
}

std::string loaded_version_problem(std::size_t loaded, std::size_t header) {
  // cuDNN runs programs built against its own or an earlier release of the same major version,
  // not a later one: on an older library a graph planned from newer headers can run and write
  // garbage (kernels/NOTES.md, "FP8: phase f8": f8d against cuDNN's FP8 SDPA, judged).
  const std::string both = "was built against cuDNN " + version_text(header) + " but loaded " + version_text(loaded);
  if (loaded / 10000 != header / 10000) return both;
  if (loaded < header)
    return both + ", an older release than its headers: put " + version_text(header) +
           " or a later 9.x first on the library path";
  return "";
}

void check_loaded_version(const char* phase) {
  const std::string problem = loaded_version_problem(cudnnGetVersion(), CUDNN_VERSION);
  if (!problem.empty()) throw std::runtime_error(std::string("phase ") + phase + " " + problem);
}

namespace {

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

// The first engine config, in heuristics mode A's order and then the fallback mode's, whose
// execution plan finalizes. A graph or configuration no engine takes is a PhaseRefusal that
// carries cuDNN's first reason.
void choose_plan(const char* phase, Plan& plan, const Shape& s) {
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
      std::clog << "attnlab phase " << phase << " plan " << shape_text(s) << ": cuDNN "
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

}  // namespace

Plan finish_plan(const char* phase, const Shape& s, Plan plan) {
  try {
    plan.graph = std::make_unique<Descriptor>(plan.ops->finish());
  } catch (const CudnnError& e) {
    if (!e.not_supported()) throw;
    throw PhaseRefusal("cuDNN " + version_text(cudnnGetVersion()) + " declines the graph of shape " +
                       shape_text(s) + ": " + e.what());
  }
  choose_plan(phase, plan, s);
  return plan;
}

Descriptor variant_pack(const std::vector<std::int64_t>& uids, const std::vector<void*>& ptrs,
                        void* workspace) {
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack.set(ATTNLAB_ATTR(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS), CUDNN_TYPE_INT64, uids.data(),
           std::int64_t(uids.size()))
      .set(ATTNLAB_ATTR(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS), CUDNN_TYPE_VOID_PTR, ptrs.data(),
           std::int64_t(ptrs.size()))
      .set(ATTNLAB_ATTR(CUDNN_ATTR_VARIANT_PACK_WORKSPACE), CUDNN_TYPE_VOID_PTR, &workspace)
      .finalize();
  return pack;
}

void execute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t pack,
             cudaStream_t stream) {
  ATTNLAB_CUDNN_CHECK(cudnnSetStream(handle, stream));
  ATTNLAB_CUDNN_CHECK(cudnnBackendExecute(handle, plan, pack));
}

ShapePlan& PlanCache::find(const Shape& s) {
  const auto it = plans_.find(key(s));
  if (it == plans_.end())
    throw std::logic_error(std::string("phase ") + phase_ + ": prepare() was not called for shape " +
                           shape_text(s) + " (launch never allocates)");
  return *it->second;
}

cudnnBackendDescriptor_t PlanCache::pack(ShapePlan& plan, const Bindings& b) {
  std::vector<const void*> buffers;
  for (const auto& [uid, ptr] : b.buffers) buffers.push_back(ptr);
  std::uint32_t scale_bits = 0;
  std::memcpy(&scale_bits, &b.scale, sizeof scale_bits);
  auto [it, fresh] = plan.packs.try_emplace({std::move(buffers), scale_bits});
  ShapePlan::Pack& pack = it->second;
  if (!fresh) return pack.desc->get();
  pack.scale = b.scale;
  std::vector<std::int64_t> uids;
  std::vector<void*> ptrs;
  const auto bind = [&](std::int64_t uid, void* ptr) {
    uids.push_back(uid);
    ptrs.push_back(ptr);
  };
  for (const auto& [uid, ptr] : b.buffers) bind(uid, ptr);
  bind(b.scale_uid, &pack.scale);
  for (const auto& [uid, ptr] : plan.fixed) bind(uid, ptr);
  if (plan.causal) bind(plan.masked_score_uid, &plan.masked_score);
  try {
    pack.desc = std::make_unique<Descriptor>(variant_pack(uids, ptrs, plan.plan.workspace.get()));
  } catch (...) {
    plan.packs.erase(it);  // no half-built pack stays behind for the next launch
    throw;
  }
  return pack.desc->get();
}

void PlanCache::launch(const Shape& s, const Bindings& b, cudaStream_t stream) {
  cudnnHandle_t handle;
  cudnnBackendDescriptor_t exec, pack;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    ShapePlan& plan = find(s);
    handle = plan.plan.handle.get();
    exec = plan.plan.plan->get();
    pack = this->pack(plan, b);
  }
  execute(handle, exec, pack, stream);
}

}  // namespace attnlab::cudnn_graph

#endif  // ATTNLAB_HAVE_CUDNN
