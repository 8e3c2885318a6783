// The progression over phases: per phase (and baseline, any other `phase` id) and shape, the
// newest ok record that timed it; TFLOPS by phase as bars and TFLOPS against S as lines.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "common/shapes.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

// One phase's row: for every shape, the newest ok record of the phase that timed it, so a
// newer record at a few shapes does not hide an older sweep's other shapes.
struct PhaseRow {
  std::string id;
  const Run* newest = nullptr;           // names the row; its untimed shapes say why
  std::vector<const Run*> runs;          // those that supply a figure, newest first
  std::map<std::string, const Result*> at;  // shape name -> its result
  std::map<std::string, const Run*> from;   // shape name -> the record it came from

  const Result* result(const std::string& name) const {
    auto it = at.find(name);
    return it == at.end() ? nullptr : it->second;
  }
  // "a", "b", ... for runs[i], when more than one run supplies figures; "" otherwise.
  std::string letter(std::size_t i) const {
    return runs.size() < 2 ? "" : std::string(1, char('a' + i));
  }
  // The letter of the run that supplied the figure at shape `name`.
  std::string tag(const std::string& name) const {
    return letter(std::size_t(std::find(runs.begin(), runs.end(), from.at(name)) - runs.begin()));
  }
};

// The root's phase table (phases.json, written by the experiments from the registry) in its
// order, then every other id (baselines, or all ids where the root has no table) sorted.
std::vector<PhaseRow> newest_per_phase(const std::vector<Run>& runs, const fs::path& root) {
  std::vector<std::string> order = read_phase_order(root);
  std::set<std::string> others;
  for (const auto& r : runs)
    if (std::find(order.begin(), order.end(), r.phase) == order.end()) others.insert(r.phase);
  order.insert(order.end(), others.begin(), others.end());
  std::vector<PhaseRow> out;
  for (const auto& id : order) {
    PhaseRow row;
    row.id = id;
    for (const auto& r : runs) {  // newest first already
      if (r.phase != id || r.status != "ok") continue;
      if (!row.newest) row.newest = &r;
      if (r.gpu_name != row.newest->gpu_name) continue;  // a row never mixes GPUs
      bool used = false;
      for (const auto& res : r.results)
        if (res.timed() && !row.at.count(res.name)) {
          row.at[res.name] = &res;
          row.from[res.name] = &r;
          used = true;
        }
      if (used) row.runs.push_back(&r);
    }
    if (row.newest) out.push_back(std::move(row));
  }
  return out;
}

using ShapeKey = std::tuple<bool, int, int, int, int, int>;  // causal, D, S, B, H, H_kv
ShapeKey key_of(const Shape& s) { return {s.causal, s.D, s.S, s.B, s.H, s.H_kv}; }

std::string phase_label(const Run& r) {
  const auto title = optional_string_at(r.json, "/experiment/title");
  return r.phase + (title ? " " + *title : std::string());
}

// TFLOPS at the median and at p90 / p10 of the headline regime.
struct Rate {
  double mid, lo, hi;
};
Rate rate(const Result& r) {
  const Regime& g = *r.headline_regime();
  return {g.tflops, g.tflops * g.median_ns / g.p90_ns, g.tflops * g.median_ns / g.p10_ns};
}

// A log y axis once the values span more than a decade and a half, so early phases stay
// readable next to tensor-core ones, else a linear one from 0; `log_top` and `lin_top` scale
// the room left above the highest value.
std::string y_range(double lo, double hi, double log_top, double lin_top) {
  if (hi > 30 * lo)
    return "set logscale y\nset yrange [" + gp_num(std::pow(10.0, std::floor(std::log10(lo)))) +
           ":" + gp_num(log_top * std::pow(10.0, std::ceil(std::log10(hi * 1.5)))) + "]\n";
  return "set yrange [0:" + gp_num(hi * lin_top) + "]\n";
}

