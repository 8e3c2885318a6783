// One run's report (attnlab-report run): the sections in order, each from its unit under
// reports/run/ (sections.hpp), with gnuplot figures in plots/.
#include <algorithm>
#include <optional>
#include <sstream>

#include "reports/render.hpp"
#include "reports/run/sections.hpp"

namespace attnlab::report {

Ceilings ceilings_of(const Run& run) {
  Ceilings c;
  c.dram_gbps = run.provenance.gpu.peak_dram_gbps;
  c.sheet = datasheet_peaks(run.gpu_name());
  // The record's own peak (derived.tensor_peak_tflops, written by the metrics collection)
  // wins over this tool's table, so a report never contradicts its record.
  for (const auto& r : run.results) {
    if (!r.derived || !r.derived->tensor_peak_tflops) continue;
    c.tensor_tflops = *r.derived->tensor_peak_tflops;
    c.tensor_source = r.derived->tensor_peak_source.value_or("no source given") +
                      "; the record's derived.tensor_peak_tflops";
    break;
  }
  if (c.sheet && !c.tensor_tflops) {
    c.tensor_tflops = c.sheet->tensor_fp16_dense_tflops;
    c.tensor_source = c.sheet->source;
  }
  if (c.sheet) {
    c.fp32_tflops = fp32_peak_tflops(*c.sheet, run.provenance.gpu.sm_count, run.provenance.gpu.sm_clock_mhz);
  }
  return c;
}

std::string link(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(fs::absolute(from), ec);
  const fs::path b = fs::weakly_canonical(fs::absolute(to), ec);
  return b.lexically_relative(a).generic_string();
}

std::string verdict_counts(const std::vector<Judgement>& js) {
  if (js.empty()) return "none stated";
  std::string out;
  for (Verdict v : kVerdicts) {
    const auto n = std::count_if(js.begin(), js.end(), [&](const Judgement& j) { return j.verdict == v; });
    if (n) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + verdict_name(v);
  }
  return out;
}

Rendered render_run(const Run& run, const std::vector<Run>& root_runs, const std::optional<fs::path>& calibration) {
  Rendered out;
  const std::vector<Judgement> js = judge_claims(run, root_runs);
  const Ceilings c = ceilings_of(run);
  const fs::path plots = run.dir / "plots";
  clear_plots(plots);
  const std::string origin = "run.json of run " + run.id();

  const std::optional<Plot> latency = detail::latency_plot(run, origin);
  if (latency) out.scripts.push_back(write_plot(plots, *latency));
  std::optional<Plot> stalls = detail::stall_plot(run, origin);
  if (stalls) out.scripts.push_back(write_plot(plots, *stalls));
  const auto pts = detail::roof_points(run);
  if (!pts.empty()) out.scripts.push_back(write_plot(plots, detail::roofline_plot(run, c, pts, origin)));

  std::ostringstream md;
  // A backward run says so in its title; forward runs, all runs before backward phases, do not.
  md << "# Phase " << run.phase << " (" << run.experiment.title
     << (run.direction == Direction::kBackward ? ", backward pass" : "") << "), run " << code(run.name) << "\n\n";
  const std::string file = run.file.filename().string();
  md << "Rendered by `attnlab-report run` from [`" << file << "`](" << file << "); edits are overwritten. "
        "Every figure is read from that record, except datasheet peaks, which are named where "
        "used.\n\n";
  // The sections in the report's order; a new one (the speed of light: reports/render_sol.cpp)
  // is one call here, its unit declared in reports/run/sections.hpp.
  detail::summary(md, run, js, c);
  detail::claims_section(md, run, js);
  detail::correctness_section(md, run);
  detail::timing_section(md, run, c, latency.has_value());
  speed_of_light_section(md, run, calibration);
  detail::baselines_section(md, run, root_runs);
  detail::metrics_section(md, run);
  detail::ncu_section(md, run);
  detail::stall_section(md, stalls.has_value());
  detail::launch_stats_section(md, run);
  hotlines_sections(md, run, plots, origin, out.scripts);
  detail::static_section(md, run);
  detail::roofline_section(md, c, pts);
  detail::provenance_section(md, run);
  const fs::path report = run.dir / "report.md";
  std::string text = md.str();
  while (text.size() > 1 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
  write_text(report, text);
  out.files.push_back(report);
  for (const auto& sc : out.scripts) {
    out.files.push_back(sc);
    out.files.push_back(fs::path(sc).replace_extension(".dat"));
  }
  return out;
}

}  // namespace attnlab::report
