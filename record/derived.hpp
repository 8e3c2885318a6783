// The derived figures of one shape, /results/<i>/derived of a run record: % of the tensor peak,
// arithmetic intensity and DRAM bandwidth, each a value or the reason there is none, as a typed
// struct with its one JSON mapping. profiler/derived.cpp computes them from measured inputs.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace attnlab {

// A figure is a value or, when an input was not measured, null with the reason.
struct DerivedFigure {
  std::optional<double> value;
  std::string reason;  // set exactly when value is not
};

struct DerivedFigures {
  DerivedFigure pct_of_tensor_peak;          // [%] of the GPU model's dense tensor peak (fp16 or FP8 operands)
  std::optional<double> tensor_peak_tflops;  // [TFLOPS] that peak, where known and used
  std::optional<std::string> tensor_peak_source;  // where that peak comes from, where recorded
  DerivedFigure arithmetic_intensity_flop_per_byte;
  std::optional<double> replay_over_kernel;  // replay duration / the launch's device time
  DerivedFigure dram_gbps_measured;          // [GB/s]
};

// {"pct_of_tensor_peak", "tensor_peak_tflops"?, "tensor_peak_source"?, "arithmetic_intensity_flop_per_byte",
//  "replay_over_kernel"?, "dram_gbps_measured"}, each figure null with "<key>_reason" beside.
nlohmann::ordered_json to_json(const DerivedFigures& d);
// Reads the block at `base`; throws FieldError (record/fields.hpp) naming the field.
DerivedFigures read_derived(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab
