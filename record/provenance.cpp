#include "record/provenance.hpp"

#include <cstdio>

#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;

std::string gpu_uuid_string(const unsigned char (&bytes)[16]) {
  std::string u = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", bytes[i]);
    u += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) u += "-";
  }
  return u;
}

ordered_json to_json(const GpuIdentity& g) {
  ordered_json j;
  j["name"] = g.name;
  j["uuid"] = g.uuid;
  j["compute_capability"] = g.compute_capability;
  j["sm_count"] = g.sm_count;
  j["sm_clock_mhz"] = g.sm_clock_mhz;
  j["mem_clock_mhz"] = g.mem_clock_mhz;
  j["l2_bytes"] = g.l2_bytes;
  j["global_mem_bytes"] = g.global_mem_bytes;
  j["smem_per_sm_bytes"] = g.smem_per_sm_bytes;
  j["peak_dram_gbps"] = g.peak_dram_gbps;
  return j;
}

ordered_json to_json(const Provenance& p) {
  ordered_json j;
  j["git"] = {{"commit", p.git.commit}, {"dirty", p.git.dirty}};
  j["argv"] = p.argv;
  j["build"] = {{"type", p.build.type},
                {"cuda_architectures", p.build.cuda_architectures},
                {"cuda_flags", p.build.cuda_flags},
                {"cxx_flags", p.build.cxx_flags},
                {"cxx_compiler", p.build.cxx_compiler}};
  j["versions"] = {{"nvcc", p.versions.nvcc},
                   {"driver", p.versions.driver},
                   {"runtime", p.versions.runtime},
                   {"cupti", p.versions.cupti}};
  if (p.versions.cudnn) j["versions"]["cudnn"] = *p.versions.cudnn;
  if (p.versions.cudnn_header) j["versions"]["cudnn_header"] = *p.versions.cudnn_header;
  j["gpu"] = to_json(p.gpu);
  j["seed"] = p.seed;
  j["host"] = p.host;
  if (!p.sweep_id.empty()) j["sweep_id"] = p.sweep_id;
  return j;
}

ordered_json to_json(const RecordedOptions& o) {
  return {{"regimes", o.regimes},
          {"check_only", o.check_only},
          {"stopping_rule",
           {{"min_samples", o.min_samples},
            {"max_samples", o.max_samples},
            {"noise_target_pct", o.noise_target_pct},
            {"max_seconds", o.max_seconds}}},
          {"metrics", o.metrics},
          {"throttled", o.throttled},
          {"inputs", o.inputs},
          {"profile_launch", o.profile_launch}};
}

ordered_json shape_to_json(const Shape& s, double scale) {
  return {{"B", s.B},           {"H", s.H},         {"H_kv", s.H_kv},
          {"S", s.S},           {"D", s.D},         {"causal", s.causal},
          {"dtype", dtype_name(s.dtype)}, {"scale", scale}};
}

RunIdentity read_identity(const ordered_json& record) {
  RunIdentity id;
  id.git.commit = string_at(record, "/provenance/git/commit");
  id.git.dirty = bool_at(record, "/provenance/git/dirty");
  id.gpu_name = string_at(record, "/provenance/gpu/name");
  id.gpu_uuid = string_at(record, "/provenance/gpu/uuid");
  id.peak_dram_gbps = number_at(record, "/provenance/gpu/peak_dram_gbps");
  return id;
}

}  // namespace attnlab
