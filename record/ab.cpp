#include "record/ab.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "record/fields.hpp"
#include "record/record.hpp"
#include "record/result.hpp"

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
          {"blocks", e.blocks},
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
  e.blocks = std::size_t(optional_number_at(j, base + "/blocks").value_or(1));
  return r;
}

ordered_json block_json(const AbBlock& b) {
  ordered_json e;
  e["round"] = b.round;
  e["seed"] = b.seed;
  e["order_seed"] = b.order_seed;
  if (b.started_s) e["started_s"] = *b.started_s;
  e["passed"] = b.passed;
  e["correctness"] = {{"a", to_json(b.a_correctness)}, {"b", to_json(b.b_correctness)}};
  if (b.timed()) {
    e["orders"] = b.orders;
    e["first"] = b.first;
    e["samples"] = {{"a", samples_json(b.a)}, {"b", samples_json(b.b)}};
    e["stop_reason"] = b.stop_reason;
    e["wall_s"] = b.wall_s;
  }
  return e;
}

// The timed part of a block (or of an attnlab.ab/1 result, where `orders_key` is "blocks").
void read_timed(const ordered_json& j, const std::string& base, const std::string& orders_key, AbBlock& b) {
  b.orders = array_at<std::string>(j, base + "/" + orders_key);
  b.first = array_at<std::string>(j, base + "/first");
  b.a = read_samples(j, base + "/samples/a");
  b.b = read_samples(j, base + "/samples/b");
  if (b.a.busy_ns.size() != b.b.busy_ns.size() || b.first.size() != b.a.busy_ns.size())
    throw FieldError(base + ": A, B and the pair order differ in length");
  b.stop_reason = string_at(j, base + "/stop_reason");
  b.wall_s = number_at(j, base + "/wall_s");
}

AbBlock read_block(const ordered_json& j, const std::string& base) {
  AbBlock b;
  b.round = std::size_t(number_at(j, base + "/round"));
  b.seed = j.at(ordered_json::json_pointer(base + "/seed")).get<std::uint64_t>();
  b.order_seed = j.at(ordered_json::json_pointer(base + "/order_seed")).get<std::uint64_t>();
  b.started_s = optional_number_at(j, base + "/started_s");
  b.passed = bool_at(j, base + "/passed");
  b.a_correctness = read_correctness(j, base + "/correctness/a");
  b.b_correctness = read_correctness(j, base + "/correctness/b");
  if (find(j, base + "/samples")) read_timed(j, base, "orders", b);
  return b;
}

// Per block, one side's values: busy times or cycles.
std::vector<std::vector<double>> side_values(const std::vector<AbBlock>& blocks, bool is_a, bool cycles) {
  std::vector<std::vector<double>> out;
  for (const AbBlock& b : blocks) {
    const AbSamples& s = is_a ? b.a : b.b;
    out.push_back(cycles ? paired::cycles(s.busy_ns, s.sm_clock_mhz) : s.busy_ns);
  }
  return out;
}

}  // namespace

std::size_t AbShape::pairs() const {
  std::size_t n = 0;
  for (const AbBlock& b : blocks) n += b.a.busy_ns.size();
  return n;
}

