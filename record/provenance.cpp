#include "record/provenance.hpp"

#include <algorithm>
#include <cstdio>

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

std::string gpu_uuid_string(const unsigned char (&bytes)[16]) {
  std::string u = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", bytes[i]);
    u += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) u += "-";
  }
  return u;
}

GpuIdentity gpu_identity(const GpuAttributes& a) {
  GpuIdentity g;
  g.name = a.name;
  g.uuid = gpu_uuid_string(a.uuid);
  g.compute_capability = std::to_string(a.cc_major) + "." + std::to_string(a.cc_minor);
  g.sm_count = a.sm_count;
  g.sm_clock_mhz = static_cast<int>(a.sm_clock_khz / 1000);
  g.mem_clock_mhz = static_cast<int>(a.mem_clock_khz / 1000);
  g.l2_bytes = a.l2_bytes;
  g.global_mem_bytes = a.global_mem_bytes;
  g.smem_per_sm_bytes = a.smem_per_sm_bytes;
  g.peak_dram_gbps = 2.0 * a.mem_clock_khz * 1e3 * (a.bus_width_bits / 8.0) / 1e9;
  return g;
}

ordered_json to_json(const GpuIdentity& g) {
  ordered_json j;
  j["name"] = g.name;
  j["uuid"] = g.uuid;
  j["compute_capability"] = g.compute_capability;
  j["sm_count"] = g.sm_count;
  j["sm_clock_mhz"] = g.sm_clock_mhz;
  j["mem_clock_mhz"] = g.mem_clock_mhz;
  j["l2_bytes"] = g.l2_bytes;
  j["global_mem_bytes"] = g.global_mem_bytes;
  j["smem_per_sm_bytes"] = g.smem_per_sm_bytes;
  j["peak_dram_gbps"] = g.peak_dram_gbps;
  return j;
}

namespace {

// A PyTorch run's build and versions (Provenance::torch).
void put_torch_build(ordered_json& j, const ToolVersions& v, const TorchVersions& t) {
  j["build"] = {{"type", "pytorch"}, {"cuda_architectures", nullptr}, {"cuda_flags", nullptr},
                {"cxx_flags", nullptr}, {"cxx_compiler", nullptr}};
  j["versions"] = {{"nvcc", nullptr},        {"driver", v.driver},
                   {"runtime", v.runtime},   {"cupti", nullptr},
                   {"torch", t.torch},       {"torch_cuda", t.torch_cuda},
                   {"cudnn", v.cudnn ? ordered_json(*v.cudnn) : ordered_json()}};
}

}  // namespace

ordered_json to_json(const Provenance& p) {
  ordered_json j;
  j["git"] = {{"commit", p.git.commit}, {"dirty", p.git.dirty}};
  j["argv"] = p.argv;
  if (p.torch) {
    put_torch_build(j, p.versions, *p.torch);
  } else {
    j["build"] = {{"type", p.build.type},
                  {"cuda_architectures", p.build.cuda_architectures},
                  {"cuda_flags", p.build.cuda_flags},
                  {"cxx_flags", p.build.cxx_flags},
                  {"cxx_compiler", p.build.cxx_compiler}};
    j["versions"] = {{"nvcc", p.versions.nvcc},
                     {"driver", p.versions.driver},
                     {"runtime", p.versions.runtime},
                     {"cupti", p.versions.cupti}};
    if (p.versions.cudnn) j["versions"]["cudnn"] = *p.versions.cudnn;
    if (p.versions.cudnn_header) j["versions"]["cudnn_header"] = *p.versions.cudnn_header;
  }
  j["gpu"] = to_json(p.gpu);
  j["seed"] = p.seed;
  // The baseline's records hold the sweep before the inputs and the host, the harness's after
  // the host: the order of the committed records, which the writer keeps.
  if (p.torch && !p.sweep_id.empty()) j["sweep_id"] = p.sweep_id;
  if (!p.inputs.empty()) j["inputs"] = p.inputs;
  j["host"] = p.host;
  if (!p.torch && !p.sweep_id.empty()) j["sweep_id"] = p.sweep_id;
  return j;
}

SamplingOptions sampling_options(const TimingRequest& t) {
  SamplingOptions o;
  for (Regime r : t.regimes) o.regimes.push_back(regime_name(r));
  o.check_only = t.check_only;
  o.min_samples = t.rule.min_samples;
  o.max_samples = t.rule.max_samples;
  o.noise_target_pct = t.rule.noise_target_pct;
  o.max_seconds = t.rule.max_seconds;
  const std::optional<Regime> h = t.headline();
  o.headline_regime = h ? regime_name(*h) : "";
  return o;
}

std::string SamplingOptions::headline() const {
  if (headline_regime) return *headline_regime;
  return check_only ? "" : attnlab::headline_regime(regimes);
}

ordered_json to_json(const SamplingOptions& o) {
  ordered_json j = {{"regimes", o.regimes}, {"check_only", o.check_only}};
  if (o.headline_regime)
    j["headline_regime"] = o.headline_regime->empty() ? ordered_json() : ordered_json(*o.headline_regime);
  j["stopping_rule"] = {{"min_samples", o.min_samples},
                        {"max_samples", o.max_samples},
                        {"noise_target_pct", o.noise_target_pct},
                        {"max_seconds", o.max_seconds}};
  return j;
}

ordered_json to_json(const RecordedOptions& o) {
  ordered_json j = to_json(static_cast<const SamplingOptions&>(o));
  if (o.backend) {
    j["backend"] = *o.backend;
    return j;
  }
  j["metrics"] = o.metrics;
  j["throttled"] = o.throttled;
  j["inputs"] = o.inputs;
  j["profile_launch"] = o.profile_launch;
  return j;
}

