// CUPTI PC sampling of one shape (/results/<i>/pc_sampling of a run record) and the per-kernel
// breakdown of a launch (/results/<i>/kernels): the typed form the collector
// (profiler/pc_sampling.hpp) fills and the report tool reads, their one JSON mapping, and the
// CPU-only pieces of the analysis: SASS by function offset from a `cuobjdump -sass` listing,
// CUPTI's stall-reason names stripped to the record's vocabulary, and the aggregation of
// sampled PCs into source lines, and of executed-instruction counts (CUPTI SASS metrics,
// profiler/sass_metrics.hpp) onto the sampled PCs and lines. Host-only, CUDA-free.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

// Samples of one reason at one PC or line, by the stripped name.
using StallCounts = std::vector<std::pair<std::string, std::uint64_t>>;

struct SampledPc {
  std::uint64_t offset = 0;    // [bytes] from the function's start, as cuobjdump prints /*0070*/
  std::uint64_t samples = 0;   // every sample at this PC (the sum of `stalls`)
  StallCounts stalls;          // stripped reason -> samples, descending; "_not_issued" ones apart
  StallCounts not_issued;      // CUPTI's "*_not_issued" reasons (a subset of the samples)
  std::string file;            // source file ("" when the cubin has no line for it)
  int line = 0;                // 0: unknown
  std::string sass;            // the instruction at this offset ("" when not found)
  // CUPTI SASS metrics of the counted launch (absent: not counted, older records):
  std::optional<std::uint64_t> executed;         // warp-level executions, smsp__sass_inst_executed
  std::optional<std::uint64_t> thread_executed;  // thread-level, smsp__sass_thread_inst_executed
};

struct SourceLine {
  std::string file;
  int line = 0;
  std::string text;            // the line read from the file; "" when the file was not readable
  std::uint64_t samples = 0;
  double share_pct = 0;        // of the kernel's samples
  StallCounts stalls;          // descending by samples
  std::vector<std::uint64_t> pcs;  // offsets of the sampled PCs behind the line, ascending
  // Warp-level executions summed over EVERY instruction the line table maps to the line,
  // sampled or not (absent: not counted).
  std::optional<std::uint64_t> executed;
};

struct KernelPcSamples {
  std::string name;            // mangled, as CUPTI reports it
  std::uint64_t samples = 0;   // sum over PCs
  std::string cubin;           // where the line table came from, or why there is none
  std::vector<SampledPc> pcs;  // ascending offset
  std::vector<SourceLine> lines;  // descending samples (ties: file, line)
  // Totals over every counted instruction of the function (absent: not counted).
  std::optional<std::uint64_t> executed, thread_executed;
  std::uint64_t cubin_crc = 0;  // CUPTI's CRC of the samples' cubin; in memory only, not recorded
};

// Executed-instruction counts of the sampled launch's kernels (CUPTI SASS metrics on a launch
// of their own): whether they were collected, how, and why not.
struct SassCountsInfo {
  bool available = false;
  std::string reason;            // when unavailable
  std::string method;            // one line
  double collection_wall_s = 0;  // the counted launch, its patching and the line mapping
};

struct PcSamplingResult {
  bool available = false;
  std::string reason;                // when unavailable
  std::string method;                // one line
  int sampling_period_log2 = 0;      // CUPTI's period: 2^n cycles between samples per SM
  std::uint64_t total_samples = 0;   // CUPTI's totalSamples of the sampled launch
  std::uint64_t dropped_samples = 0; // CUPTI's droppedSamples
  std::uint64_t non_user_samples = 0;  // nonUsrKernelsTotalSamples
  bool hardware_buffer_full = false;
  std::optional<double> sampled_launch_ns;    // [ns] the sampled launch, events around it
  std::optional<double> unsampled_launch_ns;  // [ns] median of unsampled launches, same method
  std::optional<double> overhead_pct;         // sampled / unsampled - 1, in %
  double collection_wall_s = 0;
  std::vector<std::string> stall_reason_names;  // CUPTI's full names, as it lists them
  std::vector<KernelPcSamples> kernels;
  std::optional<SassCountsInfo> sass_counts;  // absent: not attempted (older records)
};

