#include "record/calibration.hpp"
#include "record/record.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "common/stats.hpp"
#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

namespace {

using stats::percentile;

ordered_json spread_json(const Spread& s) { return {{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}}; }

Spread read_spread(const ordered_json& j, const std::string& base) {
  return {number_at(j, base + "/median"), number_at(j, base + "/p10"), number_at(j, base + "/p90")};
}

ordered_json launch_json(const LaunchShape& s) {
  return {{"grid", s.grid}, {"block", s.block}, {"cluster", s.cluster}, {"dynamic_smem_bytes", s.dynamic_smem_bytes}};
}

std::array<int, 3> dims_at(const ordered_json& j, const std::string& ptr) {
  const ordered_json* p = find(j, ptr);
  if (!p) throw FieldError("missing " + ptr);
  if (!p->is_array() || p->size() != 3 || !std::all_of(p->begin(), p->end(), [](const ordered_json& x) {
        return x.is_number_integer() && x.get<long long>() >= 1;
      }))
    throw FieldError(type_problem(ptr, "three positive integers"));
  return {(*p)[0].get<int>(), (*p)[1].get<int>(), (*p)[2].get<int>()};
}

LaunchShape read_launch(const ordered_json& j, const std::string& base) {
  LaunchShape s;
  s.grid = dims_at(j, base + "/grid");
  s.block = dims_at(j, base + "/block");
  s.cluster = dims_at(j, base + "/cluster");
  s.dynamic_smem_bytes = (long long)number_at(j, base + "/dynamic_smem_bytes");
  return s;
}

// The per-sample arrays of an entry, which must pair up sample by sample.
void read_samples(const ordered_json& j, const std::string& base, std::vector<double>& time_ns,
                  std::vector<double>& clock_mhz) {
  time_ns = array_at<double>(j, base + "/time_ns");
  clock_mhz = array_at<double>(j, base + "/sm_clock_mhz");
  if (time_ns.empty()) throw FieldError(base + "/time_ns is empty");
  if (time_ns.size() != clock_mhz.size()) throw FieldError(base + ": time_ns and sm_clock_mhz differ in length");
}

}  // namespace

Spread spread(const std::vector<double>& v) { return {percentile(v, 0.5), percentile(v, 0.1), percentile(v, 0.9)}; }

const CalibrationRate* CalibrationRecord::rate(const std::string& name) const {
  for (const auto& r : rates)
    if (r.name == name) return &r;
  return nullptr;
}

const CalibrationLaunch* CalibrationRecord::launch_used_by(const std::string& phase, const std::string& shape) const {
  const std::string key = phase + " " + shape;
  for (const auto& l : launches)
    if (std::find(l.used_by.begin(), l.used_by.end(), key) != l.used_by.end()) return &l;
  return nullptr;
}

const CalibrationLaunch* CalibrationRecord::launch_of(const LaunchShape& s) const {
  for (const auto& l : launches)
    if (l.launch == s) return &l;
  return nullptr;
}

void summarize_rate(CalibrationRate& r, int sm_count) {
  if (r.time_ns.empty() || r.time_ns.size() != r.sm_clock_mhz.size())
    throw std::invalid_argument("rate " + r.name + ": no samples, or times and clocks differ in length");
  if (sm_count <= 0) throw std::invalid_argument("rate " + r.name + ": SM count must be positive");
  std::vector<double> rates;
  for (double t : r.time_ns) rates.push_back(r.work_per_launch / (t * 1e-9));
  r.rate = spread(rates);
  if (!r.kernel_sm_clock_mhz.empty() && r.kernel_sm_clock_mhz.size() != r.time_ns.size())
    throw std::invalid_argument("rate " + r.name + ": times and kernel clocks differ in length");
  r.sm_clock_median_mhz = percentile(r.kernel_sm_clock_mhz.empty() ? r.sm_clock_mhz : r.kernel_sm_clock_mhz, 0.5);
  r.per_sm_per_clock = r.sm_clock_median_mhz > 0 ? r.rate.median / (sm_count * r.sm_clock_median_mhz * 1e6) : 0;
}

void summarize_launch(CalibrationLaunch& l) {
  if (l.time_ns.empty() || l.time_ns.size() != l.sm_clock_mhz.size())
    throw std::invalid_argument("launch " + launch_text(l.launch) + ": no samples, or times and clocks differ in length");
  l.time = spread(l.time_ns);
  l.sm_clock_median_mhz = percentile(l.sm_clock_mhz, 0.5);
  if (l.cold_time_ns.size() != l.cold_sm_clock_mhz.size())
    throw std::invalid_argument("launch " + launch_text(l.launch) + ": cold times and clocks differ in length");
  l.cold_time = l.cold_time_ns.empty() ? std::nullopt : std::optional<Spread>(spread(l.cold_time_ns));
}

