// The static evidence of the code that ran, /results/<i>/static/{sass,ptxas} of a run record:
// instruction counts from the binary's SASS and register/spill facts from the build's ptxas -v
// report, for the kernels one launch ran, as typed structs with their one JSON mapping.
// profiler/sass.cpp parses the listings and fills them. Host-only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::sass {

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

// One entry function of a ptxas -v report. Negative: the report did not say.
struct PtxasFunction {
  std::string name;
  std::string arch;    // "sm_90a"
  std::string source;  // "kernels/phase4_tiled.cu", from the build's marker lines
  int registers = -1;
  int barriers = -1;
  std::int64_t stack_frame_bytes = -1;
  std::int64_t spill_store_bytes = -1;
  std::int64_t spill_load_bytes = -1;
  std::int64_t smem_bytes = 0;   // static shared memory; ptxas omits it when 0
  std::int64_t cmem0_bytes = 0;  // constant bank 0 (kernel parameters)
  std::vector<std::string> notes;  // ptxas "Potential Performance Loss" messages about it
};

// static.sass: the counts of every kernel named, and their totals.
struct SassKernel {
  std::string name;
  bool found = false;
  std::string arch;    // when found
  Counts counts;       // when found
  std::string reason;  // when not found
};
struct SassEvidence {
  bool available = false;
  std::string reason;  // when unavailable; the rest is then empty
  std::string tool, binary;  // the cuobjdump command and the executable it listed
  std::string kernels_from;  // where the kernel names came from
  bool complete = true;      // false: the totals miss kernels the listing lacks
  Counts total;
  std::vector<SassKernel> kernels;
};

// static.ptxas: the build's report of every kernel named, and their maxima and sums.
struct PtxasKernel {
  std::string name;
  std::optional<PtxasFunction> function;  // nullopt: not compiled by this build, see reason
  std::string reason;
};
struct PtxasEvidence {
  bool available = false;
  std::string reason;  // when unavailable; the rest is then empty
  std::string source;  // where the report comes from
  std::string kernels_from;
  bool complete = true;
  int registers_max = 0;
  std::int64_t stack_frame_bytes_max = 0, spill_store_bytes = 0, spill_load_bytes = 0;
  std::vector<PtxasKernel> kernels;
};

// Every count by the name the record gives it, in the record's order: "instructions", "HMMA",
// ..., "BAR", then the branches as "BRA total", "BRA @P", ....
std::vector<std::pair<std::string, std::int64_t>> named_counts(const Counts& c);

nlohmann::ordered_json to_json(const SassEvidence& s);
nlohmann::ordered_json to_json(const PtxasEvidence& p);
// Read the blocks at `base`; throw FieldError (record/fields.hpp) naming the field.
SassEvidence read_sass(const nlohmann::ordered_json& root, const std::string& base);
PtxasEvidence read_ptxas(const nlohmann::ordered_json& root, const std::string& base);

}  // namespace attnlab::sass
