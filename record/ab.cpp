#include "record/ab.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "record/fields.hpp"
#include "record/record.hpp"

namespace attnlab {

using nlohmann::ordered_json;

namespace {

ordered_json side_json(const AbSide& s) {
  return {{"phase", s.phase}, {"title", s.title}, {"technique", s.technique}};
}

AbSide read_side(const ordered_json& j, const std::string& base) {
  return {string_at(j, base + "/phase"), string_at(j, base + "/title"),
          string_at(j, base + "/technique")};
}

ordered_json samples_json(const AbSamples& s) {
  return {{"busy_ns", s.busy_ns},
          {"span_ns", s.span_ns},
          {"sm_clock_mhz", s.sm_clock_mhz},
          {"clock_offset_ns", s.clock_offset_ns},
          {"kernels", s.kernels}};
}

AbSamples read_samples(const ordered_json& j, const std::string& base) {
  AbSamples s;
  s.busy_ns = array_at<double>(j, base + "/busy_ns");
  s.span_ns = array_at<double>(j, base + "/span_ns");
  s.sm_clock_mhz = array_at<double>(j, base + "/sm_clock_mhz");
  s.clock_offset_ns = array_at<double>(j, base + "/clock_offset_ns");
  s.kernels = array_at<std::string>(j, base + "/kernels");
  const std::size_t n = s.busy_ns.size();
  if (s.span_ns.size() != n || s.sm_clock_mhz.size() != n || s.clock_offset_ns.size() != n)
    throw FieldError(base + ": busy_ns, span_ns, sm_clock_mhz and clock_offset_ns differ in length");
  return s;
}

ordered_json ratio_json(const AbRatio& r) {
  const auto& e = r.estimate;
  return {{"median", e.median},
          {"ci_lo", e.lo},
          {"ci_hi", e.hi},
          {"verdict", paired::verdict_name(e.verdict)},
          {"as_fast_as", e.as_fast_as},
          {"pairs", e.pairs},
          {"per_pair", r.per_pair}};
}

paired::Verdict parse_verdict(const std::string& v, const std::string& ptr) {
  for (auto x : {paired::Verdict::kFaster, paired::Verdict::kSame, paired::Verdict::kSlower})
    if (v == paired::verdict_name(x)) return x;
  throw FieldError(ptr + " is not FASTER, SAME or SLOWER");
}

AbRatio read_ratio(const ordered_json& j, const std::string& base) {
  AbRatio r;
  r.per_pair = array_at<double>(j, base + "/per_pair");
  auto& e = r.estimate;
  e.median = number_at(j, base + "/median");
  e.lo = number_at(j, base + "/ci_lo");
  e.hi = number_at(j, base + "/ci_hi");
  e.verdict = parse_verdict(string_at(j, base + "/verdict"), base + "/verdict");
  e.as_fast_as = bool_at(j, base + "/as_fast_as");
  e.pairs = std::size_t(number_at(j, base + "/pairs"));
  return r;
}

}  // namespace

AbRatio ab_ratio(const std::vector<double>& a, const std::vector<double>& b,
                 const paired::BootstrapConfig& cfg) {
  AbRatio r;
  r.per_pair = paired::ratios(a, b);
  r.estimate = paired::estimate(r.per_pair, cfg);
  return r;
}

ordered_json to_json(const AbRecord& r) {
  ordered_json j;
  j["schema"] = kAbSchema;
  j["status"] = r.status;
  j["a"] = side_json(r.a);
  j["b"] = side_json(r.b);
  j["convention"] = kAbConvention;
  j["started_utc"] = r.started_utc;
  j["provenance"] = to_json(r.provenance);
  const AbOptions& o = r.options;
  j["options"] = {{"pairs", o.pairs},
                  {"min_pairs", o.min_pairs},
                  {"max_seconds", o.max_seconds},
                  {"order_seed", o.order_seed},
                  {"bootstrap", {{"resamples", o.bootstrap.resamples},
                                 {"seed", o.bootstrap.seed},
                                 {"confidence", o.bootstrap.confidence}}},
                  {"non_inferiority_margin", o.non_inferiority_margin},
                  {"inputs", o.inputs}};
  j["method"] = r.method;
  j["results"] = ordered_json::array();
  for (const AbShape& s : r.results) {
    ordered_json e;
    e["name"] = s.name;
    e["shape"] = shape_to_json(s.shape, s.scale);
    e["flops"] = s.flops;
    e["passed"] = s.passed;
    e["correctness"] = {{"a", to_json(s.a_correctness)}, {"b", to_json(s.b_correctness)}};
    if (s.wall) {
      e["blocks"] = s.blocks;
      e["first"] = s.first;
      e["samples"] = {{"a", samples_json(s.a)}, {"b", samples_json(s.b)}};
      e["stop_reason"] = s.stop_reason;
      e["wall_s"] = s.wall_s;
      e["ratio"] = {{"wall", ratio_json(*s.wall)}, {"cycles", ratio_json(*s.cycles)}};
    } else {
      e["ratio"] = nullptr;
    }
    j["results"].push_back(std::move(e));
  }
  if (r.error) j["error"] = *r.error;
  return j;
}

void write_ab_record(const std::filesystem::path& file, const AbRecord& r) {
  write_json_atomically(file, to_json(r));
}

AbRecord read_ab_record(const ordered_json& j) {
  if (string_at(j, "/schema") != kAbSchema)
    throw FieldError("/schema is not " + std::string(kAbSchema));
  AbRecord r;
  r.status = string_at(j, "/status");
  r.a = read_side(j, "/a");
  r.b = read_side(j, "/b");
  r.started_utc = string_at(j, "/started_utc");
  r.provenance = read_provenance(j, "/provenance");
  AbOptions& o = r.options;
  o.pairs = std::size_t(number_at(j, "/options/pairs"));
  o.min_pairs = std::size_t(number_at(j, "/options/min_pairs"));
  o.max_seconds = number_at(j, "/options/max_seconds");
  o.order_seed = j.at("/options/order_seed"_json_pointer).get<std::uint64_t>();
  o.bootstrap.resamples = int(number_at(j, "/options/bootstrap/resamples"));
  o.bootstrap.seed = j.at("/options/bootstrap/seed"_json_pointer).get<std::uint64_t>();
  o.bootstrap.confidence = number_at(j, "/options/bootstrap/confidence");
  o.non_inferiority_margin = number_at(j, "/options/non_inferiority_margin");
  o.inputs = string_at(j, "/options/inputs");
  r.method = string_at(j, "/method");
  const ordered_json* res = find(j, "/results");
  if (!res || !res->is_array()) throw FieldError("missing /results");
  for (std::size_t i = 0; i < res->size(); ++i) {
    const std::string base = "/results/" + std::to_string(i);
    AbShape s;
    s.name = string_at(j, base + "/name");
    s.shape = read_shape(j, base + "/shape", &s.scale);
    s.flops = number_at(j, base + "/flops");
    s.passed = bool_at(j, base + "/passed");
    s.a_correctness = read_correctness(j, base + "/correctness/a");
    s.b_correctness = read_correctness(j, base + "/correctness/b");
    if (const ordered_json* ratio = find(j, base + "/ratio"); ratio && !ratio->is_null()) {
      s.blocks = array_at<std::string>(j, base + "/blocks");
      s.first = array_at<std::string>(j, base + "/first");
      s.a = read_samples(j, base + "/samples/a");
      s.b = read_samples(j, base + "/samples/b");
      if (s.a.busy_ns.size() != s.b.busy_ns.size() || s.first.size() != s.a.busy_ns.size())
        throw FieldError(base + ": A, B and the pair order differ in length");
      s.stop_reason = string_at(j, base + "/stop_reason");
      s.wall_s = number_at(j, base + "/wall_s");
      s.wall = read_ratio(j, base + "/ratio/wall");
      s.cycles = read_ratio(j, base + "/ratio/cycles");
    }
    r.results.push_back(std::move(s));
  }
  r.error = optional_string_at(j, "/error");
  return r;
}

std::vector<std::filesystem::path> find_ab_records(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  const fs::path ab = root / "ab";
  if (!fs::is_directory(ab, ec)) return files;
  for (const auto& pair : fs::directory_iterator(ab, ec)) {
    if (!pair.is_directory()) continue;
    std::error_code ec2;
    for (const auto& run : fs::directory_iterator(pair.path(), ec2))
      if (const auto f = run.is_directory() ? record_file_in(run.path(), "run.json") : std::nullopt)
        files.push_back(*f);
  }
  std::sort(files.begin(), files.end());
  return files;
}

AbRecord read_ab_file(const std::filesystem::path& file) {
  const ordered_json j = read_json_file(file);
  try {
    return read_ab_record(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

}  // namespace attnlab