// The table: one row per phase, its runs and GPU, then TFLOPS per shape with the p10-p90 range.
std::string progression_table(const std::vector<PhaseRow>& chosen,
                              const std::map<ShapeKey, std::string>& shapes,
                              const fs::path& out_dir) {
  std::vector<std::string> header = {"phase", "runs (commit)", "GPU"};
  std::string align = "lll";
  for (const auto& [k, name] : shapes) {
    header.push_back(shape_label(name) + " TFLOPS");
    align += "r";
  }
  Table t(header, align);
  for (const PhaseRow& pr : chosen) {
    std::string run_cell;
    std::set<std::string> row_gpus;
    for (std::size_t i = 0; i < pr.runs.size(); ++i) {
      const Run* r = pr.runs[i];
      const fs::path rep = r->dir / "report.md";
      if (i) run_cell += "; ";
      if (pr.runs.size() > 1) run_cell += pr.letter(i) + ": ";
      run_cell += (fs::exists(rep) ? "[" + r->name + "](" + link(out_dir, rep) + ")" : code(r->name)) +
                  " (" + code(r->short_commit()) + ")";
      row_gpus.insert(r->gpu_name);
    }
    if (pr.runs.empty()) run_cell = code(pr.newest->name) + " (" + code(pr.newest->short_commit()) + ")";
    std::string gpu_cell;
    for (const auto& g : row_gpus) gpu_cell += (gpu_cell.empty() ? "" : "; ") + g;
    std::vector<std::string> row = {phase_label(*pr.newest), run_cell,
                                    gpu_cell.empty() ? pr.newest->gpu_name : gpu_cell};
    for (const auto& [k, name] : shapes) {
      const Result* res = pr.result(name);
      if (!res) {
        const Result* untimed = pr.newest->result(name);
        row.push_back(untimed && !untimed->unavailable ? "not timed" : "not run");
        continue;
      }
      const Rate x = rate(*res);
      const std::string tag = pr.tag(name);
      row.push_back(value_and_range(x.mid, x.lo, x.hi) + ", " + res->headline +
                    (tag.empty() ? "" : ", " + tag));
    }
    t.row(row);
  }
  return t.str() + "\n";
}

// Bars: one cluster per phase, one bar per shape; `missing` gets the phase/shape pairs
// without one.
Plot bars_plot(const std::vector<PhaseRow>& chosen,
               const std::map<ShapeKey, std::string>& bar_shapes, const std::string& origin,
               std::vector<std::string>& missing) {
  Plot p;
  p.stem = "tflops_by_phase";
  p.origin = origin;
  p.data = "# phase, then per shape: TFLOPS at the median, at p90, at p10 of the headline regime, label ('?': not run)\n";
  double lo = 1e300, hi = 0;
  for (const PhaseRow& pr : chosen) {
    // Phase ids alone fit under the bars; the table above names each phase.
    p.data += dat_quote(pr.id);
    for (const auto& [k, name] : bar_shapes) {
      const Result* res = pr.result(name);
      if (!res) {
        missing.push_back(pr.id + "/" + shape_label(name));
        p.data += " ? ? ? ?";
        continue;
      }
      const Rate x = rate(*res);
      p.data += " " + gp_num(x.mid) + " " + gp_num(x.lo) + " " + gp_num(x.hi) + " " + dat_quote(sig(x.mid));
      lo = std::min(lo, x.lo);
      hi = std::max(hi, x.hi);
    }
    p.data += "\n";
  }
  std::string& s = p.script;
  s += "set title 'TFLOPS by phase, newest ok record of each shape (headline regime; bars: median, whiskers: p10-p90)' noenhanced\n"
       "set style data histograms\n"
       "set style histogram errorbars gap 2 lw 1\n"
       "set style fill solid 0.8 border -1\n"
       "set datafile missing '?'\n"
       "set ylabel 'TFLOPS'\n"
       "set key above noenhanced\n"
       "set grid ytics lc rgb '#dddddd'\n"
       "set xtics noenhanced\n";
  s += y_range(lo, hi, 3, 1.25);  // room above for the rotated value labels
  // Ids like "sdpa-efficient" are wider than a bar cluster: slant them so they don't collide.
  if (std::any_of(chosen.begin(), chosen.end(), [](const PhaseRow& r) { return r.id.size() > 5; }))
    s += "set xtics rotate by -30\n";
  s += "set xrange [-0.6:" + gp_num(double(chosen.size()) - 0.4) + "]\n";
  std::string plot, labels;
  int col = 2;
  const std::size_t n = bar_shapes.size();
  std::size_t j = 0;
  for (const auto& [k, name] : bar_shapes) {
    plot += std::string(plot.empty() ? "plot " : ", \\\n     ") + "'tflops_by_phase.dat' using " +
            std::to_string(col) + ":" + std::to_string(col + 1) + ":" + std::to_string(col + 2) +
            (col == 2 ? ":xtic(1)" : "") + " lc rgb '" + palette_colour(j) + "' title " +
            gp_quote(shape_label(name));
    // Value labels over the bars: cluster i is centred at x = i, bars 1/(n + gap) wide.
    const double dx = (double(j) - (double(n) - 1) / 2) / double(n + 2);
    labels += ", \\\n     '' using ($0 + " + gp_num(dx) + "):" + std::to_string(col + 2) +
              ":" + std::to_string(col + 3) + " with labels rotate by 90 left offset 0,0.6 font ',8' notitle";
    col += 4;
    ++j;
  }
  s += "set xlabel 'phase'\n";
  s += plot + labels + "\n";
  return p;
}

