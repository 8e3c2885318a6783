// The static facts of one shape's launch, /results/<i>/static/{kernels,device} of a run record:
// launch configuration, registers, memory and occupancy limits of every kernel the launch ran,
// as typed structs with their one JSON mapping. profiler/static_facts.cpp fills them from CUPTI
// and the driver, profiler/occupancy.cpp computes the limits. Host-only.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

// What cudaDeviceGetAttribute reports of a device that bounds CTAs per SM.
struct DeviceLimits {
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int warp_size = 0;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;     // 32-bit registers
  int regs_per_block = 0;  // 32-bit registers
  std::int64_t smem_per_sm_bytes = 0;             // [bytes] cudaDevAttrMaxSharedMemoryPerMultiprocessor
  std::int64_t smem_per_block_optin_bytes = 0;    // [bytes] cudaDevAttrMaxSharedMemoryPerBlockOptin
  std::int64_t reserved_smem_per_block_bytes = 0; // [bytes] cudaDevAttrReservedSharedMemoryPerBlock
};

struct OccupancyLimits {
  // CTAs per SM each resource allows; nullopt where the resource sets no limit (a kernel
  // without registers).
  std::optional<int> registers, shared_memory, warps, blocks;
  int active_blocks_per_sm = 0;      // the least of them
  std::vector<std::string> limited_by;  // every resource at that least, in the order above
  // What one CTA is allocated, after the hardware's rounding.
  int warps_per_block = 0;
  std::int64_t registers_per_block = 0;     // registers per warp rounded to the allocation unit
  std::int64_t smem_per_block_bytes = 0;    // static + dynamic + reserved, rounded
  std::int64_t smem_per_sm_bytes = 0;       // the shared-memory carveout the limit divides
  double theoretical_occupancy_pct = 0;     // [%] resident warps / warp slots per SM
};

struct KernelFacts {
  std::string name;        // as the launch callback names it (mangled for C++ kernels)
  std::string launch_api;  // the API call CUPTI saw: "__cudaLaunchKernel", "cuLaunchKernelEx", ...
  std::array<unsigned, 3> grid{};
  std::array<unsigned, 3> block{};
  std::int64_t dynamic_smem_bytes = 0;  // [bytes] per block, as launched
  // From cuFuncGetAttribute and cuOccupancyMaxActiveBlocksPerMultiprocessor; unset, with
  // attributes_reason saying why, when the launched function could not be resolved.
  std::optional<int> registers;                     // per thread
  std::optional<std::int64_t> static_smem_bytes;    // [bytes] per block
  std::optional<std::int64_t> local_bytes;          // [bytes] per thread
  std::optional<int> max_threads_per_block;
  std::optional<int> active_blocks_per_sm;          // occupancy API, for this block and smem
  std::optional<double> theoretical_occupancy_pct;  // [%] resident warps / max warps per SM
  std::optional<int> carveout_pct;  // preferred shared-memory carveout [%]; -1: none preferred
  // CTAs per SM by resource (profiler/occupancy.hpp), from the same attributes and the device's
  // properties; unset, with occupancy_reason, where it could not be computed.
  std::optional<OccupancyLimits> occupancy;
  // Why not, as recorded; empty: not said (a record written before the limits were computed;
  // the writer then says the function was not resolved).
  std::string occupancy_reason;
  // Work items the grid's CTAs share where each walks several (a persistent grid: items
  // blockIdx.x, + gridDim.x, ...); unset where a CTA is one item or the phase does not say.
  // The capture cannot see it: the harness sets it from the phase.
  std::optional<std::int64_t> work_items;
  std::string attributes_reason;

  long long ctas() const { return 1LL * grid[0] * grid[1] * grid[2]; }  // the grid's blocks
};

struct StaticFacts {
  bool available = false;
  std::string reason;               // when unavailable: the error and what to do about it
  std::vector<KernelFacts> kernels;  // in launch order
  std::optional<DeviceLimits> device;  // the properties the occupancy limits divide
};

// The record's form: {"ctas_per_sm": {"registers", "shared_memory", "warps", "blocks"} (null:
// no limit), "limited_by": [...], "active_blocks_per_sm", "warps_per_block",
// "registers_per_block", "smem_per_block_bytes", "smem_per_sm_bytes",
// "theoretical_occupancy_pct"}.
nlohmann::ordered_json to_json(const OccupancyLimits& limits);
nlohmann::ordered_json to_json(const DeviceLimits& device);

// The record's "static" object without "sass" and "ptxas" (record/sass.hpp): {"kernels": [...]},
// or {"kernels": [], "kernels_unavailable": reason}. Kernel fields: name, registers,
// static_smem_bytes, dynamic_smem_bytes, local_bytes, max_threads_per_block, block, grid,
// active_blocks_per_sm, theoretical_occupancy_pct (null, with attributes_reason, when the
// function could not be resolved), occupancy_limits (CTAs per SM by resource, what limits them
// and whether their least equals the driver's active_blocks_per_sm; null with
// occupancy_limits_reason where not computed), launch_api, source, work_items where set; and
// "device", the device properties those limits divide.
nlohmann::ordered_json to_json(const StaticFacts& facts);

// Reads the object at `base` as to_json wrote it (its "sass" and "ptxas" aside); throws
// FieldError (record/fields.hpp) naming the field.
StaticFacts read_static_facts(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab
