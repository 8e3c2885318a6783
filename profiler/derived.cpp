// Derived roofline figures and the tensor-peak table.
#include "profiler/derived.hpp"

#include <array>
#include <cmath>
#include <string>

#include "record/metrics.hpp"

namespace attnlab::profiler {
namespace {

struct PeakEntry {
  const char* gpu_name;  // exactly as cudaDeviceProp::name reports it
  TensorPeak peak;
};

// Datasheets quote tensor throughput with 2:4 sparsity; dense is half of it.
constexpr std::array<PeakEntry, 3> kPeaks = {{
    // SXM5 board; 132 SMs x 4096 dense fp16 FLOP/clk x 1.83 GHz boost, twice that for FP8.
    {"NVIDIA H100 80GB HBM3",
     {989.4, 1979.0,
      "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: FP16 Tensor Core 1,979 TFLOPS with "
      "sparsity, 989.4 dense; FP8 Tensor Core 3,958 with sparsity, 1,979 dense"}},
    {"NVIDIA H100 PCIe",
     {756.5, 1513.0,
      "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe: FP16 Tensor Core 1,513 TFLOPS with "
      "sparsity, 756.5 dense; FP8 Tensor Core 3,026 with sparsity, 1,513 dense"}},
    {"NVIDIA H200",
     {989.4, 1979.0,
      "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM: FP16 Tensor Core 1,979 TFLOPS with "
      "sparsity, 989.4 dense; FP8 Tensor Core 3,958 with sparsity, 1,979 dense"}},
}};

bool usable(const std::optional<double>& v) { return v && std::isfinite(*v); }

}  // namespace

std::optional<TensorPeak> tensor_peak(std::string_view gpu_name) {
  for (const auto& e : kPeaks)
    if (gpu_name == e.gpu_name) return e.peak;
  return std::nullopt;
}

DerivedFigures derived_figures(const DerivedInputs& in) {
  DerivedFigures d;
  const auto peak = tensor_peak(in.gpu_name);
  if (!usable(in.tflops)) {
    d.pct_of_tensor_peak.reason = "no timed TFLOPS for this shape";
  } else if (!peak) {
    d.pct_of_tensor_peak.reason = "no dense tensor peak is known for GPU '" + in.gpu_name +
                                  "' (profiler/derived.cpp lists the models with their datasheet values)";
  } else {
    const double tflops = in.e4m3_operands ? peak->dense_fp8_tflops : peak->dense_fp16_tflops;
    d.pct_of_tensor_peak.value = 100.0 * *in.tflops / tflops;
    d.tensor_peak_tflops = tflops;
    d.tensor_peak_source = std::string(in.e4m3_operands ? "dense FP8 (e4m3 operands) peak; " : "dense fp16 peak; ") +
                           peak->source;
  }

  const bool bytes = usable(in.dram_read_bytes) && usable(in.dram_write_bytes);
  const double dram = bytes ? *in.dram_read_bytes + *in.dram_write_bytes : 0;  // [bytes]
  if (!bytes)
    d.arithmetic_intensity_flop_per_byte.reason = "DRAM bytes were not measured (metric group memory)";
  else if (dram <= 0)
    d.arithmetic_intensity_flop_per_byte.reason = "the launch moved no DRAM bytes";
  else
    d.arithmetic_intensity_flop_per_byte.value = in.flops / dram;

  if (!bytes || !usable(in.duration_ns)) {
    d.dram_gbps_measured.reason = !bytes ? "DRAM bytes were not measured (metric group memory)"
                                         : "the duration was not measured (metric group throughput)";
  } else if (*in.duration_ns <= 0) {
    d.dram_gbps_measured.reason = "the measured duration is not positive";
  } else {
    // The launch's device time at the headline median, from the TFLOPS it was timed at.
    const std::optional<double> kernel_ns =
        usable(in.tflops) && *in.tflops > 0 ? std::optional<double>(in.flops / (*in.tflops * 1e3)) : std::nullopt;
    if (kernel_ns) d.replay_over_kernel = *in.duration_ns / *kernel_ns;
    if (kernel_ns && *in.duration_ns > kReplayDominatedRatio * *kernel_ns)
      d.dram_gbps_measured.reason =
          "the replay (gpu__time_duration.sum) took more than " + std::to_string(int(kReplayDominatedRatio)) +
          "x the launch's device time, so it is dominated by replay overhead; bytes over the timed "
          "device time is the roofline's figure";
    else
      d.dram_gbps_measured.value = dram / *in.duration_ns;  // byte/ns = GB/s
  }
  return d;
}

std::vector<std::pair<std::string, std::string>> derived_method() {
  return {{"pct_of_tensor_peak",
           "100 * the headline timing regime's TFLOPS / the GPU model's dense tensor peak for the "
           "phase's operands, fp16 or FP8 (e4m3) (datasheet table in profiler/derived.cpp)"},
          {"arithmetic_intensity_flop_per_byte",
           "FLOPs (4*B*H*S^2*D, halved for causal; a backward run's 2.5 times that) / "
           "(dram__bytes_read.sum + dram__bytes_write.sum)"},
          {"dram_gbps_measured",
           "(dram__bytes_read.sum + dram__bytes_write.sum) / gpu__time_duration.sum, all from the "
           "CUPTI collection (clean L2, one launch)"}};
}

}  // namespace attnlab::profiler
