// Static evidence per phase for the run record: instruction counts from the SASS of the
// running binary (`cuobjdump -sass`) and register/spill facts from ptxas -v, for the kernels a
// phase launched. Host-only; no CUDA calls.
//
// Where the facts come from:
// - SASS: `cuobjdump -sass /proc/<pid>/exe`, run once per process at the first result, so the
//   counts are those of the code that ran. cuobjdump is looked up on PATH, then in the bin/
//   directory of the toolkit that built the binary. When it is missing the record says so
//   (`available: false` and the reason), never zeros.
// - ptxas: the build runs the phase kernels' compile through kernels/ptxas_capture.sh (a
//   CMake compiler launcher) which keeps that very compile's `-Xptxas -v` report beside the
//   object; experiments/embed_ptxas.cmake embeds the reports into the experiment binaries.
//   The report therefore describes the same SASS that cuobjdump reads, even after the binary
//   is copied elsewhere. cuobjdump -res-usage would give registers and stack too, but not the
//   spill stores and loads that ptxas reports.
// - Which kernels: those CUPTI saw one launch run (`result.timing.<regime>.kernels`,
//   mangled names), else those the launch facts name (`result.static.kernels[].name`). A run
//   with neither (--check-only, a failed check) falls back to the kernels the build's ptxas
//   report lists for the phase's own source, kernels/phase_<id>_*.cu.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::sass {

using ordered_json = nlohmann::ordered_json;

// BRA instructions by guard. Every form is counted, so a listing's conditional branches
// (@P and @!P alike) are all visible.
struct BranchCounts {
  std::int64_t total = 0;
  std::int64_t unpredicated = 0;       // no guard
  std::int64_t p = 0;                  // @P0..@P6
  std::int64_t not_p = 0;              // @!P0..@!P6
  std::int64_t pt = 0;                 // @PT: always executes, same as no guard
  std::int64_t not_pt = 0;             // @!PT: never executes
  std::int64_t up = 0;                 // @UP0..: uniform predicate guard
  std::int64_t not_up = 0;             // @!UP0..
  std::int64_t predicate_operand = 0;  // condition as an operand: `BRA.U !UP0, 0x330`
  std::int64_t self_loop = 0;          // branch to its own address: the trap after the last EXIT
};

struct Counts {
  std::int64_t instructions = 0;
  std::int64_t hmma = 0;     // HMMA.*: mma.sync / WMMA
  std::int64_t hgmma = 0;    // HGMMA.*: wgmma
  // HFMA2.MMA*: fp16x2 FMA issued to the pipe the tensor (HMMA) counters cover; ptxas also
  // emits it to move constants into registers, so scalar kernels have it too.
  std::int64_t hfma2_mma = 0;
  std::int64_t utmaldg = 0;  // UTMALDG.*: TMA tensor loads
  std::int64_t ublkcp = 0;   // UBLKCP.*: bulk copies (cp.async.bulk)
  std::int64_t ldl = 0;      // LDL.*: local-memory loads (spills, local arrays)
  std::int64_t stl = 0;      // STL.*: local-memory stores
  std::int64_t bar = 0;      // BAR.*: CTA barriers (not MEMBAR, DEPBAR, BSYNC, UCGABAR_*)
  BranchCounts bra;
  Counts& operator+=(const Counts& o);
};

struct Function {
  std::string name;  // mangled, as cuobjdump and CUPTI print it
  std::string arch;  // "sm_90a"
  Counts counts;
};

// Every function of a `cuobjdump -sass` listing, in listing order. Lines that are not SASS
// instructions (fatbin headers, .headerflags, encoding words, PTX sections) are ignored.
std::vector<Function> parse_cuobjdump_sass(std::string_view listing);

// One entry function of a ptxas -v report. Negative: the report did not say.
struct PtxasFunction {
  std::string name;
  std::string arch;    // "sm_90a"
  std::string source;  // "kernels/phase_4_tiled.cu", from the build's marker lines
  int registers = -1;
  int barriers = -1;
  std::int64_t stack_frame_bytes = -1;
  std::int64_t spill_store_bytes = -1;
  std::int64_t spill_load_bytes = -1;
  std::int64_t smem_bytes = 0;   // static shared memory; ptxas omits it when 0
  std::int64_t cmem0_bytes = 0;  // constant bank 0 (kernel parameters)
  std::vector<std::string> notes;  // ptxas "Potential Performance Loss" messages about it
};

// Line the build writes before each object's report: the source the report is of.
inline constexpr std::string_view kSourceMarker = "attnlab-ptxas-source: ";

std::vector<PtxasFunction> parse_ptxas_report(std::string_view report);

// The build's report, embedded in the binary: defined in the generated ptxas_report.cpp,
// which is part of attnlab_harness. Empty when the build captured none.
std::string_view embedded_ptxas_report();

// A SASS listing of a binary, or why there is none.
struct Listing {
  bool available = false;
  std::string reason;  // when not available
  std::string tool;    // "/usr/local/cuda/bin/cuobjdump -sass"
  std::string binary;  // the executable the listing is of
  std::string text;
};

inline constexpr const char* kNoCuobjdump =
    "cuobjdump not found on PATH; install the CUDA toolkit's cuda-cuobjdump";

// `cuobjdump -sass` of the running executable, computed at the first call and kept.
const Listing& running_binary_sass();
// What --check-only records in its place: no listing, and why. A correctness check of a tiny
// shape took 8-9 s on an H200, 7.6 s of them in cuobjdump listing every phase's kernels.
inline Listing check_only_listing() {
  Listing l;
  l.reason = "not collected under --check-only (a correctness check; the SASS listing of the "
             "binary takes seconds): run without --check-only for instruction counts";
  return l;
}

// Distinct kernel names of a result entry's CUPTI regimes, in first-seen order.
std::vector<std::string> kernels_of_result(const ordered_json& result);
// Entry functions whose source is the phase's own kernels/phase_<id>_*.cu (or phase_<id>.cu).
std::vector<std::string> phase_kernels_in_report(const std::vector<PtxasFunction>& report,
                                                 std::string_view phase_id);

// result["static"]["sass"] and ["ptxas"] for the given kernels (see the README's "Static
// evidence"); `kernels_from` says where the names came from.
ordered_json sass_json(const Listing& listing, const std::vector<std::string>& kernels,
                       const std::string& kernels_from);
ordered_json ptxas_json(const std::vector<PtxasFunction>& report,
                        const std::vector<std::string>& kernels, const std::string& kernels_from);

// Sets result["static"]["sass"] and result["static"]["ptxas"], keeping every other key of
// result["static"] (another writer adds "kernels" there).
void merge_static_evidence(ordered_json& result, std::string_view phase_id,
                           const Listing& listing, std::string_view ptxas_report);
// The same with this process's SASS listing and the embedded report: the harness's one call.
// Inline so that only binaries linking attnlab_harness (which holds the embedded report)
// reference embedded_ptxas_report(); the CPU tests link attnlab_core alone.
inline void add_static_evidence(ordered_json& result, std::string_view phase_id) {
  merge_static_evidence(result, phase_id, running_binary_sass(), embedded_ptxas_report());
}

}  // namespace attnlab::sass
