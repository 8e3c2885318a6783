// Derived figures for a result entry, computed only from measured inputs: % of the tensor
// peak, arithmetic intensity and DRAM bandwidth for the roofline. A figure whose input was not
// measured is null with a "<key>_reason"; nothing is estimated. Host-only and CUDA-free.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "record/derived.hpp"

namespace attnlab::profiler {

// The dense tensor-core peaks of a GPU model, fp16 and FP8 operands. Not readable from the
// device, so a small table keyed by the CUDA device name, each entry with its datasheet source.
struct TensorPeak {
  double dense_fp16_tflops;  // [TFLOPS] dense (no sparsity), at the boost clock
  double dense_fp8_tflops;   // [TFLOPS] the same for FP8 (e4m3) operands
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
  bool e4m3_operands = false;             // the phase's GEMMs read FP8: their peak is twice fp16's
};

// Each figure, or the reason it has none when an input is missing (record/derived.hpp). The
// tensor peak is the operands' (fp16, or FP8 where e4m3_operands), named in tensor_peak_source.
// dram_gbps_measured has none where the replay took more than kReplayDominatedRatio times the
// launch's device time (flops / tflops): the rate would be the replay's overhead, not the
// kernel's bandwidth.
DerivedFigures derived_figures(const DerivedInputs& in);
// How each figure is computed (figure, method), for the record's metrics_config.
std::vector<std::pair<std::string, std::string>> derived_method();

}  // namespace attnlab::profiler
