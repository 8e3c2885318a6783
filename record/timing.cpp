#include "record/timing.hpp"

#include <stdexcept>

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

namespace {
ordered_json number_or_null(const std::optional<double>& v) {
  return v ? ordered_json(*v) : ordered_json();
}
ordered_json to_json(const GpuState& g) {
  ordered_json j;
  if (!g.unavailable.empty()) {
    j["unavailable"] = g.unavailable;
    return j;
  }
  j["source"] = g.source;
  j["readings"] = g.readings;
  j["max_sm_clock_mhz"] = g.max_sm_clock_mhz;
  j["sm_clock_mhz"] = {{"min", g.sm_clock_min_mhz},
                       {"median", g.sm_clock_median_mhz},
                       {"max", g.sm_clock_max_mhz}};
  j["power_max_w"] = g.power_max_w;
  j["temperature_max_c"] = g.temperature_max_c;
  j["clock_event_readings"] = ordered_json::object();
  for (const auto& [name, n] : g.clock_event_readings) j["clock_event_readings"][name] = n;
  j["throttled_readings"] = g.throttled_readings;
  j["throttled_samples_ns"] = g.throttled_samples_ns;
  j["throttled_policy"] = g.throttled_policy.empty() ? ordered_json() : ordered_json(g.throttled_policy);
  return j;
}

GpuState read_gpu_state(const ordered_json& root, const std::string& base) {
  GpuState g;
  if (auto why = optional_string_at(root, base + "/unavailable")) {
    g.unavailable = *why;
    return g;
  }
  g.source = string_at(root, base + "/source");
  g.readings = static_cast<long long>(number_at(root, base + "/readings"));
  g.max_sm_clock_mhz = number_at(root, base + "/max_sm_clock_mhz");
  g.sm_clock_min_mhz = number_at(root, base + "/sm_clock_mhz/min");
  g.sm_clock_median_mhz = number_at(root, base + "/sm_clock_mhz/median");
  g.sm_clock_max_mhz = number_at(root, base + "/sm_clock_mhz/max");
  g.power_max_w = number_at(root, base + "/power_max_w");
  g.temperature_max_c = number_at(root, base + "/temperature_max_c");
  const ordered_json* ev = find(root, base + "/clock_event_readings");
  if (!ev || !ev->is_object())
    throw FieldError(type_problem(base + "/clock_event_readings", "an object"));
  for (const auto& [name, v] : ev->items()) {
    (void)v;
    g.clock_event_readings.emplace_back(
        name, static_cast<long long>(number_at(root, base + "/clock_event_readings/" + name)));
  }
  g.throttled_readings = static_cast<long long>(number_at(root, base + "/throttled_readings"));
  const ordered_json* ts = find(root, base + "/throttled_samples_ns");
  if (!ts || !ts->is_array()) throw FieldError(type_problem(base + "/throttled_samples_ns", "an array"));
  for (std::size_t i = 0; i < ts->size(); ++i)
    g.throttled_samples_ns.push_back(number_at(root, base + "/throttled_samples_ns/" + std::to_string(i)));
  g.throttled_policy = optional_string_at(root, base + "/throttled_policy").value_or("");
  return g;
}

}  // namespace

ordered_json to_json(const RegimeTiming& t) {
  ordered_json j;
  j["method"] = t.method;
  j["median_ns"] = t.median_ns;
  j["p10_ns"] = t.p10_ns;
  j["p90_ns"] = t.p90_ns;
  j["min_ns"] = t.min_ns;
  j["max_ns"] = t.max_ns;
  if (t.mean_ns) j["mean_ns"] = *t.mean_ns;
  if (t.stdev_ns) j["stdev_ns"] = *t.stdev_ns;
  j["noise_pct"] = t.noise_pct;
  j["count"] = t.count;
  j["stop_reason"] = t.stop_reason;
  if (t.wall_s) j["wall_s"] = *t.wall_s;
  if (t.launches_per_sample) j["launches_per_sample"] = *t.launches_per_sample;
  j["sm_clock_mhz"] = {{"before", number_or_null(t.clock_before_mhz)},
                       {"after", number_or_null(t.clock_after_mhz)}};
  if (!t.clock_source.empty()) j["sm_clock_mhz"]["source"] = t.clock_source;
  j["tflops"] = t.tflops;
  j["dram_gbps_min_bytes"] = t.dram_gbps_min_bytes;
  if (!t.kernels.empty()) j["kernels"] = t.kernels;
  if (t.kernels_per_launch) j["kernels_per_launch"] = *t.kernels_per_launch;
  if (t.busy_median_ns) j["busy_median_ns"] = *t.busy_median_ns;
  if (t.busy_p10_ns) j["busy_p10_ns"] = *t.busy_p10_ns;
  if (t.busy_p90_ns) j["busy_p90_ns"] = *t.busy_p90_ns;
  j["samples_ns"] = t.samples_ns;
  if (t.gpu_state) j["gpu_state"] = to_json(*t.gpu_state);
  return j;
}

