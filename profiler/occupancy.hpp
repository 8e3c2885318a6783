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

#include "record/static_facts.hpp"

namespace attnlab::profiler {

// DeviceLimits and OccupancyLimits are record types (record/static_facts.hpp).
using attnlab::DeviceLimits;
using attnlab::OccupancyLimits;

// What one launch of a function uses per CTA (cuFuncGetAttribute and the launch's own values).
struct FunctionUse {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  std::int64_t static_smem_bytes = 0;   // [bytes] per block
  std::int64_t dynamic_smem_bytes = 0;  // [bytes] per block, as launched
  int carveout_pct = -1;  // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT; -1: no preference
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

}  // namespace attnlab::profiler
