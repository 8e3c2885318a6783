// The SASS and ptxas blocks' JSON mapping and their readers.
#include "record/sass.hpp"

#include "record/fields.hpp"

namespace attnlab::sass {

using nlohmann::ordered_json;

namespace {

// The instruction classes as the record names them, with their fields.
struct CountField {
  const char* key;
  std::int64_t Counts::*field;
};
constexpr CountField kCountFields[] = {
    {"instructions", &Counts::instructions}, {"HMMA", &Counts::hmma}, {"HGMMA", &Counts::hgmma},
    {"HFMA2.MMA", &Counts::hfma2_mma}, {"UTMALDG", &Counts::utmaldg}, {"UBLKCP", &Counts::ublkcp},
    {"LDL", &Counts::ldl}, {"STL", &Counts::stl}, {"BAR", &Counts::bar}};
struct BranchField {
  const char* key;
  std::int64_t BranchCounts::*field;
};
constexpr BranchField kBranchFields[] = {
    {"total", &BranchCounts::total}, {"unpredicated", &BranchCounts::unpredicated},
    {"@P", &BranchCounts::p}, {"@!P", &BranchCounts::not_p}, {"@PT", &BranchCounts::pt},
    {"@!PT", &BranchCounts::not_pt}, {"@UP", &BranchCounts::up}, {"@!UP", &BranchCounts::not_up},
    {"predicate_operand", &BranchCounts::predicate_operand}, {"self_loop", &BranchCounts::self_loop}};

void put_counts(ordered_json& j, const Counts& c) {
  for (const auto& f : kCountFields) j[f.key] = c.*f.field;
  ordered_json bra;
  for (const auto& f : kBranchFields) bra[f.key] = c.bra.*f.field;
  j["BRA"] = std::move(bra);
}

Counts read_counts(const ordered_json& root, const std::string& b) {
  Counts c;
  for (const auto& f : kCountFields) c.*f.field = value_at<std::int64_t>(root, b + "/" + f.key);
  for (const auto& f : kBranchFields) c.bra.*f.field = value_at<std::int64_t>(root, b + "/BRA/" + f.key);
  return c;
}

ordered_json unavailable(const std::string& reason) {
  return {{"available", false}, {"reason", reason}};
}

ordered_json ptxas_kernel_json(const PtxasKernel& k) {
  ordered_json j;
  j["name"] = k.name;
  if (!k.function) {
    j["found"] = false;
    j["reason"] = k.reason;
    return j;
  }
  const PtxasFunction& f = *k.function;
  j["found"] = true;
  j["arch"] = f.arch;
  j["source"] = f.source;
  j["registers"] = f.registers;
  j["barriers"] = f.barriers;
  j["stack_frame_bytes"] = f.stack_frame_bytes;
  j["spill_store_bytes"] = f.spill_store_bytes;
  j["spill_load_bytes"] = f.spill_load_bytes;
  j["smem_bytes"] = f.smem_bytes;
  j["cmem0_bytes"] = f.cmem0_bytes;
  if (!f.notes.empty()) j["notes"] = f.notes;
  return j;
}

PtxasKernel read_ptxas_kernel(const ordered_json& root, const std::string& b) {
  PtxasKernel k;
  k.name = string_at(root, b + "/name");
  if (!bool_at(root, b + "/found")) {
    k.reason = string_at(root, b + "/reason");
    return k;
  }
  PtxasFunction f;
  f.name = k.name;
  f.arch = string_at(root, b + "/arch");
  f.source = string_at(root, b + "/source");
  f.registers = value_at<int>(root, b + "/registers");
  f.barriers = value_at<int>(root, b + "/barriers");
  f.stack_frame_bytes = value_at<std::int64_t>(root, b + "/stack_frame_bytes");
  f.spill_store_bytes = value_at<std::int64_t>(root, b + "/spill_store_bytes");
  f.spill_load_bytes = value_at<std::int64_t>(root, b + "/spill_load_bytes");
  f.smem_bytes = value_at<std::int64_t>(root, b + "/smem_bytes");
  f.cmem0_bytes = value_at<std::int64_t>(root, b + "/cmem0_bytes");
  if (find(root, b + "/notes")) f.notes = value_at<std::vector<std::string>>(root, b + "/notes");
  k.function = std::move(f);
  return k;
}

std::size_t array_size(const ordered_json& root, const std::string& ptr) {
  const ordered_json* a = find(root, ptr);
  if (!a || !a->is_array()) throw FieldError(type_problem(ptr, "an array"));
  return a->size();
}

}  // namespace

Counts& Counts::operator+=(const Counts& o) {
  for (const auto& f : kCountFields) this->*f.field += o.*f.field;
  for (const auto& f : kBranchFields) bra.*f.field += o.bra.*f.field;
  return *this;
}

std::vector<std::pair<std::string, std::int64_t>> named_counts(const Counts& c) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& f : kCountFields) out.emplace_back(f.key, c.*f.field);
  for (const auto& f : kBranchFields) out.emplace_back(std::string("BRA ") + f.key, c.bra.*f.field);
  return out;
}

