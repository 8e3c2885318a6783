// The occupancy limits per resource (profiler/occupancy.hpp) against CUDA's own calculator,
// cuda_occupancy.h, over a grid of kernel attributes on the H100's device properties
// (tests/fixtures/device/h100-device-limits.json), and against the driver's answers
// (cuOccupancyMaxActiveBlocksPerMultiprocessor) that the committed H100 records hold for the
// kernels the phases launched. No GPU needed.
#include <gtest/gtest.h>

#include <cuda_occupancy.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "profiler/occupancy.hpp"
#include "record/record.hpp"

using namespace attnlab::profiler;
namespace fs = std::filesystem;

namespace {

// Plain (a fixture) or gzip-compressed (a committed record).
nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(attnlab::read_record_text(p)); }

struct H100 {
  DeviceLimits limits;
  cudaOccDeviceProp prop;
};

H100 h100() {
  const auto j = read_json(fs::path(ATTNLAB_FIXTURES_DIR) / "device" / "h100-device-limits.json");
  H100 d;
  DeviceLimits& L = d.limits;
  const std::string cc = j["compute_capability"];
  L.cc_major = std::stoi(cc.substr(0, cc.find('.')));
  L.cc_minor = std::stoi(cc.substr(cc.find('.') + 1));
  L.sm_count = j["sm_count"];
  L.warp_size = j["warp_size"];
  L.max_threads_per_block = j["max_threads_per_block"];
  L.max_threads_per_sm = j["max_threads_per_sm"];
  L.max_blocks_per_sm = j["max_blocks_per_sm"];
  L.regs_per_sm = j["regs_per_sm"];
  L.regs_per_block = j["regs_per_block"];
  L.smem_per_sm_bytes = j["smem_per_sm_bytes"];
  L.smem_per_block_optin_bytes = j["smem_per_block_optin_bytes"];
  L.reserved_smem_per_block_bytes = j["reserved_smem_per_block_bytes"];
  cudaOccDeviceProp& p = d.prop;
  p.computeMajor = L.cc_major;
  p.computeMinor = L.cc_minor;
  p.maxThreadsPerBlock = L.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = L.max_threads_per_sm;
  p.regsPerBlock = L.regs_per_block;
  p.regsPerMultiprocessor = L.regs_per_sm;
  p.warpSize = L.warp_size;
  p.sharedMemPerBlock = j["smem_per_block_bytes"].get<std::size_t>();
  p.sharedMemPerMultiprocessor = std::size_t(L.smem_per_sm_bytes);
  p.numSms = L.sm_count;
  p.sharedMemPerBlockOptin = std::size_t(L.smem_per_block_optin_bytes);
  p.reservedSharedMemPerBlock = std::size_t(L.reserved_smem_per_block_bytes);
  return d;
}

// cuda_occupancy.h's limit (INT_MAX: none) in our form (nullopt: none).
std::optional<int> theirs(int v) { return v == INT_MAX ? std::nullopt : std::optional<int>(v); }

TEST(Occupancy, EveryLimitMatchesCudasOccupancyCalculatorOverAGridOfKernels) {
  const H100 d = h100();
  int compared = 0, by_regs = 0, by_smem = 0, by_warps = 0, by_blocks = 0;
  for (int regs : {0, 16, 24, 32, 40, 56, 64, 72, 95, 128, 154, 168, 200, 232, 255})
    for (int threads : {1, 32, 64, 96, 128, 160, 192, 256, 384, 512, 640, 768, 1024})
      for (std::int64_t static_smem : {0, 2048, 16384})
        for (std::int64_t dyn : {0, 1, 4096, 13824, 49152, 65536, 100000, 116736, 200000, 215040, 232448})
          for (int carveout : {-1, 0, 25, 50, 100}) {
            FunctionUse u{threads, regs, static_smem, dyn, carveout};
            cudaOccFuncAttributes a;
            a.maxThreadsPerBlock = d.limits.max_threads_per_block;
            a.numRegs = regs;
            a.sharedSizeBytes = std::size_t(static_smem);
            a.partitionedGCConfig = PARTITIONED_GC_OFF;
            // As a kernel that opted in to the most dynamic shared memory would be.
            a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
            a.maxDynamicSharedSizeBytes = std::size_t(d.limits.smem_per_block_optin_bytes - static_smem);
            a.numBlockBarriers = 1;
            cudaOccDeviceState state;
            state.carveoutConfig = carveout;
            cudaOccResult r;
            ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &d.prop, &a, &state, threads, std::size_t(dyn)),
                      CUDA_OCC_SUCCESS);
            std::string why;
            const auto mine = occupancy_limits(d.limits, u, &why);
            ASSERT_TRUE(mine) << why;
            const std::string at = "regs " + std::to_string(regs) + ", threads " + std::to_string(threads) +
                                   ", smem " + std::to_string(static_smem) + "+" + std::to_string(dyn) +
                                   ", carveout " + std::to_string(carveout);
            EXPECT_EQ(mine->registers, theirs(r.blockLimitRegs)) << at;
            EXPECT_EQ(mine->shared_memory, theirs(r.blockLimitSharedMem)) << at;
            EXPECT_EQ(mine->warps, theirs(r.blockLimitWarps)) << at;
            EXPECT_EQ(mine->blocks, theirs(r.blockLimitBlocks)) << at;
            EXPECT_EQ(mine->active_blocks_per_sm, r.activeBlocksPerMultiprocessor) << at;
            EXPECT_EQ(mine->registers_per_block, r.allocatedRegistersPerBlock) << at;
            EXPECT_EQ(std::size_t(mine->smem_per_block_bytes), r.allocatedSharedMemPerBlock) << at;
            auto has = [&](const char* n) {
              return std::find(mine->limited_by.begin(), mine->limited_by.end(), n) != mine->limited_by.end();
            };
            EXPECT_EQ(has("registers"), (r.limitingFactors & OCC_LIMIT_REGISTERS) != 0) << at;
            EXPECT_EQ(has("shared_memory"), (r.limitingFactors & OCC_LIMIT_SHARED_MEMORY) != 0) << at;
            EXPECT_EQ(has("warps"), (r.limitingFactors & OCC_LIMIT_WARPS) != 0) << at;
            EXPECT_EQ(has("blocks"), (r.limitingFactors & OCC_LIMIT_BLOCKS) != 0) << at;
            const int warps = (threads + 31) / 32;
            EXPECT_DOUBLE_EQ(mine->theoretical_occupancy_pct,
                             100.0 * r.activeBlocksPerMultiprocessor * warps / (d.limits.max_threads_per_sm / 32))
                << at;
            ++compared;
            if (r.activeBlocksPerMultiprocessor > 0) {
              by_regs += has("registers");
              by_smem += has("shared_memory");
              by_warps += has("warps");
              by_blocks += has("blocks");
            }
          }
  // The grid reaches every resource as the one that limits.
  EXPECT_GT(compared, 0);
  EXPECT_GT(by_regs, 0);
  EXPECT_GT(by_smem, 0);
  EXPECT_GT(by_warps, 0);
  EXPECT_GT(by_blocks, 0);
}

