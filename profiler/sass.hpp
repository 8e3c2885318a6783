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
//   object; experiments/harness/embed_ptxas.cmake embeds the reports into the experiment binaries.
//   The report therefore describes the same SASS that cuobjdump reads, even after the binary
//   is copied elsewhere. cuobjdump -res-usage would give registers and stack too, but not the
//   spill stores and loads that ptxas reports.
// - Which kernels: those CUPTI saw one launch run (`result.timing.<regime>.kernels`,
//   mangled names), else those the launch facts name (`result.static.kernels[].name`). A run
//   with neither (--check-only, a failed check) falls back to the kernels the build's ptxas
//   report lists for the phase's own source, kernels/phase_<id>_*.cu.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "record/result.hpp"
#include "record/sass.hpp"

namespace attnlab::sass {

struct Function {
  std::string name;  // mangled, as cuobjdump and CUPTI print it
  std::string arch;  // "sm_90a"
  Counts counts;
  std::map<std::string, std::int64_t> opcodes;  // each opcode with its modifiers ("MUFU.EX2"): its count
};

// An instruction's text split, each part trimmed: its guard without the '@' ("!P0", empty
// where it has none), its opcode with modifiers ("BRA.U") and its operands.
struct InstructionParts {
  std::string_view guard, opcode, operands;
};
InstructionParts split_instruction(std::string_view text);
// Walks a `cuobjdump -sass` listing in order: on_function(mangled name, arch) at each function,
// then on_instruction(address, text) for each of its instructions, text being what lies between
// the address comment and ';' ("@!P0 BRA 0x100"), trimmed.
using FunctionVisitor = std::function<void(std::string_view name, std::string_view arch)>;
using InstructionVisitor = std::function<void(std::uint64_t address, std::string_view text)>;
void for_each_instruction(std::string_view listing, const FunctionVisitor& on_function,
                          const InstructionVisitor& on_instruction);
// Every function of a `cuobjdump -sass` listing, in listing order. Lines that are not SASS
// instructions (fatbin headers, .headerflags, encoding words, PTX sections) are ignored.
std::vector<Function> parse_cuobjdump_sass(std::string_view listing);

// The opcodes kernels/NOTES.md follows when it compares two builds of a kernel, counted from a
// function's opcodes: uniform-datapath instructions (U*, but the TMA loads), R2UR, BSSY,
// WARPSYNC, HGMMA, QGMMA (the e4m3 wgmma), UTMALDG, MUFU.EX2 and local memory (LDL, STL).
struct OpcodeTally {
  std::int64_t instructions = 0, uniform = 0, r2ur = 0, bssy = 0, warpsync = 0, hgmma = 0, qgmma = 0,
               utmaldg = 0, ex2 = 0, local = 0;
};
OpcodeTally opcode_tally(const Function& f);

// A kernel's short name in a tally: phase 5's by its traits' template arguments ("T64ELi2...")
// and scheduler (",Static"), the timeline's stamped builds marked ",stamps"; any other mangled
// name up to the end of its first template argument list.
std::string kernel_label(std::string_view mangled);

// One line per kernel of a listing, sorted by label (of a function listed for several
// architectures, the newest's: the code a Hopper run executes):
//   "<prefix> <label> n=.. uniform=.. R2UR=.. BSSY=.. WARPSYNC=.. HGMMA=.. QGMMA=.. UTMALDG=.. EX2=.. LDL+STL=.."
// brief: "<prefix> HGMMA=.. QGMMA=.. UTMALDG=.. LDL+STL=.." without the label, so that the lines
// of kernels alike are equal (`sort | uniq -c` counts them).
std::string opcode_tally_lines(std::string_view listing, std::string_view prefix, bool brief = false);

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

// Entry functions whose source is the phase's own kernels/phase_<id>_*.cu (or phase_<id>.cu).
std::vector<std::string> phase_kernels_in_report(const std::vector<PtxasFunction>& report,
                                                 std::string_view phase_id);

// The record's static.sass and static.ptxas (record/sass.hpp) for the given kernels (see the
// README's "Static evidence"); `kernels_from` says where the names came from.
SassEvidence sass_evidence(const Listing& listing, const std::vector<std::string>& kernels,
                           const std::string& kernels_from);
PtxasEvidence ptxas_evidence(const std::vector<PtxasFunction>& report,
                             const std::vector<std::string>& kernels, const std::string& kernels_from);

// Sets the result's static sass and ptxas, keeping its launch facts, for the kernels its CUPTI
// regimes ran, else those its launch facts name, else the phase source's entry functions.
void merge_static_evidence(ResultEntry& result, std::string_view phase_id,
                           const Listing& listing, std::string_view ptxas_report);
// The same with this process's SASS listing and the embedded report: the harness's one call.
// Inline so that only binaries linking attnlab_harness (which holds the embedded report)
// reference embedded_ptxas_report(); the CPU tests link attnlab_core alone.
inline void add_static_evidence(ResultEntry& result, std::string_view phase_id) {
  merge_static_evidence(result, phase_id, running_binary_sass(), embedded_ptxas_report());
}

}  // namespace attnlab::sass
