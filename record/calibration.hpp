// The record of one calibration run (schema attnlab.calibration/1,
// record/schema/attnlab.calibration-1.schema.json): what this GPU sustains for the work of
// attention (fp16 and e4m3 wgmma, ex2, FFMA, DRAM and shared-memory reads) and what an empty launch of each
// phase's launch configuration costs, every sample kept with its SM clock, so that the
// speed-of-light floors of a run (reports/speed_of_light.hpp) come from measurements.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/provenance.hpp"

namespace attnlab {

inline constexpr const char* kCalibrationSchema = "attnlab.calibration/1";
inline constexpr const char* kCalibrationFile = "calibration.json";

// The rates a calibration measures, by the names the record and the floors use.
namespace calibration {
inline constexpr const char* kTensor = "wgmma_fp16_m64n256k16";  // [FLOP/s] fp16 in, fp32 accumulate
// [FLOP/s] e4m3 in, fp32 accumulate. Absent from records made before it was measured.
inline constexpr const char* kTensorFp8 = "wgmma_e4m3_m64n256k32";
inline constexpr const char* kExp2 = "mufu_ex2";                 // [ex2/s]
inline constexpr const char* kFfma = "ffma_fp32";                // [FLOP/s] an FMA is 2 FLOPs
inline constexpr const char* kDramRead = "dram_read";            // [B/s]
inline constexpr const char* kSmemRead = "smem_read";            // [B/s]
}  // namespace calibration

// The most one SM can issue per clock of a calibration rate (calibration::k*) on GPUs of
// `compute_capability` ("9.0"), with its source; nullopt where not known. A measured rate above
// it divided the work by too low a clock: the calibration is impossible as recorded. Where no
// calibration is at hand, the timeline's tensor pipe takes it as the rate, and says so.
struct PerClockCeiling {
  double per_sm_per_clock;
  const char* source;
};
std::optional<PerClockCeiling> per_clock_ceiling(const std::string& compute_capability, const std::string& rate);

// A kernel launch's shape as the driver sees it.
struct LaunchShape {
  std::array<int, 3> grid{1, 1, 1};
  std::array<int, 3> block{1, 1, 1};
  std::array<int, 3> cluster{1, 1, 1};
  long long dynamic_smem_bytes = 0;  // [bytes] per block
  long long ctas() const { return 1LL * grid[0] * grid[1] * grid[2]; }
  bool operator==(const LaunchShape& o) const {
    return grid == o.grid && block == o.block && cluster == o.cluster &&
           dynamic_smem_bytes == o.dynamic_smem_bytes;
  }
};

// Median, 10th and 90th percentile of a set of samples, in the unit of the field that holds it.
struct Spread {
  double median = 0, p10 = 0, p90 = 0;
};
// The Spread of `v` (linear interpolation between closest ranks); throws std::invalid_argument
// on no samples.
Spread spread(const std::vector<double>& v);

// One throughput microbenchmark: a kernel doing `work_per_launch` units of work, timed launch
// by launch. Rates are work / device time per sample.
struct CalibrationRate {
  std::string name;    // calibration::k*
  std::string unit;    // of the rate: "FLOP/s", "ex2/s", "B/s"
  std::string method;  // how the kernel does its work, one line
  double work_per_launch = 0;   // [unit x s]: FLOPs, ex2 or bytes per launch
  LaunchShape launch;
  // True where the rate follows the SM clock (the SM's own pipes); false for DRAM, whose
  // bandwidth is set by the memory clock: its floors are not rescaled to another SM clock.
  bool scales_with_sm_clock = true;
  std::vector<double> time_ns;       // [ns] device time of each sample (CUPTI kernel record)
  std::vector<double> sm_clock_mhz;  // [MHz] NVML SM clock read during each sample
  // [MHz] The SM clock each sampled kernel counted itself (clock64 cycles over %globaltimer ns of
  // block 0's work). Empty in records made before it was measured (then NVML's clock stands in).
  std::vector<double> kernel_sm_clock_mhz;
  Spread rate;                       // [unit] over the samples
  double sm_clock_median_mhz = 0;    // [MHz] median of kernel_sm_clock_mhz, else of sm_clock_mhz
  // [unit x s per SM per cycle] rate.median / (SMs x sm_clock_median): the rate at any clock is
  // this x SMs x clock (for scales_with_sm_clock).
  double per_sm_per_clock = 0;
};

// The device time of an empty kernel launched with a given configuration: the launch floor of
// any kernel launched so (block scheduling of its grid and clusters, shared-memory set-up).
struct CalibrationLaunch {
  LaunchShape launch;
  // Who launches this configuration: "5 16x16x2048x64" (phase id and shape name) for each shape
  // whose launch it is; "command line" for one given with --launch.
  std::vector<std::string> used_by;
  std::vector<double> time_ns;       // [ns] device time of each sample (CUPTI kernel record)
  std::vector<double> sm_clock_mhz;  // [MHz] NVML SM clock read after each launch was enqueued
  Spread time;                       // [ns]
  double sm_clock_median_mhz = 0;    // [MHz]
  // The same launches each behind an L2 flush (the cold regime's floor: the kernel's code and
  // parameters come from HBM); empty, and cold_time absent, in records made before it was measured.
  std::vector<double> cold_time_ns;       // [ns]
  std::vector<double> cold_sm_clock_mhz;  // [MHz]
  std::optional<Spread> cold_time;        // [ns]
};

struct CalibrationOptions {
  std::size_t rate_samples = 0, launch_samples = 0, warmup_launches = 0;
  double rate_target_ms = 0;        // [ms] each throughput kernel sized to run about this long
  long long dram_bytes = 0;         // [bytes] read by the DRAM kernel
};

struct CalibrationRecord {
  std::string status = "incomplete";  // "incomplete", "ok", "failed"
  std::string started_utc;
  Provenance provenance;
  CalibrationOptions options;
  std::string method;                 // how a sample is taken and its clock read
  std::vector<CalibrationRate> rates;
  std::vector<CalibrationLaunch> launches;
  std::optional<std::string> error;   // a fault that ended the run

