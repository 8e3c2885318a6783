// The progression over phases: per phase (and baseline, any other `phase` id) and shape, the
// newest ok record that timed it, at device (busy) time; TFLOPS by phase as dots and TFLOPS
// against S as lines, one panel per head dimension (progression_lines.cpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "reports/format.hpp"
#include "reports/paired_view.hpp"
#include "reports/progression_detail.hpp"

namespace attnlab::report {
namespace detail {

Rate rate(const Result& r) {
  const Regime& g = *r.headline();
  const DeviceTime t = device_time(r, g);
  return {t.rate_at(g, g.tflops, t.median_ns), t.rate_at(g, g.tflops, t.p90_ns),
          t.rate_at(g, g.tflops, t.p10_ns), t.basis};
}

std::string point_type(const Rate& x, const std::string& mark) {
  const bool span = x.basis == TimeBasis::kSpan;
  if (mark == "§") return span ? "8" : "9";
  if (mark == "¶") return span ? "4" : "5";
  return span ? "6" : "7";
}

std::string provenance_marker(const Run& r, const Reference& ref, const std::vector<Run>& runs) {
  if (r.gpu_uuid() != ref.uuid) return "§";
  return session_key(r, runs) != ref.session ? "¶" : "";
}

}  // namespace detail

using namespace detail;

namespace {

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
      if (r.gpu_name() != row.newest->gpu_name()) continue;  // a row never mixes GPUs
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

std::string phase_label(const Run& r) { return r.phase + " " + r.experiment.title; }

Reference reference_of(const std::vector<PhaseRow>& rows, const std::vector<Run>& runs) {
  std::map<std::string, std::pair<int, std::string>> uuids, sessions;  // figures, newest start
  auto count = [](std::pair<int, std::string>& c, const Run& r) {
    ++c.first;
    c.second = std::max(c.second, r.time_key());
  };
  auto most = [](const std::map<std::string, std::pair<int, std::string>>& m) {
    auto best = m.begin();
    for (auto it = m.begin(); it != m.end(); ++it)
      if (it->second > best->second) best = it;
    return best == m.end() ? std::string() : best->first;
  };
  for (const PhaseRow& row : rows)
    for (const auto& [shape, run] : row.from) count(uuids[run->gpu_uuid()], *run);
  Reference ref{most(uuids), ""};
  for (const PhaseRow& row : rows)
    for (const auto& [shape, run] : row.from)
      if (run->gpu_uuid() == ref.uuid) count(sessions[session_key(*run, runs)], *run);
  ref.session = most(sessions);
  return ref;
}

// What the table marks, for its footnotes: time bases other than busy time, and the records
// from another GPU or session than most figures (run id -> its uuid).
struct Marks {
  std::set<TimeBasis> bases;
  std::map<std::string, std::string> other_gpu, other_session;
  std::size_t empty_cells = 0;  // "not run" / "not timed"
};

// One row's runs cell: each record linked (lettered where several), with its provenance mark.
std::string runs_cell(const PhaseRow& pr, const Reference& ref, const std::vector<Run>& runs,
                      const fs::path& out_dir, Marks& marks) {
  if (pr.runs.empty()) return code(pr.newest->name) + " (" + code(pr.newest->short_commit()) + ")";
  std::string cell;
  for (std::size_t i = 0; i < pr.runs.size(); ++i) {
    const Run* r = pr.runs[i];
    const fs::path rep = r->dir / "report.md";
    const std::string mark = provenance_marker(*r, ref, runs);
    if (mark == "§") marks.other_gpu[r->id()] = r->gpu_uuid();
    if (mark == "¶") marks.other_session[r->id()] = r->gpu_uuid();
    if (i) cell += "; ";
    if (pr.runs.size() > 1) cell += pr.letter(i) + ": ";
    cell += (fs::exists(rep) ? "[" + r->name + "](" + link(out_dir, rep) + ")" : code(r->name)) +
            " (" + code(r->short_commit()) + ")" + mark;
  }
  return cell;
}

// The table: one row per phase, its runs and GPU, then TFLOPS per shape with the p10-p90 range.
// `paired`: phase -> shape name -> newest A/B record against cuDNN; its column only when not empty.
std::string progression_table(const std::vector<PhaseRow>& chosen,
                              const std::map<ShapeKey, std::string>& shapes, const Reference& ref,
                              const std::vector<Run>& runs, const fs::path& out_dir, Marks& marks,
                              const std::map<std::string, std::map<std::string, PairedResult>>& paired) {
  std::vector<std::string> header = {"phase", "runs (commit)", "GPU"};
  std::string align = "lll";
  for (const auto& [k, name] : shapes) {
    header.push_back(shape_label(name) + " TFLOPS");
    align += "r";
  }
  if (!paired.empty()) {
    header.push_back("vs cuDNN (paired)");
    align += "l";
  }
  Table t(header, align);
  for (const PhaseRow& pr : chosen) {
    std::set<std::string> row_gpus;
    for (const Run* r : pr.runs) row_gpus.insert(r->gpu_name());
    std::string gpu_cell;
    for (const auto& g : row_gpus) gpu_cell += (gpu_cell.empty() ? "" : "; ") + g;
    std::vector<std::string> row = {phase_label(*pr.newest), runs_cell(pr, ref, runs, out_dir, marks),
                                    gpu_cell.empty() ? pr.newest->gpu_name() : gpu_cell};
    for (const auto& [k, name] : shapes) {
      const Result* res = pr.result(name);
      if (!res) {
        const Result* untimed = pr.newest->result(name);
        row.push_back(untimed && !untimed->unavailable() ? "not timed" : "not run");
        ++marks.empty_cells;
        continue;
      }
      const Rate x = rate(*res);
      marks.bases.insert(x.basis);
      const std::string tag = pr.tag(name);
      const std::string value =
          x.basis == TimeBasis::kBusyMedian ? sig(x.mid) : value_and_range(x.mid, x.lo, x.hi);
      row.push_back(value + basis_marker(x.basis) + ", " + res->headline_regime + (tag.empty() ? "" : ", " + tag));
    }
    if (!paired.empty()) {
      std::string cell;
      if (const auto it = paired.find(pr.id); it != paired.end())
        for (const auto& [k, name] : shapes)
          if (const auto at = it->second.find(name); at != it->second.end())
            cell += (cell.empty() ? "" : "; ") + shape_label(name) + " " + paired_cell(at->second.shape) +
                    " ([A/B](" + link(out_dir, at->second.file) + "))";
      row.push_back(cell.empty() ? "none" : cell);
    }
    t.row(row);
  }
  return t.str() + "\n";
}

// The footnotes of the table's marks.
std::string footnotes(const Marks& marks, const Reference& ref) {
  std::string out;
  for (TimeBasis b : marks.bases)
    if (!basis_footnote(b).empty()) out += basis_footnote(b) + "\n\n";
  auto list = [](const std::map<std::string, std::string>& m) {
    std::string l;
    for (const auto& [id, uuid] : m) l += (l.empty() ? "" : ", ") + code(id) + " on " + code(uuid);
    return l;
  };
  if (!marks.other_gpu.empty())
    out += "§ From another GPU than most figures of the table (" + code(ref.uuid) +
           "): " + list(marks.other_gpu) + ". Same model, but clocks, power and memory differ "
           "from one GPU to the next; compare across them with care.\n\n";
  if (!marks.other_session.empty())
    out += "¶ From another session on that GPU than most figures (a session: records on one "
           "GPU, each started less than " + std::to_string(kSessionGapSeconds / 60) +
           " minutes after the one before): " + list(marks.other_session) + ".\n\n";
  return out;
}

// Dots as small multiples: one panel per shape of `dot_shapes`, phases along x, each point with
// its p10-p90 bar, on a linear axis from 0 (near-equal figures, 5 against cuDNN say, must look
// apart as far as they are); `missing` gets the phase/shape pairs without one.
Plot dots_plot(const std::vector<PhaseRow>& chosen, const std::map<ShapeKey, std::string>& dot_shapes,
               const std::string& origin, const Reference& ref, const std::vector<Run>& runs,
               std::vector<std::string>& missing) {
  Plot p;
  p.stem = "tflops_by_phase";
  p.origin = origin;
  const int cols = dot_shapes.size() < 2 ? 1 : 2;
  const int rows = int((dot_shapes.size() + std::size_t(cols) - 1) / std::size_t(cols));
  p.height = 80 + 330 * rows;
  p.data = "# per shape (a gnuplot index): phase column, TFLOPS at the median, at p90, at p10 of "
           "the headline regime's device time, label (value, § or ¶, commit and board), point type\n";
  std::string xtics;
  for (std::size_t i = 0; i < chosen.size(); ++i)
    xtics += (xtics.empty() ? "" : ", ") + gp_quote(chosen[i].id) + " " + std::to_string(i);
  std::string& s = p.script;
  s += "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) + " title " +
       "\"TFLOPS by phase, one panel per shape: newest ok record, headline regime at device "
       "time; points: median, bars: p10-p90 (linear axes)\\n" + kPointKey + "\" noenhanced font ',9'\n"
       "set ylabel 'TFLOPS'\n"
       "unset key\n"
       "set grid ytics lc rgb '#dddddd'\n"
       "set errorbars large\n"
       "set xtics (" + xtics + ") rotate by -60 font ',7' noenhanced\n"
       "set xrange [-0.7:" + gp_num(double(chosen.size()) - 0.3) + "]\n";
  int block = 0;
  for (const auto& [k, name] : dot_shapes) {
    double hi = 0;
    std::string rows_text;
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const PhaseRow& pr = chosen[i];
      const Result* res = pr.result(name);
      if (!res) {
        missing.push_back(pr.id + "/" + shape_label(name));
        continue;
      }
      const Rate x = rate(*res);
      const std::string mark = provenance_marker(*pr.from.at(name), ref, runs);
      const Run& from = *pr.from.at(name);
      rows_text += std::to_string(i) + " " + gp_num(x.mid) + " " + gp_num(x.lo) + " " + gp_num(x.hi) +
                   " " + dat_quote(sig(x.mid) + mark + " " + from.short_commit() + " " + board(from)) + " " +
                   point_type(x, mark) + "\n";
      hi = std::max(hi, x.hi);
    }
    p.data += "# " + name + "\n" + (rows_text.empty() ? "-1 ? ? ? \"\" 7\n" : rows_text) + "\n\n";
    const std::string data = "'tflops_by_phase.dat' index " + std::to_string(block++);
    s += "\nset title " + gp_quote(shape_label(name)) + " noenhanced font ',9'\n"
         "set yrange [0:" + gp_num(hi > 0 ? hi * 1.35 : 1) + "]\n"
         "plot " + data + " using 1:2:3:4:6 with yerrorbars pt variable ps 1.1 lw 1.5 lc rgb '" +
         palette_colour(0) + "', \\\n     " + data +
         " using 1:4:5 with labels rotate by 90 left offset 0,0.4 font ',7' noenhanced\n";
  }
  s += "unset multiplot\n";
  return p;
}

// The shapes of the chart by phase.
std::map<ShapeKey, std::string> dot_shapes_of(const std::vector<PhaseRow>& chosen,
                                              const std::map<ShapeKey, std::string>& shapes) {
  // The dots compare phases at the seed shapes when records hold them; a sweep's other shapes
  // (eleven more per phase) belong to the lines against S, where they stay readable.
  std::map<ShapeKey, std::string> dot_shapes;
  for (const auto& preset : shape_presets())
    for (const auto& [k, name] : shapes)
      if (name == shape_name(preset.shape)) dot_shapes[k] = name;
  // Every shape a line against S does not carry (a phase's only shape of its family) gets a
  // panel too, so every measured shape appears in some chart.
  for (const PhaseRow& row : chosen)
    for (const auto& [key, list] : families_of(row))
      if (list.size() < 2) dot_shapes[key_of(list.front()->shape)] = list.front()->name;
  return dot_shapes;
}

// The two charts (by phase, and against S where a family has two shapes) and their notes.
void charts(std::ostringstream& md, Rendered& out, const std::vector<PhaseRow>& chosen,
            const std::map<ShapeKey, std::string>& dot_shapes, const Reference& ref, const std::vector<Run>& runs,
            const fs::path& root, const fs::path& out_dir, const Marks& marks, const Published* published) {
  const fs::path plots = out_dir / "plots";
  clear_plots(plots);
  const std::string origin = "the newest ok record of every phase and shape under " + link(out_dir, root);

  std::vector<std::string> missing;  // phase/shape pairs with no point
  out.scripts.push_back(write_plot(plots, dots_plot(chosen, dot_shapes, origin, ref, runs, missing)));
  const std::optional<Plot> lines = lines_plot(chosen, origin, ref, runs, published);
  if (lines) out.scripts.push_back(write_plot(plots, *lines));
  md << "![TFLOPS by phase](plots/tflops_by_phase.png)\n\n";
  if (!missing.empty()) {
    md << "No point (not measured): ";
    for (std::size_t i = 0; i < missing.size(); ++i) md << (i ? ", " : "") << "`" << missing[i] << "`";
    md << ".\n\n";
  }
  if (marks.empty_cells == 0) md << "Every phase measured every shape.\n\n";
  if (!lines) {
    md << "No TFLOPS-against-S plot: no record holds two shapes of one family (same head "
          "dimension, causality, GQA and B*S). `make sweep` records such families.\n";
  } else {
    md << "![TFLOPS against S](plots/tflops_vs_s.png)\n\n"
       << "Per head dimension D a panel on a linear axis, on which near-equal figures (phase 5 "
          "against cuDNN, say) look as far apart as they are, and above it, where the figures "
          "span more than a decade and a half, one on a log axis that shows every phase. Lines join a phase's shapes of one family (same "
          "head dimension, causality, GQA and B*S), each point from the record the table names "
          "for it, and are labelled at their right end with the phase (labels that would "
          "overlap are moved up). A line joins points of one commit and board only: where its "
          "records' commit or board changes it breaks, and each piece is labelled with its commit "
          "and board under its first point; each dot of the chart by phase is labelled with its "
          "commit and board, and the `.dat` files name every point's. Shapes outside a family have a panel of their own in the chart "
          "by phase, which compares near-equal figures on linear axes. Scripts and data: `plots/tflops_by_phase.gp`, `plots/tflops_vs_s.gp` and "
          "their `.dat` files.\n";
    if (published) {
      md << "\nThe dashed black lines with diamonds, " << code(published->label) << " (\", causal\" where masked), are "
            "published, not measured here: " << published->citation() << "; clock: " << published->clock
         << ". Each is drawn beside the lab's lines of its "
            "head dimension and mask with every figure of its source at the lab's S there, or not at all: a "
            "series missing a point of its source is never drawn. Its figures are as published, not scaled to a "
            "clock: the lab's points ran at each board's own clock under its power cap (the run reports give "
            "it), and the source's shapes (its batch and heads) need not be the lab's at one S, so the two "
            "compare designs, not kernels on one clock.\n";
      const std::vector<std::string> gone = incomplete_series(*published);
      if (!gone.empty()) {
        md << "\nNot drawn, missing a point of the source: ";
        for (std::size_t i = 0; i < gone.size(); ++i) md << (i ? "; " : "") << gone[i];
        md << ".\n";
      }
    }
  }
}

}  // namespace

