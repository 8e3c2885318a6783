// The SDPA baseline's record: its JSON mapping and reader (record/sdpa.hpp).
#include "record/sdpa.hpp"

#include "common/shapes.hpp"
#include "record/fields.hpp"
#include "record/record.hpp"

namespace attnlab {

using nlohmann::ordered_json;

namespace {

constexpr const char* kSkipped = "backend unavailable for this shape";

ordered_json provenance_json(const SdpaProvenance& p) {
  ordered_json j;
  j["git"] = {{"commit", p.git.commit}, {"dirty", p.git.dirty}};
  j["argv"] = p.argv;
  j["build"] = {{"type", "pytorch"}, {"cuda_architectures", nullptr}, {"cuda_flags", nullptr},
                {"cxx_flags", nullptr}, {"cxx_compiler", nullptr}};
  const SdpaVersions& v = p.versions;
  j["versions"] = {{"nvcc", nullptr},         {"driver", v.driver},
                   {"runtime", v.runtime},    {"cupti", nullptr},
                   {"torch", v.torch},        {"torch_cuda", v.torch_cuda},
                   {"cudnn", v.cudnn ? ordered_json(*v.cudnn) : ordered_json()}};
  j["gpu"] = to_json(p.gpu);
  j["seed"] = p.seed;
  if (!p.sweep_id.empty()) j["sweep_id"] = p.sweep_id;
  j["inputs"] = p.inputs;
  j["host"] = p.host;
  return j;
}

ordered_json options_json(const SdpaOptions& o) {
  ordered_json j = to_json(static_cast<const SamplingOptions&>(o));
  j["backend"] = o.backend;
  return j;
}

const RegimeTiming* headline(const SdpaResult& r) {
  for (const auto& [name, t] : r.timing)
    if (name == r.headline_regime) return &t;
  return nullptr;
}

ordered_json result_json(const SdpaResult& r) {
  ordered_json j;
  j["name"] = shape_name(r.shape);
  j["shape"] = shape_to_json(r.shape, r.scale);
  j["flops"] = r.shape.flops();
  j["min_bytes"] = r.shape.min_bytes();
  const bool available = r.unavailable_reason.empty();
  j["available"] = available;
  if (!available) {
    j["unavailable_reason"] = r.unavailable_reason;
    j["correctness"] = {{"passed", nullptr}, {"max_abs_err", nullptr}, {"max_rel_err", nullptr},
                        {"rows_checked", 0}, {"skipped", kSkipped}};
  } else {
    j["correctness"] = to_json(r.correctness);
  }
  const RegimeTiming* h = available ? headline(r) : nullptr;
  j["timing"] = h ? ordered_json::object() : ordered_json();
  if (h)
    for (const auto& [name, t] : r.timing) j["timing"][name] = to_json(t);
  j["headline_regime"] = h ? ordered_json(r.headline_regime) : ordered_json();
  j["tflops"] = h ? ordered_json(h->tflops) : ordered_json();
  j["dram_gbps_min_bytes"] = h ? ordered_json(h->dram_gbps_min_bytes) : ordered_json();
  if (h && r.kernels) {
    j["kernels"] = ordered_json::array();
    for (const KernelShare& k : *r.kernels) j["kernels"].push_back(to_json(k));
  }
  return j;
}

SdpaProvenance read_provenance_block(const ordered_json& root, const std::string& b) {
  SdpaProvenance p;
  p.git = {string_at(root, b + "/git/commit"), bool_at(root, b + "/git/dirty")};
  p.argv = value_at<std::vector<std::string>>(root, b + "/argv");
  p.versions.driver = value_at<int>(root, b + "/versions/driver");
  p.versions.runtime = value_at<int>(root, b + "/versions/runtime");
  p.versions.torch = string_at(root, b + "/versions/torch");
  p.versions.torch_cuda = string_at(root, b + "/versions/torch_cuda");
  p.versions.cudnn = value_or_null_at<long long>(root, b + "/versions/cudnn");
  p.gpu = read_gpu_identity(root, b + "/gpu");
  p.seed = value_at<std::uint64_t>(root, b + "/seed");
  p.sweep_id = optional_string_at(root, b + "/sweep_id").value_or("");
  p.inputs = string_at(root, b + "/inputs");
  p.host = string_at(root, b + "/host");
  return p;
}

SdpaResult read_result(const ordered_json& root, const std::string& b) {
  SdpaResult r;
  r.shape = read_shape(root, b + "/shape", &r.scale);
  if (!bool_at(root, b + "/available")) {
    r.unavailable_reason = string_at(root, b + "/unavailable_reason");
    return r;
  }
  r.correctness = read_correctness(root, b + "/correctness");
  if (const ordered_json* t = find(root, b + "/timing"); t && t->is_object()) {
    for (const auto& [name, block] : t->items())
      r.timing.emplace_back(name, read_regime_timing(root, b + "/timing/" + name));
    r.headline_regime = string_at(root, b + "/headline_regime");
  }
  if (find(root, b + "/kernels")) r.kernels = read_kernel_shares(root, b + "/kernels");
  return r;
}

}  // namespace

ordered_json to_json(const SdpaRunRecord& r) {
  ordered_json j;
  j["schema"] = kRunSchema;
  j["phase"] = r.phase;
  j["status"] = r.status;
  j["experiment"] = to_json(r.experiment);
  j["claims"] = ordered_json::array();
  j["started_utc"] = r.started_utc;
  j["provenance"] = provenance_json(r.provenance);
  j["options"] = options_json(r.options);
  j["results"] = ordered_json::array();
  std::vector<std::string> unavailable;
  for (const SdpaResult& e : r.results) {
    j["results"].push_back(result_json(e));
    if (!e.unavailable_reason.empty()) unavailable.push_back(shape_name(e.shape));
  }
  if (r.error) j["error"] = *r.error;
  if (!unavailable.empty()) j["unavailable_shapes"] = unavailable;
  return j;
}

void write_sdpa_record(const std::filesystem::path& file, const SdpaRunRecord& r) {
  write_json_atomically(file, to_json(r));
}

SdpaRunRecord read_sdpa_record(const ordered_json& j) {
  if (j.value("schema", "") != kRunSchema) throw FieldError(type_problem("/schema", kRunSchema));
  SdpaRunRecord r;
  r.phase = string_at(j, "/phase");
  r.status = string_at(j, "/status");
  r.experiment = read_experiment(j, "/experiment");
  r.started_utc = string_at(j, "/started_utc");
  r.provenance = read_provenance_block(j, "/provenance");
  static_cast<SamplingOptions&>(r.options) = read_sampling_options(j, "/options");
  r.options.backend = string_at(j, "/options/backend");
  const ordered_json* results = find(j, "/results");
  if (!results || !results->is_array()) throw FieldError(type_problem("/results", "an array"));
  for (std::size_t i = 0; i < results->size(); ++i)
    r.results.push_back(read_result(j, "/results/" + std::to_string(i)));
  r.error = optional_string_at(j, "/error");
  return r;
}

}  // namespace attnlab
