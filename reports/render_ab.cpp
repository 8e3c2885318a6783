// The report of one paired A/B record (attnlab.ab/1): per shape the wall-time and cycle ratios
// t_B / t_A with their bootstrap intervals and verdicts, each side's busy time and SM clock,
// and a figure of the per-pair ratios in sampling order (a drift over the run shows there).
#include <sstream>

#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

std::string ratio_cell(const AbRatio& r) {
  const auto& e = r.estimate;
  return sig(e.median, 4) + "x (" + sig(e.lo, 4) + "-" + sig(e.hi, 4) + ")";
}

std::string side_cell(const AbSamples& s) {
  return duration(paired::median(s.busy_ns)) + " at " + sig(paired::median(s.sm_clock_mhz), 4) + " MHz";
}

Plot ratio_plot(const AbShape& s, std::size_t index, const std::string& origin) {
  Plot p;
  p.stem = "ratios_" + std::to_string(index + 1);
  p.origin = origin;
  p.data = "# pair, wall ratio t_B / t_A, cycles ratio, first side (0: A, 1: B)\n";
  const auto& w = s.wall->per_pair;
  const auto& c = s.cycles->per_pair;
  for (std::size_t i = 0; i < w.size(); ++i)
    p.data += std::to_string(i) + " " + gp_num(w[i]) + " " + gp_num(c[i]) + " " +
              (s.first[i] == "A" ? "0" : "1") + "\n";
  const auto& e = s.wall->estimate;
  p.script = "set title " + gp_quote(s.name + ": per-pair ratio t_B / t_A in sampling order") +
             " noenhanced\nset xlabel 'pair'\nset ylabel 't_B / t_A' noenhanced\n"
             "set key above noenhanced\nset grid xtics ytics lc rgb '#dddddd'\n"
             "plot '" + p.stem + ".dat' using 1:2 with points pt 7 ps 0.5 lc rgb '" + palette_colour(0) +
             "' title 'wall', \\\n     '' using 1:3 with points pt 6 ps 0.5 lc rgb '" + palette_colour(1) +
             "' title 'cycles', \\\n     " + gp_num(e.median) + " with lines lc rgb '#444444' title 'median', \\\n     " +
             gp_num(e.lo) + " with lines dt 2 lc rgb '#888888' title '95% interval', \\\n     " + gp_num(e.hi) +
             " with lines dt 2 lc rgb '#888888' notitle\n";
  return p;
}

}  // namespace

Rendered render_ab(const AbRecord& rec, const fs::path& dir) {
  Rendered out;
  const fs::path plots = dir / "plots";
  clear_plots(plots);
  std::ostringstream md;
  const std::string gpu = rec.provenance.gpu.name.empty() ? "unknown GPU" : rec.provenance.gpu.name;
  md << "# A/B: " << rec.a.phase << " against " << rec.b.phase << "\n\n"
     << "A = " << rec.a.phase << " (" << rec.a.title << "), B = " << rec.b.phase << " ("
     << rec.b.title << "), paired and interleaved in one process on " << gpu << ", started "
     << rec.started_utc << ", status " << code(rec.status) << ". Convention: " << kAbConvention
     << ". Interval: percentile bootstrap of the median, " << rec.options.bootstrap.resamples
     << " resamples, seed " << rec.options.bootstrap.seed << ", "
     << sig(100 * rec.options.bootstrap.confidence, 3) << "%. Verdict FASTER (interval above 1), "
     << "SLOWER (below 1) or SAME; \"as fast as\": lower bound >= "
     << sig(rec.options.non_inferiority_margin, 3) << ". Block order seed "
     << rec.options.order_seed << ".\n\n" << "How a sample is taken: " << rec.method << "\n\n";
  if (rec.error) md << "The run stopped early: " << *rec.error << "\n\n";
  Table t({"shape", "pairs", "wall t_B/t_A (95% CI)", "verdict", "cycles t_B/t_A (95% CI)", "verdict",
           "as fast as (wall)", "A busy", "B busy"},
          "lrrlrllrr");
  std::vector<std::size_t> timed;
  for (std::size_t i = 0; i < rec.results.size(); ++i) {
    const AbShape& s = rec.results[i];
    if (!s.wall) {
      auto gate = [](const Correctness& c) { return c.passed ? std::string("passed") : "FAILED: " + c.failure.value_or("?"); };
      t.row({s.name, "0", "not timed: gate A " + gate(s.a_correctness) + ", B " + gate(s.b_correctness),
             "", "", "", "", "", ""});
      continue;
    }
    timed.push_back(i);
    t.row({s.name, std::to_string(s.a.busy_ns.size()) + " (" + s.stop_reason + ")", ratio_cell(*s.wall),
           paired::verdict_name(s.wall->estimate.verdict), ratio_cell(*s.cycles),
           paired::verdict_name(s.cycles->estimate.verdict), s.wall->estimate.as_fast_as ? "yes" : "no",
           side_cell(s.a), side_cell(s.b)});
  }
  md << t.str() << "\n"
     << "Busy: the median busy time of the side's samples at the median of their SM clocks. "
        "Every sample, its clock and the pair order are in the record.\n";
  for (std::size_t i : timed) {
    const Plot p = ratio_plot(rec.results[i], i, "the A/B record " + (dir / "run.json").string());
    out.scripts.push_back(write_plot(plots, p));
    out.files.push_back(out.scripts.back());
    md << "\n![" << rec.results[i].name << ": per-pair ratios](plots/" << p.stem << ".png)\n";
  }
  write_text(dir / "report.md", md.str());
  out.files.push_back(dir / "report.md");
  return out;
}

}  // namespace attnlab::report
