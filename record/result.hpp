// The run record, typed: the header (attnlab.run/1's top-level keys) and one result entry per
// shape, each block a struct of record/ with its one JSON mapping, so that writers fill structs
// and only record/ writes JSON. The harness and attnlab-sdpa-import (the PyTorch SDPA baseline)
// write it; read_run_record restores a record either wrote, and to_json of what it returns is
// the same bytes (tests/reports/test_record_roundtrip.cpp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/direction.hpp"
#include "common/shape.hpp"
#include "record/claims.hpp"
#include "record/correctness.hpp"
#include "record/derived.hpp"
#include "record/metrics.hpp"
#include "record/ncu.hpp"
#include "record/pc_sampling.hpp"
#include "record/provenance.hpp"
#include "record/sass.hpp"
#include "record/static_facts.hpp"
#include "record/timing.hpp"

namespace attnlab {

// /results/<i>/static: the launch facts (timed runs only), the SASS counts and ptxas facts.
struct StaticEvidence {
  std::optional<StaticFacts> facts;
  std::optional<sass::SassEvidence> sass;
  std::optional<sass::PtxasEvidence> ptxas;
};

// One shape. Blocks absent from a run (nothing timed, no evidence collected) stay unset and
// are not written; "timing", "headline_regime", "tflops" and "dram_gbps_min_bytes" are null.
struct ResultEntry {
  Shape shape;
  // The PyTorch SDPA baseline's entries say whether its backend ran the shape ("available");
  // the harness's do not (nullopt), since a phase that cannot run a shape refuses the run.
  // An unavailable entry has its reason and no check and no timing.
  std::optional<bool> available;
  std::string unavailable_reason;
  // The run's pass (RunRecord::direction), which sets the entry's flops and min_bytes.
  Direction direction = Direction::kForward;
  double scale = 0;  // the softmax scale the kernel used
  Correctness correctness;
  std::vector<TimedRegime> timing;  // run order; empty: not timed
  std::string headline_regime;      // empty: not timed
  std::optional<std::vector<GroupResult>> metrics;           // counter groups, requested order
  std::optional<StaticEvidence> static_evidence;
  std::optional<DerivedFigures> derived;
  std::optional<PcSamplingResult> pc_sampling;
  std::optional<std::vector<KernelShare>> kernels;  // launches of several kernels
  std::optional<NcuEntry> ncu;  // Nsight Compute's cross-check (attnlab-ncu-import)

  // The regime named `name`; nullptr where the shape was not timed in it.
  const TimedRegime* regime(const std::string& name) const;
  // The headline regime's timing; nullptr when not timed.
  const TimedRegime* headline() const { return regime(headline_regime); }
  // Distinct kernels of the CUPTI regimes, in first-seen order.
  std::vector<std::string> timed_kernels() const;
};

// /results/<i>/static at `base` as the writers write it: the launch facts where "kernels" is
// recorded (an untimed run records none), SASS and ptxas where recorded; nullopt where the block
// is absent. Throws FieldError naming the field.
std::optional<StaticEvidence> read_static_evidence(const nlohmann::ordered_json& root, const std::string& base);

struct ExperimentInfo {
  std::string title, technique, question;
};

// The run record's top-level blocks but its result entries, so that a reader that keeps more
// beside each entry (the report tool's view of one, reports/record_view.hpp) holds the same header.
struct RunHeader {
  std::string phase;
  // What the phase computes. The harness always says; records before backward phases have no
  // field (forward), and are written back without one.
  std::optional<Direction> direction;
  std::string status = "incomplete";  // "incomplete" while running, then "ok" or "failed"
  ExperimentInfo experiment;
  std::vector<Claim> claims;
  std::string started_utc;  // ISO 8601
  Provenance provenance;
  RecordedOptions options;
  std::optional<MetricsConfig> metrics_config;  // the harness's; the SDPA baseline collects none
  std::optional<std::string> error;  // a fault mid-run
  std::optional<NcuProfile> ncu_profile;  // how ncu ran (attnlab-ncu-import)

  // The pass the phase computes: forward where the record does not say.
  Direction pass() const { return direction.value_or(Direction::kForward); }
};

struct RunRecord : RunHeader {
  std::vector<ResultEntry> results;  // one per shape, written after metrics_config
};

nlohmann::ordered_json to_json(const ResultEntry& r);
// "unavailable_shapes" follows the results where an entry is unavailable: their names.
nlohmann::ordered_json to_json(const RunRecord& r);
nlohmann::ordered_json to_json(const ExperimentInfo& e);
ExperimentInfo read_experiment(const nlohmann::ordered_json& root, const std::string& base);

// A result entry of any run record: the harness's, the SDPA baseline's (whose entries say
// "available", and why not) and older layouts, every block through its writer's reader; a
// missing field the writer writes, or one of the wrong type, throws FieldError. `options`: the
// run's (read_recorded_options): where they ask for no timing (check-only) a timing block is
// refused, where they name the headline regime a timed entry naming another is, and an entry
// written before entries named theirs leads with the options' headline (SamplingOptions::headline).
ResultEntry read_result_entry(const nlohmann::ordered_json& root, const std::string& base,
                              const SamplingOptions& options);
// Every entry of the record's "results", in order, each with the record's direction.
std::vector<ResultEntry> read_result_entries(const nlohmann::ordered_json& record, const SamplingOptions& options);

// The record's /direction: forward where absent; FieldError for another value.
Direction read_direction(const nlohmann::ordered_json& record);

// Writes the record atomically (record/record.hpp's write_json_atomically).
void write_run_record(const std::filesystem::path& file, const RunRecord& record);

// Reads a record the harness or attnlab-sdpa-import wrote, the report tool's reader too: older
// layouts read with their readers' documented defaults (RecordedOptions, read_result_entry);
// throws FieldError (record/fields.hpp) naming the field.
RunRecord read_run_record(const nlohmann::ordered_json& record);

}  // namespace attnlab
