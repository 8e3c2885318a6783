// How much boards of one model differ: the records of one sweep in which the same phase timed
// the same shape on several GPUs (scripts/sweep.sh runs BOARD_PHASES at the seed shapes on
// every GPU). Per phase, shape and regime: each board's median device time with its p10-p90,
// the spread between the boards' medians beside the widest spread within one board, and a
// figure of both on one linear axis, so a reader can tell how much of a difference between
// two records from different boards is the board.
#include <algorithm>
#include <map>
#include <sstream>

#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

struct BoardTime {
  const Run* run = nullptr;
  DeviceTime t;
};

struct Group {
  std::string phase, shape, regime;
  std::map<std::string, BoardTime> boards;  // by GPU uuid; the newest record of each
};

std::optional<std::string> sweep_of(const Run& r) { return optional_string_at(r.json, "/provenance/sweep_id"); }

// The groups of sweep `sweep` timed on two boards or more, in phase-table order of the runs.
std::vector<Group> groups_of(const std::vector<Run>& runs, const std::string& sweep) {
  std::map<std::tuple<std::string, std::string, std::string>, Group> by_key;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  // Oldest first, so a board's newer record replaces an older one.
  std::vector<const Run*> sorted;
  for (const Run& r : runs)
    if (sweep_of(r) == sweep && r.status == "ok") sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const Run* a, const Run* b) { return a->time_key() < b->time_key(); });
  for (const Run* r : sorted) {
    for (const Result& res : r->results) {
      if (!res.passed || !res.timed()) continue;
      const Regime* g = res.headline_regime();
      if (!g) continue;
      const auto key = std::make_tuple(r->phase, res.name, g->name);
      auto [it, fresh] = by_key.try_emplace(key, Group{r->phase, res.name, g->name, {}});
      if (fresh) order.push_back(key);
      it->second.boards[r->gpu_uuid] = BoardTime{r, device_time(res, *g)};
    }
  }
  std::vector<Group> out;
  for (const auto& k : order)
    if (by_key[k].boards.size() >= 2) out.push_back(by_key[k]);
  std::stable_sort(out.begin(), out.end(), [](const Group& a, const Group& b) { return a.phase < b.phase; });
  return out;
}

// The boards' names by GPU uuid, over every group.
std::map<std::string, std::string> board_names(const std::vector<Group>& groups) {
  std::map<std::string, std::string> gpu_names;
  for (const Group& g : groups)
    for (const auto& [b, bt] : g.boards) gpu_names[b] = bt.run->gpu_name;
  return gpu_names;
}

// The title and what the numbers are, with the boards named.
std::string intro(const std::string& sweep, const std::map<std::string, std::string>& gpu_names) {
  std::ostringstream md;
  md << "# Board spread: sweep " << sweep << "\n\n"
     << "The same phase at the same shape on " << gpu_names.size() << " boards of one sweep. "
     << "Per board: the median device time of the headline regime with its p10-p90. Between boards: "
     << "(slowest median - fastest median) / fastest median. Within a board: the widest p10-p90 of the "
     << "boards over its median. The boards differ only where the slowest board's p10 lies above the "
     << "fastest board's p90 (the reports' one verdict rule: overlap is no difference). Boards: ";
  bool first = true;
  for (const auto& [b, name] : gpu_names) {
    md << (first ? "" : ", ") << code(b) << " (" << name << ")";
    first = false;
  }
  md << ".\n\n";
  return md.str();
}

// The table and the figure's data, a row per group, and the largest spread between boards.
struct SpreadTable {
  std::string markdown;
  std::string data;     // the figure's data file
  std::string xtics;    // gnuplot's labels, one per group
  double largest = 0;   // [%]
  std::string largest_at;
};

SpreadTable spread_table(const std::vector<Group>& groups, const std::vector<std::string>& board_order) {
  SpreadTable out;
  Table t({"phase", "shape", "regime", "median per board (p10-p90)", "between boards", "within a board",
           "boards differ?"},
          "lllrrrl");
  out.data = "# group index, board index, median / mean of the group's board medians, p10 ratio, p90 ratio\n";
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    std::vector<double> med, p10, p90;
    std::string cells;
    double mean = 0;
    for (const auto& [b, bt] : g.boards) mean += bt.t.median_ns / g.boards.size();
    for (const auto& [b, bt] : g.boards) {
      med.push_back(bt.t.median_ns);
      p10.push_back(bt.t.p10_ns);
      p90.push_back(bt.t.p90_ns);
      cells += (cells.empty() ? "" : "; ") + board(*bt.run) + ": " + median_and_range(bt.t.median_ns, bt.t.p10_ns, bt.t.p90_ns) +
               basis_marker(bt.t.basis);
      const std::size_t bi = std::find(board_order.begin(), board_order.end(), b) - board_order.begin();
      out.data += std::to_string(gi) + " " + std::to_string(bi) + " " + gp_num(bt.t.median_ns / mean) + " " +
                  gp_num(bt.t.p10_ns / mean) + " " + gp_num(bt.t.p90_ns / mean) + "\n";
    }
    const BoardSpread s = board_spread(med, p10, p90);
    if (s.between_pct > out.largest) {
      out.largest = s.between_pct;
      out.largest_at = g.phase + " at " + g.shape;
    }
    t.row({g.phase, shape_label(g.shape), g.regime, cells, pct(s.between_pct), pct(s.within_pct),
           s.boards_differ ? "yes" : "no (intervals overlap)"});
    out.xtics += std::string(out.xtics.empty() ? "" : ", ") + gp_quote(g.phase + " " + g.shape + " " + g.regime) +
                 " " + std::to_string(gi);
  }
  out.markdown = t.str();
  return out;
}