  const CalibrationRate* rate(const std::string& name) const;
  // The launch entry used by "<phase> <shape name>", else nullptr.
  const CalibrationLaunch* launch_used_by(const std::string& phase, const std::string& shape) const;
  // The first launch entry of exactly this configuration, else nullptr.
  const CalibrationLaunch* launch_of(const LaunchShape& s) const;
};

// Fills rate (work / time per sample), the median clock and per_sm_per_clock from time_ns,
// sm_clock_mhz and work_per_launch. Throws std::invalid_argument on no samples or lengths
// that differ.
void summarize_rate(CalibrationRate& r, int sm_count);
// Fills time and the median clock of a launch entry the same way.
void summarize_launch(CalibrationLaunch& l);
// "132x1x1" and the like, for launch shapes in reports and console lines.
std::string dims_text(const std::array<int, 3>& d);
// "grid 132x1x1, block 512x1x1, cluster 1x1x1, 157696 B dynamic shared memory".
std::string launch_text(const LaunchShape& s);

nlohmann::ordered_json to_json(const CalibrationRecord& r);
// Reads a record written by to_json; throws FieldError naming a missing or mistyped field.
CalibrationRecord read_calibration_record(const nlohmann::ordered_json& j);
// The calibration record in `file`; throws std::runtime_error starting with the file's path.
CalibrationRecord read_calibration_file(const std::filesystem::path& file);
// Writes `r` to `file` atomically (record/record.hpp's write_json_atomically).
void write_calibration_file(const std::filesystem::path& file, const CalibrationRecord& r);
// Every <dir>/<run>/calibration.json, sorted by path (so by start stamp); none when `dir` does
// not exist.
std::vector<std::filesystem::path> find_calibration_records(const std::filesystem::path& dir);

// The calibration a GPU's tools divide by where none is named: among `files`, the newest (by
// started_utc) ok record with a positive per-clock `rate` (calibration::k*) of the same board as
// `gpu` (its uuid), else of the same model (its name); nullopt where there is none. A rate per SM
// per clock is the model's more than the board's, but a board's own is preferred where it has
// one. Throws std::runtime_error, the file's path first, for a file that cannot be read.
struct CalibrationPick {
  CalibrationRecord rec;
  std::filesystem::path file;
  bool same_board = false;
};
std::optional<CalibrationPick> newest_calibration_of(const std::vector<std::filesystem::path>& files,
                                                     const GpuIdentity& gpu, const std::string& rate);

}  // namespace attnlab
