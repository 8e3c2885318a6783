// Datasheet ceilings the records do not carry: the tensor-core peak and the FP32 lanes per SM,
// keyed by the GPU name a record's provenance reports. Used only where the name matches
// exactly; everywhere else the report says "not known" rather than guess. (The per-clock
// ceilings of the calibration's rates, which the timeline tool reads too: record/calibration.hpp.)
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

}  // namespace attnlab::report
