// Run records as the report tool reads them: loaded, checked against the schema with
// attnlab::record_problems, and unpacked into typed views. Every error names the file and
// the JSON pointer of the offending field, so the console line says exactly what is wrong.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/direction.hpp"
#include "common/shape.hpp"
#include "record/correctness.hpp"
#include "record/derived.hpp"
#include "record/fields.hpp"
#include "record/metrics.hpp"
#include "record/provenance.hpp"
#include "record/record.hpp"
#include "record/result.hpp"
#include "record/static_facts.hpp"
#include "record/timing.hpp"

namespace attnlab::report {

namespace fs = std::filesystem;

// A bad or missing input. what() is "<file>: <problem>"; the tool prints it after
// "attnlab-report: " and exits 1.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Field errors come from the record library's readers (record/fields.hpp); the loader prefixes
// the file. `find` resolves a claim's metric, a JSON pointer into its result entry.
using attnlab::FieldError;
using attnlab::find;

// One timing regime of one shape: the record's timing block and its name (record/timing.hpp).
using Regime = TimedRegime;

// One result entry (one shape): the writer's entry as record/'s reader restores it
// (read_result_entry), with what the report adds to find it and to say why it has no timing.
struct Result : ResultEntry {
  std::string pointer;  // "/results/0", for error messages and claims
  std::string name;     // attnlab::shape_name of the shape: "16x16x2048x64", the key reports look it up by
  // The run's options said to check the shapes and time none (--check-only): it has no timing
  // by request, not by a failure or an unavailable backend.
  bool check_only = false;
  ordered_json json;  // the entry itself, where a claim's metric (a JSON pointer) is resolved

  double flops() const { return pass_flops(shape, direction); }
  double min_bytes() const { return pass_min_bytes(shape, direction); }
  bool passed() const { return correctness.passed; }
  // Why the implementation could not run the shape at all (a baseline backend that does not
  // support it: "available": false); nullptr where it ran. The shape then has no check and no timing.
  const std::string* unavailable() const { return available == false ? &unavailable_reason : nullptr; }
  bool timed() const { return !timing.empty(); }
  // Why a shape has no timing: "not run: <reason>", "failed its correctness check", ...
  std::string untimed_reason() const;
  // static.kernels: each launched kernel's facts; empty where not recorded.
  const std::vector<KernelFacts>& launched_kernels() const;
  // The metric group as recorded; nullptr where the shape has no such group.
  const GroupResult* group(std::string_view name) const {
    return metrics ? find_group(*metrics, name) : nullptr;
  }
};

// One run record: the writer's header as read_run_record restores it, where the report finds
// the record, and its entries as the report holds them.
struct Run : RunHeader {
  fs::path file;  // .../run.json
  fs::path dir;   // its run directory
  std::string name;  // the run directory's own name ("20261122T215639Z-dcabdff"), even for "."
  ordered_json json;  // the record as read, for record/'s field rows (the provenance table)
  std::vector<Result> results;