ordered_json shape_to_json(const Shape& s, double scale) {
  return {{"B", s.B},           {"H", s.H},         {"H_kv", s.H_kv},
          {"S", s.S},           {"D", s.D},         {"causal", s.causal},
          {"dtype", dtype_name(s.dtype)}, {"scale", scale}};
}

GpuIdentity read_gpu_identity(const ordered_json& root, const std::string& b) {
  GpuIdentity g;
  g.name = string_at(root, b + "/name");
  g.uuid = string_at(root, b + "/uuid");
  g.compute_capability = string_at(root, b + "/compute_capability");
  g.sm_count = value_at<int>(root, b + "/sm_count");
  g.sm_clock_mhz = value_at<int>(root, b + "/sm_clock_mhz");
  g.mem_clock_mhz = value_at<int>(root, b + "/mem_clock_mhz");
  g.l2_bytes = value_at<long long>(root, b + "/l2_bytes");
  g.global_mem_bytes = value_at<unsigned long long>(root, b + "/global_mem_bytes");
  g.smem_per_sm_bytes = value_at<unsigned long long>(root, b + "/smem_per_sm_bytes");
  g.peak_dram_gbps = number_at(root, b + "/peak_dram_gbps");
  return g;
}

Provenance read_provenance(const ordered_json& root, const std::string& b) {
  Provenance p;
  p.git = {string_at(root, b + "/git/commit"), bool_at(root, b + "/git/dirty")};
  p.argv = value_at<std::vector<std::string>>(root, b + "/argv");
  if (find(root, b + "/versions/torch")) {
    p.torch = TorchVersions{string_at(root, b + "/versions/torch"), string_at(root, b + "/versions/torch_cuda")};
  } else {
    p.build = {string_at(root, b + "/build/type"), string_at(root, b + "/build/cuda_architectures"),
               string_at(root, b + "/build/cuda_flags"), string_at(root, b + "/build/cxx_flags"),
               string_at(root, b + "/build/cxx_compiler")};
    p.versions.nvcc = string_at(root, b + "/versions/nvcc");
    p.versions.cupti = value_at<std::uint32_t>(root, b + "/versions/cupti");
    p.versions.cudnn_header = value_or_null_at<long long>(root, b + "/versions/cudnn_header");
  }
  p.versions.driver = value_at<int>(root, b + "/versions/driver");
  p.versions.runtime = value_at<int>(root, b + "/versions/runtime");
  p.versions.cudnn = value_or_null_at<long long>(root, b + "/versions/cudnn");
  p.gpu = read_gpu_identity(root, b + "/gpu");
  p.seed = value_at<std::uint64_t>(root, b + "/seed");
  p.inputs = optional_string_at(root, b + "/inputs").value_or("");
  p.host = string_at(root, b + "/host");
  p.sweep_id = optional_string_at(root, b + "/sweep_id").value_or("");
  return p;
}

namespace {

SamplingOptions read_sampling_options(const ordered_json& root, const std::string& b) {
  SamplingOptions o;
  o.regimes = value_at<std::vector<std::string>>(root, b + "/regimes");
  o.check_only = bool_at(root, b + "/check_only");
  o.min_samples = value_at<std::size_t>(root, b + "/stopping_rule/min_samples");
  o.max_samples = value_at<std::size_t>(root, b + "/stopping_rule/max_samples");
  o.noise_target_pct = number_at(root, b + "/stopping_rule/noise_target_pct");
  o.max_seconds = number_at(root, b + "/stopping_rule/max_seconds");
  if (find(root, b + "/headline_regime"))
    o.headline_regime = value_or_null_at<std::string>(root, b + "/headline_regime").value_or("");
  for (const std::string& r : o.regimes) {
    try {
      parse_regime(r);
    } catch (const std::invalid_argument& e) {
      throw FieldError(b + "/regimes: " + e.what());
    }
  }
  if (const std::string h = o.headline(); !h.empty() && std::find(o.regimes.begin(), o.regimes.end(), h) == o.regimes.end())
    throw FieldError(b + "/headline_regime names '" + h + "', which is not in " + b + "/regimes");
  return o;
}

}  // namespace

RecordedOptions read_recorded_options(const ordered_json& root, const std::string& b) {
  RecordedOptions o;
  static_cast<SamplingOptions&>(o) = read_sampling_options(root, b);
  if (find(root, b + "/backend")) {
    o.backend = string_at(root, b + "/backend");
    return o;
  }
  o.metrics = optional_string_at(root, b + "/metrics").value_or("");
  o.throttled = optional_string_at(root, b + "/throttled").value_or("");
  o.inputs = optional_string_at(root, b + "/inputs").value_or("");
  o.profile_launch = value_or_null_at<bool>(root, b + "/profile_launch").value_or(false);
  return o;
}

Shape read_shape(const ordered_json& root, const std::string& b, double* scale) {
  Shape s;
  s.B = value_at<int>(root, b + "/B");
  s.H = value_at<int>(root, b + "/H");
  s.H_kv = value_at<int>(root, b + "/H_kv");
  s.S = value_at<int>(root, b + "/S");
  s.D = value_at<int>(root, b + "/D");
  s.causal = bool_at(root, b + "/causal");
  const std::string dtype = string_at(root, b + "/dtype");
  if (dtype != dtype_name(DType::f16) && dtype != dtype_name(DType::bf16))
    throw FieldError(type_problem(b + "/dtype", "fp16 or bf16"));
  s.dtype = dtype == dtype_name(DType::f16) ? DType::f16 : DType::bf16;
  if (scale) *scale = number_at(root, b + "/scale");
  return s;
}

}  // namespace attnlab
