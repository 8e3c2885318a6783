// The run record's header and result entries: their JSON mapping, in the key order the records
// of the harness and of the SDPA baseline have, and the reader that restores them.
#include "record/result.hpp"

#include <algorithm>

#include "common/shapes.hpp"
#include "record/fields.hpp"
#include "record/record.hpp"

namespace attnlab {

using nlohmann::ordered_json;

const TimedRegime* ResultEntry::regime(const std::string& name) const {
  for (const TimedRegime& t : timing)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> ResultEntry::timed_kernels() const {
  std::vector<std::string> names;
  for (const TimedRegime& t : timing)
    for (const auto& k : t.kernels)
      if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  return names;
}

namespace {

ordered_json static_json(const StaticEvidence& s) {
  ordered_json j = s.facts ? to_json(*s.facts) : ordered_json::object();
  if (s.sass) j["sass"] = to_json(*s.sass);
  if (s.ptxas) j["ptxas"] = to_json(*s.ptxas);
  return j;
}

// The blocks after the timing, each present only where the run collected it.
void put_evidence(ordered_json& j, const ResultEntry& r) {
  if (r.metrics) {
    j["metrics"] = ordered_json::object();
    for (const GroupResult& g : *r.metrics) j["metrics"][g.group] = to_json(g);
  }
  if (r.static_evidence) j["static"] = static_json(*r.static_evidence);
  if (r.derived) j["derived"] = to_json(*r.derived);
  if (r.pc_sampling) j["pc_sampling"] = to_json(*r.pc_sampling);
  if (r.kernels) {
    j["kernels"] = ordered_json::array();
    for (const KernelShare& k : *r.kernels) j["kernels"].push_back(to_json(k));
  }
  if (r.ncu) j["ncu"] = to_json(*r.ncu);
}

std::size_t array_size(const ordered_json& root, const std::string& ptr) {
  const ordered_json* a = find(root, ptr);
  if (!a || !a->is_array()) throw FieldError(type_problem(ptr, "an array"));
  return a->size();
}

}  // namespace

std::optional<StaticEvidence> read_static_evidence(const ordered_json& root, const std::string& b) {
  if (!find(root, b)) return std::nullopt;
  StaticEvidence s;
  if (find(root, b + "/kernels")) s.facts = read_static_facts(root, b);
  if (find(root, b + "/sass")) s.sass = sass::read_sass(root, b + "/sass");
  if (find(root, b + "/ptxas")) s.ptxas = sass::read_ptxas(root, b + "/ptxas");
  return s;
}

namespace {

// The entry's timing where the run timed it: every regime, and the headline the entry names or,
// in an entry written before entries named theirs, the options' headline.
void read_timing(const ordered_json& root, const std::string& b, const SamplingOptions& options, ResultEntry& r) {
  const ordered_json* timing = find(root, b + "/timing");
  if (!timing) throw FieldError("missing " + b + "/timing");
  if (options.check_only) {
    if (!timing->is_null()) throw FieldError(b + "/timing is set in a record whose /options/check_only is true");
    return;
  }
  if (timing->is_null()) return;
  if (!timing->is_object()) throw FieldError(type_problem(b + "/timing", "an object or null"));
  for (const auto& [name, block] : timing->items())
    r.timing.emplace_back(name, read_regime_timing(root, b + "/timing/" + name));
  if (r.timing.empty()) return;
  r.headline_regime = optional_string_at(root, b + "/headline_regime").value_or(options.headline());
  if (!r.headline())
    throw FieldError(b + "/headline_regime names '" + r.headline_regime + "', which is not in " + b + "/timing");
  // The options name the run's headline once; every timed entry leads with it.
  if (options.headline_regime && r.headline_regime != *options.headline_regime)
    throw FieldError(b + "/headline_regime names '" + r.headline_regime + "', where /options/headline_regime names '" +
                     *options.headline_regime + "'");
}

// An unavailable entry's check, as the baseline's records hold it: none ran.
ordered_json skipped_correctness() {
  return {{"passed", nullptr}, {"max_abs_err", nullptr}, {"max_rel_err", nullptr},
          {"rows_checked", 0},  {"skipped", "backend unavailable for this shape"}};
}

}  // namespace

ResultEntry read_result_entry(const ordered_json& root, const std::string& b, const SamplingOptions& options) {
  ResultEntry r;
  r.shape = read_shape(root, b + "/shape", &r.scale);
  if (find(root, b + "/available")) {
    r.available = bool_at(root, b + "/available");
    if (!*r.available) {
      r.unavailable_reason = string_at(root, b + "/unavailable_reason");
      return r;
    }
  }
  r.correctness = read_correctness(root, b + "/correctness");
  read_timing(root, b, options, r);
  r.metrics = read_metric_groups(root, b + "/metrics");
  r.static_evidence = read_static_evidence(root, b + "/static");
  if (find(root, b + "/derived")) r.derived = read_derived(root, b + "/derived");
  if (find(root, b + "/pc_sampling")) r.pc_sampling = read_pc_sampling(root, b + "/pc_sampling");
  if (find(root, b + "/kernels")) r.kernels = read_kernel_shares(root, b + "/kernels");
  if (find(root, b + "/ncu")) r.ncu = read_ncu_entry(root, b + "/ncu");
  return r;
}

std::vector<ResultEntry> read_result_entries(const ordered_json& j, const SamplingOptions& options) {
  const Direction direction = read_direction(j);
  std::vector<ResultEntry> out;
  for (std::size_t i = 0, n = array_size(j, "/results"); i < n; ++i) {
    out.push_back(read_result_entry(j, "/results/" + std::to_string(i), options));
    out.back().direction = direction;
  }
  return out;
}

ordered_json to_json(const ResultEntry& r) {
  ordered_json j;
  j["name"] = shape_name(r.shape);
  j["shape"] = shape_to_json(r.shape, r.scale);
  j["flops"] = pass_flops(r.shape, r.direction);
  j["min_bytes"] = pass_min_bytes(r.shape, r.direction);
  const bool unavailable = r.available == false;
  if (r.available) j["available"] = *r.available;
  if (unavailable) j["unavailable_reason"] = r.unavailable_reason;
  j["correctness"] = unavailable ? skipped_correctness() : to_json(r.correctness);
  const RegimeTiming* h = unavailable ? nullptr : r.headline();
  if (h) {
    j["timing"] = ordered_json::object();
    for (const TimedRegime& t : r.timing) j["timing"][t.name] = to_json(t);
  } else {
    j["timing"] = nullptr;
  }
  j["headline_regime"] = h ? ordered_json(r.headline_regime) : ordered_json();
  j["tflops"] = h ? ordered_json(h->tflops) : ordered_json();
  j["dram_gbps_min_bytes"] = h ? ordered_json(h->dram_gbps_min_bytes) : ordered_json();
  put_evidence(j, r);
  return j;
}

Direction read_direction(const ordered_json& root) {
  const std::optional<std::string> name = optional_string_at(root, "/direction");
  if (!name) return Direction::kForward;
  if (const auto d = parse_direction(*name)) return *d;
  throw FieldError(type_problem("/direction", "\"forward\" or \"backward\""));
}

ordered_json to_json(const ExperimentInfo& e) {
  return {{"title", e.title}, {"technique", e.technique}, {"question", e.question}};
}

ExperimentInfo read_experiment(const ordered_json& root, const std::string& base) {
  return {string_at(root, base + "/title"), string_at(root, base + "/technique"), string_at(root, base + "/question")};
}

ordered_json to_json(const RunRecord& r) {
  ordered_json j;
  j["schema"] = kRunSchema;
  j["phase"] = r.phase;
  if (r.direction) j["direction"] = direction_name(*r.direction);
  j["status"] = r.status;
  j["experiment"] = to_json(r.experiment);
  j["claims"] = ordered_json::array();
  for (const Claim& c : r.claims) j["claims"].push_back(to_json(c));
  j["started_utc"] = r.started_utc;
  j["provenance"] = to_json(r.provenance);
  j["options"] = to_json(r.options);
  if (r.metrics_config) j["metrics_config"] = to_json(*r.metrics_config);
  j["results"] = ordered_json::array();
  std::vector<std::string> unavailable;
  for (const ResultEntry& e : r.results) {
    j["results"].push_back(to_json(e));
    if (e.available == false) unavailable.push_back(shape_name(e.shape));
  }
  if (r.error) j["error"] = *r.error;
  if (!unavailable.empty()) j["unavailable_shapes"] = unavailable;
  if (r.ncu_profile) j["ncu_profile"] = to_json(*r.ncu_profile);
  return j;
}

void write_run_record(const std::filesystem::path& file, const RunRecord& record) {
  write_json_atomically(file, to_json(record));
}

RunRecord read_run_record(const ordered_json& j) {
  if (j.value("schema", "") != kRunSchema) throw FieldError(type_problem("/schema", kRunSchema));
  RunRecord r;
  r.phase = string_at(j, "/phase");
  if (find(j, "/direction")) r.direction = read_direction(j);
  r.status = string_at(j, "/status");
  r.experiment = read_experiment(j, "/experiment");
  r.claims = read_claims(j, "/claims");
  r.started_utc = string_at(j, "/started_utc");
  r.provenance = read_provenance(j, "/provenance");
  r.options = read_recorded_options(j, "/options");
  if (find(j, "/metrics_config")) r.metrics_config = read_metrics_config(j, "/metrics_config");
  r.results = read_result_entries(j, r.options);
  r.error = optional_string_at(j, "/error");
  if (find(j, "/ncu_profile")) r.ncu_profile = read_ncu_profile(j, "/ncu_profile");
  return r;
}

}  // namespace attnlab
