// Parsers of `cuobjdump -sass` listings and ptxas -v reports, the cuobjdump run on the
// running binary, and the static-evidence JSON of run records.
#include "profiler/sass.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "common/process.hpp"

namespace attnlab::sass {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Calls fn(line) for every line of text, without the newline.
template <class Fn>
void for_each_line(std::string_view text, Fn fn) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    fn(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  if (starts_with(s, "0x") || starts_with(s, "0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    v = v * 16 + std::uint64_t(d);
  }
  return v;
}

// "P3", "UP0", "PT", "UPT", with an optional leading '!'.
bool is_predicate(std::string_view s) {
  if (starts_with(s, "!")) s.remove_prefix(1);
  if (starts_with(s, "U")) s.remove_prefix(1);
  if (!starts_with(s, "P") || s.size() < 2) return false;
  s.remove_prefix(1);
  if (s == "T") return true;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

void count_branch(BranchCounts& b, std::string_view guard, std::string_view operands,
                  std::uint64_t address) {
  ++b.total;
  if (guard.empty()) {
    ++b.unpredicated;
  } else {
    const bool negated = starts_with(guard, "!");
    if (negated) guard.remove_prefix(1);
    if (guard == "PT" || guard == "UPT") ++(negated ? b.not_pt : b.pt);
    else if (starts_with(guard, "UP")) ++(negated ? b.not_up : b.up);
    else ++(negated ? b.not_p : b.p);
  }
  // Operands: an optional predicate (`!UP0`), then the target address.
  std::vector<std::string_view> ops;
  while (!operands.empty()) {
    const auto comma = operands.find(',');
    ops.push_back(trim(operands.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    operands.remove_prefix(comma + 1);
  }
  if (!ops.empty() && is_predicate(ops.front())) {
    std::string_view p = ops.front();
    if (starts_with(p, "!")) p.remove_prefix(1);
    if (p != "PT" && p != "UPT") ++b.predicate_operand;
  }
  if (!ops.empty())
    if (auto target = parse_hex(ops.back()); target && *target == address) ++b.self_loop;
}

}  // namespace

InstructionParts split_instruction(std::string_view text) {
  InstructionParts in;
  text = trim(text);
  if (starts_with(text, "@")) {
    const auto sp = text.find_first_of(" \t");
    in.guard = text.substr(1, sp == std::string_view::npos ? sp : sp - 1);
    text = sp == std::string_view::npos ? std::string_view{} : trim(text.substr(sp));
  }
  const auto sp = text.find_first_of(" \t");
  in.opcode = text.substr(0, sp);
  in.operands = sp == std::string_view::npos ? std::string_view{} : trim(text.substr(sp));
  return in;
}

namespace {

// One instruction: "@!P0 BRA 0x100 " (the text between the address comment and ';').
void count_instruction(Function& f, std::string_view text, std::uint64_t address) {
  Counts& c = f.counts;
  const auto [guard, opcode, operands] = split_instruction(text);
  if (opcode.empty()) return;
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  ++c.instructions;
  ++f.opcodes[std::string(opcode)];
  if (base == "HMMA") ++c.hmma;
  else if (opcode == "HFMA2.MMA" || starts_with(opcode, "HFMA2.MMA.")) ++c.hfma2_mma;
  else if (base == "HGMMA") ++c.hgmma;
  else if (base == "UTMALDG") ++c.utmaldg;
  else if (base == "UBLKCP") ++c.ublkcp;
  else if (base == "LDL") ++c.ldl;
  else if (base == "STL") ++c.stl;
  else if (base == "BAR") ++c.bar;
  else if (base == "BRA") count_branch(c.bra, guard, operands, address);
}

// "        /*0f80*/   @!P0 BRA 0x100 ;   /* 0x... */" -> address and instruction text.
bool split_instruction_line(std::string_view line, std::uint64_t& address, std::string_view& text) {
  line = trim(line);
  if (!starts_with(line, "/*")) return false;
  const auto close = line.find("*/");
  if (close == std::string_view::npos) return false;
  const auto addr = parse_hex(line.substr(2, close - 2));  // "/* 0x..." encoding words fail here
  if (!addr) return false;
  std::string_view rest = line.substr(close + 2);
  const auto semi = rest.find(';');
  if (semi == std::string_view::npos) return false;
  address = *addr;
  text = rest.substr(0, semi);
  return true;
}

int arch_number(std::string_view arch) {
  int n = 0;
  for (char c : arch)
    if (std::isdigit(static_cast<unsigned char>(c))) n = n * 10 + (c - '0');
  return n;
}

// Of several entries with the same name (one per architecture in a multi-arch build), the one
// for the newest architecture: the code a Hopper run executes.
template <class T>
const T* newest(const std::vector<T>& all, const std::string& name) {
  const T* best = nullptr;
  for (const auto& f : all)
    if (f.name == name && (!best || arch_number(f.arch) > arch_number(best->arch))) best = &f;
  return best;
}

std::int64_t to_int(std::string_view s) {
  return std::strtoll(std::string(s).c_str(), nullptr, 10);
}

// "8448 bytes smem" -> 8448 when the item ends with `unit`.
std::optional<std::int64_t> number_before(std::string_view item, std::string_view unit) {
  item = trim(item);
  if (item.size() < unit.size() || item.substr(item.size() - unit.size()) != unit) return std::nullopt;
  const auto num = trim(item.substr(0, item.size() - unit.size()));
  if (num.empty() || !std::all_of(num.begin(), num.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
    return std::nullopt;
  return to_int(num);
}

std::string_view quoted(std::string_view s, std::size_t from = 0) {
  const auto a = s.find('\'', from);
  if (a == std::string_view::npos) return {};
  const auto b = s.find('\'', a + 1);
  if (b == std::string_view::npos) return {};
  return s.substr(a + 1, b - a - 1);
}

std::string basename_of(std::string_view path) {
  const auto slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string last_line(std::string_view text) {
  std::string_view last;
  for_each_line(text, [&](std::string_view l) {
    if (!trim(l).empty()) last = trim(l);
  });
  return std::string(last);
}

}  // namespace

void for_each_instruction(std::string_view listing, const FunctionVisitor& on_function,
                          const InstructionVisitor& on_instruction) {
  std::string arch;
  bool in_function = false;
  for_each_line(listing, [&](std::string_view raw) {
    const std::string_view line = trim(raw);
    if (starts_with(line, "code for ")) {
      arch = std::string(trim(line.substr(9)));
    } else if (starts_with(line, "arch = ")) {
      arch = std::string(trim(line.substr(7)));
    } else if (starts_with(line, "Function : ")) {
      on_function(trim(line.substr(11)), arch);
      in_function = true;
    } else if (starts_with(line, "..........") || starts_with(line, "Fatbin ")) {
      in_function = false;
    } else if (in_function) {
      std::uint64_t address = 0;
      std::string_view text;
      if (split_instruction_line(line, address, text)) on_instruction(address, trim(text));
    }
  });
}

std::vector<Function> parse_cuobjdump_sass(std::string_view listing) {
  std::vector<Function> out;
  for_each_instruction(
      listing, [&](std::string_view name, std::string_view arch) { out.push_back({std::string(name), std::string(arch), {}}); },
      [&](std::uint64_t address, std::string_view text) { count_instruction(out.back(), text, address); });
  return out;
}

namespace {

bool has_prefix(const std::map<std::string, std::int64_t>::value_type& op, std::string_view p) {
  return starts_with(op.first, p);
}

}  // namespace

OpcodeTally opcode_tally(const Function& f) {
  OpcodeTally t;
  t.instructions = f.counts.instructions;
  for (const auto& op : f.opcodes) {
    const std::int64_t n = op.second;
    if (has_prefix(op, "U") && !has_prefix(op, "UTMALDG")) t.uniform += n;
    if (op.first == "R2UR") t.r2ur += n;
    if (has_prefix(op, "BSSY")) t.bssy += n;
    if (has_prefix(op, "WARPSYNC")) t.warpsync += n;
    if (has_prefix(op, "HGMMA")) t.hgmma += n;
    if (has_prefix(op, "QGMMA")) t.qgmma += n;
    if (has_prefix(op, "UTMALDG")) t.utmaldg += n;
    if (has_prefix(op, "MUFU.EX2")) t.ex2 += n;
    if (has_prefix(op, "LDL") || has_prefix(op, "STL")) t.local += n;
  }
  return t;
}

std::string kernel_label(std::string_view mangled) {
  std::string suffix;
  for (std::string_view sched : {"Static", "Dynamic", "Split"})
    if (mangled.find(std::string(sched) + "Scheduler") != std::string_view::npos) {
      suffix = "," + std::string(sched);
      break;
    }
  // Every stamping policy of kernels/timeline.cuh (and its name before the policies had one).
  for (std::string_view stamps : {"WarpStamps", "GlobalStamps", "SharedStamps"})
    if (mangled.find(stamps) != std::string_view::npos) {
      suffix += ",stamps";
      break;
    }
  std::string label(mangled);
  constexpr std::string_view kTraits = "TraitsILi";
  if (const auto at = label.rfind(kTraits); at != std::string::npos) label = "T" + label.substr(at + kTraits.size());
  if (const auto end = label.find("EEE"); end != std::string::npos) label.resize(end);
  return label + suffix;
}

std::string opcode_tally_lines(std::string_view listing, std::string_view prefix, bool brief) {
  const auto functions = parse_cuobjdump_sass(listing);
  std::map<std::string, OpcodeTally> by_label;
  for (const auto& f : functions)
    if (newest(functions, f.name) == &f) by_label[kernel_label(f.name)] = opcode_tally(f);
  std::string out;
  for (const auto& [label, t] : by_label) {
    char line[256];
    if (brief)
      std::snprintf(line, sizeof line, " HGMMA=%lld QGMMA=%lld UTMALDG=%lld LDL+STL=%lld\n", (long long)t.hgmma,
                    (long long)t.qgmma, (long long)t.utmaldg, (long long)t.local);
    else
      std::snprintf(line, sizeof line,
                    " n=%lld uniform=%lld R2UR=%lld BSSY=%lld WARPSYNC=%lld HGMMA=%lld QGMMA=%lld UTMALDG=%lld "
                    "EX2=%lld LDL+STL=%lld\n",
                    (long long)t.instructions, (long long)t.uniform, (long long)t.r2ur, (long long)t.bssy,
                    (long long)t.warpsync, (long long)t.hgmma, (long long)t.qgmma, (long long)t.utmaldg,
                    (long long)t.ex2, (long long)t.local);
    out += std::string(prefix) + (brief ? "" : " " + label) + line;
  }
  return out;
}

namespace {

// ptxas's frame line: "N bytes stack frame, N bytes spill stores, N bytes spill loads"; -1 where
// a figure is missing.
struct Frame {
  std::int64_t stack = -1, spill_stores = -1, spill_loads = -1;
};

void apply(PtxasFunction& f, const Frame& fr) {
  f.stack_frame_bytes = fr.stack;
  f.spill_store_bytes = fr.spill_stores;
  f.spill_load_bytes = fr.spill_loads;
}

Frame parse_frame(std::string_view msg) {
  Frame fr;
  std::string_view rest = msg;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    if (auto v = number_before(item, "bytes stack frame")) fr.stack = *v;
    if (auto v = number_before(item, "bytes spill stores")) fr.spill_stores = *v;
    if (auto v = number_before(item, "bytes spill loads")) fr.spill_loads = *v;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return fr;
}

// "Used N registers, used N barriers, N bytes smem, N bytes cmem[0]" into f.
void parse_usage(std::string_view msg, PtxasFunction& f) {
  std::string_view rest = msg;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    if (starts_with(item, "Used ")) item.remove_prefix(5);
    if (starts_with(item, "used ")) item.remove_prefix(5);
    if (auto v = number_before(item, "registers")) f.registers = int(*v);
    if (auto v = number_before(item, "barriers")) f.barriers = int(*v);
    if (auto v = number_before(item, "bytes smem")) f.smem_bytes = *v;
    if (auto v = number_before(item, "bytes cmem[0]")) f.cmem0_bytes = *v;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

// One pass over ptxas -v's lines, a method per line format. ptxas may print a function's
// properties and notes before it starts the function; they wait in pending_ until it does.
class PtxasReportParser {
 public:
  void line(std::string_view raw) {
    const std::string_view line = trim(raw);
    if (starts_with(line, kSourceMarker)) return start_source(trim(line.substr(kSourceMarker.size())));
    // Everything else of interest follows "ptxas info    : " (or is the frame line).
    std::string_view msg = line;
    if (starts_with(line, "ptxas")) {
      const auto colon = line.find(':');
      if (colon == std::string_view::npos) return;
      msg = trim(line.substr(colon + 1));
    }
    if (starts_with(msg, "Compiling entry function")) {
      start_entry(msg);
    } else if (starts_with(msg, "Function properties for ")) {
      properties_for_ = std::string(trim(msg.substr(24)));
    } else if (msg.find("bytes stack frame") != std::string_view::npos) {
      frame(msg);
    } else if (starts_with(msg, "Used ") && current_) {
      parse_usage(msg, *current_);
    } else if (msg.find("Potential Performance Loss") != std::string_view::npos) {
      note(msg);
    }
  }
  std::vector<PtxasFunction> take() { return std::move(out_); }

 private:
  void start_source(std::string_view path) {
    source_ = std::string(path);
    current_ = nullptr;
    pending_.clear();
    pending_notes_.clear();
  }

  void start_entry(std::string_view msg) {
    const std::string_view name = quoted(msg);
    if (name.empty()) return;
    out_.push_back({});
    current_ = &out_.back();
    current_->name = std::string(name);
    current_->arch = std::string(quoted(msg, msg.find(name) + name.size() + 1));
    current_->source = source_;
    if (auto it = pending_.find(current_->name); it != pending_.end()) {
      apply(*current_, it->second);
      pending_.erase(it);
    }
    if (auto it = pending_notes_.find(current_->name); it != pending_notes_.end()) {
      current_->notes = std::move(it->second);
      pending_notes_.erase(it);
    }
  }

  // The frame line belongs to the function of the last "Function properties for" line.
  void frame(std::string_view msg) {
    const Frame fr = parse_frame(msg);
    if (current_ && current_->name == properties_for_) apply(*current_, fr);
    else if (!properties_for_.empty()) pending_[properties_for_] = fr;
    properties_for_.clear();
  }

  // "... in the function '_Z...'": attach to that function (which ptxas may not have started
  // yet), else to the current one.
  void note(std::string_view msg) {
    const auto at = msg.rfind("function '");
    const std::string named(at == std::string_view::npos ? std::string_view{} : quoted(msg, at));
    PtxasFunction* target = named.empty() ? current_ : nullptr;
    for (auto it = out_.rbegin(); !target && it != out_.rend() && it->source == source_; ++it)
      if (it->name == named) target = &*it;
    if (target) target->notes.emplace_back(msg);
    else if (!named.empty()) pending_notes_[named].emplace_back(msg);
  }

  std::vector<PtxasFunction> out_;
  std::string source_;
  std::string properties_for_;  // the function of the last "Function properties for" line
  std::map<std::string, Frame> pending_;
  std::map<std::string, std::vector<std::string>> pending_notes_;
  PtxasFunction* current_ = nullptr;  // the last entry function of this source, in out_
};

}  // namespace

std::vector<PtxasFunction> parse_ptxas_report(std::string_view report) {
  PtxasReportParser parser;
  for_each_line(report, [&](std::string_view raw) { parser.line(raw); });
  return parser.take();
}

const Listing& running_binary_sass() {
  static const Listing listing = [] {
    Listing l;
    // cuobjdump must read this process's executable, not its own: /proc/self/exe in the
    // child would be cuobjdump. /proc/<pid>/exe stays valid even if the file is rebuilt
    // while the run goes on.
    const std::string exe = "/proc/" + std::to_string(::getpid()) + "/exe";
    char resolved[4096];
    const ssize_t n = ::readlink("/proc/self/exe", resolved, sizeof resolved - 1);
    l.binary = n > 0 ? std::string(resolved, std::size_t(n)) : exe;
    const auto tool = find_tool("cuobjdump");
    if (!tool) {
      l.reason = kNoCuobjdump;
      return l;
    }
    l.tool = *tool + " -sass";
    std::string out;
    const int rc = run_capture({*tool, "-sass", exe}, out);
    if (rc != 0) {
      l.reason = rc < 0 ? out
                        : *tool + " -sass " + l.binary + " failed (exit " + std::to_string(rc) +
                              "): " + last_line(out);
      return l;
    }
    l.available = true;
    l.text = std::move(out);
    return l;
  }();
  return listing;
}

std::vector<std::string> phase_kernels_in_report(const std::vector<PtxasFunction>& report,
                                                 std::string_view phase_id) {
  // "phase_4_tiled.cu" belongs to phase 4, "phase_4x_wmma.cu" to phase 4x, not to 4.
  const std::string stem = "phase_" + std::string(phase_id);
  std::vector<std::string> names;
  for (const auto& f : report) {
    const std::string file = basename_of(f.source);
    if (!starts_with(file, stem) || file.size() <= stem.size()) continue;
    const char next = file[stem.size()];
    if (next != '_' && next != '.') continue;
    if (std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
  }
  return names;
}

SassEvidence sass_evidence(const Listing& listing, const std::vector<std::string>& kernels,
                           const std::string& kernels_from) {
  SassEvidence e;
  if (!listing.available) {
    e.reason = listing.reason;
    return e;
  }
  if (kernels.empty()) {
    e.reason = "no kernel names: " + kernels_from;
    return e;
  }
  const auto functions = parse_cuobjdump_sass(listing.text);
  for (const auto& name : kernels) {
    SassKernel k;
    k.name = name;
    if (const Function* f = newest(functions, name)) {
      k.found = true;
      k.arch = f->arch;
      k.counts = f->counts;
      e.total += f->counts;
    } else {
      e.complete = false;
      k.reason = "not in the SASS of " + listing.binary + " (a library kernel?)";
    }
    e.kernels.push_back(std::move(k));
  }
  e.available = true;
  e.tool = listing.tool;
  e.binary = listing.binary;
  e.kernels_from = kernels_from;
  return e;
}

PtxasEvidence ptxas_evidence(const std::vector<PtxasFunction>& report,
                             const std::vector<std::string>& kernels, const std::string& kernels_from) {
  PtxasEvidence e;
  if (report.empty()) {
    e.reason = "this binary embeds no ptxas -v report (built without the ptxas capture of "
               "experiments/CMakeLists.txt?)";
    return e;
  }
  if (kernels.empty()) {
    e.reason = "no kernel names: " + kernels_from;
    return e;
  }
  for (const auto& name : kernels) {
    PtxasKernel k;
    k.name = name;
    if (const PtxasFunction* f = newest(report, name)) {
      k.function = *f;
      e.registers_max = std::max(e.registers_max, f->registers);
      e.stack_frame_bytes_max = std::max(e.stack_frame_bytes_max, f->stack_frame_bytes);
      e.spill_store_bytes += std::max<std::int64_t>(0, f->spill_store_bytes);
      e.spill_load_bytes += std::max<std::int64_t>(0, f->spill_load_bytes);
    } else {
      e.complete = false;
      k.reason = "not compiled by this build's kernels/ (a library kernel?)";
    }
    e.kernels.push_back(std::move(k));
  }
  e.available = true;
  e.source = "ptxas -v of the compile that built this binary, embedded at build time";
  e.kernels_from = kernels_from;
  return e;
}

void merge_static_evidence(ResultEntry& result, std::string_view phase_id,
                           const Listing& listing, std::string_view ptxas_report) {
  const auto report = parse_ptxas_report(ptxas_report);
  std::vector<std::string> kernels = result.timed_kernels();
  std::string from = "CUPTI: the kernels one timed launch ran";
  StaticEvidence& st = result.static_evidence ? *result.static_evidence : result.static_evidence.emplace();
  if (kernels.empty() && st.facts) {
    // The launch facts (CUPTI launch callbacks) name them too.
    for (const auto& k : st.facts->kernels)
      if (std::find(kernels.begin(), kernels.end(), k.name) == kernels.end()) kernels.push_back(k.name);
    from = "CUPTI launch callbacks: the kernels in static.kernels";
  }
  if (kernels.empty()) {
    kernels = phase_kernels_in_report(report, phase_id);
    from = kernels.empty()
               ? "this run has no CUPTI timing and the build's ptxas report lists no entry "
                 "function of kernels/phase_" + std::string(phase_id) + "_*.cu"
               : "no CUPTI timing in this run: the entry functions of kernels/phase_" +
                     std::string(phase_id) + "_*.cu in the build's ptxas report";
  }
  st.sass = sass_evidence(listing, kernels, from);
  st.ptxas = ptxas_evidence(report, kernels, from);
}

}  // namespace attnlab::sass
