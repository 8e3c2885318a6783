#include "record/pc_sampling.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <tuple>

#include "record/fields.hpp"
#include "record/record.hpp"

namespace attnlab {

using nlohmann::ordered_json;

namespace {

constexpr std::string_view kPcsampPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

ordered_json counts_json(const StallCounts& c) {
  ordered_json j = ordered_json::object();
  for (const auto& [name, n] : c) j[name] = n;
  return j;
}

StallCounts read_counts(const ordered_json& root, const std::string& ptr) {
  StallCounts out;
  const ordered_json* o = find(root, ptr);
  if (!o) return out;
  if (!o->is_object()) throw FieldError(type_problem(ptr, "an object"));
  for (const auto& [name, v] : o->items()) {
    if (!v.is_number_unsigned() && !v.is_number_integer())
      throw FieldError(type_problem(ptr + "/" + name, "a count"));
    out.emplace_back(name, v.get<std::uint64_t>());
  }
  return out;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

template <class T>
ordered_json opt(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json();
}

// An optional count (a non-negative integer, read exactly); nullopt when absent or null.
std::optional<std::uint64_t> optional_count(const ordered_json& root, const std::string& ptr) {
  const ordered_json* v = find(root, ptr);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<std::int64_t>() >= 0))
    throw FieldError(type_problem(ptr, "a count"));
  return v->get<std::uint64_t>();
}

// Written only when present, so records without executed-instruction counts keep their keys.
template <class T>
void put_if(ordered_json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

using LineKey = std::pair<std::string, int>;
// The line a PC or instruction is gathered under: line-less ones all under ("", 0).
LineKey line_key(const std::string& file, int line) { return {line > 0 ? file : std::string(), line > 0 ? line : 0}; }

}  // namespace

std::string strip_stall_reason(std::string_view name) {
  if (name.substr(0, kPcsampPrefix.size()) == kPcsampPrefix) name.remove_prefix(kPcsampPrefix.size());
  return std::string(name);
}

bool is_not_issued(std::string_view s) {
  return s.size() > kNotIssued.size() && s.substr(s.size() - kNotIssued.size()) == kNotIssued;
}

StallCounts top_reasons(StallCounts counts, std::size_t n) {
  counts.erase(std::remove_if(counts.begin(), counts.end(), [](const auto& c) { return c.second == 0; }),
               counts.end());
  std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (counts.size() > n) counts.resize(n);
  return counts;
}

std::map<std::uint64_t, std::string> sass_by_offset(std::string_view listing, std::string_view function) {
  std::map<std::uint64_t, std::string> out;
  bool inside = false;
  std::size_t pos = 0;
  while (pos < listing.size()) {
    std::size_t end = listing.find('\n', pos);
    if (end == std::string_view::npos) end = listing.size();
    const std::string_view line = listing.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t f = line.find("Function : ");
    if (f != std::string_view::npos) {
      if (inside) break;  // the function's first listing only
      std::string name = trim(std::string(line.substr(f + 11)));
      inside = name == function;
      continue;
    }
    if (!inside) continue;
    if (line.find("code for sm_") != std::string_view::npos || line.find("Fatbin ") != std::string_view::npos) {
      if (!out.empty()) break;
      continue;
    }
    // "        /*0070*/               @P0 EXIT ;      /* 0x... */"
    const std::size_t open = line.find("/*");
    if (open == std::string_view::npos) continue;
    const std::size_t close = line.find("*/", open + 2);
    if (close == std::string_view::npos) continue;
    const std::string_view hex = line.substr(open + 2, close - open - 2);
    if (hex.empty() || hex.substr(0, 2) == "0x" ||
        !std::all_of(hex.begin(), hex.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
      continue;
    // The instruction runs to its ';' (nvdisasm may not print encodings after it).
    std::string_view rest = line.substr(close + 2);
    const std::size_t semi = rest.find(';');
    if (semi == std::string_view::npos) continue;
    std::string instr = trim(std::string(rest.substr(0, semi)));
    if (instr.empty()) continue;
    out[std::stoull(std::string(hex), nullptr, 16)] = instr;
  }
  return out;
}

std::string read_source_line(const std::string& file, int line) {
  if (file.empty() || line <= 0) return "";
  std::ifstream in(file);
  if (!in) return "";
  std::string text;
  for (int i = 1; std::getline(in, text); ++i)
    if (i == line) return trim(text);
  return "";
}

std::vector<SourceLine> aggregate_lines(const std::vector<SampledPc>& pcs,
                                        std::string (*read_source)(const std::string&, int)) {
  std::map<std::pair<std::string, int>, SourceLine> by_line;
  std::map<std::pair<std::string, int>, std::map<std::string, std::uint64_t>> stalls;
  std::uint64_t total = 0;
  for (const auto& pc : pcs) {
    const LineKey key = line_key(pc.file, pc.line);
    SourceLine& l = by_line[key];
    l.file = key.first;
    l.line = key.second;
    l.samples += pc.samples;
    l.pcs.push_back(pc.offset);
    for (const auto& [name, n] : pc.stalls) stalls[key][name] += n;
    total += pc.samples;
  }
  std::vector<SourceLine> out;
  for (auto& [key, l] : by_line) {
    std::sort(l.pcs.begin(), l.pcs.end());
    l.share_pct = total > 0 ? 100.0 * double(l.samples) / double(total) : 0.0;
    l.stalls = top_reasons(StallCounts(stalls[key].begin(), stalls[key].end()), stalls[key].size());
    if (read_source && l.line > 0) l.text = read_source(l.file, l.line);
    out.push_back(std::move(l));
  }
  std::sort(out.begin(), out.end(), [](const SourceLine& a, const SourceLine& b) {
    return std::tie(b.samples, a.file, a.line) < std::tie(a.samples, b.file, b.line);
  });
  return out;
}

const FunctionCounts* counts_for_kernel(const std::vector<FunctionCounts>& functions, const std::string& name,
                                        std::uint64_t crc, std::string& why) {
  std::vector<const FunctionCounts*> named;
  for (const auto& f : functions)
    if (f.name == name) named.push_back(&f);
  if (named.empty()) {
    why = "CUPTI gave no SASS counts for this function";
    return nullptr;
  }
  if (named.size() == 1) return named.front();
  for (const FunctionCounts* f : named)
    if ((f->cubin_crc & 0xffffffffu) == (crc & 0xffffffffu)) return f;
  why = "CUPTI gave SASS counts for " + std::to_string(named.size()) +
        " functions of this name (one per cubin) and none has the samples' cubin CRC";
  return nullptr;
}

void attach_instruction_counts(KernelPcSamples& k, const std::vector<CountedInstruction>& counted) {
  std::map<std::uint64_t, const InstructionCounts*> by_offset;
  std::map<LineKey, std::uint64_t> by_line;
  std::uint64_t executed = 0, threads = 0;
  for (const auto& c : counted) {
    by_offset[c.offset] = &c.counts;
    by_line[line_key(c.file, c.line)] += c.counts.executed;
    executed += c.counts.executed;
    threads += c.counts.thread_executed;
  }
  for (auto& pc : k.pcs)
    if (const auto it = by_offset.find(pc.offset); it != by_offset.end()) {
      pc.executed = it->second->executed;
      pc.thread_executed = it->second->thread_executed;
    }
  for (auto& l : k.lines)
    if (const auto it = by_line.find(line_key(l.file, l.line)); it != by_line.end()) l.executed = it->second;
  if (!counted.empty()) {
    k.executed = executed;
    k.thread_executed = threads;
  }
}

ordered_json to_json(const PcSamplingResult& r) {
  ordered_json j;
  j["available"] = r.available;
  if (!r.available) {
    j["reason"] = r.reason;
    return j;
  }
  j["method"] = r.method;
  j["sampling_period_log2"] = r.sampling_period_log2;
  j["sampling_period_cycles"] = std::uint64_t(1) << r.sampling_period_log2;
  j["total_samples"] = r.total_samples;
  j["dropped_samples"] = r.dropped_samples;
  j["non_user_samples"] = r.non_user_samples;
  j["hardware_buffer_full"] = r.hardware_buffer_full;
  j["sampled_launch_ns"] = opt(r.sampled_launch_ns);
  j["unsampled_launch_ns"] = opt(r.unsampled_launch_ns);
  j["overhead_pct"] = opt(r.overhead_pct);
  j["collection_wall_s"] = r.collection_wall_s;
  j["stall_reason_names"] = r.stall_reason_names;
  if (r.sass_counts) {
    ordered_json c;
    c["available"] = r.sass_counts->available;
    if (r.sass_counts->available) {
      c["method"] = r.sass_counts->method;
      c["collection_wall_s"] = r.sass_counts->collection_wall_s;
    } else {
      c["reason"] = r.sass_counts->reason;
    }
    j["sass_counts"] = std::move(c);
  }
  j["kernels"] = ordered_json::array();
  for (const auto& k : r.kernels) {
    ordered_json kj;
    kj["name"] = k.name;
    kj["samples"] = k.samples;
    kj["cubin"] = k.cubin;
    put_if(kj, "executed", k.executed);
    put_if(kj, "thread_executed", k.thread_executed);
    kj["pcs"] = ordered_json::array();
    for (const auto& pc : k.pcs) {
      ordered_json p;
      p["offset"] = pc.offset;
      p["samples"] = pc.samples;
      p["stalls"] = counts_json(pc.stalls);
      if (!pc.not_issued.empty()) p["not_issued"] = counts_json(pc.not_issued);
      p["file"] = pc.file;
      p["line"] = pc.line;
      p["sass"] = pc.sass;
      put_if(p, "executed", pc.executed);
      put_if(p, "thread_executed", pc.thread_executed);
      kj["pcs"].push_back(std::move(p));
    }
    kj["lines"] = ordered_json::array();
    for (const auto& l : k.lines) {
      ordered_json lj;
      lj["file"] = l.file;
      lj["line"] = l.line;
      lj["text"] = l.text;
      lj["samples"] = l.samples;
      lj["share_pct"] = l.share_pct;
      lj["stalls"] = counts_json(l.stalls);
      lj["pcs"] = l.pcs;
      put_if(lj, "executed", l.executed);
      kj["lines"].push_back(std::move(lj));
    }
    j["kernels"].push_back(std::move(kj));
  }
  return j;
}

PcSamplingResult read_pc_sampling(const ordered_json& root, const std::string& base) {
  PcSamplingResult r;
  r.available = bool_at(root, base + "/available");
  if (!r.available) {
    r.reason = string_at(root, base + "/reason");
    return r;
  }
  r.method = string_at(root, base + "/method");
  r.sampling_period_log2 = int(number_at(root, base + "/sampling_period_log2"));
  r.total_samples = std::uint64_t(number_at(root, base + "/total_samples"));
  r.dropped_samples = std::uint64_t(number_at(root, base + "/dropped_samples"));
  if (auto v = optional_number_at(root, base + "/non_user_samples")) r.non_user_samples = std::uint64_t(*v);
  if (const ordered_json* b = find(root, base + "/hardware_buffer_full"); b && b->is_boolean())
    r.hardware_buffer_full = b->get<bool>();
  r.sampled_launch_ns = optional_number_at(root, base + "/sampled_launch_ns");
  r.unsampled_launch_ns = optional_number_at(root, base + "/unsampled_launch_ns");
  r.overhead_pct = optional_number_at(root, base + "/overhead_pct");
  if (auto v = optional_number_at(root, base + "/collection_wall_s")) r.collection_wall_s = *v;
  if (const ordered_json* names = find(root, base + "/stall_reason_names"); names && names->is_array())
    for (const auto& n : *names)
      if (n.is_string()) r.stall_reason_names.push_back(n.get<std::string>());
  if (find(root, base + "/sass_counts")) {
    const std::string cp = base + "/sass_counts";
    SassCountsInfo c;
    c.available = bool_at(root, cp + "/available");
    if (c.available) {
      c.method = string_at(root, cp + "/method");
      if (auto v = optional_number_at(root, cp + "/collection_wall_s")) c.collection_wall_s = *v;
    } else {
      c.reason = string_at(root, cp + "/reason");
    }
    r.sass_counts = std::move(c);
  }
  const ordered_json* ks = find(root, base + "/kernels");
  if (!ks || !ks->is_array()) throw FieldError(type_problem(base + "/kernels", "an array"));
  for (std::size_t i = 0; i < ks->size(); ++i) {
    const std::string kp = base + "/kernels/" + std::to_string(i);
    KernelPcSamples k;
    k.name = string_at(root, kp + "/name");
    k.samples = std::uint64_t(number_at(root, kp + "/samples"));
    if (auto c = optional_string_at(root, kp + "/cubin")) k.cubin = *c;
    k.executed = optional_count(root, kp + "/executed");
    k.thread_executed = optional_count(root, kp + "/thread_executed");
    const ordered_json* pcs = find(root, kp + "/pcs");
    if (!pcs || !pcs->is_array()) throw FieldError(type_problem(kp + "/pcs", "an array"));
    for (std::size_t p = 0; p < pcs->size(); ++p) {
      const std::string pp = kp + "/pcs/" + std::to_string(p);
      SampledPc pc;
      pc.offset = std::uint64_t(number_at(root, pp + "/offset"));
      pc.samples = std::uint64_t(number_at(root, pp + "/samples"));
      pc.stalls = read_counts(root, pp + "/stalls");
      pc.not_issued = read_counts(root, pp + "/not_issued");
      if (auto f = optional_string_at(root, pp + "/file")) pc.file = *f;
      if (auto l = optional_number_at(root, pp + "/line")) pc.line = int(*l);
      if (auto s = optional_string_at(root, pp + "/sass")) pc.sass = *s;
      pc.executed = optional_count(root, pp + "/executed");
      pc.thread_executed = optional_count(root, pp + "/thread_executed");
      k.pcs.push_back(std::move(pc));
    }
    const ordered_json* lines = find(root, kp + "/lines");
    if (!lines || !lines->is_array()) throw FieldError(type_problem(kp + "/lines", "an array"));
    for (std::size_t l = 0; l < lines->size(); ++l) {
      const std::string lp = kp + "/lines/" + std::to_string(l);
      SourceLine sl;
      sl.file = string_at(root, lp + "/file");
      sl.line = int(number_at(root, lp + "/line"));
      if (auto t = optional_string_at(root, lp + "/text")) sl.text = *t;
      sl.samples = std::uint64_t(number_at(root, lp + "/samples"));
      sl.share_pct = number_at(root, lp + "/share_pct");
      sl.stalls = read_counts(root, lp + "/stalls");
      if (const ordered_json* pl = find(root, lp + "/pcs"); pl && pl->is_array())
        for (const auto& v : *pl) sl.pcs.push_back(v.get<std::uint64_t>());
      sl.executed = optional_count(root, lp + "/executed");
      k.lines.push_back(std::move(sl));
    }
    r.kernels.push_back(std::move(k));
  }
  return r;
}

ordered_json to_json(const KernelShare& k) {
  ordered_json j;
  j["name"] = k.name;
  j["regime"] = k.regime;
  j["instances_per_launch"] = k.instances_per_launch;
  j["median_ns"] = k.median_ns;
  j["p10_ns"] = k.p10_ns;
  j["p90_ns"] = k.p90_ns;
  j["share_pct"] = k.share_pct;
  j["pc_samples"] = opt(k.pc_samples);
  j["top_stalls"] = counts_json(k.top_stalls);
  j["metrics"] = k.metrics;
  return j;
}

std::vector<KernelShare> read_kernel_shares(const ordered_json& root, const std::string& base) {
  std::vector<KernelShare> out;
  const ordered_json* a = find(root, base);
  if (!a) return out;
  if (!a->is_array()) throw FieldError(type_problem(base, "an array"));
  for (std::size_t i = 0; i < a->size(); ++i) {
    const std::string p = base + "/" + std::to_string(i);
    KernelShare k;
    k.name = string_at(root, p + "/name");
    k.regime = string_at(root, p + "/regime");
    k.instances_per_launch = int(number_at(root, p + "/instances_per_launch"));
    k.median_ns = number_at(root, p + "/median_ns");
    k.p10_ns = number_at(root, p + "/p10_ns");
    k.p90_ns = number_at(root, p + "/p90_ns");
    k.share_pct = number_at(root, p + "/share_pct");
    if (auto v = optional_number_at(root, p + "/pc_samples")) k.pc_samples = std::uint64_t(*v);
    k.top_stalls = read_counts(root, p + "/top_stalls");
    if (auto m = optional_string_at(root, p + "/metrics")) k.metrics = *m;
    out.push_back(std::move(k));
  }
  return out;
}

void write_pc_sampling_file(const std::string& file, const PcSamplingResult& r) {
  write_json_atomically(file, to_json(r));
}

}  // namespace attnlab
