// Derived figures for a result entry, computed only from measured inputs: % of the tensor
// peak, arithmetic intensity and DRAM bandwidth for the roofline. A figure whose input was not
// measured is null with a "<key>_reason"; nothing is estimated. Host-only and CUDA-free.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attnlab::profiler {

// The dense fp16 tensor-core peak of a GPU model. Not readable from the device, so a small
// table keyed by the CUDA device name, each entry with its datasheet source.
struct TensorPeak {
  double dense_fp16_tflops;  // [TFLOPS] dense (no sparsity), at the boost clock
  const char* source;
};
std::optional<TensorPeak> tensor_peak(std::string_view gpu_name);  // nullopt: unknown model

struct DerivedInputs {
  double flops = 0;                       // [FLOP] of one launch, FlashAttention convention
  std::optional<double> tflops;           // [TFLOPS] measured, from the headline timing regime
  std::optional<double> dram_read_bytes;  // [bytes] dram__bytes_read.sum of one launch
  std::optional<double> dram_write_bytes; // [bytes] dram__bytes_write.sum of one launch
  std::optional<double> duration_ns;      // [ns] gpu__time_duration.sum of the same kind of launch
  std::string gpu_name;                   // cudaDeviceProp::name
};

// {"pct_of_tensor_peak", "tensor_peak_tflops"?, "arithmetic_intensity_flop_per_byte",
//  "dram_gbps_measured", "replay_over_kernel"?}, each null with "<key>_reason" when an input is
// missing. dram_gbps_measured is null, with the reason, where the replay took more than
// kReplayDominatedRatio times the launch's device time (flops / tflops): the rate would be the
// replay's overhead, not the kernel's bandwidth.
nlohmann::ordered_json derived_figures(const DerivedInputs& in);
// How each figure is computed, for the record's metrics_config.
nlohmann::ordered_json derived_method();

}  // namespace attnlab::profiler
