// The record of one paired A/B run (schema attnlab.ab/2, record/schema/attnlab.ab-2.schema.json):
// two phases gated and timed alternately in one process, per shape in independent blocks, every
// block's inputs seed, order and samples kept with the SM clock each sample ran at, so that every
// ratio and interval recomputes from the record alone. The typed form attnlab-ab fills and the
// report tool reads, with its one JSON mapping.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/direction.hpp"
#include "record/correctness.hpp"
#include "record/provenance.hpp"
#include "record/paired.hpp"

namespace attnlab {

inline constexpr const char* kAbSchema = "attnlab.ab/2";
// The layout before blocks: one block of pairs per measured shape. Still read (read_ab_record).
inline constexpr const char* kAbSchemaV1 = "attnlab.ab/1";
// Said in every record and report beside the ratios.
inline constexpr const char* kAbConvention =
    "ratio = t_B / t_A per pair: A's speed-up over B (above 1: A faster)";

struct AbSide {
  std::string phase, title, technique;
};

// One side's samples of one block, in pair order (index i: pair i).
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
  std::vector<double> per_pair;  // t_B / t_A (or cycles_B / cycles_A), the blocks' pairs in block order
  paired::RatioEstimate estimate;
};

// One independent block of a shape: fresh inputs, both gates, its own sample order and pairs.
struct AbBlock {
  std::size_t round = 0;              // the round it ran in (a round runs one block of every shape)
  std::uint64_t seed = 0;             // its inputs' seed
  std::uint64_t order_seed = 0;       // seeds its orders (paired::random_orders)
  std::optional<double> started_s;    // [s] since the run started; absent in attnlab.ab/1
  Correctness a_correctness, b_correctness;
  bool passed = false;                // both gates passed and both outputs unchanged after timing
  // Set when the block was timed (both gates passed).
  std::vector<std::string> orders;    // "ABBA" / "BAAB", one per two pairs, in order
  std::vector<std::string> first;     // per pair: "A" or "B", the side that ran first
  AbSamples a, b;
  std::string stop_reason;            // "pairs", "time_cap"
  double wall_s = 0;                  // [s] host time spent sampling
  bool timed() const { return !first.empty(); }
};

struct AbShape {
  std::string name;                   // "16x16x2048x64"
  Shape shape;
  double scale = 0;                   // the softmax scale the kernels used
  double flops = 0;
  bool passed = false;                // every block passed
  std::vector<AbBlock> blocks;        // in the order they ran
  // The hierarchical estimate over the blocks (paired::estimate_blocks); absent unless every
  // block passed.
  std::optional<AbRatio> wall;
  // The same for cycles (busy time x the sample's SM clock), only where the clock was measured
  // per sample and per kernel (cycles_withheld); else absent and `cycles_withheld` says why.
  std::optional<AbRatio> cycles;
  std::optional<std::string> cycles_withheld;
  // How many measurements of the shape this entry combines (combine_measurements); not in the
  // record, where each entry is one measurement.
  std::size_t measurements = 1;
  std::size_t pairs() const;          // timed pairs in all blocks
  // One side's (A's or B's) per-sample values of every block, in block order (the kernel names
  // stay per block): what the side's medians are taken over.
  AbSamples pooled(bool is_a) const;
  // The blocks' stop reasons, each once, in the order they first stopped ("pairs, time_cap").
  std::string stop_reasons() const;
};

struct AbOptions {
  std::size_t pairs = 0, min_pairs = 0;  // per shape, over all its blocks
  std::size_t blocks = 1;             // per shape
  double max_seconds = 0;             // [s] sampling budget per shape, split over its blocks
  std::uint64_t order_seed = 0;       // the first block's order seed; block k has order_seed + k
  paired::BootstrapConfig bootstrap;
  double non_inferiority_margin = paired::kNonInferiorityMargin;
  std::string inputs;                 // the gate's input distribution
};

struct AbRecord {
  std::string schema = kAbSchema;     // as read; to_json writes kAbSchema
  std::string status = "incomplete";  // "incomplete", "ok", "failed"
  AbSide a, b;
  // The pass both sides compute: attnlab-ab always writes it (forward or backward), and its
  // shapes' flops follow it (pass_flops: 2.5x for the backward); absent in records before
  // backward phases, which were forward.
  std::optional<Direction> direction;
  std::string started_utc;
  Provenance provenance;
  AbOptions options;
  std::string method;                 // how a sample is taken and its clock read
  std::vector<AbShape> results;
  std::optional<std::string> error;   // a fault that ended the run
};

// Why a cycles ratio would carry no information of its own, or nullopt where every pair's two
// clocks are different readings, each taken while its own kernel ran (clock_offset_ns within
// [0, busy_ns]). A cycle count is busy time x the SM clock: where A and B of a pair read one
// clock value (one NVML reading serving both sides, or a clock that did not move) the pair's
// cycle ratio is its wall ratio, and a reading taken while no kernel of the sample ran is not
// that kernel's clock.
std::optional<std::string> cycles_withheld(const std::vector<AbBlock>& blocks);

// Sets s.passed, s.wall, s.cycles and s.cycles_withheld from s.blocks: the hierarchical
// estimate over the blocks' per-pair ratios where every block passed, else no ratio.
void estimate_shape(AbShape& s, const paired::BootstrapConfig& cfg);

// One shape measured more than once (in one record or in records of one pair): the union of
// its measurements' blocks, estimated as one shape. Throws std::invalid_argument on no
// measurement or measurements of different shapes.
AbShape combine_measurements(const std::vector<AbShape>& measurements, const paired::BootstrapConfig& cfg);

// Computes an AbRatio from A's and B's per-sample values (times or cycles), one entry per block.
AbRatio ab_ratio(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
                 const paired::BootstrapConfig& cfg);

nlohmann::ordered_json to_json(const AbRecord& r);
// Writes the record atomically (record/record.hpp).
void write_ab_record(const std::filesystem::path& file, const AbRecord& r);
// Reads a record written by to_json, or an attnlab.ab/1 record (each measured shape one block,
// its seed the run's and its order seed the run's plus the shape's index, its cycles ratio
// dropped where cycles_withheld says so); throws FieldError naming a missing or mistyped field.
// Ratios and estimates are read as written (recompute with estimate_shape to check them).
AbRecord read_ab_record(const nlohmann::ordered_json& j);

// Every <root>/ab/<A>-vs-<B>/<run>/run.json, sorted by path (so by start stamp within a pair);
// none when <root>/ab does not exist. The run records' reader (record/reader.hpp) never sees
// these: they sit one level deeper than <root>/<phase>/<run>/run.json.
std::vector<std::filesystem::path> find_ab_records(const std::filesystem::path& root);
// The A/B record in `file`; throws std::runtime_error starting with the file's path.
AbRecord read_ab_file(const std::filesystem::path& file);

}  // namespace attnlab
