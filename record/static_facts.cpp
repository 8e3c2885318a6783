// The static facts' JSON mapping and its reader.
#include "record/static_facts.hpp"

#include <algorithm>

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

namespace {

template <class T>
ordered_json or_null(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json();
}

constexpr const char* kOccupancySource =
    "profiler/occupancy.cpp (as cuda_occupancy.h) from cuFuncGetAttribute and the device properties";
constexpr const char* kKernelSource =
    "CUPTI launch callback; cuFuncGetAttribute; cuOccupancyMaxActiveBlocksPerMultiprocessor";
constexpr const char* kUnresolved = "the function's attributes were not resolved";

ordered_json kernel_json(const KernelFacts& k) {
  ordered_json kj;
  kj["name"] = k.name;
  kj["registers"] = or_null(k.registers);
  kj["static_smem_bytes"] = or_null(k.static_smem_bytes);
  kj["dynamic_smem_bytes"] = k.dynamic_smem_bytes;
  kj["local_bytes"] = or_null(k.local_bytes);
  kj["max_threads_per_block"] = or_null(k.max_threads_per_block);
  kj["block"] = k.block;
  kj["grid"] = k.grid;
  kj["active_blocks_per_sm"] = or_null(k.active_blocks_per_sm);
  kj["theoretical_occupancy_pct"] = or_null(k.theoretical_occupancy_pct);
  if (k.occupancy) {
    ordered_json oj = to_json(*k.occupancy);
    oj["carveout_pct"] = or_null(k.carveout_pct);
    // cuOccupancyMaxActiveBlocksPerMultiprocessor's answer against the least limit computed.
    oj["agrees_with_driver"] =
        k.active_blocks_per_sm ? ordered_json(*k.active_blocks_per_sm == k.occupancy->active_blocks_per_sm)
                               : ordered_json();
    oj["source"] = kOccupancySource;
    kj["occupancy_limits"] = std::move(oj);
  } else {
    kj["occupancy_limits"] = nullptr;
    kj["occupancy_limits_reason"] = k.occupancy_reason.empty() ? std::string(kUnresolved) : k.occupancy_reason;
  }
  if (!k.attributes_reason.empty()) kj["attributes_reason"] = k.attributes_reason;
  if (k.work_items) kj["work_items"] = *k.work_items;
  kj["launch_api"] = k.launch_api;
  kj["source"] = kKernelSource;
  return kj;
}

OccupancyLimits read_occupancy(const ordered_json& root, const std::string& b) {
  OccupancyLimits L;
  L.registers = value_or_null_at<int>(root, b + "/ctas_per_sm/registers");
  L.shared_memory = value_or_null_at<int>(root, b + "/ctas_per_sm/shared_memory");
  L.warps = value_or_null_at<int>(root, b + "/ctas_per_sm/warps");
  L.blocks = value_or_null_at<int>(root, b + "/ctas_per_sm/blocks");
  L.limited_by = value_at<std::vector<std::string>>(root, b + "/limited_by");
  L.active_blocks_per_sm = value_at<int>(root, b + "/active_blocks_per_sm");
  L.warps_per_block = value_at<int>(root, b + "/warps_per_block");
  L.registers_per_block = value_at<std::int64_t>(root, b + "/registers_per_block");
  L.smem_per_block_bytes = value_at<std::int64_t>(root, b + "/smem_per_block_bytes");
  L.smem_per_sm_bytes = value_at<std::int64_t>(root, b + "/smem_per_sm_bytes");
  L.theoretical_occupancy_pct = number_at(root, b + "/theoretical_occupancy_pct");
  return L;
}

DeviceLimits read_device(const ordered_json& root, const std::string& b) {
  DeviceLimits d;
  const std::string cc = string_at(root, b + "/compute_capability");
  const auto dot = cc.find('.');
  if (dot == std::string::npos) throw FieldError(type_problem(b + "/compute_capability", "major.minor"));
  d.cc_major = std::stoi(cc.substr(0, dot));
  d.cc_minor = std::stoi(cc.substr(dot + 1));
  d.sm_count = value_at<int>(root, b + "/sm_count");
  d.warp_size = value_at<int>(root, b + "/warp_size");
  d.max_threads_per_block = value_at<int>(root, b + "/max_threads_per_block");
  d.max_threads_per_sm = value_at<int>(root, b + "/max_threads_per_sm");
  d.max_blocks_per_sm = value_at<int>(root, b + "/max_blocks_per_sm");
  d.regs_per_sm = value_at<int>(root, b + "/regs_per_sm");
  d.regs_per_block = value_at<int>(root, b + "/regs_per_block");
  d.smem_per_sm_bytes = value_at<std::int64_t>(root, b + "/smem_per_sm_bytes");
  d.smem_per_block_optin_bytes = value_at<std::int64_t>(root, b + "/smem_per_block_optin_bytes");
  d.reserved_smem_per_block_bytes = value_at<std::int64_t>(root, b + "/reserved_smem_per_block_bytes");
  return d;
}

KernelFacts read_kernel(const ordered_json& root, const std::string& b) {
  KernelFacts k;
  k.name = string_at(root, b + "/name");
  k.registers = value_or_null_at<int>(root, b + "/registers");
  k.static_smem_bytes = value_or_null_at<std::int64_t>(root, b + "/static_smem_bytes");
  k.dynamic_smem_bytes = value_at<std::int64_t>(root, b + "/dynamic_smem_bytes");
  k.local_bytes = value_or_null_at<std::int64_t>(root, b + "/local_bytes");
  k.max_threads_per_block = value_or_null_at<int>(root, b + "/max_threads_per_block");
  k.block = value_at<std::array<unsigned, 3>>(root, b + "/block");
  k.grid = value_at<std::array<unsigned, 3>>(root, b + "/grid");
  k.active_blocks_per_sm = value_or_null_at<int>(root, b + "/active_blocks_per_sm");
  k.theoretical_occupancy_pct = optional_number_at(root, b + "/theoretical_occupancy_pct");
  if (const ordered_json* o = find(root, b + "/occupancy_limits"); o && !o->is_null()) {
    k.occupancy = read_occupancy(root, b + "/occupancy_limits");
    k.carveout_pct = value_or_null_at<int>(root, b + "/occupancy_limits/carveout_pct");
  } else {
    k.occupancy_reason = optional_string_at(root, b + "/occupancy_limits_reason").value_or("");
    if (k.occupancy_reason == kUnresolved) k.occupancy_reason.clear();
  }
  k.attributes_reason = optional_string_at(root, b + "/attributes_reason").value_or("");
  k.work_items = value_or_null_at<std::int64_t>(root, b + "/work_items");
  k.launch_api = string_at(root, b + "/launch_api");
  return k;
}

}  // namespace

