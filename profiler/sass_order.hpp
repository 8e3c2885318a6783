// The order of a kernel's pipeline in its SASS: TMA copies, mbarrier and named-barrier
// operations, tensor-core issue (HGMMA, QGMMA) and its waits (WARPGROUP.DEPBAR), the MUFU's
// exponentials and the branches, in listing order, every other instruction counted between them.
// It answers where ptxas put a wait against the work around it (kernels/NOTES.md reads it so: the
// PV wait ahead of the softmax's MUFU.EX2s). Host-only; attnlab-ncu-import sass-order prints it.
#pragma once
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::sass {

// One run of an event: `count` instructions of it from `address` on, with only other
// instructions between them, `span` instructions from its first to its last, and `gap` other
// instructions between the event before and this run.
struct PipelineRun {
  std::uint64_t address = 0;
  std::int64_t gap = 0, count = 0, span = 0;
  std::string event;
};

struct PipelineOrder {
  std::string name, arch;
  std::int64_t instructions = 0;
  std::vector<PipelineRun> runs;
};

// The event an instruction is ("" for another): its opcode with modifiers, the guard dropped;
// a WARPGROUP.DEPBAR with its operands too ("WARPGROUP.DEPBAR.LE gsb0, 0x1"), since which
// groups it waits for is the point.
std::string pipeline_event(std::string_view instruction);

// Each function of the listing whose mangled name `name` matches (std::regex_search).
std::vector<PipelineOrder> pipeline_order(std::string_view listing, const std::regex& name);

// "== NAME (ARCH, N instructions)", then a line per run: address, +gap, count, event and, where
// other instructions interleave the run, "(over SPAN)".
std::string pipeline_order_text(const std::vector<PipelineOrder>& orders);

}  // namespace attnlab::sass
