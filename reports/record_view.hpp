// Run records as the report tool reads them: loaded, checked against the schema with
// attnlab::record_problems, and unpacked into typed views. Every error names the file and
// the JSON pointer of the offending field, so the console line says exactly what is wrong.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/shape.hpp"
#include "record/record.hpp"

namespace attnlab::report {

namespace fs = std::filesystem;

// A bad or missing input. what() is "<file>: <problem>"; the tool prints it after
// "attnlab-report: " and exits 1.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A problem with one field, named by its JSON pointer; the loader prefixes the file.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Typed access by JSON pointer from the record's root. Errors: "missing <ptr>",
// "<ptr> is not a number", ... Optional variants return nullopt for an absent or null field
// and still throw on a field of the wrong type.
const ordered_json* find(const ordered_json& root, const std::string& ptr);
double number_at(const ordered_json& root, const std::string& ptr);
std::optional<double> optional_number_at(const ordered_json& root, const std::string& ptr);
std::string string_at(const ordered_json& root, const std::string& ptr);
std::optional<std::string> optional_string_at(const ordered_json& root, const std::string& ptr);
bool bool_at(const ordered_json& root, const std::string& ptr);

// One timing regime of one shape.
struct Regime {
  std::string name;  // "cold", "warm", "graph"
  std::string method;
  std::string stop_reason;
  double median_ns = 0, p10_ns = 0, p90_ns = 0, min_ns = 0, max_ns = 0;
  double noise_pct = 0;  // [%] 100 * stdev / mean
  long long count = 0;
  std::vector<double> samples_ns;
  double tflops = 0;  // at the median
  double gbps = 0;    // minimum bytes / median [GB/s]
  std::optional<double> clock_before_mhz, clock_after_mhz;
  // Multi-kernel launches: median time any kernel ran (the span minus idle gaps), and the
  // kernel count; absent in records written before they were measured.
  std::optional<double> busy_median_ns;
  std::optional<int> kernels_per_launch;
};

// One result entry (one shape).
struct Result {
  std::string pointer;  // "/results/0", for error messages and claims
  std::string name;     // attnlab::shape_name: "16x16x2048x64"
  Shape shape;
  double flops = 0;
  double min_bytes = 0;
  bool passed = false;
  std::optional<std::string> failure;
  // Set when the implementation could not run the shape at all (a baseline backend that does
  // not support it: "available": false); the shape then has no check and no timing.
  std::optional<std::string> unavailable;
  std::vector<Regime> regimes;  // record order; empty when the shape was not timed
  std::string headline;         // headline regime; empty when not timed
  ordered_json json;            // the entry itself: metrics, static, derived, correctness

  bool timed() const { return !regimes.empty(); }
  // Why a shape has no timing: "not run: <reason>", "failed its correctness check", ...
  std::string untimed_reason() const;
  const Regime* regime(const std::string& name) const;
  const Regime* headline_regime() const { return regime(headline); }
};

struct Run {
  fs::path file;  // .../run.json
  fs::path dir;   // its run directory
  std::string name;  // the run directory's own name ("20261122T215639Z-dcabdff"), even for "."
  ordered_json json;
  std::string phase, status, started_utc, commit, gpu_name;
  bool dirty = false;
  std::vector<Result> results;

  // "<phase>/<run directory name>", how reports name a run.
  std::string id() const;
  std::string short_commit() const { return commit.substr(0, 7); }
  // Sort key, oldest first: the start time (the directory name when a record lacks it).
  std::string time_key() const;
  const Result* result(const std::string& shape_name) const;
};

// `path` is a run directory or a run.json. Throws InputError naming the file and field.
// The file is only read: reports never modify a run record.
Run load_run(const fs::path& path);

// Every <root>/<phase>/<run>/run.json, newest first (ties broken by path). Throws
// InputError for a root that is not a directory or for any bad record in it.
std::vector<Run> load_root(const fs::path& root);

// The shape in a human form: the preset name where one matches ("throughput 16x16x2048x64").
std::string shape_label(const std::string& shape_name);

}  // namespace attnlab::report
