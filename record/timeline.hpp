// The record of one warp-role timeline (schema attnlab.timeline/1,
// record/schema/attnlab.timeline-1.schema.json): a phase's stamped kernels (a stamp policy of
// kernels/timeline.cuh) run once warm, its stamps decoded onto one time axis, the stamps' cost
// measured against the normal build, and the Chrome trace of the pictured SM. The typed form
// attnlab-timeline fills and the report tool reads, with its one JSON mapping.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/shape.hpp"
#include "common/timeline_events.hpp"
#include "record/correctness.hpp"
#include "record/provenance.hpp"

namespace attnlab {

inline constexpr const char* kTimelineSchema = "attnlab.timeline/1";

struct TimelineSpan {
  timeline::Span kind = timeline::Span::kItem;
  double begin_ns = 0, end_ns = 0;  // [ns] from the timeline's origin (its earliest warp start)
  std::uint32_t item = 0;           // the key tile or work item the kernel stamped
};

struct TimelineWarp {
  std::uint32_t cta = 0, warp = 0, smid = 0;
  std::string role;                 // "producer", "consumer 0", ... (the tool's naming per phase)
  double start_ns = 0, end_ns = 0;  // [ns] the warp's lifetime (its anchors, or its first and last stamps)
  std::uint32_t stamps = 0;         // stamps attempted
  std::uint32_t overflow = 0;       // of them, past the slot's capacity: counted, not written
  std::uint32_t unmatched = 0;      // begins without an end plus ends without a begin
  std::vector<TimelineSpan> spans;  // paired, sorted by begin
};

// Time a group of warps spent in one kind of wait, over their summed lifetimes.
struct WaitShare {
  timeline::Span kind = timeline::Span::kFullWait;
  double ns = 0;        // [ns] summed over the group's warps
  double fraction = 0;  // ns / the group's summed lifetimes
};

struct RoleSummary {
  std::string role;
  std::uint32_t warps = 0;       // warps with at least one stamp
  // [ns] summed lifetimes; in a build that stamps every k-th item only (TimelineRecord's
  // stamp_sample), the summed time of the warps' stamped items, which their stamps cover
  double lifetime_ns = 0;
  std::vector<WaitShare> waits;  // every wait kind that occurred, in Span order
  double wait_fraction = 0;      // all of them together
};

// One role's share of the tensor pipe (TimelineTensorPipe).
struct RoleTensorPipe {
  std::string role;
  double flops = 0;    // [FLOP] its warps' issue spans, every SM
  double average = 0;  // flops / (the rate x the SMs' active cycles): its share of the pipe
  // Its share in each bin of TimelineTensorPipe::bin_ns from the timeline's origin: the FLOPs
  // its warps' work spreads into the bin over the rate x the SMs' active cycles in the bin
  // (0 where no SM was active).
  std::vector<double> bins;
};

// The tensor pipe over time, from the consumers' wgmma issue and wait stamps: each QK^T or PV
// issue span of a warp carries the phase's FLOPs of one (Phase::tensor_issue_work), spread
// evenly from the issue's begin to the end of the first wgmma wait after it on the same key
// tile (the wait whose completion covers that issue: groups complete in order, and each wait
// names the tile whose GEMM it completes). Against the calibrated dense wgmma rate per SM per
// cycle, over the SMs' active cycles (an SM's: the union of its warps' lifetimes; in a build
// that stamps every k-th item, the union of the stamped items' spans of its warps that issue
// GEMMs): the share of the pipe's peak the stamped kernel kept busy, what Nsight Compute's
// tensor-pipe activity (pct_of_peak_sustained_active) counts.
// What that figure is computed against: the phase's FLOPs of a warp's issue spans
// (Phase::tensor_issue_work) and the dense wgmma rate, with where it came from; the decoder
// takes it (profiler/timeline_decode.hpp) and the record keeps it.
struct TensorPipeRate {
  double qk_flops = 0, pv_flops = 0;  // [FLOP] one warp's QK^T and PV issue span
  std::string rate_name;              // the calibration's rate (record/calibration.hpp's names)
  double flop_per_sm_cycle = 0;       // [FLOP per SM per cycle] that rate
  std::string rate_source;            // the calibration record it came from, or the fallback's
  // Whether a calibration record gave the rate; false where the architecture's per-clock ceiling
  // stood in (record/calibration.hpp's per_clock_ceiling), a peak no kernel sustains.
  bool from_calibration = false;
  // Why there is no figure (a stamp policy without the issue spans); absent where measured.
  std::optional<std::string> not_measured;
};
struct TimelineTensorPipe : TensorPipeRate {
  double issued_flops = 0;     // [FLOP] every SM
  double active_sm_ns = 0;     // [ns] the SMs' active time, summed over SMs
  double average = 0;          // issued_flops / (the rate x active_sm_ns in cycles)
  std::uint64_t issues = 0;    // issue spans counted
  std::uint64_t uncovered = 0;  // issue spans with no covering wait (not counted)
  double bin_ns = 0;           // [ns] width of the bins
  std::vector<RoleTensorPipe> roles;  // the roles that issued, by name
};

// What a warp on a work item's critical path did or waited on at an instant (the paths:
// reports/timeline_paths.hpp).
enum class PathClass {
  kLoads,        // full-barrier waits: the producer's copies had not landed
  kTensorCores,  // wgmma waits: the warp's own tensor-core work
  kPartner,      // ping-pong waits: the other consumer's turn
  kConsumers,    // empty-barrier waits: a producer waiting for consumers to free a stage
  kOtherRanks,   // cluster and merge waits: the other blocks of a cluster
  kSoftmax,
  kIssue,        // TMA, QK^T and PV issue
  kEpilogue,
  kPrologue,     // an item's start to its first tile's landing, where no per-tile span is stamped
  kBetween,      // between stamps: the warp's own work that no span names
  kCount
};
inline constexpr std::size_t kPathClasses = std::size_t(PathClass::kCount);
// The class's key in the record ("loads", "tensor_cores", ...).
const char* path_class_key(PathClass c);

// The critical path of one work item (a kItem span, per CTA and item index): the warp that
// ended it last, and that warp's time over the item by class.
struct ItemPath {
  std::uint32_t cta = 0, item = 0;
  std::uint32_t smid = 0;                  // the SM its CTA ran on
  std::uint32_t warp = 0;                  // the warp that ended the item last (its index in the CTA)
  std::string role;                        // of that warp
  double begin_ns = 0, end_ns = 0;         // that warp's item span
  std::array<double, kPathClasses> ns{};  // [ns] its time over the item, by class
  PathClass bound = PathClass::kBetween;   // the class with the most time (path_bound)
};
// The class with the most time in `ns`; of equal times, the first in PathClass order.
PathClass path_bound(const std::array<double, kPathClasses>& ns);

// Where the cycles-to-ns rate of a decoded timeline came from (TimelineDecoded::clock_source).
inline constexpr const char* kClockAnchors = "anchors";  // fitted to the warps' own anchors
inline constexpr const char* kClockGiven = "given";      // set by the caller (tests read cycles)

// What decoding a launch's buffer gives (profiler/timeline_decode.hpp).
struct TimelineDecoded {
  double sm_clock_mhz = 0;   // [MHz] the cycles-to-ns rate applied
  // kClockAnchors or kClockGiven; empty in records decoded before the rate came from the
  // anchors, whose times are at the mean of the SM-clock probes around the traced launch.
  std::string clock_source;
  // [MHz] the rate the launch's own clock64 and globaltimer anchors give: a least-squares fit
  // over every warp's start and end anchors (in records with no clock_source, the median over
  // warps of each one's rate between its two anchors); 0 when they give none.
  double anchor_clock_mhz = 0;
  double span_ns = 0;        // [ns] earliest warp start to latest warp end, every SM
  std::uint32_t ctas = 0, warps_per_cta = 0, capacity = 0;  // the buffer's geometry
  std::uint64_t stamps = 0, overflow = 0, unmatched = 0;
  std::uint32_t warps_overflowed = 0;
  // Warp slots of the blocks that ran that the stamp policy leaves empty (global-phases-leads: all
  // but each warpgroup's first warp); 0, and absent from the record, under the other policies.
  std::uint32_t warps_unstamped_by_policy = 0;
  std::uint32_t pictured_sm = 0;
  std::vector<TimelineWarp> warps;   // the pictured SM's warps that stamped, with their spans
  std::vector<RoleSummary> roles;    // every warp that stamped, by role
  std::vector<RoleSummary> sm_roles;  // the pictured SM's warps only, by role
  // Every stamped work item's critical path, every SM's, in order of their end: the warps above
  // are the pictured SM's alone, and a record with every SM's spans would be too large to keep.
  // Absent in records made before they were decoded, whose report takes the pictured SM's.
  std::optional<std::vector<ItemPath>> paths;
  // Absent in records made before it was measured, and where the phase declares no issue work.
  std::optional<TimelineTensorPipe> tensor_pipe;
};

// The instrument's cost: CUPTI kernel times of the normal and the timeline build, launched
// alternately back to back at the same shape, and whether the decoded span agrees with CUPTI.
struct TimelineOverhead {
  std::vector<double> normal_ns, timeline_ns;  // [ns] per launch, in launch order
  double normal_median_ns = 0, timeline_median_ns = 0;
  double overhead_ns = 0;        // [ns] timeline median - normal median
  double overhead_fraction = 0;  // overhead_ns / normal median
  double traced_launch_ns = 0;   // [ns] CUPTI time of the launch whose stamps were decoded
  double span_ns = 0;            // [ns] the decoded span of that launch
  // [ns] kSpanAgreement of the traced launch (records written before that rule: |overhead_ns|)
  double tolerance_ns = 0;
  // [ns] Median CUPTI time of an empty kernel launched with the phase's launch configuration:
  // the part of a launch before the first warp can stamp and after the last one ends, which the
  // decoded span cannot hold. Absent where the phase has no launch configuration to give, and in
  // records made before it was measured.
  std::optional<double> launch_floor_ns;
  bool span_matches = false;  // span_agrees, as the writer found it
};

// How far the decoded span may be from CUPTI's time of the same launch of the timeline build,
// as a fraction of the latter: the stamps' cost is inside both, so what is left is how well the
// cycles' rate and the SMs' alignment hold (a rate 10% off moves the span 10%).
inline constexpr double kSpanAgreement = 0.05;

// The stamps' cost, as a fraction of the normal build's kernel time, up to which a timeline
// describes the kernel that is timed: above it the waits and proportions it shows are those of
// a slower kernel, and its report says so first.
inline constexpr double kTimelineOverheadLimit = 0.10;

// Whether the decoded span agrees with CUPTI: the traced launch may be shorter than the span by
// kSpanAgreement of the launch, and longer by that and the launch floor (0 where absent: the
// time before the first warp stamps and after the last one ends).
bool span_agrees(const TimelineOverhead& o);

struct TimelineRecord {
  std::string status = "incomplete";  // "incomplete", "ok", "failed"
  std::string phase, title, technique;
  Shape shape;                        // written with its name (shape_name) beside it
  double scale = 0;                   // the softmax scale the kernel used
  std::string started_utc;
  Provenance provenance;
  std::uint32_t events_per_warp = 0;
  std::uint32_t launches = 0;         // per build, for the overhead
  // Every timed launch and the traced one behind an L2 flush (attnlab-timeline --cold); false
  // (warm, back to back) in records made before it was a choice.
  bool cold = false;
  std::optional<std::uint32_t> requested_sm;
  // The build's stamp policy (stamp_policy_name); absent in records made before it was a choice.
  std::optional<std::string> stamps;
  // Work items stamped: every stamp_sample-th (timeline::sampled_item); absent in records made
  // before sampling was a choice, which stamped every one.
  std::optional<std::uint32_t> stamp_sample;
  std::string method;
  Correctness correctness;            // the timeline build's output against the fp64 reference
  std::string kernel_normal, kernel_timeline;  // as CUPTI names them
  std::uint32_t grid_ctas = 0, block_threads = 0;
  // The launch's work items: a persistent phase's (Phase::work_items, shared by its CTAs), else
  // one per CTA. The critical paths' what-if counts the items of the fullest SM from it. Absent
  // in records made before it was recorded.
  std::optional<std::int64_t> work_items;
  double sm_clock_mhz_before = 0, sm_clock_mhz_after = 0;  // [MHz] probe around the traced launch
  std::optional<TimelineOverhead> overhead;
  std::optional<TimelineDecoded> timeline;
  std::optional<std::string> error;
};

nlohmann::ordered_json to_json(const TimelineRecord& r);
// The record's timeline.tensor_pipe block (attnlab-timeline --under-profiler writes it alone).
nlohmann::ordered_json to_json(const TimelineTensorPipe& t);
// Reads a record written by to_json; throws FieldError naming a missing or mistyped field.
TimelineRecord read_timeline_record(const nlohmann::ordered_json& j);
// The record in `file`; throws std::runtime_error starting with the file's path.
TimelineRecord read_timeline_file(const std::filesystem::path& file);
// Writes `r` to `file` atomically (record/record.hpp's write_json_atomically), and its Chrome
// trace (chrome_trace_json) to `trace`.
void write_timeline_file(const std::filesystem::path& file, const TimelineRecord& r);
void write_chrome_trace(const std::filesystem::path& trace, const TimelineRecord& r);
// The tensor_pipe block alone (attnlab-timeline --under-profiler), written atomically to `file`.
void write_tensor_pipe_file(const std::filesystem::path& file, const TimelineTensorPipe& t);

// The Chrome trace (chrome://tracing, Perfetto's JSON importer) of the pictured SM's warps:
// one complete event ("ph": "X", microseconds) per span, one process per CTA, one thread per
// warp named by its role.
nlohmann::ordered_json chrome_trace_json(const TimelineRecord& r);

// The span kind named `name` (span_name); throws FieldError otherwise.
timeline::Span parse_span(const std::string& name, const std::string& ptr);

}  // namespace attnlab