ordered_json to_json(const SassEvidence& s) {
  if (!s.available) return unavailable(s.reason);
  ordered_json j;
  j["available"] = true;
  j["tool"] = s.tool;
  j["binary"] = s.binary;
  j["kernels_from"] = s.kernels_from;
  j["complete"] = s.complete;
  put_counts(j, s.total);
  j["kernels"] = ordered_json::array();
  for (const SassKernel& k : s.kernels) {
    ordered_json kj;
    kj["name"] = k.name;
    kj["found"] = k.found;
    if (k.found) {
      kj["arch"] = k.arch;
      put_counts(kj, k.counts);
    } else {
      kj["reason"] = k.reason;
    }
    j["kernels"].push_back(std::move(kj));
  }
  return j;
}

ordered_json to_json(const PtxasEvidence& p) {
  if (!p.available) return unavailable(p.reason);
  ordered_json j;
  j["available"] = true;
  j["source"] = p.source;
  j["kernels_from"] = p.kernels_from;
  j["complete"] = p.complete;
  j["registers_max"] = p.registers_max;
  j["stack_frame_bytes_max"] = p.stack_frame_bytes_max;
  j["spill_store_bytes"] = p.spill_store_bytes;
  j["spill_load_bytes"] = p.spill_load_bytes;
  j["kernels"] = ordered_json::array();
  for (const PtxasKernel& k : p.kernels) j["kernels"].push_back(ptxas_kernel_json(k));
  return j;
}

SassEvidence read_sass(const ordered_json& root, const std::string& base) {
  SassEvidence s;
  s.available = bool_at(root, base + "/available");
  if (!s.available) {
    s.reason = string_at(root, base + "/reason");
    return s;
  }
  s.tool = string_at(root, base + "/tool");
  s.binary = string_at(root, base + "/binary");
  s.kernels_from = string_at(root, base + "/kernels_from");
  s.complete = bool_at(root, base + "/complete");
  s.total = read_counts(root, base);
  for (std::size_t i = 0, n = array_size(root, base + "/kernels"); i < n; ++i) {
    const std::string b = base + "/kernels/" + std::to_string(i);
    SassKernel k;
    k.name = string_at(root, b + "/name");
    k.found = bool_at(root, b + "/found");
    if (k.found) {
      k.arch = string_at(root, b + "/arch");
      k.counts = read_counts(root, b);
    } else {
      k.reason = string_at(root, b + "/reason");
    }
    s.kernels.push_back(std::move(k));
  }
  return s;
}

PtxasEvidence read_ptxas(const ordered_json& root, const std::string& base) {
  PtxasEvidence p;
  p.available = bool_at(root, base + "/available");
  if (!p.available) {
    p.reason = string_at(root, base + "/reason");
    return p;
  }
  p.source = string_at(root, base + "/source");
  p.kernels_from = string_at(root, base + "/kernels_from");
  p.complete = bool_at(root, base + "/complete");
  p.registers_max = value_at<int>(root, base + "/registers_max");
  p.stack_frame_bytes_max = value_at<std::int64_t>(root, base + "/stack_frame_bytes_max");
  p.spill_store_bytes = value_at<std::int64_t>(root, base + "/spill_store_bytes");
  p.spill_load_bytes = value_at<std::int64_t>(root, base + "/spill_load_bytes");
  for (std::size_t i = 0, n = array_size(root, base + "/kernels"); i < n; ++i)
    p.kernels.push_back(read_ptxas_kernel(root, base + "/kernels/" + std::to_string(i)));
  return p;
}

}  // namespace attnlab::sass
