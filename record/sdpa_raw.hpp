// The SDPA baseline's raw measurements (attnlab.sdpa-raw/1): what experiments/baselines/sdpa_baseline.py
// measured with PyTorch; attnlab-sdpa-import turns it into the run record (record/result.hpp)
// with the harness's statistics and provenance. The reader checks every field and names the
// first bad one in one line.
//
// The file is JSON lines, appended to as the run goes, so that a run cut short leaves every
// line it finished and no line is ever rewritten: the first line holds the header keys below
// (all but "results" and "error"), each later line one {"result": result} or {"error": string}.
// The reader assembles them into the document below, whose JSON pointers its messages name.
//
// Document (every key required unless marked; numbers are JSON numbers, times in ns):
//   schema        "attnlab.sdpa-raw/1"
//   backend       "cudnn" | "flash" | "efficient"
//   argv          [string]      the script's command line
//   started_unix_s integer      when the run started (names the run directory)
//   seed          integer >= 0
//   options       {regimes: [string], check_only: bool, min_samples, max_samples: integer,
//                  noise_target_pct, max_seconds: number}
//   versions      {driver: integer, torch: string, torch_cuda: string, cudnn: integer | null}
//   gpu           the driver's attributes (cuDeviceGetAttribute): {name, uuid_hex (32 hex
//                  digits), cc_major, cc_minor, sm_count, sm_clock_khz, mem_clock_khz,
//                  bus_width_bits, l2_bytes, global_mem_bytes, smem_per_sm_bytes}
//   results       [result], one per shape run, in order
//   error         string, optional: a fault that ended the run
// result:
//   shape         {B, H, H_kv, S, D: integer >= 1, causal: bool, scale: number} (more keys, as
//                 sdpa_shape_line writes them, are ignored)
//   unavailable   string, optional: the backend refused the shape (then nothing else follows)
//   correctness   the record's correctness block (record/correctness.hpp), as the importer's
//                 check (attnlab-sdpa-import check) printed it for this output
//   changed_after_timing  bool, optional: the output after timing differed from the checked one
//   regimes       [regime], optional: absent when not timed
// regime:
//   name          "cold" | "warm" | "graph";  stop_reason string;  wall_s number;
//   launches_per_sample integer; clock_before_mhz, clock_after_mhz: number | null (NVML)
//   graph:        samples_ns [number]: each replay's event time over launches_per_sample
//   cold, warm:   kernels [string]: one call's device activities in order; launches [[number]]:
//                 per call, [start, end) of each of those activities, flattened
//                 (torch.profiler's clock), so 2 * len(kernels) numbers a call
//   nvml          {unavailable: string} or {max_sm_clock_mhz: number, readings: [[SM MHz,
//                 power W, temperature C, clock-event reason bits]]} polled while sampling
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/shape.hpp"
#include "record/correctness.hpp"
#include "record/provenance.hpp"
#include "record/timing.hpp"

namespace attnlab {

inline constexpr const char* kSdpaRawSchema = "attnlab.sdpa-raw/1";

struct SdpaRawReading {
  double sm_clock_mhz = 0, power_w = 0, temperature_c = 0;
  std::uint64_t reasons = 0;  // NVML clock-event reason bits
};

struct SdpaRawRegime {
  std::string name, stop_reason;
  double wall_s = 0;
  int launches_per_sample = 1;
  std::optional<double> clock_before_mhz, clock_after_mhz;
  std::vector<double> samples_ns;                  // graph
  std::vector<std::string> kernels;                // cold, warm
  std::vector<std::vector<double>> launches;       // cold, warm: per call, start/end pairs
  std::string nvml_unavailable;                    // empty: readings below
  double max_sm_clock_mhz = 0;
  std::vector<SdpaRawReading> readings;
};

struct SdpaRawResult {
  Shape shape;
  double scale = 0;
  std::string unavailable;  // empty: the backend ran the shape
  Correctness correctness;
  bool changed_after_timing = false;
  std::vector<SdpaRawRegime> regimes;  // empty: not timed
};

struct SdpaRaw {
  std::string backend;
  std::vector<std::string> argv;
  long long started_unix_s = 0;
  std::uint64_t seed = 0;
  TimingRequest timing;  // the options' regimes, check-only and stopping rule
  int driver = 0;
  std::string torch, torch_cuda;
  std::optional<long long> cudnn;
  GpuAttributes gpu;
  std::vector<SdpaRawResult> results;
  std::optional<std::string> error;
};

// Reads and checks `file`; throws std::runtime_error "<file>: <what is wrong>" (one line: the
// file unreadable or empty, a line not JSON or of neither kind, the wrong schema, or the first
// missing or malformed field by its JSON pointer).
SdpaRaw read_sdpa_raw(const std::filesystem::path& file);

// What attnlab-sdpa-import answers the baseline, one JSON line each: a shape it parsed for it
// (its name, the raw file's shape keys with the harness's softmax scale, and the dtype), and the
// correctness block of an output it checked.
std::string sdpa_shape_line(const Shape& s);
std::string correctness_line(const Correctness& c);
// What its NVML monitor answers (attnlab-sdpa-import monitor): the SM clock now, {"sm_clock_mhz":
// MHz or null}, and a regime's nvml block as the raw file holds it ({"unavailable": why} where
// `unavailable` is not empty).
std::string sm_clock_line(std::optional<double> mhz);
std::string nvml_block_line(const std::string& unavailable, double max_sm_clock_mhz,
                            const std::vector<SdpaRawReading>& readings);

}  // namespace attnlab
