// Theoretical occupancy and what limits it, per resource, as Nsight Compute's Occupancy section
// shows it: the CTAs per SM that registers, shared memory, warp slots and the CTA slots each
// allow, from a kernel's attributes and the device's properties. Host-only and CUDA-free, so
// it is tested on the CPU against CUDA's own calculator (cuda_occupancy.h) and against the
// driver's answers recorded on the H100; static_facts.cpp fills it from the driver at run time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::profiler {

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

// What one launch of a function uses per CTA (cuFuncGetAttribute and the launch's own values).
struct FunctionUse {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  std::int64_t static_smem_bytes = 0;   // [bytes] per block
  std::int64_t dynamic_smem_bytes = 0;  // [bytes] per block, as launched
  int carveout_pct = -1;  // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT; -1: no preference
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

// The limits as CUDA's occupancy calculator computes them for compute capability 7.0 and
// later (cuda_occupancy.h: registers allocated per warp in units of 256 in each of 4 SM
// sub-partitions, shared memory in units of 128 bytes from 8.0 on, plus the driver's reserved
// bytes per CTA). nullopt, with `why` set, for an older device or a carveout preference on a
// device whose carveout sizes are not tabled here (9.0 only). Ignores thread-block clusters and
// named-barrier counts, as cuOccupancyMaxActiveBlocksPerMultiprocessor does for the first and
// the driver does not expose for the second.
std::optional<OccupancyLimits> occupancy_limits(const DeviceLimits& device, const FunctionUse& use,
                                                std::string* why = nullptr);

// The record's form: {"ctas_per_sm": {"registers", "shared_memory", "warps", "blocks"} (null:
// no limit), "limited_by": [...], "active_blocks_per_sm", "warps_per_block",
// "registers_per_block", "smem_per_block_bytes", "smem_per_sm_bytes",
// "theoretical_occupancy_pct"}.
nlohmann::ordered_json to_json(const OccupancyLimits& limits);
nlohmann::ordered_json to_json(const DeviceLimits& device);

}  // namespace attnlab::profiler
