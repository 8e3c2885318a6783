// Datasheet ceilings the records do not carry: the tensor-core peak and the FP32 lanes per SM,
// keyed by the GPU name a record's provenance reports. Used only where the name matches
// exactly; everywhere else the report says "not known" rather than guess.
#pragma once

#include <optional>
#include <string>

namespace attnlab::report {

struct DatasheetPeaks {
  const char* gpu_name;            // as cudaGetDeviceProperties names it
  double tensor_fp16_dense_tflops;  // [TFLOPS] fp16/bf16 inputs, fp32 accumulate, no sparsity
  int fp32_lanes_per_sm;           // FP32 FMA units per SM
  const char* source;
};

std::optional<DatasheetPeaks> datasheet_peaks(const std::string& gpu_name);

// FP32 FMA peak [TFLOPS] from the record's SM count and clock and the datasheet's lanes.
double fp32_peak_tflops(const DatasheetPeaks& p, double sm_count, double sm_clock_mhz);

// The most one SM can issue per clock of a calibration rate (record/calibration.hpp's names) on
// GPUs of `compute_capability` ("9.0"), with its source; nullopt where not known. A measured rate
// above it divided the work by too low a clock: the calibration is impossible as recorded.
struct PerClockCeiling {
  double per_sm_per_clock;
  const char* source;
};
std::optional<PerClockCeiling> per_clock_ceiling(const std::string& compute_capability, const std::string& rate);

}  // namespace attnlab::report