RegimeTiming read_regime_timing(const ordered_json& root, const std::string& base) {
  RegimeTiming t;
  t.method = optional_string_at(root, base + "/method").value_or("");
  t.median_ns = number_at(root, base + "/median_ns");
  t.p10_ns = number_at(root, base + "/p10_ns");
  t.p90_ns = number_at(root, base + "/p90_ns");
  t.min_ns = number_at(root, base + "/min_ns");
  t.max_ns = number_at(root, base + "/max_ns");
  t.mean_ns = optional_number_at(root, base + "/mean_ns");
  t.stdev_ns = optional_number_at(root, base + "/stdev_ns");
  t.noise_pct = number_at(root, base + "/noise_pct");
  t.count = static_cast<long long>(number_at(root, base + "/count"));
  t.stop_reason = optional_string_at(root, base + "/stop_reason").value_or("");
  t.wall_s = optional_number_at(root, base + "/wall_s");
  if (auto n = optional_number_at(root, base + "/launches_per_sample")) t.launches_per_sample = int(*n);
  t.clock_before_mhz = optional_number_at(root, base + "/sm_clock_mhz/before");
  t.clock_after_mhz = optional_number_at(root, base + "/sm_clock_mhz/after");
  t.clock_source = optional_string_at(root, base + "/sm_clock_mhz/source").value_or("");
  t.tflops = number_at(root, base + "/tflops");
  t.dram_gbps_min_bytes = number_at(root, base + "/dram_gbps_min_bytes");
  if (const ordered_json* k = find(root, base + "/kernels"); k && !k->is_null()) {
    if (!k->is_array()) throw FieldError(type_problem(base + "/kernels", "an array"));
    for (std::size_t i = 0; i < k->size(); ++i)
      t.kernels.push_back(string_at(root, base + "/kernels/" + std::to_string(i)));
  }
  if (auto k = optional_number_at(root, base + "/kernels_per_launch")) t.kernels_per_launch = int(*k);
  t.busy_median_ns = optional_number_at(root, base + "/busy_median_ns");
  t.busy_p10_ns = optional_number_at(root, base + "/busy_p10_ns");
  t.busy_p90_ns = optional_number_at(root, base + "/busy_p90_ns");
  if (const ordered_json* s = find(root, base + "/samples_ns"); s && !s->is_null()) {
    if (!s->is_array()) throw FieldError(type_problem(base + "/samples_ns", "an array"));
    t.samples_ns.reserve(s->size());
    for (std::size_t i = 0; i < s->size(); ++i)
      t.samples_ns.push_back(number_at(root, base + "/samples_ns/" + std::to_string(i)));
  }
  if (const ordered_json* g = find(root, base + "/gpu_state"); g && !g->is_null())
    t.gpu_state = read_gpu_state(root, base + "/gpu_state");
  if (!(t.median_ns > 0)) throw FieldError(base + "/median_ns is not positive");
  return t;
}

const char* regime_name(Regime r) {
  switch (r) {
    case Regime::kCold: return "cold";
    case Regime::kWarm: return "warm";
    case Regime::kGraph: return "graph";
  }
  return "unknown";
}

Regime parse_regime(const std::string& name) {
  for (Regime r : {Regime::kCold, Regime::kWarm, Regime::kGraph})
    if (name == regime_name(r)) return r;
  throw std::invalid_argument("unknown timing regime '" + name + "'; expected cold, warm or graph");
}

std::optional<Regime> TimingRequest::headline() const {
  if (check_only || regimes.empty()) return std::nullopt;
  for (Regime r : regimes)
    if (r == Regime::kCold) return r;
  return regimes.front();
}

std::string headline_regime(const std::vector<std::string>& regimes) {
  TimingRequest t;
  t.regimes.clear();
  for (const auto& r : regimes) t.regimes.push_back(parse_regime(r));
  const std::optional<Regime> h = t.headline();
  return h ? regime_name(*h) : "";
}

}  // namespace attnlab
