// The datasheet table. Add a GPU only with a datasheet to cite.
#include "reports/peaks.hpp"

#include <vector>

#include "record/calibration.hpp"

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

std::optional<PerClockCeiling> per_clock_ceiling(const std::string& compute_capability, const std::string& rate) {
  if (compute_capability != "9.0") return std::nullopt;
  // CUDA C++ Programming Guide, throughput of native arithmetic instructions, compute capability
  // 9.0: 16 results per clock per SM for exp2 (MUFU), 128 for fp32 FMA (two FLOPs each). NVIDIA
  // H100 architecture whitepaper: an SM's tensor cores do 1024 dense fp16 FMA per clock (twice
  // A100's), 4096 FLOP, and twice that for FP8 (the H100 datasheet's FP8 tensor figure is twice
  // its FP16 one: 3,958 against 1,979 TFLOPS with sparsity, SXM): 2048 e4m3 FMA, 8192 FLOP.
  if (rate == calibration::kExp2) return PerClockCeiling{16, "16 ex2 per SM per clock (MUFU, compute capability 9.0)"};
  if (rate == calibration::kFfma) return PerClockCeiling{256, "128 fp32 FMA per SM per clock (compute capability 9.0)"};
  if (rate == calibration::kTensor)
    return PerClockCeiling{4096, "1024 dense fp16 FMA per SM per clock (Hopper tensor cores)"};
  if (rate == calibration::kTensorFp8)
    return PerClockCeiling{8192, "2048 dense e4m3 FMA per SM per clock (Hopper tensor cores, twice fp16's)"};
  return std::nullopt;
}

double fp32_peak_tflops(const DatasheetPeaks& p, double sm_count, double sm_clock_mhz) {
  // One FMA is two FLOPs.
  return sm_count * p.fp32_lanes_per_sm * 2.0 * sm_clock_mhz * 1e6 / 1e12;
}

}  // namespace attnlab::report
