// The run report's "Hot lines" (CUPTI PC sampling: the top source lines per shape and kernel,
// their dominant stall reasons, the SASS behind them and a stall chart by line) and
// "Per-kernel breakdown" (each kernel's time, share and counters in a launch) sections, from a
// result entry's "pc_sampling" and "kernels" (record/pc_sampling.hpp) and its counter groups'
// per-kernel values (metrics.<group>.kernels, record/metrics.hpp).
#include <algorithm>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "record/constants.hpp"
#include "record/fields.hpp"
#include "record/metrics.hpp"
#include "record/pc_sampling.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

constexpr std::size_t kTopLines = 10;   // lines in a kernel's table and chart
constexpr std::size_t kSassLines = 5;   // lines whose SASS is listed
constexpr std::size_t kSassPerLine = 8; // sampled instructions listed per line

std::string base_name(const std::string& file) {
  const auto slash = file.find_last_of('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

std::string line_label(const SourceLine& l) {
  return l.line > 0 ? base_name(l.file) + ":" + std::to_string(l.line) : "(no line)";
}

std::string hex(std::uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << std::setfill('0') << std::setw(4) << v;
  return o.str();
}

std::string reasons_text(const StallCounts& stalls, std::uint64_t total, std::size_t n) {
  std::string out;
  for (const auto& [name, c] : top_reasons(stalls, n)) {
    if (!out.empty()) out += ", ";
    out += name + " " + sig(total > 0 ? 100.0 * double(c) / double(total) : 0.0, 3) + "%";
  }
  return out.empty() ? "none" : out;
}

// Reasons in the record vocabulary's order (one colour per reason in every chart), then others.
std::vector<std::pair<std::string, std::size_t>> ordered_reasons(const std::set<std::string>& present) {
  const std::vector<std::string>& canon = metric_vocabulary().stall_reasons;
  std::vector<std::pair<std::string, std::size_t>> out;
  for (std::size_t i = 0; i < canon.size(); ++i)
    if (present.count(canon[i])) out.emplace_back(canon[i], i);
  std::size_t extra = canon.size();
  for (const auto& r : present)
    if (std::find(canon.begin(), canon.end(), r) == canon.end()) out.emplace_back(r, extra++);
  return out;
}

Plot line_plot(const KernelPcSamples& k, const std::string& stem, const std::string& shape,
               const std::string& origin) {
  const std::size_t n = std::min(kTopLines, k.lines.size());
  std::set<std::string> present;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& [r, c] : k.lines[i].stalls)
      if (c > 0) present.insert(r);
  const auto reasons = ordered_reasons(present);
  Plot p;
  p.stem = stem;
  p.origin = origin;
  std::string& d = p.data;
  d = "# PC samples per source line (top " + std::to_string(n) + " by samples) and stall reason; kernel " +
      k.name + ", shape " + shape + "\n";
  d += dat_quote("line");
  for (const auto& [r, c] : reasons) d += " " + dat_quote(r);
  d += "\n";
  for (std::size_t i = 0; i < n; ++i) {
    const SourceLine& l = k.lines[i];
    d += dat_quote(line_label(l));
    std::map<std::string, std::uint64_t> by(l.stalls.begin(), l.stalls.end());
    for (const auto& [r, c] : reasons) d += " " + gp_num(double(by.count(r) ? by.at(r) : 0));
    d += "\n";
  }
  std::string& s = p.script;
  s += "set title " + gp_quote("PC samples by source line and stall reason\\n" + shape) + " noenhanced\n";
  s += "set ylabel 'PC samples'\n"
       "set style data histograms\n"
       "set style histogram rowstacked\n"
       "set style fill solid 0.9 border rgb '#333333'\n"
       "set boxwidth 0.6\n"
       "set key outside right top vertical invert noenhanced title 'stall reason'\n"
       "set grid ytics\n"
       "set yrange [0:*]\n"
       "set xtics rotate by -30 noenhanced\n";
  std::string plot;
  int col = 2;
  for (const auto& [r, c] : reasons) {
    plot += std::string(plot.empty() ? "plot '" + stem + ".dat'" : ", \\\n     ''") + " using " +
            std::to_string(col) + (col == 2 ? ":xtic(1)" : "") + " lc rgb '" + palette_colour(c) +
            "' title columnheader(" + std::to_string(col) + ")";
    ++col;
  }
  if (plot.empty()) plot = "plot '" + stem + ".dat' using 0:xtic(1) notitle";
  s += plot + "\n";
  return p;
}

// Warp-level executions, or "not counted".
std::string executed_text(const std::optional<std::uint64_t>& executed) {
  return executed ? count(double(*executed)) : "not counted";
}

// Average threads active per executed warp instruction: thread-level over warp-level count.
std::string active_threads(const std::optional<std::uint64_t>& executed, const std::optional<std::uint64_t>& threads) {
  if (!executed || !threads) return "not counted";
  if (*executed == 0) return "never executed";
  return sig(double(*threads) / double(*executed), 3) + " of 32";
}

// `counted`: the shape's result has executed-instruction counts (CUPTI SASS metrics); the
// columns and sentences about them appear only then, so older records render as before.
void kernel_block(std::ostream& md, const KernelPcSamples& k, std::uint64_t launch_samples,
                  const std::string& plot_file, bool counted) {
  md << "#### " << code(k.name) << "\n\n";
  md << count(double(k.samples)) << " samples ("
     << sig(launch_samples > 0 ? 100.0 * double(k.samples) / double(launch_samples) : 0.0, 3)
     << "% of the launch's); line table and SASS: " << k.cubin << ".";
  if (counted && k.executed)
    md << " Executed: " << count(double(*k.executed)) << " warp instructions, "
       << active_threads(k.executed, k.thread_executed) << " threads active on average.";
  else if (counted)
    md << " Executed instructions: none counted for this kernel (the method says why).";
  md << "\n\n";
  if (k.lines.empty()) {
    md << "No sampled PC.\n\n";
    return;
  }
  bool line_counts = false, pc_counts = false;
  for (const auto& l : k.lines) line_counts = line_counts || l.executed.has_value();
  for (const auto& pc : k.pcs) pc_counts = pc_counts || pc.executed.has_value();
  Table t(line_counts ? std::vector<std::string>{"#", "line", "source", "samples", "share", "executed",
                                                 "dominant stall reasons"}
                      : std::vector<std::string>{"#", "line", "source", "samples", "share", "dominant stall reasons"},
          line_counts ? "rllrrrl" : "rllrrl");
  const std::size_t n = std::min(kTopLines, k.lines.size());
  for (std::size_t i = 0; i < n; ++i) {
    const SourceLine& l = k.lines[i];
    std::vector<std::string> row = {
        std::to_string(i + 1), code(line_label(l)),
        l.line <= 0 ? "PCs without a line in the cubin's line table"
                    : l.text.empty() ? "(source not readable where the run was)" : code(l.text),
        count(double(l.samples)), sig(l.share_pct, 3) + "%"};
    if (line_counts) row.push_back(executed_text(l.executed));
    row.push_back(reasons_text(l.stalls, l.samples, 3));
    t.row(row);
  }
  md << t.str() << "\n";
  if (k.lines.size() > n)
    md << "The other " << k.lines.size() - n << " lines hold the remaining samples.\n\n";
  std::map<std::uint64_t, const SampledPc*> by_offset;
  for (const auto& pc : k.pcs) by_offset[pc.offset] = &pc;
  Table s(pc_counts ? std::vector<std::string>{"line", "offset", "SASS", "samples", "executed", "active threads",
                                               "dominant stall reasons"}
                    : std::vector<std::string>{"line", "offset", "SASS", "samples", "dominant stall reasons"},
          pc_counts ? "lllrrrl" : "lllrl");
  for (std::size_t i = 0; i < std::min(kSassLines, n); ++i) {
    const SourceLine& l = k.lines[i];
    std::vector<const SampledPc*> pcs;
    for (auto off : l.pcs)
      if (by_offset.count(off)) pcs.push_back(by_offset.at(off));
    std::sort(pcs.begin(), pcs.end(), [](const SampledPc* a, const SampledPc* b) {
      return a->samples != b->samples ? a->samples > b->samples : a->offset < b->offset;
    });
    for (std::size_t j = 0; j < std::min(kSassPerLine, pcs.size()); ++j) {
      const SampledPc& pc = *pcs[j];
      std::vector<std::string> row = {code(line_label(l)), code(hex(pc.offset)),
                                      pc.sass.empty() ? "not found in the SASS listing" : code(pc.sass),
                                      count(double(pc.samples))};
      if (pc_counts) {
        row.push_back(executed_text(pc.executed));
        row.push_back(active_threads(pc.executed, pc.thread_executed));
      }
      row.push_back(reasons_text(pc.stalls, pc.samples, 2));
      s.row(row);
    }
    if (pcs.size() > kSassPerLine) {
      std::vector<std::string> row = {code(line_label(l)), "",
                                      "(" + std::to_string(pcs.size() - kSassPerLine) + " more sampled instructions)", ""};
      row.resize(pc_counts ? 7 : 5);
      s.row(row);
    }
  }
  md << "SASS behind the top " << std::min(kSassLines, n) << " lines (each line's most sampled instructions, "
     << "offsets from the function's start):\n\n"
     << s.str() << "\n";
  if (!plot_file.empty()) md << "![PC samples by line and stall reason](plots/" << plot_file << ".png)\n\n";
}


// One kernel instance's counters over every group, by its index in the launch. For a launch of
// one kernel the launch-wide values are its own.
std::map<int, std::vector<MetricValue>> instance_values(const std::vector<GroupResult>& groups,
                                                         const std::string& name, bool only_kernel) {
  std::map<int, std::vector<MetricValue>> out;
  for (const GroupResult& g : groups) {
    if (!g.available) continue;
    if (only_kernel) {
      out[0].insert(out[0].end(), g.values.begin(), g.values.end());
      continue;
    }
    for (const auto& k : g.kernels)
      if (k.name == name) out[k.index].insert(out[k.index].end(), k.values.begin(), k.values.end());
  }
  return out;
}

// The figures a reader scans first, as Nsight Compute's summary row: SM and DRAM speed of
// light, tensor pipes, achieved occupancy, and the largest stall (warps per issued instruction).
std::string counter_summary(const std::vector<MetricValue>& values) {
  static const std::pair<const char*, const char*> kPct[] = {
      {"SM", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
      {"tensor", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"},
      {"DRAM", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
      {"occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"}};
  std::string out;
  const auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  for (const auto& [label, metric] : kPct)
    if (auto v = find_value(values, metric)) add(std::string(label) + " " + sig(*v, 3) + "%");
  const std::string& pre = metric_vocabulary().stall_prefix;
  const std::string& suf = metric_vocabulary().stall_suffix;
  std::string top;
  double top_v = 0;
  for (const auto& v : values) {
    if (v.name.rfind(pre, 0) != 0 || v.name.size() <= pre.size() + suf.size() ||
        v.name.compare(v.name.size() - suf.size(), suf.size(), suf) != 0)
      continue;
    const std::string reason = v.name.substr(pre.size(), v.name.size() - pre.size() - suf.size());
    if (reason == "selected" || v.value <= top_v) continue;  // selected: the warp issued
    top = reason;
    top_v = v.value;
  }
  if (!top.empty()) add("top stall " + top + " " + sig(top_v, 3));
  return out;
}

// Every metric of the launch's kernels side by side, one column per kernel instance.
void counters_table(std::ostream& md, const std::vector<GroupResult>& groups) {
  std::vector<std::pair<int, std::string>> instances;  // index, name
  std::map<std::string, std::string> units;
  std::vector<std::string> metrics;
  std::map<std::pair<std::string, int>, double> cell_value;
  for (const GroupResult& g : groups)
    for (const auto& k : g.kernels) {
      if (std::find(instances.begin(), instances.end(), std::make_pair(k.index, k.name)) == instances.end())
        instances.emplace_back(k.index, k.name);
      for (const auto& v : k.values) {
        if (!units.count(v.name)) {
          units[v.name] = v.unit;
          metrics.push_back(v.name);
        }
        cell_value[{v.name, k.index}] = v.value;
      }
    }
  if (instances.empty()) return;
  std::sort(instances.begin(), instances.end());
  std::vector<std::string> head = {"metric", "unit"};
  std::string align = "ll";
  for (const auto& [i, n] : instances) {
    head.push_back("#" + std::to_string(i));
    align += "r";
  }
  Table t(head, align);
  for (const auto& m : metrics) {
    std::vector<std::string> row = {code(m), units[m]};
    for (const auto& [i, n] : instances) {
      auto it = cell_value.find({m, i});
      row.push_back(it == cell_value.end() ? "not measured" : sig(it->second));
    }
    t.row(row);
  }
  md << "Counters per kernel (`metrics.<group>.kernels`: CUPTI's auto range, one range per kernel of a "
        "replayed launch, L2 flushed clean before each pass; kernel #i is the i-th the launch starts):\n\n";
  for (const auto& [i, n] : instances) md << "- #" << i << ": " << code(n) << "\n";
  md << "\n" << t.str() << "\n";
  std::string missing;
  for (const GroupResult& g : groups)
    if (!g.kernels_reason.empty()) missing += "- `" + g.group + "`: " + g.kernels_reason + "\n";
  if (!missing.empty()) md << "Groups without per-kernel counters:\n\n" << missing << "\n";
}

// How one shape's launch was sampled: samples, drops, the sampling overhead, and whether SASS
// metrics counted its executed instructions.
void sampling_summary(std::ostream& md, const PcSamplingResult& pc) {
  md << count(double(pc.total_samples)) << " samples, one per 2^" << pc.sampling_period_log2
     << " cycles per SM; " << count(double(pc.dropped_samples)) << " dropped"
     << (pc.hardware_buffer_full ? " (the hardware buffer filled)" : "") << ". ";
  if (pc.sampled_launch_ns && pc.unsampled_launch_ns && pc.overhead_pct)
    md << "The sampled launch took " << duration(*pc.sampled_launch_ns) << " against "
       << duration(*pc.unsampled_launch_ns) << " unsampled (overhead " << sig(*pc.overhead_pct, 3)
       << "%, CUDA events around each).\n\n";
  else
    md << "Overhead: not measured.\n\n";
  if (pc.sass_counts && pc.sass_counts->available)
    md << "Executed instructions: counted exactly by CUPTI's SASS metrics on one more launch of its own "
          "(`smsp__sass_inst_executed`, warp level, summed over every instance of a kernel in the launch; a "
          "line's count is over every instruction of the line, sampled or not); active threads: "
          "`smsp__sass_thread_inst_executed` per warp-level execution, of 32.\n\n";
  else if (pc.sass_counts)
    md << "Executed instructions: not counted: " << pc.sass_counts->reason << "\n\n";
  if (pc.kernels.empty())
    md << "No PC records: CUPTI counted " << count(double(pc.non_user_samples))
       << " of the samples as samples of non-user kernels, for which it gives no PCs.\n\n";
}

// One shape's hot lines: the sampling summary, then each kernel's table and chart
// (hotlines_<shape>_<kernel>, both counted from 1).
void shape_hot_lines(std::ostream& md, const Result& r, std::size_t shape_index,
                     const fs::path& plots, const std::string& origin, std::vector<fs::path>& scripts) {
  md << "### " << shape_label(r.name) << "\n\n";
  const PcSamplingResult& pc = *r.pc_sampling;
  if (!pc.available) {
    md << "Not measured: " << pc.reason << "\n\n";
    return;
  }
  sampling_summary(md, pc);
  const bool counted = pc.sass_counts && pc.sass_counts->available;
  std::size_t ki = 0;
  for (const auto& k : pc.kernels) {
    ++ki;
    std::string stem;
    if (!k.lines.empty()) {
      stem = "hotlines_" + std::to_string(shape_index) + "_" + std::to_string(ki);
      scripts.push_back(write_plot(plots, line_plot(k, stem, shape_label(r.name), origin)));
    }
    kernel_block(md, k, pc.total_samples, stem, counted);
  }
}

void hot_lines_section(std::ostream& md, const Run& run, const fs::path& plots, const std::string& origin,
                       std::vector<fs::path>& scripts) {
  md << "## Hot lines (PC sampling)\n\n";
  if (!any_result_has(run, &Result::pc_sampling)) {
    md << "Not measured: no shape of this record has PC samples (`--metrics pcsampling`).\n\n";
    return;
  }
  md << "CUPTI PC sampling of one launch per shape, on a launch of its own after timing: each sample "
        "is one warp's state at one instruction; a line's samples are those of the instructions the "
        "cubin's line table maps to it. Share: of the kernel's samples. Stall reasons are CUPTI's, named "
        "as the stall metrics are (`selected`: the warp issued).\n\n";
  std::size_t shape_index = 0;
  for (const auto& r : run.results) {
    ++shape_index;
    if (r.pc_sampling) shape_hot_lines(md, r, shape_index, plots, origin, scripts);
  }
}

// A kernel's counters cell: each instance's summary, "#<i>: " before it where the launch runs
// the kernel more than once.
std::string kernel_counters(const std::vector<GroupResult>& groups, const KernelShare& k, int launched) {
  std::string counters;
  for (const auto& [index, values] : instance_values(groups, k.name, launched == 1)) {
    const std::string summary = counter_summary(values);
    if (summary.empty()) continue;
    counters += (counters.empty() ? "" : "; ") +
                (k.instances_per_launch > 1 ? "#" + std::to_string(index) + ": " : std::string()) + summary;
  }
  return counters;
}

// One shape's kernels: time, share, PC samples, stalls and counters, then the counters per
// kernel instance where the launch runs several.
void shape_kernels(std::ostream& md, const Result& r) {
  const std::vector<KernelShare>& ks = *r.kernels;
  const std::vector<GroupResult> groups = r.metrics ? *r.metrics : std::vector<GroupResult>{};
  int launched = 0;
  for (const auto& k : ks) launched += k.instances_per_launch;
  md << "### " << shape_label(r.name) << "\n\n";
  Table t({"kernel", "per launch", "regime", "median", "p10-p90", "share", "PC samples", "top stalls",
           "counters"},
          "lrlrrrrll");
  for (const auto& k : ks) {
    std::uint64_t total = 0;
    for (const auto& [n, c] : k.top_stalls) total += c;
    if (k.pc_samples) total = *k.pc_samples;
    const std::string counters = kernel_counters(groups, k, launched);
    t.row({code(k.name), std::to_string(k.instances_per_launch), k.regime, duration(k.median_ns),
           duration_range(k.p10_ns, k.p90_ns, k.median_ns), sig(k.share_pct, 3) + "%",
           k.pc_samples ? count(double(*k.pc_samples)) : "not measured",
           k.top_stalls.empty() ? "not measured" : reasons_text(k.top_stalls, total, 3),
           !counters.empty() ? counters : k.metrics.empty() ? "not measured" : cell(k.metrics)});
  }
  md << t.str() << "\n";
  if (launched > 1) counters_table(md, groups);
}

void per_kernel_section(std::ostream& md, const Run& run) {
  md << "## Per-kernel breakdown\n\n";
  if (!any_result_has(run, &Result::kernels)) {
    md << "Not measured: the record has no per-kernel times (`kernels` of a result entry).\n\n";
    return;
  }
  // The SDPA baseline times its kernels with torch.profiler, the C++ harness with CUPTI.
  const bool baseline = run.phase.rfind("sdpa-", 0) == 0;
  md << "Each kernel's time in one launch (summed over its instances in it), median and p10-p90 over "
        "the timed samples of the regime named, from "
     << (baseline ? "torch.profiler's kernel events" : "CUPTI kernel records")
     << "; share: of the sum of the kernels' medians. PC samples and stalls from the hot-lines data "
        "where collected. Counters: from the range profiler's replay of the launch (per kernel where "
        "the launch runs several), SM and DRAM as % of peak over elapsed cycles, tensor pipes and "
        "occupancy over active cycles, the top stall in warps per issued instruction; several "
        "instances of a kernel are listed in launch order.\n\n";
  for (const auto& r : run.results)
    if (r.kernels) shape_kernels(md, r);
}

}  // namespace

void hotlines_sections(std::ostream& md, const Run& run, const fs::path& plots, const std::string& origin,
                       std::vector<fs::path>& scripts) {
  hot_lines_section(md, run, plots, origin, scripts);
  per_kernel_section(md, run);
}

}  // namespace attnlab::report