// Lines: TFLOPS against S, one line per phase and shape family; nullopt when no family has
// two shapes.
std::optional<Plot> lines_plot(const std::vector<PhaseRow>& chosen, const std::string& origin) {
  Plot p;
  p.stem = "tflops_vs_s";
  p.origin = origin;
  p.data = "# per series (a gnuplot index): S, TFLOPS at the median, at p90, at p10, shape\n";
  std::string plot;
  int block = 0;
  double ylo = 1e300, yhi = 0;
  std::map<int, std::set<std::string>> at_s;  // S -> the shapes measured there
  std::size_t phase_index = 0;
  for (const PhaseRow& pr : chosen) {
    // A line joins shapes of one family: same D, causality, GQA and tokens per head (B*S),
    // so a line's steps change S alone in cost per token. A family of one point (the
    // latency shape beside the sweep) is left to the bar chart.
    std::map<std::tuple<int, bool, bool, long long>, std::vector<const Result*>> series;
    for (const auto& [name, res] : pr.at)
      series[{res->shape.D, res->shape.causal, res->shape.H_kv != res->shape.H,
              1LL * res->shape.B * res->shape.S}].push_back(res);
    for (auto& [key, list] : series) {
      if (list.size() < 2) continue;
      std::stable_sort(list.begin(), list.end(), [](const Result* x, const Result* y) {
        return key_of(x->shape) < key_of(y->shape);
      });
      const auto& [D, causal, gqa, tokens] = key;
      std::string title = "phase " + pr.id + ", D=" + std::to_string(D) + (causal ? ", causal" : "") + (gqa ? ", GQA" : "");
      p.data += "# " + title + "\n";
      for (const Result* res : list) {
        const Rate x = rate(*res);
        p.data += std::to_string(res->shape.S) + " " + gp_num(x.mid) + " " + gp_num(x.lo) + " " +
                  gp_num(x.hi) + " " + dat_quote(res->name) + "\n";
        at_s[res->shape.S].insert(res->name);
        ylo = std::min(ylo, x.lo);
        yhi = std::max(yhi, x.hi);
      }
      p.data += "\n\n";
      plot += std::string(plot.empty() ? "plot " : ", \\\n     ") + "'tflops_vs_s.dat' index " +
              std::to_string(block) + " using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb '" +
              palette_colour(phase_index) + "' dt " + (D == 64 ? "1" : "2") + " title " +
              gp_quote(title);
      ++block;
    }
    ++phase_index;
  }
  if (at_s.empty()) return std::nullopt;
  std::string xtics;
  for (const auto& [S, names] : at_s) {
    const std::string label = std::to_string(S);
    xtics += (xtics.empty() ? "" : ", ") + std::string("\"") + label + "\" " + std::to_string(S);
  }
  const int smin = at_s.begin()->first, smax = at_s.rbegin()->first;
  p.height = 700;
  std::string& s = p.script;
  s += "set title 'TFLOPS against sequence length S (newest ok record of each phase and shape, headline regime)' noenhanced\n"
       "set logscale x 2\n"
       "set xrange [" + gp_num(smin / 1.6) + ":" + gp_num(smax * 1.6) + "]\n"
       "set xtics (" + xtics + ") noenhanced\n"
       "set xlabel 'sequence length S (B shrinks as S grows; shapes in tflops_vs_s.dat)' noenhanced\n"
       "set ylabel 'TFLOPS'\n"
       "set key below maxrows 7 font ',8' noenhanced\n"
       "set grid lc rgb '#dddddd'\n";
  s += y_range(ylo, yhi, 1, 1.3);
  s += plot + "\n";
  return p;
}

}  // namespace

