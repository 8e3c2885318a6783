// The pipeline order of a kernel's SASS (profiler/sass_order.hpp).
#include "profiler/sass_order.hpp"

#include <cstdio>

#include "profiler/sass.hpp"

namespace attnlab::sass {
namespace {

constexpr std::string_view kEventPrefixes[] = {"HGMMA", "QGMMA", "IGMMA", "WARPGROUP.", "MUFU.EX2", "BAR.",
                                               "UCGABAR", "SYNCS.", "UTMALDG", "UTMASTG", "UBLKCP", "BRA", "EXIT"};
constexpr std::string_view kWait = "WARPGROUP.DEPBAR";  // an event with its operands

}  // namespace

std::string pipeline_event(std::string_view text) {
  const InstructionParts in = split_instruction(text);
  for (const std::string_view p : kEventPrefixes) {
    if (in.opcode.substr(0, p.size()) != p) continue;
    if (in.opcode.substr(0, kWait.size()) != kWait || in.operands.empty()) return std::string(in.opcode);
    return std::string(in.opcode) + " " + std::string(in.operands);
  }
  return {};
}

std::vector<PipelineOrder> pipeline_order(std::string_view listing, const std::regex& name) {
  std::vector<PipelineOrder> out;
  bool wanted = false;
  std::int64_t others = 0;  // other instructions since the last event
  for_each_instruction(
      listing,
      [&](std::string_view fn, std::string_view arch) {
        wanted = std::regex_search(fn.begin(), fn.end(), name);
        if (wanted) out.push_back({std::string(fn), std::string(arch), 0, {}});
        others = 0;
      },
      [&](std::uint64_t address, std::string_view text) {
        if (!wanted) return;
        PipelineOrder& f = out.back();
        ++f.instructions;
        std::string event = pipeline_event(text);
        if (event.empty()) {
          ++others;
          return;
        }
        if (!f.runs.empty() && f.runs.back().event == event) {
          PipelineRun& r = f.runs.back();
          ++r.count;
          r.span += others + 1;
        } else {
          f.runs.push_back({address, others, 1, 1, std::move(event)});
        }
        others = 0;
      });
  return out;
}

std::string pipeline_order_text(const std::vector<PipelineOrder>& orders) {
  std::string out;
  char line[160];
  for (const PipelineOrder& f : orders) {
    out += "== " + f.name + " (" + (f.arch.empty() ? "" : f.arch + ", ") + std::to_string(f.instructions) +
           " instructions)\n";
    for (const PipelineRun& r : f.runs) {
      std::snprintf(line, sizeof line, "  0x%05llx %+6lld %5lldx ", (unsigned long long)r.address, (long long)r.gap,
                    (long long)r.count);
      out += line + r.event;
      if (r.span > r.count) out += " (over " + std::to_string(r.span) + ")";
      out += "\n";
    }
  }
  return out;
}

}  // namespace attnlab::sass
