// CTAs per SM by resource, following CUDA's occupancy calculator (cuda_occupancy.h,
// cudaOccMaxActiveBlocksPerMultiprocessor) for compute capability 7.0 and later, so that the
// record can say which resource sets the theoretical occupancy; tests/cpu/test_occupancy.cpp
// holds it to that header and to the driver's answers on the H100.
#include "profiler/occupancy.hpp"

#include <algorithm>

namespace attnlab::profiler {
namespace {

// Architecture constants of cuda_occupancy.h for compute capability 7.0 and later (the
// driver does not report them): registers are allocated per warp in units of 256, in each of
// 4 sub-partitions of an SM, at most 256 per thread; shared memory in units of 128 bytes from
// 8.0 on (256 before).
constexpr int kRegAllocUnit = 256;
constexpr int kSubPartitions = 4;
constexpr int kMaxRegsPerThread = 256;
int smem_alloc_unit(int cc_major) { return cc_major >= 8 ? 128 : 256; }

// The shared-memory carveouts compute capability 9.0 offers [KiB] (cuda_occupancy.h,
// cudaOccAlignUpShmemSizeVoltaPlus): a request is rounded up to the next.
constexpr int kCarveoutsKiB90[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

std::optional<std::int64_t> align_up_carveout(std::int64_t bytes, const DeviceLimits& d) {
  if (d.cc_major != 9 || d.cc_minor != 0) return std::nullopt;
  for (int kib : kCarveoutsKiB90)
    if (bytes <= std::int64_t(kib) * 1024) return std::int64_t(kib) * 1024;
  return std::nullopt;
}

std::int64_t round_up(std::int64_t x, std::int64_t unit) { return (x + unit - 1) / unit * unit; }

}  // namespace

std::optional<OccupancyLimits> occupancy_limits(const DeviceLimits& d, const FunctionUse& u,
                                                std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<OccupancyLimits> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (d.cc_major < 7)
    return fail("compute capability " + std::to_string(d.cc_major) + "." +
                std::to_string(d.cc_minor) + " is older than this calculation (7.0 and later)");
  if (d.warp_size <= 0 || d.max_threads_per_sm <= 0 || d.max_threads_per_block <= 0 ||
      d.max_blocks_per_sm <= 0 || d.regs_per_sm <= 0 || d.regs_per_block <= 0 ||
      d.smem_per_sm_bytes <= 0)
    return fail("a device property is missing (not positive)");
  if (u.threads_per_block <= 0 || u.registers_per_thread < 0)
    return fail("the launch has no threads, or the function a negative register count");
  OccupancyLimits L;
  L.warps_per_block = (u.threads_per_block + d.warp_size - 1) / d.warp_size;
  const int warps = L.warps_per_block;

  // Warp slots.
  L.warps = u.threads_per_block > d.max_threads_per_block ? 0 : d.max_threads_per_sm / d.warp_size / warps;

  // Registers: per warp, rounded to the allocation unit, in each sub-partition; the hardware's
  // per-CTA check assumes the warps spread over all sub-partitions.
  const std::int64_t regs_per_warp = round_up(std::int64_t(u.registers_per_thread) * d.warp_size, kRegAllocUnit);
  L.registers_per_block = regs_per_warp * warps;
  const std::int64_t regs_assumed = regs_per_warp * round_up(warps, kSubPartitions);
  if (d.regs_per_block < regs_assumed || d.regs_per_block < L.registers_per_block ||
      u.registers_per_thread > kMaxRegsPerThread) {
    L.registers = 0;
  } else if (regs_per_warp > 0) {
    const std::int64_t warps_per_sub = (d.regs_per_sm / kSubPartitions) / regs_per_warp;
    L.registers = int(warps_per_sub * kSubPartitions / warps);
  }

  // Shared memory: static + dynamic + the driver's reserve, in allocation units, against the
  // carveout (the largest, unless the function prefers another; a carveout too small for one
  // CTA grows to the next that holds it).
  L.smem_per_block_bytes = round_up(u.static_smem_bytes + u.dynamic_smem_bytes + d.reserved_smem_per_block_bytes,
                                    smem_alloc_unit(d.cc_major));
  std::int64_t preference = d.smem_per_sm_bytes;
  if (u.carveout_pct >= 0) {
    const auto aligned = align_up_carveout(std::int64_t(u.carveout_pct) * d.smem_per_sm_bytes / 100, d);
    if (!aligned)
      return fail("the function prefers a shared-memory carveout of " + std::to_string(u.carveout_pct) +
                  "%, and this calculation knows the carveout sizes of compute capability 9.0 only");
    preference = *aligned;
  }
  L.smem_per_sm_bytes = preference;
  if (d.smem_per_block_optin_bytes > 0 &&
      L.smem_per_block_bytes > d.smem_per_block_optin_bytes + d.reserved_smem_per_block_bytes) {
    L.shared_memory = 0;  // more than one CTA may have: it cannot launch
  } else if (L.smem_per_block_bytes > 0) {
    if (preference < L.smem_per_block_bytes) {
      const auto grown = align_up_carveout(L.smem_per_block_bytes, d);
      L.smem_per_sm_bytes = grown ? *grown : d.smem_per_sm_bytes;
    }
    L.shared_memory = int(L.smem_per_sm_bytes / L.smem_per_block_bytes);
  }

  L.blocks = d.max_blocks_per_sm;

  int least = *L.blocks;
  for (const auto& lim : {L.registers, L.shared_memory, L.warps})
    if (lim) least = std::min(least, *lim);
  L.active_blocks_per_sm = least;
  const std::pair<const char*, const std::optional<int>*> named[] = {
      {"registers", &L.registers}, {"shared_memory", &L.shared_memory}, {"warps", &L.warps}, {"blocks", &L.blocks}};
  for (const auto& [name, lim] : named)
    if (*lim && **lim == least) L.limited_by.emplace_back(name);
  L.theoretical_occupancy_pct =
      100.0 * double(least) * warps / double(d.max_threads_per_sm / d.warp_size);
  return L;
}

}  // namespace attnlab::profiler
