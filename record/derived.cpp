// The derived figures' JSON mapping and its reader.
#include "record/derived.hpp"

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

namespace {

void put(ordered_json& j, const std::string& key, const DerivedFigure& f) {
  j[key] = f.value ? ordered_json(*f.value) : ordered_json();
  if (!f.value) j[key + "_reason"] = f.reason;
}

DerivedFigure get(const ordered_json& root, const std::string& base, const std::string& key) {
  DerivedFigure f;
  f.value = optional_number_at(root, base + "/" + key);
  if (!f.value) f.reason = string_at(root, base + "/" + key + "_reason");
  return f;
}

}  // namespace

ordered_json to_json(const DerivedFigures& d) {
  ordered_json j;
  put(j, "pct_of_tensor_peak", d.pct_of_tensor_peak);
  if (d.pct_of_tensor_peak.value && d.tensor_peak_tflops) j["tensor_peak_tflops"] = *d.tensor_peak_tflops;
  if (d.pct_of_tensor_peak.value && d.tensor_peak_tflops && d.tensor_peak_source)
    j["tensor_peak_source"] = *d.tensor_peak_source;
  put(j, "arithmetic_intensity_flop_per_byte", d.arithmetic_intensity_flop_per_byte);
  if (d.replay_over_kernel) j["replay_over_kernel"] = *d.replay_over_kernel;
  put(j, "dram_gbps_measured", d.dram_gbps_measured);
  return j;
}

DerivedFigures read_derived(const ordered_json& root, const std::string& base) {
  DerivedFigures d;
  d.pct_of_tensor_peak = get(root, base, "pct_of_tensor_peak");
  d.tensor_peak_tflops = optional_number_at(root, base + "/tensor_peak_tflops");
  d.tensor_peak_source = optional_string_at(root, base + "/tensor_peak_source");
  d.arithmetic_intensity_flop_per_byte = get(root, base, "arithmetic_intensity_flop_per_byte");
  d.replay_over_kernel = optional_number_at(root, base + "/replay_over_kernel");
  d.dram_gbps_measured = get(root, base, "dram_gbps_measured");
  return d;
}

}  // namespace attnlab