std::string dims_text(const std::array<int, 3>& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

std::string launch_text(const LaunchShape& s) {
  return "grid " + dims_text(s.grid) + ", block " + dims_text(s.block) + ", cluster " + dims_text(s.cluster) + ", " +
         std::to_string(s.dynamic_smem_bytes) + " B dynamic shared memory";
}

ordered_json to_json(const CalibrationRecord& r) {
  ordered_json j;
  j["schema"] = kCalibrationSchema;
  j["status"] = r.status;
  j["started_utc"] = r.started_utc;
  j["provenance"] = to_json(r.provenance);
  const CalibrationOptions& o = r.options;
  j["options"] = {{"rate_samples", o.rate_samples},
                  {"launch_samples", o.launch_samples},
                  {"warmup_launches", o.warmup_launches},
                  {"rate_target_ms", o.rate_target_ms},
                  {"dram_bytes", o.dram_bytes}};
  j["method"] = r.method;
  j["rates"] = ordered_json::array();
  for (const auto& x : r.rates) {
    j["rates"].push_back({{"name", x.name},
                          {"unit", x.unit},
                          {"method", x.method},
                          {"work_per_launch", x.work_per_launch},
                          {"launch", launch_json(x.launch)},
                          {"scales_with_sm_clock", x.scales_with_sm_clock},
                          {"rate", spread_json(x.rate)},
                          {"sm_clock_median_mhz", x.sm_clock_median_mhz},
                          {"per_sm_per_clock", x.per_sm_per_clock},
                          {"time_ns", x.time_ns},
                          {"sm_clock_mhz", x.sm_clock_mhz}});
    if (!x.kernel_sm_clock_mhz.empty()) j["rates"].back()["kernel_sm_clock_mhz"] = x.kernel_sm_clock_mhz;
  }
  j["launches"] = ordered_json::array();
  for (const auto& l : r.launches) {
    ordered_json e = {{"launch", launch_json(l.launch)},
                      {"used_by", l.used_by},
                      {"time", spread_json(l.time)},
                      {"sm_clock_median_mhz", l.sm_clock_median_mhz},
                      {"time_ns", l.time_ns},
                      {"sm_clock_mhz", l.sm_clock_mhz}};
    if (l.cold_time)
      e["cold"] = {{"time", spread_json(*l.cold_time)}, {"time_ns", l.cold_time_ns}, {"sm_clock_mhz", l.cold_sm_clock_mhz}};
    j["launches"].push_back(std::move(e));
  }
  if (r.error) j["error"] = *r.error;
  return j;
}

CalibrationRecord read_calibration_record(const ordered_json& j) {
  if (string_at(j, "/schema") != kCalibrationSchema)
    throw FieldError("/schema is not " + std::string(kCalibrationSchema));
  CalibrationRecord r;
  r.status = string_at(j, "/status");
  r.started_utc = string_at(j, "/started_utc");
  r.provenance = read_provenance(j, "/provenance");
  CalibrationOptions& o = r.options;
  o.rate_samples = std::size_t(number_at(j, "/options/rate_samples"));
  o.launch_samples = std::size_t(number_at(j, "/options/launch_samples"));
  o.warmup_launches = std::size_t(number_at(j, "/options/warmup_launches"));
  o.rate_target_ms = number_at(j, "/options/rate_target_ms");
  o.dram_bytes = (long long)number_at(j, "/options/dram_bytes");
  r.method = string_at(j, "/method");
  const ordered_json* rates = find(j, "/rates");
  if (!rates || !rates->is_array()) throw FieldError("missing /rates");
  for (std::size_t i = 0; i < rates->size(); ++i) {
    const std::string b = "/rates/" + std::to_string(i);
    CalibrationRate x;
    x.name = string_at(j, b + "/name");
    x.unit = string_at(j, b + "/unit");
    x.method = string_at(j, b + "/method");
    x.work_per_launch = number_at(j, b + "/work_per_launch");
    x.launch = read_launch(j, b + "/launch");
    x.scales_with_sm_clock = bool_at(j, b + "/scales_with_sm_clock");
    x.rate = read_spread(j, b + "/rate");
    x.sm_clock_median_mhz = number_at(j, b + "/sm_clock_median_mhz");
    x.per_sm_per_clock = number_at(j, b + "/per_sm_per_clock");
    read_samples(j, b, x.time_ns, x.sm_clock_mhz);
    if (find(j, b + "/kernel_sm_clock_mhz")) {
      x.kernel_sm_clock_mhz = array_at<double>(j, b + "/kernel_sm_clock_mhz");
      if (x.kernel_sm_clock_mhz.size() != x.time_ns.size())
        throw FieldError(b + ": time_ns and kernel_sm_clock_mhz differ in length");
    }
    r.rates.push_back(std::move(x));
  }
  const ordered_json* launches = find(j, "/launches");
  if (!launches || !launches->is_array()) throw FieldError("missing /launches");
  for (std::size_t i = 0; i < launches->size(); ++i) {
    const std::string b = "/launches/" + std::to_string(i);
    CalibrationLaunch l;
    l.launch = read_launch(j, b + "/launch");
    l.used_by = array_at<std::string>(j, b + "/used_by");
    l.time = read_spread(j, b + "/time");
    l.sm_clock_median_mhz = number_at(j, b + "/sm_clock_median_mhz");
    read_samples(j, b, l.time_ns, l.sm_clock_mhz);
    if (find(j, b + "/cold")) {
      l.cold_time = read_spread(j, b + "/cold/time");
      read_samples(j, b + "/cold", l.cold_time_ns, l.cold_sm_clock_mhz);
    }
    r.launches.push_back(std::move(l));
  }
  r.error = optional_string_at(j, "/error");
  return r;
}

CalibrationRecord read_calibration_file(const std::filesystem::path& file) {
  const ordered_json j = read_json_file(file);
  try {
    return read_calibration_record(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

std::vector<std::filesystem::path> find_calibration_records(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& run : fs::directory_iterator(dir, ec))
    if (const auto f = run.is_directory() ? record_file_in(run.path(), kCalibrationFile) : std::nullopt)
      files.push_back(*f);
  std::sort(files.begin(), files.end());
  return files;
}

std::optional<CalibrationPick> newest_calibration_of(const std::vector<std::filesystem::path>& files,
                                                     const GpuIdentity& gpu, const std::string& rate) {
  std::optional<CalibrationPick> board, model;
  for (const auto& f : files) {
    CalibrationRecord rec = read_calibration_file(f);
    const CalibrationRate* r = rec.rate(rate);
    if (rec.status != "ok" || !r || !(r->per_sm_per_clock > 0)) continue;
    const bool same_board = !gpu.uuid.empty() && rec.provenance.gpu.uuid == gpu.uuid;
    if (!same_board && (gpu.name.empty() || rec.provenance.gpu.name != gpu.name)) continue;
    auto& slot = same_board ? board : model;
    if (!slot || rec.started_utc > slot->rec.started_utc) slot = CalibrationPick{std::move(rec), f, same_board};
  }
  return board ? board : model;
}

void write_calibration_file(const std::filesystem::path& file, const CalibrationRecord& r) {
  write_json_atomically(file, to_json(r));
}

std::optional<PerClockCeiling> per_clock_ceiling(const std::string& compute_capability, const std::string& rate) {
  if (compute_capability != "9.0") return std::nullopt;
  // CUDA C++ Programming Guide, throughput of native arithmetic instructions, compute capability
  // 9.0: 16 results per clock per SM for exp2 (MUFU), 128 for fp32 FMA (two FLOPs each). NVIDIA
  // H100 architecture whitepaper: an SM's tensor cores do 1024 dense fp16 FMA per clock (twice
  // A100's), 4096 FLOP, and twice that for FP8 (the H100 datasheet's FP8 tensor figure is twice
  // its FP16 one: 3,958 against 1,979 TFLOPS with sparsity, SXM): 2048 e4m3 FMA, 8192 FLOP.
  if (rate == calibration::kExp2) return PerClockCeiling{16, "16 ex2 per SM per clock (MUFU, compute capability 9.0)"};
  if (rate == calibration::kFfma) return PerClockCeiling{256, "128 fp32 FMA per SM per clock (compute capability 9.0)"};
  if (rate == calibration::kTensor)
    return PerClockCeiling{4096, "1024 dense fp16 FMA per SM per clock (Hopper tensor cores)"};
  if (rate == calibration::kTensorFp8)
    return PerClockCeiling{8192, "2048 dense e4m3 FMA per SM per clock (Hopper tensor cores, twice fp16's)"};
  return std::nullopt;
}

}  // namespace attnlab
