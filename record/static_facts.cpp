// The static facts' JSON mapping and its reader.
#include "record/static_facts.hpp"

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

}  // namespace attnlab
