// index.jsonl's one JSON mapping.
#include "record/index_line.hpp"

#include <nlohmann/json.hpp>

namespace attnlab {

namespace {

using nlohmann::ordered_json;

template <class T>
ordered_json or_null(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json shape_json(const IndexShape& s) {
  ordered_json j;
  j["passed"] = s.passed;
  if (!s.headline) {
    j["regime"] = nullptr;
    return j;
  }
  const IndexHeadline& h = *s.headline;
  j["regime"] = h.regime;
  j["median_ns"] = h.median_ns;
  j["p10_ns"] = h.p10_ns;
  j["p90_ns"] = h.p90_ns;
  j["noise_pct"] = h.noise_pct;
  j["samples"] = h.samples;
  j["tflops"] = h.tflops;
  j["dram_gbps_min_bytes"] = h.dram_gbps_min_bytes;
  j["device_time"] = h.device_time;
  j["device_median_ns"] = h.device_median_ns;
  j["device_p10_ns"] = or_null(h.device_p10_ns);
  j["device_p90_ns"] = or_null(h.device_p90_ns);
  j["device_tflops"] = h.device_tflops;
  return j;
}

}  // namespace

std::string index_jsonl_line(const IndexLine& l) {
  ordered_json j;
  j["run"] = l.run;
  j["phase"] = l.phase;
  j["title"] = l.title;
  j["status"] = l.status;
  j["started_utc"] = l.started_utc;
  j["commit"] = l.commit;
  j["dirty"] = l.dirty;
  j["gpu"] = l.gpu;
  j["gpu_uuid"] = or_null(l.gpu_uuid);
  j["seed"] = l.seed;
  j["record"] = l.record;
  j["report"] = or_null(l.report);
  j["headline"] = ordered_json::object();
  for (const IndexShape& s : l.shapes) j["headline"][s.name] = shape_json(s);
  j["claims"] = ordered_json::object();
  for (const auto& [id, verdict] : l.claims) j["claims"][id] = verdict;
  return j.dump();
}

}  // namespace attnlab