ordered_json to_json(const OccupancyLimits& L) {
  ordered_json j;
  j["ctas_per_sm"] = {{"registers", or_null(L.registers)},
                      {"shared_memory", or_null(L.shared_memory)},
                      {"warps", or_null(L.warps)},
                      {"blocks", or_null(L.blocks)}};
  j["limited_by"] = L.limited_by;
  j["active_blocks_per_sm"] = L.active_blocks_per_sm;
  j["warps_per_block"] = L.warps_per_block;
  j["registers_per_block"] = L.registers_per_block;
  j["smem_per_block_bytes"] = L.smem_per_block_bytes;
  j["smem_per_sm_bytes"] = L.smem_per_sm_bytes;
  j["theoretical_occupancy_pct"] = L.theoretical_occupancy_pct;
  return j;
}

ordered_json to_json(const DeviceLimits& d) {
  ordered_json j;
  j["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  j["sm_count"] = d.sm_count;
  j["warp_size"] = d.warp_size;
  j["max_threads_per_block"] = d.max_threads_per_block;
  j["max_threads_per_sm"] = d.max_threads_per_sm;
  j["max_blocks_per_sm"] = d.max_blocks_per_sm;
  j["regs_per_sm"] = d.regs_per_sm;
  j["regs_per_block"] = d.regs_per_block;
  j["smem_per_sm_bytes"] = d.smem_per_sm_bytes;
  j["smem_per_block_optin_bytes"] = d.smem_per_block_optin_bytes;
  j["reserved_smem_per_block_bytes"] = d.reserved_smem_per_block_bytes;
  j["source"] = "cudaDeviceGetAttribute";
  return j;
}

ordered_json to_json(const StaticFacts& facts) {
  ordered_json j;
  j["kernels"] = ordered_json::array();
  if (!facts.available) j["kernels_unavailable"] = facts.reason;
  if (facts.device) j["device"] = to_json(*facts.device);
  for (const KernelFacts& k : facts.kernels) j["kernels"].push_back(kernel_json(k));
  return j;
}

StaticFacts read_static_facts(const ordered_json& root, const std::string& base) {
  StaticFacts f;
  const auto why = optional_string_at(root, base + "/kernels_unavailable");
  f.available = !why;
  f.reason = why.value_or("");
  if (find(root, base + "/device")) f.device = read_device(root, base + "/device");
  const ordered_json* ks = find(root, base + "/kernels");
  if (!ks || !ks->is_array()) throw FieldError(type_problem(base + "/kernels", "an array"));
  for (std::size_t i = 0; i < ks->size(); ++i)
    f.kernels.push_back(read_kernel(root, base + "/kernels/" + std::to_string(i)));
  return f;
}

std::vector<RecordedKernel> read_recorded_kernels(const ordered_json& root, const std::string& base) {
  std::vector<RecordedKernel> out;
  const ordered_json* ks = find(root, base);
  if (!ks || ks->is_null()) return out;
  if (!ks->is_array()) throw FieldError(type_problem(base, "an array"));
  for (std::size_t i = 0; i < ks->size(); ++i) {
    const std::string b = base + "/" + std::to_string(i);
    RecordedKernel k;
    k.name = string_at(root, b + "/name");
    k.grid = value_or_null_at<std::vector<long long>>(root, b + "/grid").value_or(std::vector<long long>{});
    k.block = value_or_null_at<std::vector<long long>>(root, b + "/block").value_or(std::vector<long long>{});
    k.registers = value_or_null_at<int>(root, b + "/registers");
    k.static_smem_bytes = value_or_null_at<std::int64_t>(root, b + "/static_smem_bytes");
    k.dynamic_smem_bytes = value_or_null_at<std::int64_t>(root, b + "/dynamic_smem_bytes");
    k.local_bytes = value_or_null_at<std::int64_t>(root, b + "/local_bytes");
    k.active_blocks_per_sm = value_or_null_at<int>(root, b + "/active_blocks_per_sm");
    k.work_items = value_or_null_at<std::int64_t>(root, b + "/work_items");
    k.theoretical_occupancy_pct = optional_number_at(root, b + "/theoretical_occupancy_pct");
    const std::string o = b + "/occupancy_limits";
    if (const ordered_json* limits = find(root, o); limits && !limits->is_null()) {
      if (!limits->is_object()) throw FieldError(type_problem(o, "an object or null"));
      RecordedKernel::Limits L;
      for (const char* resource : {"registers", "shared_memory", "warps", "blocks"})
        if (find(root, o + "/ctas_per_sm/" + resource))
          L.ctas_per_sm.emplace_back(resource, value_or_null_at<int>(root, o + "/ctas_per_sm/" + resource));
      L.limited_by = value_or_null_at<std::vector<std::string>>(root, o + "/limited_by").value_or(std::vector<std::string>{});
      L.active_blocks_per_sm = value_or_null_at<int>(root, o + "/active_blocks_per_sm");
      L.agrees_with_driver = value_or_null_at<bool>(root, o + "/agrees_with_driver");
      k.occupancy = std::move(L);
    }
    k.occupancy_reason = optional_string_at(root, b + "/occupancy_limits_reason");
    out.push_back(std::move(k));
  }
  return out;
}

namespace {

// Numeric leaves of an object as ("a b", value), in record order, skipping `skip` keys at any depth.
void numeric_leaves(const ordered_json& j, const std::string& prefix, const std::vector<std::string>& skip,
                    std::vector<std::pair<std::string, double>>& out) {
  for (const auto& [k, v] : j.items()) {
    if (std::find(skip.begin(), skip.end(), k) != skip.end()) continue;
    const std::string name = prefix.empty() ? k : prefix + " " + k;
    if (v.is_number()) out.emplace_back(name, v.get<double>());
    else if (v.is_object()) numeric_leaves(v, name, skip, out);
  }
}

RecordedPtxas read_recorded_ptxas(const ordered_json& root, const std::string& b) {
  RecordedPtxas p;
  p.available = value_or_null_at<bool>(root, b + "/available");
  p.reason = optional_string_at(root, b + "/reason");
  const ordered_json* ks = find(root, b + "/kernels");
  if (!ks || !ks->is_array()) return p;
  for (std::size_t i = 0; i < ks->size(); ++i) {
    const std::string k = b + "/kernels/" + std::to_string(i);
    RecordedPtxasKernel x;
    x.name = optional_string_at(root, k + "/name").value_or("?");
    x.found = value_or_null_at<bool>(root, k + "/found").value_or(true);
    x.registers = optional_number_at(root, k + "/registers");
    x.barriers = optional_number_at(root, k + "/barriers");
    x.stack_frame_bytes = optional_number_at(root, k + "/stack_frame_bytes");
    x.spill_store_bytes = optional_number_at(root, k + "/spill_store_bytes");
    x.spill_load_bytes = optional_number_at(root, k + "/spill_load_bytes");
    x.smem_bytes = optional_number_at(root, k + "/smem_bytes");
    p.kernels.push_back(std::move(x));
  }
  return p;
}

RecordedSass read_recorded_sass(const ordered_json& root, const std::string& b) {
  RecordedSass s;
  s.available = value_or_null_at<bool>(root, b + "/available");
  s.complete = value_or_null_at<bool>(root, b + "/complete");
  s.reason = optional_string_at(root, b + "/reason");
  numeric_leaves(*find(root, b), "", {"kernels", "available", "complete"}, s.counts);
  return s;
}

// The object at `ptr`, nullptr where absent or not an object (the report says "not in the record").
const ordered_json* object_at(const ordered_json& root, const std::string& ptr) {
  const ordered_json* j = find(root, ptr);
  return j && j->is_object() ? j : nullptr;
}

}  // namespace

std::optional<RecordedStatic> read_recorded_static(const ordered_json& root, const std::string& b) {
  const ordered_json* st = find(root, b);
  if (!st || st->is_null()) return std::nullopt;
  if (!st->is_object()) throw FieldError(type_problem(b, "an object"));
  RecordedStatic s;
  s.available = value_or_null_at<bool>(root, b + "/available");
  s.reason = optional_string_at(root, b + "/reason");
  s.kernels = read_recorded_kernels(root, b + "/kernels");
  s.kernels_unavailable = optional_string_at(root, b + "/kernels_unavailable");
  if (object_at(root, b + "/ptxas")) s.ptxas = read_recorded_ptxas(root, b + "/ptxas");
  if (object_at(root, b + "/sass")) s.sass = read_recorded_sass(root, b + "/sass");
  return s;
}

}  // namespace attnlab
