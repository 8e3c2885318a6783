// Run records: one immutable JSON file per run, in a directory of its own that is never
// reused. The schema's required keys live here so writers, readers and tests agree.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

using ordered_json = nlohmann::ordered_json;

inline constexpr const char* kRunSchema = "attnlab.run/1";

// "20261122T213000Z" for the given UTC time (seconds since the epoch).
std::string utc_stamp(long long epoch_seconds);
// ISO 8601, "2026-11-22T21:30:00Z".
std::string utc_iso8601(long long epoch_seconds);

// Creates <root>/<phase>/<stamp>-<short_sha>/, adding -2, -3, ... when that name exists, so
// an existing run is never touched. Throws std::runtime_error naming the path on failure.
std::filesystem::path create_run_directory(const std::filesystem::path& root,
                                           const std::string& phase, const std::string& stamp,
                                           const std::string& short_sha);

// Writes to a temporary file beside `path`, then renames over it: readers see either the
// previous complete file or the new complete file, never a torn one.
void write_json_atomically(const std::filesystem::path& path, const ordered_json& j);

// A record file as the evidence store may hold it: `file` itself, or `file`.gz where only the
// compressed form exists (committed records are gzip-compressed; fresh ones are plain JSON).
std::filesystem::path record_file(const std::filesystem::path& file);

// <dir>/<name> or <dir>/<name>.gz, whichever exists (the plain one first); nullopt for neither.
std::optional<std::filesystem::path> record_file_in(const std::filesystem::path& dir, const std::string& name);

// The text of record_file(file), decompressed where it is gzip (zlib reads plain files as they
// are). Throws std::runtime_error "<file>: cannot read" or "<file>: not valid gzip".
std::string read_record_text(const std::filesystem::path& file);

// The document in `file` parsed, for the typed readers of the A/B, calibration and timeline
// records to map: std::runtime_error "<file>: cannot read" or "<file>: not valid JSON: ..."
// otherwise.
ordered_json read_json_file(const std::filesystem::path& file);

// Throws std::runtime_error if `root` cannot hold new runs (not creatable or not writable).
void ensure_writable_directory(const std::filesystem::path& root);

// <root>/phases.json ("attnlab.phases/1"): the registry's phases in its order, with title,
// technique and required compute capability, written beside the records by every experiment
// so that reports order phases without linking the registry. The ids in file order; empty
// when the file does not exist. Throws std::runtime_error on a malformed file.
inline constexpr const char* kPhasesSchema = "attnlab.phases/1";
inline constexpr const char* kPhasesFile = "phases.json";
std::vector<std::string> read_phase_order(const std::filesystem::path& root);

// One phase of the table, as the registry (kernels/registry.hpp) declares it.
struct PhaseTableEntry {
  std::string id, title, technique;
  int required_cc = 0;  // 0: any GPU the build targets; 90: needs sm_90a
  bool baseline = false;
};
// {"schema": "attnlab.phases/1", "phases": [{"id", "title", "technique", "required_cc", "baseline"}...]}
ordered_json to_json(const std::vector<PhaseTableEntry>& phases);
// The table as `attnlab-phases --json` prints it (indented).
std::string phase_table_listing(const std::vector<PhaseTableEntry>& phases);
// Writes <root>/phases.json atomically when it is missing or differs from `phases`.
void write_phase_table_file(const std::filesystem::path& root, const std::vector<PhaseTableEntry>& phases);

// The JSON-pointer paths every run record must have, and those every result entry must have.
const std::vector<std::string>& required_record_keys();
const std::vector<std::string>& required_result_keys();
// Missing required keys ("/provenance/gpu/uuid", "/results/0/timing", ...); empty when valid.
// Also reports a wrong schema string or status value.
std::vector<std::string> record_problems(const ordered_json& record);

}  // namespace attnlab