std::vector<ProgressionRow> progression_rows(const std::vector<Run>& runs, const fs::path& root) {
  std::vector<ProgressionRow> out;
  for (const PhaseRow& r : newest_per_phase(runs, root)) out.push_back({r.id, r.newest, r.at, r.from});
  return out;
}

Rendered render_progression(const std::vector<Run>& runs, const fs::path& root, const fs::path& out_dir,
                            const Published* published) {
  Rendered out;
  const auto chosen = newest_per_phase(runs, root);
  // Every timed shape of the chosen records, in a fixed order.
  std::map<ShapeKey, std::string> shapes;
  for (const PhaseRow& row : chosen)
    for (const auto& [name, res] : row.at) shapes[key_of(res->shape)] = name;
  const std::map<ShapeKey, std::string> dot_shapes = dot_shapes_of(chosen, shapes);

  std::ostringstream md;
  md << "# Progression\n\n"
     << "Every phase under " << code(link(out_dir, root) + "/")
     << ", in the registry's order (other ids, such as baselines, after), each shape from the "
        "newest record with status ok of that phase that timed it. Where a phase's figures come "
        "from several records, each figure ends with the letter of its record in the runs "
        "column. Each figure is the TFLOPS of the shape's headline regime at its device time: "
        "the time during which the launch's kernels ran (busy time: idle gaps between kernels, "
        "such as launch gaps after a memset, left out; for one kernel per launch, the span of "
        "its samples), at the median; ranges and error bars map the p10-p90 interval of the "
        "samples. Rendered by `attnlab-report progression`; edits are overwritten.\n\n";
  if (chosen.empty()) {
    md << "No ok run records yet.\n";
    const fs::path f = out_dir / "report.md";
    write_text(f, md.str());
    out.files.push_back(f);
    return out;
  }
  std::set<std::string> gpus;
  for (const PhaseRow& row : chosen)
    for (const Run* r : row.runs) gpus.insert(r->gpu_name());
  if (gpus.size() > 1) md << "The records come from different GPUs; compare with care.\n\n";

  const Reference ref = reference_of(chosen, runs);
  Marks marks;
  const auto paired = paired_against(root, kCudnnPhase);
  md << progression_table(chosen, shapes, ref, runs, out_dir, marks, paired) << footnotes(marks, ref);
  if (!paired.empty())
    md << "vs cuDNN (paired): from the newest ok A/B record of the phase against cuDNN's fused SDPA "
          "at each shape (make ab A=<phase> B=" << kCudnnPhase << ": both timed alternately in "
          "one process, L2 flushed before every sample), the median of per-pair ratios "
          "t_cuDNN / t_phase in device time (above 1: the phase is faster) with its 95% bootstrap "
          "interval and verdict. Unlike the TFLOPS columns, it does not depend on which session "
          "or clock each side's record saw.\n\n";

  charts(md, out, chosen, dot_shapes, ref, runs, root, out_dir, marks, published);
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
