// The datasheet table. Add a GPU only with a datasheet to cite.
#include "reports/peaks.hpp"

#include <vector>

namespace attnlab::report {

std::optional<DatasheetPeaks> datasheet_peaks(const std::string& gpu_name) {
  // NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column: FP16 Tensor Core 1,979 TFLOPS
  // "with sparsity", so 989.4 dense. NVIDIA H100 (Hopper) architecture whitepaper: 128 FP32
  // units per SM. "NVIDIA H100 80GB HBM3" is the SXM5 board's device name (the PCIe card
  // reports "NVIDIA H100 PCIe" and has other peaks).
  static const std::vector<DatasheetPeaks> table = {
      {"NVIDIA H100 80GB HBM3", 989.4, 128,
       "NVIDIA H100 datasheet, SXM: 1,979 TFLOPS fp16 tensor with sparsity, 989.4 dense"},
  };
  for (const auto& p : table)
    if (gpu_name == p.gpu_name) return p;
  return std::nullopt;
}

double fp32_peak_tflops(const DatasheetPeaks& p, double sm_count, double sm_clock_mhz) {
  // One FMA is two FLOPs.
  return sm_count * p.fp32_lanes_per_sm * 2.0 * sm_clock_mhz * 1e6 / 1e12;
}

}  // namespace attnlab::report
