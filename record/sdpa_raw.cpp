// The reader of the SDPA baseline's raw measurements (record/sdpa_raw.hpp).
#include "record/sdpa_raw.hpp"

#include <sstream>
#include <stdexcept>

#include "common/shapes.hpp"
#include "record/fields.hpp"
#include "record/provenance.hpp"
#include "record/record.hpp"

namespace attnlab {

namespace {

std::size_t array_size(const ordered_json& root, const std::string& ptr) {
  const ordered_json* a = find(root, ptr);
  if (!a) throw FieldError("missing " + ptr);
  if (!a->is_array()) throw FieldError(type_problem(ptr, "an array"));
  return a->size();
}

// An integer field: JSON numbers with a fraction are refused, not truncated.
long long integer_at(const ordered_json& root, const std::string& ptr, long long min) {
  const ordered_json* j = find(root, ptr);
  if (!j) throw FieldError("missing " + ptr);
  if (!j->is_number_integer()) throw FieldError(type_problem(ptr, "an integer"));
  const long long v = j->get<long long>();
  if (v < min) throw FieldError(ptr + " is below " + std::to_string(min));
  return v;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

GpuAttributes read_gpu(const ordered_json& j) {
  GpuAttributes g;
  g.name = string_at(j, "/gpu/name");
  const std::string hex = string_at(j, "/gpu/uuid_hex");
  for (std::size_t i = 0; i < 16; ++i) {
    const int hi = hex.size() == 32 ? hex_digit(hex[2 * i]) : -1;
    const int lo = hex.size() == 32 ? hex_digit(hex[2 * i + 1]) : -1;
    if (hi < 0 || lo < 0) throw FieldError(type_problem("/gpu/uuid_hex", "32 hex digits"));
    g.uuid[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  g.cc_major = int(integer_at(j, "/gpu/cc_major", 0));
  g.cc_minor = int(integer_at(j, "/gpu/cc_minor", 0));
  g.sm_count = int(integer_at(j, "/gpu/sm_count", 1));
  g.sm_clock_khz = integer_at(j, "/gpu/sm_clock_khz", 0);
  g.mem_clock_khz = integer_at(j, "/gpu/mem_clock_khz", 0);
  g.bus_width_bits = integer_at(j, "/gpu/bus_width_bits", 0);
  g.l2_bytes = integer_at(j, "/gpu/l2_bytes", 0);
  g.global_mem_bytes = static_cast<unsigned long long>(integer_at(j, "/gpu/global_mem_bytes", 0));
  g.smem_per_sm_bytes = static_cast<unsigned long long>(integer_at(j, "/gpu/smem_per_sm_bytes", 0));
  return g;
}

void read_nvml(const ordered_json& j, const std::string& b, SdpaRawRegime& r) {
  if (auto why = optional_string_at(j, b + "/unavailable")) {
    r.nvml_unavailable = *why;
    return;
  }
  r.max_sm_clock_mhz = number_at(j, b + "/max_sm_clock_mhz");
  for (std::size_t i = 0, n = array_size(j, b + "/readings"); i < n; ++i) {
    const std::string p = b + "/readings/" + std::to_string(i);
    if (array_size(j, p) != 4) throw FieldError(p + " is not [SM MHz, W, C, reason bits]");
    r.readings.push_back({number_at(j, p + "/0"), number_at(j, p + "/1"), number_at(j, p + "/2"),
                          static_cast<std::uint64_t>(integer_at(j, p + "/3", 0))});
  }
}

SdpaRawRegime read_regime(const ordered_json& j, const std::string& b) {
  SdpaRawRegime r;
  r.name = string_at(j, b + "/name");
  if (r.name != "cold" && r.name != "warm" && r.name != "graph")
    throw FieldError(type_problem(b + "/name", "cold, warm or graph"));
  r.stop_reason = string_at(j, b + "/stop_reason");
  r.wall_s = number_at(j, b + "/wall_s");
  r.launches_per_sample = int(integer_at(j, b + "/launches_per_sample", 1));
  r.clock_before_mhz = optional_number_at(j, b + "/clock_before_mhz");
  r.clock_after_mhz = optional_number_at(j, b + "/clock_after_mhz");
  if (r.name == "graph") {
    r.samples_ns = array_at<double>(j, b + "/samples_ns");
    if (r.samples_ns.empty()) throw FieldError(b + "/samples_ns is empty");
  } else {
    r.kernels = array_at<std::string>(j, b + "/kernels");
    if (r.kernels.empty()) throw FieldError(b + "/kernels is empty");
    for (std::size_t i = 0, n = array_size(j, b + "/launches"); i < n; ++i) {
      const std::string p = b + "/launches/" + std::to_string(i);
      r.launches.push_back(array_at<double>(j, p));
      if (r.launches.back().size() != 2 * r.kernels.size())
        throw FieldError(p + " does not hold a [start, end) pair for each of the " +
                         std::to_string(r.kernels.size()) + " kernels");
    }
    if (r.launches.empty()) throw FieldError(b + "/launches is empty");
  }
  read_nvml(j, b + "/nvml", r);
  return r;
}

SdpaRawResult read_result(const ordered_json& j, const std::string& b) {
  SdpaRawResult r;
  const std::string s = b + "/shape";
  r.shape.B = int(integer_at(j, s + "/B", 1));
  r.shape.H = int(integer_at(j, s + "/H", 1));
  r.shape.H_kv = int(integer_at(j, s + "/H_kv", 1));
  r.shape.S = int(integer_at(j, s + "/S", 1));
  r.shape.D = int(integer_at(j, s + "/D", 1));
  r.shape.causal = bool_at(j, s + "/causal");
  r.scale = number_at(j, s + "/scale");
  if (r.shape.H % r.shape.H_kv != 0) throw FieldError(s + "/H is not a multiple of H_kv");
  if (auto why = optional_string_at(j, b + "/unavailable")) {
    r.unavailable = *why;
    return r;
  }
  r.correctness = read_correctness(j, b + "/correctness");
  r.changed_after_timing = value_or_null_at<bool>(j, b + "/changed_after_timing").value_or(false);
  if (find(j, b + "/regimes"))
    for (std::size_t i = 0, n = array_size(j, b + "/regimes"); i < n; ++i)
      r.regimes.push_back(read_regime(j, b + "/regimes/" + std::to_string(i)));
  return r;
}

SdpaRaw read_raw(const ordered_json& j) {
  if (j.value("schema", "") != kSdpaRawSchema) throw FieldError(type_problem("/schema", kSdpaRawSchema));
  SdpaRaw raw;
  raw.backend = string_at(j, "/backend");
  if (raw.backend != "cudnn" && raw.backend != "flash" && raw.backend != "efficient")
    throw FieldError(type_problem("/backend", "cudnn, flash or efficient"));
  raw.argv = array_at<std::string>(j, "/argv");
  raw.started_unix_s = integer_at(j, "/started_unix_s", 0);
  raw.seed = static_cast<std::uint64_t>(value_at<unsigned long long>(j, "/seed"));
  raw.timing.regimes.clear();
  for (const std::string& name : array_at<std::string>(j, "/options/regimes")) {
    try {
      raw.timing.regimes.push_back(parse_regime(name));
    } catch (const std::invalid_argument& e) {
      throw FieldError("/options/regimes: " + std::string(e.what()));
    }
  }
  raw.timing.check_only = bool_at(j, "/options/check_only");
  raw.timing.rule.min_samples = std::size_t(integer_at(j, "/options/min_samples", 0));
  raw.timing.rule.max_samples = std::size_t(integer_at(j, "/options/max_samples", 0));
  raw.timing.rule.noise_target_pct = number_at(j, "/options/noise_target_pct");
  raw.timing.rule.max_seconds = number_at(j, "/options/max_seconds");
  raw.driver = int(integer_at(j, "/versions/driver", 0));
  raw.torch = string_at(j, "/versions/torch");
  raw.torch_cuda = string_at(j, "/versions/torch_cuda");
  if (const ordered_json* c = find(j, "/versions/cudnn"); !c || !c->is_null())
    raw.cudnn = integer_at(j, "/versions/cudnn", 0);
  raw.gpu = read_gpu(j);
  for (std::size_t i = 0, n = array_size(j, "/results"); i < n; ++i)
    raw.results.push_back(read_result(j, "/results/" + std::to_string(i)));
  raw.error = optional_string_at(j, "/error");
  return raw;
}

// The file's lines as one document: the header's keys, "results" from the result lines and
// "error" from an error line.
ordered_json read_lines(const std::filesystem::path& file) {
  std::istringstream in(read_record_text(file));
  ordered_json doc;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    const std::string where = file.string() + ": line " + std::to_string(++n);
    ordered_json j;
    try {
      j = ordered_json::parse(line);
    } catch (const ordered_json::parse_error& e) {
      throw std::runtime_error(where + " is not valid JSON: " + e.what());
    }
    if (!j.is_object()) throw std::runtime_error(where + " is not a JSON object");
    if (n == 1) {
      doc = std::move(j);
      doc["results"] = ordered_json::array();
    } else if (j.size() == 1 && j.contains("result")) {
      doc["results"].push_back(j["result"]);
    } else if (j.size() == 1 && j.contains("error")) {
      doc["error"] = j["error"];
    } else {
      throw std::runtime_error(where + " is neither {\"result\": ...} nor {\"error\": ...}");
    }
  }
  if (n == 0) throw std::runtime_error(file.string() + ": empty");
  return doc;
}

}  // namespace

std::string sdpa_shape_line(const Shape& s) {
  ordered_json j = {{"name", shape_name(s)}};
  j.update(shape_to_json(s, s.default_scale()));
  return j.dump();
}

std::string correctness_line(const Correctness& c) { return to_json(c).dump(); }

std::string sm_clock_line(std::optional<double> mhz) {
  return ordered_json{{"sm_clock_mhz", mhz ? ordered_json(*mhz) : ordered_json()}}.dump();
}

std::string nvml_block_line(const std::string& unavailable, double max_sm_clock_mhz,
                            const std::vector<SdpaRawReading>& readings) {
  if (!unavailable.empty()) return ordered_json{{"unavailable", unavailable}}.dump();
  ordered_json rows = ordered_json::array();
  for (const SdpaRawReading& r : readings) rows.push_back({r.sm_clock_mhz, r.power_w, r.temperature_c, r.reasons});
  return ordered_json{{"max_sm_clock_mhz", max_sm_clock_mhz}, {"readings", rows}}.dump();
}

SdpaRaw read_sdpa_raw(const std::filesystem::path& file) {
  const ordered_json j = read_lines(file);
  try {
    return read_raw(j);
  } catch (const FieldError& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

}  // namespace attnlab