  // "<phase>/<run directory name>", how reports name a run.
  std::string id() const;
  const std::string& commit() const { return provenance.git.commit; }
  std::string short_commit() const { return commit().substr(0, 7); }
  const std::string& gpu_name() const { return provenance.gpu.name; }
  const std::string& gpu_uuid() const { return provenance.gpu.uuid; }
  // Sort key, oldest first: the start time (the directory name when a record lacks it).
  std::string time_key() const;
  // Seconds since the epoch of the start (from time_key()); nullopt when it does not parse.
  std::optional<long long> start_seconds() const;
  const Result* result(const std::string& shape_name) const;
};

// Whether any shape of the run has the block (&Result::metrics, &Result::pc_sampling, ...) recorded.
template <class T>
bool any_result_has(const Run& run, std::optional<T> ResultEntry::*block) {
  return std::any_of(run.results.begin(), run.results.end(), [&](const Result& r) { return (r.*block).has_value(); });
}

// A text file's contents; InputError naming it where it cannot be read.
std::string read_text(const std::filesystem::path& path);

// Seconds since the epoch of a UTC stamp ("2026-11-23T21:41:55Z" or "20261123T214155Z");
// none when it holds no full date and time.
std::optional<long long> utc_seconds(const std::string& stamp);

// "GPU-5e687859": the board, by the first group of its uuid, enough to tell boards apart in
// one records tree; "board not recorded" for a record without a uuid.
std::string board(const Run& r);
std::string board_of_uuid(const std::string& uuid);  // the same, of any record's uuid

// A device session: records on one GPU (provenance.gpu.uuid) whose start times follow each
// other by less than kSessionGapSeconds. The key names the GPU and the session's first start;
// records without a start time are a session of their own.
inline constexpr long long kSessionGapSeconds = 3600;
std::string session_key(const Run& run, const std::vector<Run>& runs);

// The headline quantity of every report: the device time during which a launch's kernels ran
// (busy time; idle gaps between kernels are left out), and how a regime's record gives it.
enum class TimeBasis {
  kBusy,        // busy_median_ns with its recorded busy p10/p90
  kOneKernel,   // one kernel per launch: busy time is the span, the recorded samples
  kBusyMedian,  // busy median recorded, busy p10/p90 not: a point, p10 == p90 == median
  kSpan,        // several (or an unknown number of) kernels and no busy time: the span
};

struct DeviceTime {
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
  // The widest interval the time may have: p10/p90, except for a busy median without them,
  // where it is the span's p10-p90 moved by the difference of the two medians. Verdicts that
  // must hold however the busy time spread use it.
  double wide_p10_ns = 0, wide_p90_ns = 0;
  TimeBasis basis = TimeBasis::kSpan;
  std::optional<int> kernels;  // kernels per launch, where the record says
  // [ns] the span's median (first kernel's start to last one's end, idle gaps included) where the
  // figure is the busy time of several kernels: the two differ, and a reader of either needs both.
  std::optional<double> span_median_ns;
  bool has_interval() const { return basis != TimeBasis::kBusyMedian; }
  // A rate recorded at the span's median (TFLOPS, GB/s) at `ns` of device time instead.
  double rate_at(const Regime& g, double recorded_rate, double ns) const {
    return recorded_rate * g.median_ns / ns;
  }
};
DeviceTime device_time(const Result& r, const Regime& g);
// The noise (100 * stdev / mean) of the device time's own samples: the recorded noise where the
// device time is the span of the samples (one kernel, or the span marked †); nullopt for busy
// time, whose per-sample values the record does not keep, so a busy median is never printed
// beside the span's noise.
std::optional<double> device_noise_pct(const Regime& g, const DeviceTime& t);
// device_noise_pct as a table cell: "2.37%", or "not recorded for busy time".
std::string device_noise_cell(const Regime& g, const DeviceTime& t);
// " (span 61.09 us)" beside a busy time of several kernels, "" otherwise; `unit` fixes the unit
// and drops it ("us": " (span 61.09)") for a table column that names it.
std::string span_beside(const DeviceTime& t, const char* unit = nullptr);
// What the time is, in a few words: "busy", "busy = span, one kernel", ...
std::string basis_words(const DeviceTime& t);
// Whether the figure is not the busy time as measured: a footnote marker for the tables,
// "" for busy time ("†" span, "‡" busy median without its p10-p90).
std::string basis_marker(TimeBasis b);
// The footnote that explains a marker.
std::string basis_footnote(TimeBasis b);

// `path` is a run directory or a run.json. Throws InputError naming the file and field.
// The file is only read: reports never modify a run record.
Run load_run(const fs::path& path);

// Every <root>/<phase>/<run>/run.json, newest first (ties broken by path). Throws
// InputError for a root that is not a directory or for any bad record in it.
std::vector<Run> load_root(const fs::path& root);

// The shape in a human form: the preset name where one matches ("throughput 16x16x2048x64").
std::string shape_label(const std::string& shape_name);

}  // namespace attnlab::report
