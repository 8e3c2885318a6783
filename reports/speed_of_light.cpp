#include "reports/speed_of_light.hpp"

#include <cmath>
#include <stdexcept>

namespace attnlab::report::sol {

double exponentials(const Shape& s) {
  const double e = double(s.B) * s.H * double(s.S) * s.S;
  return s.causal ? e / 2 : e;
}

double wave_factor(long long items, long long concurrent, long long slots) {
  if (items <= 0 || concurrent <= 0 || slots <= 0)
    throw std::invalid_argument("wave_factor needs positive items, concurrent items and slots");
  const double rounds = std::ceil(double(items) / double(concurrent));
  return rounds / (double(items) / double(slots));
}

const char* tensor_rate_for(const std::optional<std::string>& input_format) {
  return input_format && *input_format == "e4m3" ? calibration::kTensorFp8 : calibration::kTensor;
}

Rates rates_of(const CalibrationRecord& cal, const std::string& tensor_rate) {
  Rates out;
  out.tensor_rate = tensor_rate;
  if (const auto* r = cal.rate(tensor_rate)) out.tensor_flops_per_s = r->rate.median;
  if (const auto* r = cal.rate(calibration::kExp2)) out.ex2_per_s = r->rate.median;
  if (const auto* r = cal.rate(calibration::kDramRead)) out.dram_bytes_per_s = r->rate.median;
  return out;
}

const char* floor_name(FloorKind k) {
  switch (k) {
    case FloorKind::kTensorUseful: return "tensor (useful FLOPs)";
    case FloorKind::kTensorExecuted: return "tensor (executed FLOPs)";
    case FloorKind::kExp: return "exponentials";
    case FloorKind::kDram: return "DRAM";
    case FloorKind::kLaunch: return "launch";
  }
  return "?";
}

const Floor* SpeedOfLight::floor(FloorKind k) const {
  for (const auto& f : floors)
    if (f.kind == k) return &f;
  return nullptr;
}

SpeedOfLight speed_of_light(const Inputs& in, const Rates& rates) {
  SpeedOfLight out;
  if (in.work_items && in.concurrent && in.slots && *in.work_items > 0 && *in.concurrent > 0 && *in.slots > 0)
    out.wave_factor = wave_factor(*in.work_items, *in.concurrent, *in.slots);
  const auto per = [](double work, const std::optional<double>& rate) -> std::optional<double> {
    if (!rate || *rate <= 0) return std::nullopt;
    return work / *rate * 1e9;
  };
  const auto add = [&](FloorKind k, double work, std::optional<double> ns, bool quantised) {
    Floor f;
    f.kind = k;
    f.work = work;
    f.ns = ns;
    f.quantised = quantised;
    f.binding_candidate = k != FloorKind::kTensorExecuted;
    if (ns) f.scheduled_ns = quantised && out.wave_factor ? *ns * *out.wave_factor : *ns;
    out.floors.push_back(f);
  };
  const double flops = pass_flops(in.shape, in.direction);
  add(FloorKind::kTensorUseful, flops, per(flops, rates.tensor_flops_per_s), true);
  if (in.executed_flops)
    add(FloorKind::kTensorExecuted, *in.executed_flops, per(*in.executed_flops, rates.tensor_flops_per_s), true);
  const double ex = exponentials(in.shape);
  add(FloorKind::kExp, ex, per(ex, rates.ex2_per_s), true);
  const double bytes = pass_min_bytes(in.shape, in.direction);
  // DRAM bandwidth is the memory system's, not the SMs': idle SMs in a last wave do not lower it.
  add(FloorKind::kDram, bytes, per(bytes, rates.dram_bytes_per_s), false);
  add(FloorKind::kLaunch, 0, in.launch_floor_ns, false);
  const Floor* tensor_floor = out.floor(FloorKind::kTensorUseful);
  const Floor* exp_floor = out.floor(FloorKind::kExp);
  if (tensor_floor->ns && exp_floor->ns) out.serial_ns = *tensor_floor->ns + *exp_floor->ns;
  for (const auto& f : out.floors) {
    if (!f.binding_candidate || !f.ns) continue;
    if (!out.sol_ns || *f.ns > *out.sol_ns) {
      out.sol_ns = *f.ns;
      out.binding = f.kind;
    }
    if (!out.wave_factor) continue;
    if (!out.schedule_ns || *f.scheduled_ns > *out.schedule_ns) {
      out.schedule_ns = *f.scheduled_ns;
      out.schedule_binding = f.kind;
    }
  }
  return out;
}

}  // namespace attnlab::report::sol