Rendered render_progression(const std::vector<Run>& runs, const fs::path& root, const fs::path& out_dir) {
  Rendered out;
  const auto chosen = newest_per_phase(runs, root);
  // Every timed shape of the chosen records, in a fixed order.
  std::map<ShapeKey, std::string> shapes;
  for (const PhaseRow& row : chosen)
    for (const auto& [name, res] : row.at) shapes[key_of(res->shape)] = name;
  // The bars compare phases at the seed shapes when records hold them; a sweep's other shapes
  // (eleven more per phase) belong to the lines against S, where they stay readable.
  std::map<ShapeKey, std::string> bar_shapes;
  for (const auto& preset : shape_presets())
    for (const auto& [k, name] : shapes)
      if (name == shape_name(preset.shape)) bar_shapes[k] = name;
  if (bar_shapes.empty()) bar_shapes = shapes;

  std::ostringstream md;
  md << "# Progression\n\n"
     << "Every phase under " << code(link(out_dir, root) + "/")
     << ", in the registry's order (other ids, such as baselines, after), each shape from the "
        "newest record with status ok of that phase that timed it. Where a phase's figures come "
        "from several records, each figure ends with the letter of its record in the runs "
        "column. Each figure is the shape's headline regime at the median; ranges and error "
        "bars map the p10-p90 interval of the samples. Rendered by `attnlab-report "
        "progression`; edits are overwritten.\n\n";
  if (chosen.empty()) {
    md << "No ok run records yet.\n";
    const fs::path f = out_dir / "report.md";
    write_text(f, md.str());
    out.files.push_back(f);
    return out;
  }
  std::set<std::string> gpus;
  for (const PhaseRow& row : chosen)
    for (const Run* r : row.runs) gpus.insert(r->gpu_name);
  if (gpus.size() > 1) md << "The records come from different GPUs; compare with care.\n\n";

  md << progression_table(chosen, shapes, out_dir);

  const fs::path plots = out_dir / "plots";
  clear_plots(plots);
  const std::string origin = "the newest ok record of every phase and shape under " + link(out_dir, root);

  std::vector<std::string> missing;  // phase/shape pairs with no bar
  out.scripts.push_back(write_plot(plots, bars_plot(chosen, bar_shapes, origin, missing)));
  const std::optional<Plot> lines = lines_plot(chosen, origin);
  if (lines) out.scripts.push_back(write_plot(plots, *lines));
  md << "![TFLOPS by phase](plots/tflops_by_phase.png)\n\n";
  if (missing.empty()) md << "Every phase measured every shape.\n\n";
  else {
    md << "No bar (not measured): ";
    for (std::size_t i = 0; i < missing.size(); ++i) md << (i ? ", " : "") << "`" << missing[i] << "`";
    md << ".\n\n";
  }
  if (!lines) {
    md << "No TFLOPS-against-S plot: no record holds two shapes of one family (same head "
          "dimension, causality, GQA and B*S). `make sweep` records such families.\n";
  } else {
    md << "![TFLOPS against S](plots/tflops_vs_s.png)\n\n"
       << "Lines join a phase's shapes of one family (same head dimension, causality, GQA "
          "and B*S), each point from the record the table names for it: colour is the phase, "
          "solid D=64, dashed D=128; single shapes outside a family "
          "appear in the bar chart only. Scripts and data: "
          "`plots/tflops_by_phase.gp`, `plots/tflops_vs_s.gp` and their `.dat` files.\n";
  }
  const fs::path f = out_dir / "report.md";
  write_text(f, md.str());
  out.files.push_back(f);
  for (const auto& sc : out.scripts) {
    out.files.push_back(sc);
    out.files.push_back(fs::path(sc).replace_extension(".dat"));
  }
  return out;
}

}  // namespace attnlab::report
