// The record of one paired A/B run (schema attnlab.ab/1, record/schema/attnlab.ab-1.schema.json):
// two phases gated and timed alternately in one process, every sample kept with the SM clock
// it ran at, so that every ratio and interval recomputes from the record alone. The typed form
// attnlab-ab fills and the report tool reads, with its one JSON mapping.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/correctness.hpp"
#include "record/provenance.hpp"
#include "record/paired.hpp"

namespace attnlab {

inline constexpr const char* kAbSchema = "attnlab.ab/1";
// Said in every record and report beside the ratios.
inline constexpr const char* kAbConvention =
    "ratio = t_B / t_A per pair: A's speed-up over B (above 1: A faster)";

struct AbSide {
  std::string phase, title, technique;
};

// One side's samples of one shape, in pair order (index i: pair i).
struct AbSamples {
  std::vector<double> busy_ns;       // [ns] time any of the launch's kernels ran (CUPTI)
  std::vector<double> span_ns;       // [ns] first kernel's start to last kernel's end
  std::vector<double> sm_clock_mhz;  // [MHz] NVML current SM clock read for this sample
  // [ns] when that reading was taken, relative to the sample's first kernel start (CUPTI
  // clock): inside [0, busy] the clock was read while the kernel ran.
  std::vector<double> clock_offset_ns;
  std::vector<std::string> kernels;  // distinct kernel names one launch ran
};

// A ratio estimate with what it was computed from.
struct AbRatio {
  std::vector<double> per_pair;  // t_B / t_A (or cycles_B / cycles_A), pair order
  paired::RatioEstimate estimate;
};

struct AbShape {
  std::string name;                   // "16x16x2048x64"
  Shape shape;
  double scale = 0;                   // the softmax scale the kernels used
  double flops = 0;
  Correctness a_correctness, b_correctness;
  bool passed = false;                // both gates passed and both outputs unchanged after timing
  // Set when the shape was timed (both gates passed).
  std::vector<std::string> blocks;    // "ABBA" / "BAAB", one per block of two pairs, in order
  std::vector<std::string> first;     // per pair: "A" or "B", the side that ran first
  AbSamples a, b;
  std::string stop_reason;            // "pairs", "time_cap"
  double wall_s = 0;                  // [s] host time spent sampling
  std::optional<AbRatio> wall, cycles;  // absent when the shape was not timed
};

struct AbOptions {
  std::size_t pairs = 0, min_pairs = 0;
  double max_seconds = 0;
  std::uint64_t order_seed = 0;       // seeds block_orders
  paired::BootstrapConfig bootstrap;
  double non_inferiority_margin = paired::kNonInferiorityMargin;
  std::string inputs;                 // the gate's input distribution
};

struct AbRecord {
  std::string status = "incomplete";  // "incomplete", "ok", "failed"
  AbSide a, b;
  std::string started_utc;
  Provenance provenance;
  AbOptions options;
  std::string method;                 // how a sample is taken and its clock read
  std::vector<AbShape> results;
  std::optional<std::string> error;   // a fault that ended the run
};

// Computes an AbRatio from A's and B's per-sample values (times or cycles).
AbRatio ab_ratio(const std::vector<double>& a, const std::vector<double>& b,
                 const paired::BootstrapConfig& cfg);

nlohmann::ordered_json to_json(const AbRecord& r);
// Writes the record atomically (record/record.hpp).
void write_ab_record(const std::filesystem::path& file, const AbRecord& r);
// Reads a record written by to_json; throws FieldError naming a missing or mistyped field.
// Ratios and estimates are read as written (recompute with ab_ratio to check them).
AbRecord read_ab_record(const nlohmann::ordered_json& j);

// Every <root>/ab/<A>-vs-<B>/<run>/run.json, sorted by path (so by start stamp within a pair);
// none when <root>/ab does not exist. The run records' reader (record/reader.hpp) never sees
// these: they sit one level deeper than <root>/<phase>/<run>/run.json.
std::vector<std::filesystem::path> find_ab_records(const std::filesystem::path& root);
// The A/B record in `file`; throws std::runtime_error starting with the file's path.
AbRecord read_ab_file(const std::filesystem::path& file);

}  // namespace attnlab
