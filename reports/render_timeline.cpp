// The report of a warp-role timeline record (attnlab.timeline/1): the stamps' overhead and the
// span check, the picture of one SM (one lane per warp, spans coloured by kind, microseconds),
// the fraction of time each role spent waiting, by barrier, and the tensor pipe over time.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "common/shapes.hpp"
#include "record/provenance.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"
#include "reports/render_timeline_paths.hpp"
#include "reports/timeline_paths.hpp"

namespace attnlab::report {

namespace {

using timeline::Span;

constexpr std::size_t kKinds = std::size_t(Span::kCount);

std::string gpu_name(const TimelineRecord& rec) {
  const GpuIdentity& gpu = rec.provenance.gpu;
  return gpu.name + " (" + gpu.uuid.substr(0, 12) + ")";
}

// Every wait kind that occurs in any of the summaries, in Span order.
std::vector<Span> wait_kinds(const std::vector<RoleSummary>& roles) {
  std::vector<Span> out;
  for (std::size_t k = 0; k < kKinds; ++k)
    for (const auto& r : roles)
      if (std::any_of(r.waits.begin(), r.waits.end(), [&](const WaitShare& w) { return w.kind == Span(k); })) {
        out.push_back(Span(k));
        break;
      }
  return out;
}

// sampled: the build stamped every k-th item only, and a role's time is its stamped items'.
std::string wait_table(const std::vector<RoleSummary>& roles, bool sampled) {
  const std::vector<Span> kinds = wait_kinds(roles);
  std::vector<std::string> header = {"role", "warps", sampled ? "stamped items' time (sum)" : "lifetime (sum)", "waiting"};
  std::string align = "lrrr";
  for (Span k : kinds) {
    header.push_back(timeline::span_name(k));
    align += 'r';
  }
  Table t(header, align);
  for (const auto& r : roles) {
    std::vector<std::string> row = {r.role, count(r.warps), duration(r.lifetime_ns), pct(r.wait_fraction * 100)};
    for (Span k : kinds) {
      const auto it = std::find_if(r.waits.begin(), r.waits.end(), [&](const WaitShare& w) { return w.kind == k; });
      row.push_back(it == r.waits.end() ? "-" : pct(it->fraction * 100));
    }
    t.row(row);
  }
  return t.str();
}

// The pictured SM's lanes: CTAs that ran one after another on the SM share a residency slot,
// so a persistent kernel and a grid of short CTAs both give one lane per warp index and slot.
struct Lanes {
  std::vector<std::string> labels;
  std::map<const TimelineWarp*, std::size_t> of;  // each warp's lane
};
Lanes sm_lanes(const TimelineDecoded& d) {
  std::map<std::uint32_t, std::pair<double, double>> cta_time;  // [first start, last end]
  for (const auto& w : d.warps) {
    auto [it, fresh] = cta_time.emplace(w.cta, std::pair{w.start_ns, w.end_ns});
    if (!fresh) {
      it->second.first = std::min(it->second.first, w.start_ns);
      it->second.second = std::max(it->second.second, w.end_ns);
    }
  }
  std::vector<std::pair<double, std::uint32_t>> by_start;
  for (const auto& [cta, t] : cta_time) by_start.push_back({t.first, cta});
  std::sort(by_start.begin(), by_start.end());
  std::vector<double> slot_end;  // when each slot's latest CTA ended
  std::map<std::uint32_t, std::size_t> slot_of;
  for (const auto& [start, cta] : by_start) {
    std::size_t s = 0;
    while (s < slot_end.size() && slot_end[s] > start) ++s;
    if (s == slot_end.size()) slot_end.push_back(0);
    slot_end[s] = cta_time[cta].second;
    slot_of[cta] = s;
  }
  std::map<std::pair<std::size_t, std::uint32_t>, std::string> keys;  // (slot, warp) -> label
  for (const auto& w : d.warps) {
    const std::size_t s = slot_of[w.cta];
    keys.emplace(std::pair{s, w.warp}, (slot_end.size() > 1 ? "slot " + std::to_string(s) + " " : std::string()) +
                                           "w" + std::to_string(w.warp) + " " + w.role);
  }
  Lanes out;
  std::map<std::pair<std::size_t, std::uint32_t>, std::size_t> index;
  for (const auto& [key, label] : keys) {
    index[key] = out.labels.size();
    out.labels.push_back(label);
  }
  for (const auto& w : d.warps) out.of[&w] = index[{slot_of[w.cta], w.warp}];
  return out;
}

// One lane per warp of the pictured SM, spans as boxes coloured by kind; a work item is a thin
// bar under its lane, so the spans inside it stay visible. [t_lo, t_hi] in ns.
Plot lanes_plot(const TimelineRecord& rec, const std::string& stem, double t_lo, double t_hi,
                const std::string& title) {
  const TimelineDecoded& d = *rec.timeline;
  const Lanes lanes = sm_lanes(d);
  std::ostringstream data;
  std::vector<Span> present;
  for (std::size_t k = 0; k < kKinds; ++k) {
    std::ostringstream block;
    bool any = false;
    for (const auto& w : d.warps)
      for (const TimelineSpan& s : w.spans) {
        if (s.kind != Span(k) || s.end_ns < t_lo || s.begin_ns > t_hi) continue;
        block << gp_num(s.begin_ns / 1000) << ' ' << gp_num(s.end_ns / 1000) << ' ' << lanes.of.at(&w) << '\n';
        any = true;
      }
    if (!any) continue;
    data << "# " << timeline::span_name(Span(k)) << ": begin_us end_us lane\n" << block.str() << "\n\n";
    present.push_back(Span(k));
  }
  // Each work item's critical path (reports/timeline_paths.hpp): the item's span on the lane of
  // the warp that ended it last, drawn as a bar at the lane's upper edge.
  std::ostringstream path;
  for (const ItemPath& ip : item_paths(d)) {
    if (ip.end_ns < t_lo || ip.begin_ns > t_hi) continue;
    for (const auto& w : d.warps)
      if (w.cta == ip.cta && w.warp == ip.warp)
        path << gp_num(ip.begin_ns / 1000) << ' ' << gp_num(ip.end_ns / 1000) << ' ' << lanes.of.at(&w) << '\n';
  }
  const bool has_path = !path.str().empty();
  if (has_path) data << "# critical path: begin_us end_us lane\n" << path.str() << "\n\n";
  const std::size_t n = lanes.labels.size();
  Plot p;
  p.stem = stem;
  p.origin = "the timeline record (run.json) of phase " + rec.phase + " at " + shape_name(rec.shape);
  p.height = std::max(300, 120 + 28 * int(n));
  std::ostringstream g;
  g << "set title " << gp_quote(title) << "\n"
    << "set xlabel 'time [us] from the launch''s first warp start'\n"
    << "set xrange [" << gp_num(t_lo / 1000) << ":" << gp_num(t_hi / 1000) << "]\n"
    << "set yrange [" << gp_num(double(n) - 0.5) << ":-0.5]\n"
    << "set ytics (";
  for (std::size_t y = 0; y < n; ++y) g << (y ? ", " : "") << gp_quote(lanes.labels[y]) << " " << y;
  g << ") font ',8'\n"
    << "set grid xtics\n"
    << "set style fill solid 1.0 noborder\n"
    << "set key outside right top font ',8'\n"
    << "set lmargin 24\n";
  g << "plot ";
  for (std::size_t i = 0; i < present.size(); ++i) {
    const Span k = present[i];
    // A work item: a bar at the lane's lower edge; everything else fills most of the lane.
    const std::string lo = k == Span::kItem ? "($3+0.38)" : "($3-0.34)";
    const std::string hi = k == Span::kItem ? "($3+0.48)" : "($3+0.34)";
    g << (i ? ", \\\n     " : "") << "'" << stem << ".dat' index " << i
      << " using (($1+$2)/2):3:1:2:" << lo << ":" << hi << " with boxxyerror fc rgb "
      << gp_quote(palette_colour(std::size_t(k))) << " title " << gp_quote(timeline::span_name(k));
  }
  if (has_path)
    g << (present.empty() ? "" : ", \\\n     ") << "'" << stem << ".dat' index " << present.size()
      << " using (($1+$2)/2):3:1:2:($3-0.48):($3-0.40) with boxxyerror fc rgb '#000000' title 'critical path'";
  if (present.empty() && !has_path) g << "NaN notitle";
  g << "\n";
  p.script = g.str();
  p.data = data.str();
  return p;
}

// The title, the run's status and kernel, and the timeline build's correctness.
// The trace beside the record: trace.json as attnlab-timeline writes it, or trace.json.gz where a
// committed copy was compressed (Perfetto opens either as is); a copy of the record kept without
// it says so rather than link to nothing.
std::string trace_link(const fs::path& dir) {
  if (fs::exists(dir / "trace.json"))
    return "[trace.json](trace.json) (open it in ui.perfetto.dev or chrome://tracing)";
  if (fs::exists(dir / "trace.json.gz"))
    return "[trace.json.gz](trace.json.gz) (gzip-compressed; open it in ui.perfetto.dev)";
  return "none kept beside this copy of the record";
}

std::string intro(const TimelineRecord& rec, const fs::path& dir) {
  std::ostringstream md;
  md << "# Warp-role timeline: phase " << rec.phase << " (" << rec.title << ") at " << shape_name(rec.shape) << "\n\n";
  md << "Status " << code(rec.status) << ", started " << rec.started_utc << " on " << gpu_name(rec)
     << ". The phase's kernels with warp-role stamps (their stamped build, never the timed "
        "one), run once " << (rec.cold ? "cold (behind an L2 flush)" : "warm") << "; record `run.json` (" << kTimelineSchema << "), Chrome trace "
     << trace_link(dir) << ".\n\n";
  md << "Kernel " << code(rec.kernel_timeline) << ": " << rec.grid_ctas << " CTAs of "
     << rec.block_threads << " threads. Correctness of the timeline build against the fp64 "
     << "reference: " << (rec.correctness.passed ? "passed" : "FAILED") << " (max abs error "
     << sci(rec.correctness.max_abs_err) << ", repeat identical: "
     << (rec.correctness.repeat_identical ? "yes" : "no") << ").\n\n";
  if (rec.error) md << "The run ended with an error: " << *rec.error << "\n\n";
  return md.str();
}

// The time axis the report draws: the record's where its cycles became ns at the rate the
// warps' own anchors give (or one the caller gave); a record decoded at the SM-clock probes'
// mean, before the anchors set the rate, is rescaled here onto its anchors' rate, since the
// probes read the clock of a GPU not yet under the launch's load. Without an anchor rate the
// record's times stand as they are and nothing is checked against them.
struct Axis {
  double scale = 1;         // applied to every time of the decoded block
  bool checkable = false;   // the times stand on the launch's own clock
  std::string words;        // what the report says about it
};

Axis time_axis(const TimelineRecord& rec) {
  Axis a;
  if (!rec.timeline) return a;
  const TimelineDecoded& d = *rec.timeline;
  const std::string probes = "the SM-clock probes read " + sig(rec.sm_clock_mhz_before) + " MHz before and " +
                             sig(rec.sm_clock_mhz_after) + " MHz after the traced launch";
  if (d.clock_source == kClockAnchors) {
    a.checkable = true;
    a.words = "Cycles converted at " + sig(d.sm_clock_mhz) + " MHz, the rate the warps' own clock64 and "
              "globaltimer anchors give (a least-squares fit over every warp's start and end anchors); " +
              probes + ".";
  } else if (d.clock_source == kClockGiven) {
    a.checkable = true;
    a.words = "Cycles converted at " + sig(d.sm_clock_mhz) + " MHz, a clock the decoder was given, not the "
              "warps' anchors" + (d.anchor_clock_mhz > 0 ? " (which give " + sig(d.anchor_clock_mhz) + " MHz)" : "") +
              "; " + probes + ".";
  } else if (d.anchor_clock_mhz > 0) {
    a.checkable = true;
    a.scale = d.sm_clock_mhz / d.anchor_clock_mhz;
    a.words = "This record converted cycles at the probes' " + sig(d.sm_clock_mhz) + " MHz (" + probes +
              "), written before the rate came from the warps' anchors; its anchors give " +
              sig(d.anchor_clock_mhz) + " MHz (median over warps), so every time in this report is the "
              "record's times x " + sig(a.scale) + ", on the anchors' rate (exact within an SM; the record aligned "
              "its SMs at the probes' rate, which this does not redo).";
  } else {
    a.words = "The record has NO anchor rate: its times stand at the probes' " + sig(d.sm_clock_mhz) + " MHz (" +
              probes + "), which need not be the clock the launch ran at, so its span is not checked "
              "against CUPTI.";
  }
  return a;
}

// `rec` with every time of its decoded block multiplied by axis.scale.
TimelineRecord on_axis(TimelineRecord rec, const Axis& axis) {
  if (!rec.timeline || axis.scale == 1) return rec;
  TimelineDecoded& d = *rec.timeline;
  const double k = axis.scale;
  d.span_ns *= k;
  for (auto& w : d.warps) {
    w.start_ns *= k;
    w.end_ns *= k;
    for (auto& sp : w.spans) {
      sp.begin_ns *= k;
      sp.end_ns *= k;
    }
  }
  if (d.paths)
    for (auto& p : *d.paths) {
      p.begin_ns *= k;
      p.end_ns *= k;
      for (double& v : p.ns) v *= k;
    }
  for (auto* roles : {&d.roles, &d.sm_roles})
    for (auto& r : *roles) {
      r.lifetime_ns *= k;
      for (auto& w : r.waits) w.ns *= k;
    }
  return rec;
}

// The record's overhead with the decoded span on the report's time axis (rec is on it).
TimelineOverhead overhead_on_axis(const TimelineRecord& rec) {
  TimelineOverhead o = *rec.overhead;
  if (rec.timeline) o.span_ns = rec.timeline->span_ns;
  return o;
}

// The stamps' cost against the normal build, and whether the decoded span agrees with CUPTI's
// time of the same launch (span_agrees), on the report's time axis.
std::string overhead_section(const TimelineRecord& rec, const Axis& axis) {
  std::ostringstream md;
  const TimelineOverhead o = overhead_on_axis(rec);
  md << "## Overhead of the stamps\n\n";
  Table t({"build", "kernel time (median, CUPTI)", "launches"}, "lrr");
  t.row({"normal", duration(o.normal_median_ns), count(double(o.normal_ns.size()))});
  t.row({"timeline", duration(o.timeline_median_ns), count(double(o.timeline_ns.size()))});
  md << t.str() << "\n";
  md << "Overhead " << duration(o.overhead_ns) << " (" << pct(o.overhead_fraction * 100)
     << " of the normal build), both launched alternately, "
     << (rec.cold ? "each behind an L2 flush (cold), as was the traced launch." : "back to back (warm).");
  if (o.overhead_fraction > kTimelineOverheadLimit)
    md << " Above " << pct(kTimelineOverheadLimit * 100) << ": PERTURBED (above).";
  md << "\n\n";
  const double allowed = kSpanAgreement * o.traced_launch_ns;
  const std::string floor =
      o.launch_floor_ns ? " plus the launch floor (" + duration(*o.launch_floor_ns) +
                              ", an empty kernel of the same launch configuration: the time no warp can stamp)"
                        : std::string(" (launch floor not measured)");
  md << "The decoded span of the traced launch, earliest warp start to latest warp end, is " << duration(o.span_ns)
     << " against " << duration(o.traced_launch_ns) << " from CUPTI for that launch of the timeline build (CUPTI's "
     << "time less the span: " << pct(100 * (o.traced_launch_ns - o.span_ns) / o.traced_launch_ns) << " of CUPTI's). ";
  if (!axis.checkable)
    md << "NOT CHECKED: the record has no anchor rate to put its times on the launch's clock.\n\n";
  else if (span_agrees(o))
    md << "They agree: within " << pct(kSpanAgreement * 100) << " of the CUPTI time (" << duration(allowed) << ")"
       << floor << ".\n\n";
  else
    md << "They DISAGREE: the span is further from the CUPTI time than " << pct(kSpanAgreement * 100) << " of it ("
       << duration(allowed) << ")" << floor << ", so the time axis or the stamps' placement is wrong.\n\n";
  md << "SM clock " << sig(rec.sm_clock_mhz_before) << " MHz before and " << sig(rec.sm_clock_mhz_after)
     << " MHz after the traced launch, as a clock probe counted it (clock64 cycles per globaltimer nanosecond in a "
        "probe kernel around the launch, not in the traced kernel). The probe spins on the CUDA cores; an SM whose "
        "tensor cores are busy runs at a lower clock, which NVML does not show (kernels/NOTES.md, \"Floors: measured per GPU\"), "
        "so the stamps' cycles are converted at the rate the warps' own anchors give (next section).\n\n";
  return md.str();
}

// What was stamped, what was lost, and the clock the cycles were converted at.
std::string stamps_section(const TimelineRecord& rec, const TimelineDecoded& d, const Axis& axis) {
  std::ostringstream md;
  md << "## Stamps\n\n";
  if (rec.stamps)
    md << "Stamp policy `" << *rec.stamps << "` (kernels/timeline.cuh, the build's ATTNLAB_TIMELINE_STAMPS). ";
  else
    md << "Stamp policy not recorded (a record made before it was a choice). ";
  if (rec.stamp_sample && *rec.stamp_sample > 1)
    md << "Sampled: only every " << *rec.stamp_sample << "th work item is stamped (the build's "
       << "ATTNLAB_TIMELINE_SAMPLE, timeline::sampled_item); the waits by role are shares of the stamped "
       << "items' time, the critical paths those of the stamped items. ";
  md << d.stamps << " stamps from " << d.ctas << " CTAs x " << d.warps_per_cta << " warp slots of "
     << d.capacity << " each; " << d.overflow << " past a slot's capacity (in " << d.warps_overflowed
     << " warps), counted but not written; " << d.unmatched << " begins or ends without their "
     << "partner. ";
  if (d.warps_unstamped_by_policy > 0)
    md << d.warps_unstamped_by_policy << " warp slots of the blocks that ran are empty by the policy, which stamps "
       << "in the first warp of each warpgroup alone: the other warps ran, unstamped, and are not in the picture "
          "or the tables. ";
  md << axis.words << "\n\n";
  return md.str();
}

// Each role's share of the tensor pipe over the launch, bin by bin, every SM: one line per role
// and their sum.
Plot tensor_pipe_plot(const TimelineRecord& rec, const TimelineTensorPipe& t) {
  Plot p;
  p.stem = "tensor_pipe";
  p.origin = "the timeline record (run.json) of phase " + rec.phase + " at " + shape_name(rec.shape) +
             ", timeline.tensor_pipe";
  p.height = 400;
  std::ostringstream data;
  data << "# bin_mid_us";
  for (const auto& r : t.roles) data << ' ' << dat_quote(r.role);
  data << " all\n";
  const std::size_t n = t.roles.empty() ? 0 : t.roles.front().bins.size();
  for (std::size_t b = 0; b < n; ++b) {
    data << gp_num((double(b) + 0.5) * t.bin_ns / 1000);
    double all = 0;
    for (const auto& r : t.roles) {
      const double v = b < r.bins.size() ? r.bins[b] : 0;
      all += v;
      data << ' ' << gp_num(100 * v);
    }
    data << ' ' << gp_num(100 * all) << '\n';
  }
  std::ostringstream g;
  g << "set title " << gp_quote("tensor pipe, phase " + rec.phase + " at " + shape_name(rec.shape) + ", every SM") << "\n"
    << "set xlabel 'time [us] from the launch''s first warp start'\n"
    << "set ylabel '% of the dense wgmma rate'\n"
    << "set yrange [0:*]\n"
    << "set grid\n"
    << "set key outside right top font ',8'\n"
    << "plot ";
  for (std::size_t i = 0; i < t.roles.size(); ++i)
    g << (i ? ", \\\n     " : "") << "'" << p.stem << ".dat' using 1:" << i + 2 << " with lines lw 2 lc rgb "
      << gp_quote(palette_colour(i)) << " title " << gp_quote(t.roles[i].role);
  g << (t.roles.empty() ? "" : ", \\\n     ") << "'" << p.stem << ".dat' using 1:" << t.roles.size() + 2
    << " with lines lw 1 dt 2 lc rgb '#000000' title 'all'\n";
  p.script = g.str();
  p.data = data.str();
  return p;
}

// The tensor pipe over time (TimelineTensorPipe): the whole kernel's average and each role's, and
// the picture of their bins; "not measured" with the reason where the build has no issue spans.
std::string tensor_pipe_section(const TimelineRecord& rec, const TimelineTensorPipe& t, Rendered& out,
                                const fs::path& plots) {
  std::ostringstream md;
  md << "## Tensor pipe over time\n\n";
  if (t.not_measured) {
    md << "Not measured: " << *t.not_measured << ".\n\n";
    return md.str();
  }
  md << "Whole kernel: " << pct(100 * t.average) << " of the dense wgmma rate, " << sig(t.flop_per_sm_cycle)
     << " FLOP per SM per cycle (" << code(t.rate_name) << "; " << t.rate_source << "), over the SMs' active time ("
     << duration(t.active_sm_ns) << " summed over SMs). From " << count(double(t.issues))
     << " QK^T and PV issue spans of " << sig(t.qk_flops) << " and " << sig(t.pv_flops)
     << " FLOP each (one warp's share of its warpgroup's wgmma), each spread from its issue to the end of the "
        "wgmma wait that covers it; "
     << count(double(t.uncovered)) << " issue spans had no covering wait and are left out. This is the stamped "
        "kernel's, the one Nsight Compute's tensor-pipe activity of the timeline build counts.\n\n";
  if (!t.from_calibration)
    md << "**Divided by the ceiling, not a measured rate:** no calibration of this GPU gave the rate, so the shares "
          "here are of the architecture's per-clock peak, which no kernel sustains, and read lower than against a "
          "measured one. `make calibrate` on this GPU writes a calibration, which `make timeline` then finds under "
          "`results/calibration/` or, committed, `reports/<gpu>/calibration/`.\n\n";
  Table tab({"role", "FLOPs issued", "share of the pipe"}, "lrr");
  for (const auto& r : t.roles) tab.row({r.role, sci(r.flops), pct(100 * r.average)});
  md << tab.str() << "\n";
  if (!t.roles.empty() && t.bin_ns > 0) {
    out.scripts.push_back(write_plot(plots, tensor_pipe_plot(rec, t)));
    md << "Each role's share of the pipe in bins of " << duration(t.bin_ns)
       << ", every SM (its FLOPs spread into the bin over the rate times the SMs' active time in it):\n\n"
       << "![tensor pipe over time](plots/tensor_pipe.png)\n\n";
  }
  return md.str();
}

}  // namespace

Rendered render_timeline(const TimelineRecord& recorded, const fs::path& dir) {
  Rendered out;
  const fs::path plots = dir / "plots";
  clear_plots(plots);
  const Axis axis = time_axis(recorded);
  const TimelineRecord rec = on_axis(recorded, axis);
  std::ostringstream md;
  md << intro(rec, dir);
  if (rec.overhead && rec.overhead->overhead_fraction > kTimelineOverheadLimit)
    md << "**PERTURBED:** the stamps cost " << pct(rec.overhead->overhead_fraction * 100)
       << " of the normal build's kernel time, more than " << pct(kTimelineOverheadLimit * 100)
       << ": the waits and proportions below are those of a kernel that much slower than the one "
          "that is timed.\n\n";
  // A span that disagrees with CUPTI's time puts every time below in doubt, so it is said first
  // too, as PERTURBED is.
  if (rec.overhead && axis.checkable && !span_agrees(overhead_on_axis(rec)))
    md << "**SPAN DISAGREES:** the decoded span of the traced launch is further from CUPTI's time of it than "
       << pct(kSpanAgreement * 100) << " (\"Overhead of the stamps\", below): the time axis or the stamps' "
       << "placement is wrong, and the times below with it.\n\n";
  if (rec.overhead) md << overhead_section(rec, axis);
  if (!rec.timeline) {
    write_text(dir / "report.md", md.str());
    out.files.push_back(dir / "report.md");
    return out;
  }
  const TimelineDecoded& d = *rec.timeline;
  md << stamps_section(rec, d, axis);

  // The zoom ends when the last warp finished its first work item (a producer finishes issuing
  // it long before its consumers finish computing it).
  double lo = INFINITY, hi = -INFINITY, first_item_end = -INFINITY;
  for (const auto& w : d.warps) {
    lo = std::min(lo, w.start_ns);
    hi = std::max(hi, w.end_ns);
    double first = INFINITY;
    for (const auto& s : w.spans)
      if (s.kind == Span::kItem) first = std::min(first, s.end_ns);
    if (first < INFINITY) first_item_end = std::max(first_item_end, first);
  }
  const bool sampled = rec.stamp_sample && *rec.stamp_sample > 1;
  md << "## SM " << d.pictured_sm << "\n\n";
  if (d.warps.empty()) {
    md << "No warp of this SM stamped.\n\n";
  } else {
    const std::string what = "phase " + rec.phase + " at " + shape_name(rec.shape) + ", SM " + std::to_string(d.pictured_sm);
    out.scripts.push_back(write_plot(plots, lanes_plot(rec, "timeline", lo, hi, what)));
    md << "![timeline of SM " << d.pictured_sm << "](plots/timeline.png)\n\n";
    // The first work item alone, where the whole launch holds several per CTA.
    if (first_item_end > lo && first_item_end < lo + 0.9 * (hi - lo)) {
      out.scripts.push_back(write_plot(plots, lanes_plot(rec, "timeline_first_item", lo, first_item_end,
                                                         what + ", first work item")));
      md << "![the first work item of SM " << d.pictured_sm << "](plots/timeline_first_item.png)\n\n";
    }
    md << "Time waiting on this SM, by barrier (each kind's summed time over the warps' summed "
       << (sampled ? "stamped items' time" : "lifetimes") << "):\n\n"
       << wait_table(d.sm_roles, sampled) << "\n";
  }
  md << paths_section(rec);
  md << "## Time waiting, by barrier, every SM\n\n" << wait_table(d.roles, sampled) << "\n";
  if (d.tensor_pipe) md << tensor_pipe_section(rec, *d.tensor_pipe, out, plots);
  write_text(dir / "report.md", md.str());
  out.files.push_back(dir / "report.md");
  return out;
}

}  // namespace attnlab::report