// A footnote for each time basis other than the span that some board's time uses.
std::string basis_footnotes(const std::vector<Group>& groups) {
  std::string md;
  for (TimeBasis b : {TimeBasis::kSpan, TimeBasis::kBusyMedian}) {
    bool used = false;
    for (const Group& g : groups)
      for (const auto& [name, bt] : g.boards) used = used || bt.t.basis == b;
    if (used) md += basis_footnote(b) + "\n\n";
  }
  return md;
}

// The figure: per group, each board's median and p10-p90 over the group's mean, boards side by side.
std::string spread_script(const std::string& sweep, const Plot& p, std::size_t n_groups,
                          const std::vector<std::string>& board_order, const std::string& xtics) {
  std::string script =
      "set title " + gp_quote("Board spread, sweep " + sweep + ": median and p10-p90 per board, over the group's mean") +
      " noenhanced\nset ylabel 'device time / mean of the boards'' medians'\n"
      "set xtics (" + xtics + ") rotate by -30 noenhanced font ',8'\n"
      "set xrange [-0.5:" + std::to_string(n_groups) + "-0.5]\n"
      "set key above noenhanced\nset grid ytics lc rgb '#dddddd'\nset bars 2\nplot ";
  for (std::size_t bi = 0; bi < board_order.size(); ++bi) {
    const double shift = (static_cast<double>(bi) - (board_order.size() - 1) / 2.0) * 0.12;
    script += std::string(bi ? ", \\\n     " : "") + "'" + p.stem + ".dat' using ($2 == " + std::to_string(bi) +
              " ? $1 + " + gp_num(shift) + " : 1/0):3:4:5 with yerrorbars pt 7 ps 0.8 lc rgb '" +
              palette_colour(bi) + "' title " + gp_quote(board_order[bi]) + " noenhanced";
  }
  return script + "\n";
}

}  // namespace

BoardSpread board_spread(const std::vector<double>& medians, const std::vector<double>& p10s,
                         const std::vector<double>& p90s) {
  BoardSpread s;
  if (medians.empty() || medians.size() != p10s.size() || medians.size() != p90s.size()) return s;
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  s.between_pct = 100.0 * (*hi - *lo) / *lo;
  for (std::size_t i = 0; i < medians.size(); ++i)
    s.within_pct = std::max(s.within_pct, 100.0 * (p90s[i] - p10s[i]) / medians[i]);
  const std::size_t fast = lo - medians.begin(), slow = hi - medians.begin();
  // The one verdict rule of the reports: a difference counts only when the intervals do not
  // overlap (the slowest board's p10 above the fastest board's p90).
  s.boards_differ = p10s[slow] > p90s[fast];
  return s;
}

Rendered render_boards(const std::vector<Run>& runs, const std::string& sweep, const fs::path& out_dir) {
  const std::vector<Group> groups = groups_of(runs, sweep);
  if (groups.empty())
    throw InputError("sweep " + sweep + ": no phase timed the same shape on two boards or more (records with "
                     "provenance.sweep_id " + sweep + "; scripts/sweep.sh runs BOARD_PHASES on every GPU)");
  Rendered out;
  const fs::path plots = out_dir / "plots";
  clear_plots(plots);
  const std::map<std::string, std::string> gpu_names = board_names(groups);
  std::vector<std::string> board_order;
  for (const auto& [b, name] : gpu_names) board_order.push_back(b);
  const SpreadTable table = spread_table(groups, board_order);
  std::ostringstream md;
  md << intro(sweep, gpu_names) << table.markdown << "\n" << basis_footnotes(groups)
     << "The largest spread between boards in this sweep: " << pct(table.largest) << " (" << table.largest_at
     << "). A difference of that size between two records from different boards can be the board alone; "
        "compare on one board (or pair on one GPU: make ab) before calling it a change.\n\n";
  Plot p;
  p.stem = "board_spread";
  p.origin = "the records of sweep " + sweep;
  p.data = table.data;
  p.height = 300 + 40 * static_cast<int>(groups.size());
  p.script = spread_script(sweep, p, groups.size(), board_order, table.xtics);
  out.scripts.push_back(write_plot(plots, p));
  out.files.push_back(out.scripts.back());
  md << "![median and p10-p90 per board, over the mean of the boards' medians](plots/" << p.stem << ".png)\n";
  write_text(out_dir / "boards.md", md.str());
  out.files.push_back(out_dir / "boards.md");
  return out;
}

}  // namespace attnlab::report