AbSamples AbShape::pooled(bool is_a) const {
  AbSamples out;
  const auto append = [](std::vector<double>& to, const std::vector<double>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  for (const AbBlock& b : blocks) {
    const AbSamples& x = is_a ? b.a : b.b;
    append(out.busy_ns, x.busy_ns);
    append(out.span_ns, x.span_ns);
    append(out.sm_clock_mhz, x.sm_clock_mhz);
    append(out.clock_offset_ns, x.clock_offset_ns);
  }
  return out;
}

std::string AbShape::stop_reasons() const {
  std::string out;
  for (const AbBlock& b : blocks)
    if (out.find(b.stop_reason) == std::string::npos) out += (out.empty() ? "" : ", ") + b.stop_reason;
  return out;
}

AbRatio ab_ratio(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
                 const paired::BootstrapConfig& cfg) {
  if (a.size() != b.size()) throw std::invalid_argument("A and B differ in their number of blocks");
  AbRatio r;
  std::vector<std::vector<double>> per_block;
  for (std::size_t i = 0; i < a.size(); ++i) {
    per_block.push_back(paired::ratios(a[i], b[i]));
    r.per_pair.insert(r.per_pair.end(), per_block.back().begin(), per_block.back().end());
  }
  r.estimate = paired::estimate_blocks(per_block, cfg);
  return r;
}

std::optional<std::string> cycles_withheld(const std::vector<AbBlock>& blocks) {
  std::size_t pairs = 0, shared = 0, outside = 0;
  auto outside_kernel = [](const AbSamples& s, std::size_t i) {
    return !(s.clock_offset_ns[i] >= 0 && s.clock_offset_ns[i] <= s.busy_ns[i]);
  };
  for (const AbBlock& b : blocks)
    for (std::size_t i = 0; i < b.a.busy_ns.size(); ++i) {
      ++pairs;
      shared += b.a.sm_clock_mhz[i] == b.b.sm_clock_mhz[i];
      outside += outside_kernel(b.a, i) || outside_kernel(b.b, i);
    }
  if (pairs == 0) return "no timed pairs";
  if (shared == 0 && outside == 0) return std::nullopt;
  std::string why = "the SM clock is not measured per sample and per kernel:";
  if (shared)
    why += " A and B read one clock value in " + std::to_string(shared) + " of " + std::to_string(pairs) +
           " pairs (one NVML reading serving both sides, or a clock that did not move), where the cycle "
           "ratio is the wall ratio;";
  if (outside)
    why += " in " + std::to_string(outside) + " of " + std::to_string(pairs) +
           " pairs a side's clock was read while none of its kernels ran;";
  why.back() = '.';
  return why + " No cycles verdict.";
}

void estimate_shape(AbShape& s, const paired::BootstrapConfig& cfg) {
  s.passed = !s.blocks.empty();
  for (const AbBlock& b : s.blocks) s.passed = s.passed && b.passed && b.timed();
  s.wall.reset();
  s.cycles.reset();
  s.cycles_withheld.reset();
  if (!s.passed) return;
  s.wall = ab_ratio(side_values(s.blocks, true, false), side_values(s.blocks, false, false), cfg);
  s.cycles_withheld = cycles_withheld(s.blocks);
  if (!s.cycles_withheld)
    s.cycles = ab_ratio(side_values(s.blocks, true, true), side_values(s.blocks, false, true), cfg);
}

AbShape combine_measurements(const std::vector<AbShape>& measurements, const paired::BootstrapConfig& cfg) {
  if (measurements.empty()) throw std::invalid_argument("no measurement to combine");
  AbShape out = measurements.front();
  out.blocks.clear();
  for (const AbShape& m : measurements) {
    if (m.name != out.name) throw std::invalid_argument("cannot combine " + m.name + " with " + out.name);
    out.blocks.insert(out.blocks.end(), m.blocks.begin(), m.blocks.end());
  }
  out.measurements = 0;
  for (const AbShape& m : measurements) out.measurements += m.measurements;
  estimate_shape(out, cfg);
  return out;
}

ordered_json to_json(const AbRecord& r) {
  ordered_json j;
  j["schema"] = kAbSchema;
  j["status"] = r.status;
  j["a"] = side_json(r.a);
  j["b"] = side_json(r.b);
  if (r.direction) j["direction"] = direction_name(*r.direction);
  j["convention"] = kAbConvention;
  j["started_utc"] = r.started_utc;
  j["provenance"] = to_json(r.provenance);
  const AbOptions& o = r.options;
  j["options"] = {{"pairs", o.pairs},
                  {"min_pairs", o.min_pairs},
                  {"blocks", o.blocks},
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
    e["blocks"] = ordered_json::array();
    for (const AbBlock& b : s.blocks) e["blocks"].push_back(block_json(b));
    if (s.wall) {
      e["ratio"] = {{"wall", ratio_json(*s.wall)},
                    {"cycles", s.cycles ? ratio_json(*s.cycles)
                                        : ordered_json{{"withheld", s.cycles_withheld.value_or("")}}}};
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

namespace {

// An attnlab.ab/1 result: one block, the run's seed, the order seed of the shape's index.
AbShape read_v1_result(const ordered_json& j, const std::string& base, const AbRecord& r, std::size_t index) {
  AbShape s;
  AbBlock b;
  b.seed = r.provenance.seed;
  b.order_seed = r.options.order_seed + index;
  b.passed = bool_at(j, base + "/passed");
  b.a_correctness = read_correctness(j, base + "/correctness/a");
  b.b_correctness = read_correctness(j, base + "/correctness/b");
  if (const ordered_json* ratio = find(j, base + "/ratio"); ratio && !ratio->is_null()) {
    read_timed(j, base, "blocks", b);
    s.wall = read_ratio(j, base + "/ratio/wall");
  }
  s.blocks.push_back(std::move(b));
  if (s.wall) {
    s.cycles_withheld = cycles_withheld(s.blocks);
    if (!s.cycles_withheld) s.cycles = read_ratio(j, base + "/ratio/cycles");
  }
  return s;
}

}  // namespace

AbRecord read_ab_record(const ordered_json& j) {
  AbRecord r;
  r.schema = string_at(j, "/schema");
  if (r.schema != kAbSchema && r.schema != kAbSchemaV1)
    throw FieldError("/schema is neither " + std::string(kAbSchema) + " nor " + kAbSchemaV1);
  const bool v1 = r.schema == kAbSchemaV1;
  r.status = string_at(j, "/status");
  r.a = read_side(j, "/a");
  r.b = read_side(j, "/b");
  if (find(j, "/direction")) r.direction = read_direction(j);
  r.started_utc = string_at(j, "/started_utc");
  r.provenance = read_provenance(j, "/provenance");
  AbOptions& o = r.options;
  o.pairs = std::size_t(number_at(j, "/options/pairs"));
  o.min_pairs = std::size_t(number_at(j, "/options/min_pairs"));
  o.blocks = v1 ? 1 : std::size_t(number_at(j, "/options/blocks"));
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
    AbShape s = v1 ? read_v1_result(j, base, r, i) : AbShape{};
    s.name = string_at(j, base + "/name");
    s.shape = read_shape(j, base + "/shape", &s.scale);
    s.flops = number_at(j, base + "/flops");
    s.passed = bool_at(j, base + "/passed");
    if (!v1) {
      const ordered_json* blocks = find(j, base + "/blocks");
      if (!blocks || !blocks->is_array()) throw FieldError("missing " + base + "/blocks");
      for (std::size_t k = 0; k < blocks->size(); ++k)
        s.blocks.push_back(read_block(j, base + "/blocks/" + std::to_string(k)));
      if (const ordered_json* ratio = find(j, base + "/ratio"); ratio && !ratio->is_null()) {
        s.wall = read_ratio(j, base + "/ratio/wall");
        if (find(j, base + "/ratio/cycles/withheld"))
          s.cycles_withheld = string_at(j, base + "/ratio/cycles/withheld");
        else
          s.cycles = read_ratio(j, base + "/ratio/cycles");
      }
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