// Every kernel the committed H100 records describe: the least computed limit is the CTAs per SM
// the driver answered for that launch on the H100.
TEST(Occupancy, LeastLimitIsTheDriversAnswerForEveryKernelOfTheCommittedH100Records) {
  const H100 d = h100();
  int checked = 0;
  const fs::path records = fs::path(ATTNLAB_SOURCE_DIR) / "reports" / "h100" / "records";
  ASSERT_TRUE(fs::is_directory(records)) << records;
  for (const auto& phase : fs::directory_iterator(records)) {
    if (!phase.is_directory()) continue;
    for (const auto& run : fs::directory_iterator(phase.path())) {
      const auto found = attnlab::record_file_in(run.path(), "run.json");
      if (!found) continue;
      const fs::path file = *found;
      const auto rec = read_json(file);
      if (rec["provenance"]["gpu"]["name"].get<std::string>().find("H100") == std::string::npos) continue;
      for (const auto& res : rec["results"]) {
        if (!res.contains("static") || !res["static"].contains("kernels")) continue;
        for (const auto& k : res["static"]["kernels"]) {
          if (!k["registers"].is_number() || !k["active_blocks_per_sm"].is_number()) continue;
          FunctionUse u;
          u.threads_per_block = k["block"][0].get<int>() * k["block"][1].get<int>() * k["block"][2].get<int>();
          u.registers_per_thread = k["registers"];
          u.static_smem_bytes = k["static_smem_bytes"];
          u.dynamic_smem_bytes = k["dynamic_smem_bytes"];
          if (k.contains("occupancy_limits") && k["occupancy_limits"].is_object() &&
              k["occupancy_limits"]["carveout_pct"].is_number())
            u.carveout_pct = k["occupancy_limits"]["carveout_pct"];
          std::string why;
          const auto mine = occupancy_limits(d.limits, u, &why);
          ASSERT_TRUE(mine) << file << ": " << why;
          EXPECT_EQ(mine->active_blocks_per_sm, k["active_blocks_per_sm"].get<int>())
              << file << " " << k["name"].get<std::string>();
          EXPECT_DOUBLE_EQ(mine->theoretical_occupancy_pct, k["theoretical_occupancy_pct"].get<double>())
              << file << " " << k["name"].get<std::string>();
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0) << "no kernel with the driver's occupancy in " << records;
}

TEST(Occupancy, SaysWhyItCannotCompute) {
  const H100 d = h100();
  std::string why;
  DeviceLimits old = d.limits;
  old.cc_major = 6;
  EXPECT_FALSE(occupancy_limits(old, {128, 32, 0, 0, -1}, &why));
  EXPECT_NE(why.find("older than this calculation"), std::string::npos) << why;
  DeviceLimits ampere = d.limits;
  ampere.cc_major = 8;
  EXPECT_FALSE(occupancy_limits(ampere, {128, 32, 0, 0, 50}, &why));
  EXPECT_NE(why.find("carveout"), std::string::npos) << why;
  // Without a carveout preference other architectures are computed.
  EXPECT_TRUE(occupancy_limits(ampere, {128, 32, 0, 0, -1}, &why));
  // No registers: no register limit, and the record says so (null).
  const auto none = occupancy_limits(d.limits, {128, 0, 0, 0, -1});
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->registers);
  EXPECT_TRUE(to_json(*none)["ctas_per_sm"]["registers"].is_null());
}

}  // namespace
