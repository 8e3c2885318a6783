// Static facts of the kernels one launch runs: launch configuration, registers, static,
// dynamic and local memory and theoretical occupancy. The CUPTI callback API names the
// functions a launch starts (the harness has only Phase::launch, no function pointers); the
// driver answers for each. Host-only.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profiler/occupancy.hpp"
#include "profiler/sampler.hpp"

namespace attnlab::profiler {

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
  std::string occupancy_reason;
  // Work items the grid's CTAs share where each walks several (a persistent grid: items
  // blockIdx.x, + gridDim.x, ...); unset where a CTA is one item or the phase does not say.
  // The capture cannot see it: the harness sets it from the phase.
  std::optional<std::int64_t> work_items;
  std::string attributes_reason;
};

struct StaticFacts {
  bool available = false;
  std::string reason;               // when unavailable: the error and what to do about it
  std::vector<KernelFacts> kernels;  // in launch order
  std::optional<DeviceLimits> device;  // the properties the occupancy limits divide
};

// Launches once on `stream` with CUPTI launch callbacks subscribed (KernelActivity paused),
// waits for it, and describes every kernel it started. CUPTI refusals (another subscriber
// attached, say) give an unavailable result; CUDA errors of the launch propagate.
StaticFacts capture_static_facts(const LaunchFn& launch, cudaStream_t stream);

// The record's "static" object: {"kernels": [...]}, or {"kernels": [], "kernels_unavailable":
// reason}; experiments/sass.hpp adds "sass" and "ptxas" beside. Kernel fields: name,
// registers, static_smem_bytes, dynamic_smem_bytes, local_bytes, max_threads_per_block,
// block, grid, active_blocks_per_sm, theoretical_occupancy_pct (null, with
// attributes_reason, when the function could not be resolved), occupancy_limits (CTAs per SM
// by resource, what limits them and whether their least equals the driver's
// active_blocks_per_sm; null with occupancy_limits_reason where not computed), launch_api,
// source, work_items where set; and "device", the device properties those limits divide.
nlohmann::ordered_json to_json(const StaticFacts& facts);

}  // namespace attnlab::profiler
