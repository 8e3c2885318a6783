// The phase table, from the phases' own declarations (ATTNLAB_PHASE in kernels/phase_*,
// collected by cmake/AttnlabPhases.cmake), and the shape checks the phases share.
#include "kernels/registry.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/check.hpp"

namespace attnlab {

namespace {
std::vector<PhaseSource>& phase_sources() {
  static std::vector<PhaseSource> sources;
  return sources;
}
}  // namespace

bool add_phase_source(PhaseSource source) {
  phase_sources().push_back(source);
  return true;
}

const std::vector<Phase>& phases() {
  // Baselines last: they are the yardstick, and the progression lists them after ours.
  static const std::vector<Phase> table = [] {
    std::vector<Phase> t = declared_phases();
    for (PhaseSource source : phase_sources())
      for (Phase& p : source()) t.push_back(std::move(p));
    std::stable_partition(t.begin(), t.end(), [](const Phase& p) { return !p.baseline; });
    return t;
  }();
  return table;
}

int device_sm_count() {
  static const int sms = [] {
    int dev = 0, n = 0;
    ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
    ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  return sms;
}

const Phase* find_phase(std::string_view id) {
  const auto& t = phases();
  auto it = std::find_if(t.begin(), t.end(), [&](const Phase& p) { return id == p.id; });
  return it == t.end() ? nullptr : &*it;
}

const Phase& required_phase(std::string_view id, std::string_view by) {
  const Phase* p = find_phase(id);
  if (p == nullptr)
    throw std::logic_error("phase " + std::string(by) + " needs phase " + std::string(id) + " in the build");
  return *p;
}

namespace {
// The ids of the phases that `keep` accepts (every phase where it is null), joined by sep.
std::string ids_joined(const char* sep, bool (*keep)(const Phase&)) {
  std::string out;
  for (const auto& p : phases()) {
    if (keep && !keep(p)) continue;
    if (!out.empty()) out += sep;
    out += p.id;
  }
  return out;
}
}  // namespace

std::string phase_ids_joined(const char* sep) { return ids_joined(sep, nullptr); }

std::string instrumented_phase_ids(const char* sep) {
  return ids_joined(sep, [](const Phase& p) { return p.launch_timeline && p.warp_role; });
}

std::string lse_phase_ids(const char* sep) {
  return ids_joined(sep, [](const Phase& p) { return p.emits_lse && !is_backward(p); });
}

Refusal common_shape_refusal(const Shape& s) {
  if (s.B < 1 || s.H < 1 || s.H_kv < 1 || s.S < 1 || s.D < 1)
    return "every dimension must be at least 1";
  if (s.H % s.H_kv != 0)
    return "H (" + std::to_string(s.H) + ") must be a multiple of H_kv (" +
           std::to_string(s.H_kv) + ")";
  return std::nullopt;
}

Refusal fp16_head_dim_refusal(const Shape& s, const std::string& phase) {
  if (auto r = common_shape_refusal(s)) return r;
  if (s.D != 64 && s.D != 128) return phase + " supports head dim 64 and 128 only";
  if (s.dtype != DType::f16) return "bf16 not implemented by " + phase;
  return std::nullopt;
}

Refusal query_tiled_refusal(const Shape& s, const std::string& phase) {
  if (auto r = fp16_head_dim_refusal(s, phase)) return r;
  constexpr std::int64_t kMaxGridY = 65535;
  if (std::int64_t(s.B) * s.H > kMaxGridY) return "B*H exceeds the grid's 65535 y-blocks";
  return std::nullopt;
}

std::size_t workspace_bytes(const Phase& p, const Shape& s) {
  const WorkspaceBytesFn f = is_backward(p) ? p.backward_workspace_bytes : p.workspace_bytes;
  return f ? f(s) : 0;
}

bool is_backward(const Phase& p) { return p.direction == Direction::kBackward; }

Refusal device_refusal(const Phase& p, int cc_major, int cc_minor) {
  const int cc = cc_major * 10 + cc_minor;
  // sm_90a code runs only on compute capability 9.0 exactly: arch-specific features such as
  // wgmma are not forward compatible.
  if (p.required_cc == 90 && cc != 90)
    return std::string("phase ") + p.id + " uses Hopper-only instructions (sm_90a) and needs a " +
           "compute capability 9.0 GPU; this one is " + std::to_string(cc_major) + "." +
           std::to_string(cc_minor);
  return std::nullopt;
}

}  // namespace attnlab
