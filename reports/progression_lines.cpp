// The progression's chart of TFLOPS against S: a phase's shapes of one family joined by a line,
// one panel per head dimension, on a linear axis and, where figures span widely, a log one.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "reports/format.hpp"
#include "reports/progression_detail.hpp"

namespace attnlab::report::detail {

std::map<FamilyKey, std::vector<const Result*>> families_of(const PhaseRow& pr) {
  std::map<FamilyKey, std::vector<const Result*>> families;
  for (const auto& [name, res] : pr.at)
    families[{res->shape.D, res->shape.causal, res->shape.H_kv != res->shape.H,
              1LL * res->shape.B * res->shape.S}].push_back(res);
  return families;
}

namespace {

// One line of the TFLOPS-against-S panels: a phase's shapes of one family.
struct Line {
  std::size_t colour;
  std::string label;  // at its right end: the phase, and causal or GQA where the family is
  std::vector<std::pair<int, Rate>> points;  // S, TFLOPS
  std::vector<std::string> point_types;      // per point: point_type, by where it was measured
  // Per point: the commit and board of its record ("8bb50a2 GPU-5e687859"); empty for published
  // figures. A line joins points of one source only: a step between commits or boards would
  // read as the effect of S.
  std::vector<std::string> sources;
  bool causal = false;
  bool published = false;  // published figures (reports/published.hpp): black, dashed, diamonds
};

// The published series at the head dimensions and masks the lab's lines have, each drawn at the
// lab's S of its panel and mask. A series missing a point of its source is never drawn
// (render_progression names it), so every drawn line carries every point of its source there.
void add_published(const Published& pub, std::map<int, std::vector<Line>>& by_d) {
  for (auto& [D, lines] : by_d)
    for (const bool causal : {false, true}) {
      std::set<int> lab_s;
      for (const Line& l : lines)
        if (!l.published && l.causal == causal)
          for (const auto& pt : l.points) lab_s.insert(pt.first);
      for (const PublishedSeries& ps : pub.series) {
        if (ps.D != D || ps.causal != causal || !ps.missing(pub.S).empty()) continue;
        Line line{0, pub.label + (causal ? ", causal" : ""), {}, {}, {}, causal, true};
        for (std::size_t i = 0; i < pub.S.size(); ++i)
          if (lab_s.count(pub.S[i])) {
            const double t = *ps.tflops[i];
            line.points.emplace_back(pub.S[i], Rate{t, t, t, TimeBasis::kSpan});
            line.point_types.push_back("12");
            line.sources.emplace_back();
          }
        if (!line.points.empty()) lines.push_back(std::move(line));
      }
    }
}

void add_lines(const PhaseRow& pr, std::size_t colour, const Reference& ref, const std::vector<Run>& runs,
               std::map<int, std::vector<Line>>& by_d) {
  for (auto& [key, list] : families_of(pr)) {
    if (list.size() < 2) continue;
    std::stable_sort(list.begin(), list.end(), [](const Result* x, const Result* y) {
      return key_of(x->shape) < key_of(y->shape);
    });
    const auto& [D, causal, gqa, tokens] = key;
    Line line{colour, pr.id + (causal ? ", causal" : "") + (gqa ? ", GQA" : ""), {}, {}, {}, causal};
    for (const Result* res : list) {
      const Run& from = *pr.from.at(res->name);
      line.points.emplace_back(res->shape.S, rate(*res));
      line.point_types.push_back(point_type(line.points.back().second, provenance_marker(from, ref, runs)));
      line.sources.push_back(from.short_commit() + " " + board(from));
    }
    by_d[D].push_back(std::move(line));
  }
}

// A panel's y axis, from the values it draws: log where they span more than a decade and a
// half, else linear from 0.
struct Axis {
  bool log = false;
  double lo = 0, hi = 0;  // the range
  std::string script() const {
    return std::string(log ? "set logscale y\n" : "unset logscale y\n") + "set yrange [" +
           gp_num(lo) + ":" + gp_num(hi) + "]\n";
  }
  double to_axis(double v) const { return log ? std::log10(v) : v; }  // the axis's own scale
  double from_axis(double y) const { return log ? std::pow(10.0, y) : y; }
};

Axis panel_axis(double lo, double hi, bool linear) {
  if (!linear && hi > 30 * lo)
    return {true, std::pow(10.0, std::floor(std::log10(lo))),
            std::pow(10.0, std::ceil(std::log10(hi * 1.5)))};
  return {false, 0, hi * 1.3};
}

// Label positions for wanted positions `want` (ascending) at least `gap` apart: labels that
// would overlap form a group centred on the mean of their wanted positions, merged with the
// group below while the two overlap, so each label moves as little as its neighbours allow.
std::vector<double> spread_labels(const std::vector<double>& want, double gap) {
  struct Group {
    double start, sum;
    std::size_t n;
  };
  std::vector<Group> groups;
  for (double w : want) {
    groups.push_back({w, w, 1});
    while (groups.size() > 1) {
      Group& below = groups[groups.size() - 2];
      const Group& top = groups.back();
      if (below.start + double(below.n) * gap <= top.start) break;
      below.sum += top.sum;
      below.n += top.n;
      below.start = below.sum / double(below.n) - double(below.n - 1) * gap / 2;
      groups.pop_back();
    }
  }
  std::vector<double> out;
  for (const Group& g : groups)
    for (std::size_t i = 0; i < g.n; ++i) out.push_back(g.start + double(i) * gap);
  return out;
}

std::string line_colour(const Line& l) { return l.published ? "#000000" : palette_colour(l.colour); }

// Labels at the lines' right ends, in the lines' colours; labels that end at the same S are
// spread apart where they would overlap.
std::string end_labels(const std::vector<Line>& lines, const Axis& axis) {
  std::map<int, std::vector<std::pair<double, const Line*>>> at_end;  // S -> (axis y, line)
  for (const Line& l : lines)
    at_end[l.points.back().first].emplace_back(axis.to_axis(l.points.back().second.mid), &l);
  // One label's height at font 8 in a panel of about 360 px of plot, in the axis's own scale.
  const double gap = 0.034 * (axis.to_axis(axis.hi) - (axis.log ? axis.to_axis(axis.lo) : 0.0));
  std::string out;
  for (auto& [S, ls] : at_end) {
    std::stable_sort(ls.begin(), ls.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<double> want;
    for (const auto& [y, l] : ls) want.push_back(y);
    const std::vector<double> at = spread_labels(want, gap);
    for (std::size_t i = 0; i < ls.size(); ++i) {
      const Line& l = *ls[i].second;
      out += "set label " + gp_quote(l.label) + " at " + gp_num(S * 1.08) + "," +
             gp_num(axis.from_axis(at[i])) + " left font ',8' tc rgb '" + line_colour(l) +
             "' noenhanced\n";
    }
  }
  return out;
}

// [TFLOPS] the lowest and the highest of the lines' points, their p10-p90 bars included.
std::pair<double, double> value_range(const std::vector<Line>& lines) {
  double lo = 1e300, hi = 0;
  for (const Line& l : lines)
    for (const auto& [S, x] : l.points) {
      lo = std::min(lo, x.lo);
      hi = std::max(hi, x.hi);
    }
  return {lo, hi};
}

// One panel of the lines: head dimension D, its axis (linear where asked: near-equal figures
// look as far apart as they are), labels and lines (data blocks from `block` on).
void lines_panel(Plot& p, int& block, int D, const std::vector<Line>& lines, bool linear) {
  const auto [lo, hi] = value_range(lines);
  const Axis axis = panel_axis(lo, hi, linear);
  p.script += "\nunset label\nset title 'D = " + std::to_string(D) +
              (axis.log ? ", log axis: every phase'" : ", linear axis: near-equal figures apart'") + "\n" +
              axis.script() +
              end_labels(lines, axis);
  std::string plot;
  for (const Line& l : lines) {
    p.data += "# D=" + std::to_string(D) + ", phase " + l.label + "\n";
    const bool mixed = std::set<std::string>(l.sources.begin(), l.sources.end()).size() > 1;
    for (std::size_t i = 0; i < l.points.size(); ++i) {
      const auto& [S, x] = l.points[i];
      const bool starts = i == 0 || l.sources[i] != l.sources[i - 1];
      // A blank line ends gnuplot's line: no segment joins two commits or boards.
      if (i > 0 && starts) p.data += "\n";
      p.data += std::to_string(S) + " " + gp_num(x.mid) + " " + gp_num(x.lo) + " " + gp_num(x.hi) +
                " " + l.point_types[i] + " " + dat_quote(l.sources[i]) + " " +
                dat_quote(mixed && starts ? l.sources[i] : "") + "\n";
    }
    p.data += "\n\n";
    // Points drawn apart: yerrorlines takes no variable point type.
    const std::string data = "'tflops_vs_s.dat' index " + std::to_string(block++);
    // A published line is drawn thinner than a measured one (the png terminal draws no dashes).
    const std::string colour = " lc rgb '" + line_colour(l) + "'";
    plot += std::string(plot.empty() ? "plot " : ", \\\n     ") + data +
            " using 1:2:3:4 with yerrorlines pt -1 lw " + (l.published ? "1" : "2") + colour + ", \\\n     " + data +
            " using 1:2:5 with points pt variable ps 1.1" + colour + ", \\\n     " + data +
            " using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '" + line_colour(l) + "'";
  }
  p.script += plot + "\n";
}

}  // namespace

// Lines: TFLOPS against S, one panel per head dimension, each line labelled at its end;
// nullopt when no family has two shapes.
std::optional<Plot> lines_plot(const std::vector<PhaseRow>& chosen, const std::string& origin,
                               const Reference& ref, const std::vector<Run>& runs,
                               const Published* published) {
  std::map<int, std::vector<Line>> by_d;
  for (std::size_t i = 0; i < chosen.size(); ++i) add_lines(chosen[i], i, ref, runs, by_d);
  if (by_d.empty()) return std::nullopt;
  if (published) add_published(*published, by_d);
  std::set<int> all_s;
  for (const auto& [D, lines] : by_d)
    for (const Line& l : lines)
      for (const auto& [S, x] : l.points) all_s.insert(S);
  std::string xtics;
  for (int S : all_s)
    xtics += (xtics.empty() ? "\"" : ", \"") + std::to_string(S) + "\" " + std::to_string(S);
  Plot p;
  p.stem = "tflops_vs_s";
  p.origin = origin;
  // A log panel where a head dimension's figures span more than a decade and a half, and a
  // linear one always.
  int panels = 0;
  for (const auto& [D, lines] : by_d) {
    const auto [lo, hi] = value_range(lines);
    panels += panel_axis(lo, hi, false).log ? 2 : 1;
  }
  p.height = 60 + 400 * panels;
  p.data = "# per line (a gnuplot index): S, TFLOPS at the median, at p90, at p10 of the headline "
           "regime's device time, point type (filled: busy time, hollow: span only; circle, "
           "triangle, square: the reference board and session, another board, another session), "
           "the commit and board of the point's record, and the same where a line of several "
           "starts a piece; a blank line breaks a line where the commit or board changes\n";
  std::string& s = p.script;
  s += "set multiplot layout " + std::to_string(panels) + ",1 title " +
       "\"TFLOPS against S: newest ok record per phase and shape, headline regime at device time; "
       "bars: p10-p90\\n" + kPointKey + "\" noenhanced font ',9'\n"
       "set errorbars large\n"
       "set logscale x 2\n"
       "set xrange [" + gp_num(*all_s.begin() / 1.6) + ":" + gp_num(*all_s.rbegin() * 2.2) + "]\n"
       "set xtics (" + xtics + ") noenhanced\n"
       "set xlabel 'sequence length S (B shrinks as S grows; shapes in the report''s table)' noenhanced\n"
       "set ylabel 'TFLOPS'\n"
       "unset key\n"
       "set grid lc rgb '#dddddd'\n";
  int block = 0;
  for (const auto& [D, lines] : by_d) {
    const auto [lo, hi] = value_range(lines);
    if (panel_axis(lo, hi, false).log) lines_panel(p, block, D, lines, false);
    lines_panel(p, block, D, lines, true);
  }
  s += "unset multiplot\n";
  return p;
}

}  // namespace attnlab::report::detail