nlohmann::ordered_json to_json(const PcSamplingResult& r);
// The PC-sampling child's result file (experiments/harness/pc_sampling_child.hpp), written atomically.
void write_pc_sampling_file(const std::string& file, const PcSamplingResult& r);
// Reads /results/<i>/pc_sampling at `base`; throws FieldError naming the field.
PcSamplingResult read_pc_sampling(const nlohmann::ordered_json& root, const std::string& base);

// One kernel of a launch of several: its own time from CUPTI kernel records of the headline
// regime (summed over its instances in one launch), its share, and its PC-sampling summary.
struct KernelShare {
  std::string name;
  std::string regime;            // the regime the times come from
  int instances_per_launch = 0;
  double median_ns = 0;          // [ns] median over samples of the kernel's time in one launch
  double p10_ns = 0, p90_ns = 0;
  double share_pct = 0;          // median_ns / sum of every kernel's median_ns
  std::optional<std::uint64_t> pc_samples;  // from pc_sampling, when collected
  StallCounts top_stalls;        // at most 3, from pc_sampling
  std::string metrics;           // counters per kernel: what was measured, or why not
};
nlohmann::ordered_json to_json(const KernelShare& k);
std::vector<KernelShare> read_kernel_shares(const nlohmann::ordered_json& root, const std::string& base);

// CUPTI's stall-reason name stripped to the record's vocabulary (record/constants.json
// stall_reasons): "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard";
// "..._not_issued" keeps its suffix; names of other forms are returned whole.
std::string strip_stall_reason(std::string_view cupti_name);
bool is_not_issued(std::string_view stripped);

// SASS of one function by offset from a `cuobjdump -sass` (or `nvdisasm`) listing: "/*0070*/
// LDG.E R2, desc[UR4][R2.64] ;" -> {0x70, "LDG.E R2, desc[UR4][R2.64]"}. Functions are found by
// their "Function : <name>" header; an empty map when the function is not in the listing.
std::map<std::uint64_t, std::string> sass_by_offset(std::string_view listing, std::string_view function);

// Lines of a kernel from its sampled PCs (file and line set where known; PCs without a line
// are gathered under file "" line 0). `read_source` returns a line's text or "" (tests pass a
// fake); shares are of the kernel's samples.
std::vector<SourceLine> aggregate_lines(const std::vector<SampledPc>& pcs,
                                        std::string (*read_source)(const std::string& file, int line));
// The text of `line` (1-based) of `file`, trimmed; "" when unreadable.
std::string read_source_line(const std::string& file, int line);

// One instruction's counts (CUPTI SASS metrics; summed over the launch's instances of the
// function) and, where the collector placed it, its line (the same key the PCs use).
struct InstructionCounts {
  std::uint64_t executed = 0;         // warp level
  std::uint64_t thread_executed = 0;  // thread level
};
struct FunctionCounts {
  std::string name;             // mangled, as CUPTI names it
  std::uint64_t cubin_crc = 0;  // CUPTI's cubinCrc (32 bits in the SASS metrics API)
  std::map<std::uint64_t, InstructionCounts> by_offset;  // function offset -> counts
};
struct CountedInstruction {
  std::uint64_t offset = 0;
  std::string file;  // "" and 0: no line
  int line = 0;
  InstructionCounts counts;
};

// The counted function behind a sampled kernel: the one of its name; among several of one
// name (one per cubin), the one whose CRC is the samples' (`crc`, compared in its low 32 bits).
// nullptr and `why` set when none is.
const FunctionCounts* counts_for_kernel(const std::vector<FunctionCounts>& functions, const std::string& name,
                                        std::uint64_t crc, std::string& why);

// Puts a kernel's counted instructions on its sampled PCs (by offset: `executed` and
// `thread_executed`), its lines (by file and line as aggregate_lines keys them: `executed`
// summed over every counted instruction of the line, sampled or not; instructions without a
// line go to the line-less entry) and its totals. A PC or line no counted instruction falls on
// keeps its counts absent.
void attach_instruction_counts(KernelPcSamples& k, const std::vector<CountedInstruction>& counted);

// The most frequent reasons of a count list, descending by samples, ties by name.
StallCounts top_reasons(StallCounts counts, std::size_t n);

}  // namespace attnlab
