// The pipeline order of a kernel's SASS (profiler/sass_order.hpp).
#include "profiler/sass_order.hpp"

#include <cstdio>

#include "profiler/sass.hpp"

namespace attnlab::sass {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

constexpr std::string_view kEventPrefixes[] = {"HGMMA", "QGMMA", "IGMMA", "WARPGROUP.", "MUFU.EX2", "BAR.",
                                               "UCGABAR", "SYNCS.", "UTMALDG", "UTMASTG", "UBLKCP", "BRA", "EXIT"};

}  // namespace

std::string pipeline_event(std::string_view text) {
  text = trim_blanks(text);
  if (starts_with(text, "@")) {  // the guard ("@!P0")
    const auto sp = text.find_first_of(" \t");
    text = sp == std::string_view::npos ? std::string_view{} : trim_blanks(text.substr(sp));
  }
  const auto sp = text.find_first_of(" \t");
  const std::string_view opcode = text.substr(0, sp);
  for (const std::string_view p : kEventPrefixes) {
    if (!starts_with(opcode, p)) continue;
    if (!starts_with(opcode, "WARPGROUP.DEPBAR") || sp == std::string_view::npos) return std::string(opcode);
    return std::string(opcode) + " " + std::string(trim_blanks(text.substr(sp)));
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
