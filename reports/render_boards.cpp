// How much boards of one model differ: the records of one sweep in which the same phase timed
// the same shape on several GPUs (scripts/sweep.sh runs BOARD_PHASES at the seed shapes on
// every GPU), or every record of a board folder gathered from many sessions (a phase's run
// records and its side of the A/B records, each board's newest). Per phase, shape and regime:
// each board's median device time with its p10-p90 and the bootstrap interval of that median,
// the spread between the boards' medians beside the widest spread within one board, which
// boards differ (disjoint intervals of their medians), and a figure on one linear axis, so a
// reader can tell how much of a difference between two records from different boards is the
// board.
#include <algorithm>
#include <map>
#include <sstream>

#include "record/ab.hpp"
#include "record/calibration.hpp"
#include "record/paired.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

struct BoardTime {
  std::string board;     // the GPU uuid, shortened (record_view's board())
  std::string gpu_name;
  std::string when;      // sort key of its record, oldest first
  DeviceTime t;
  std::vector<double> samples_ns;  // the device time per sample; empty where the record keeps none
};

struct Group {
  std::string phase, shape, regime;
  std::map<std::string, BoardTime> boards;  // by GPU uuid; the newest record of each
};

bool selected(const BoardSelection& sel, const std::string& sweep_id, const std::string& phase) {
  if (sel.sweep && sweep_id != *sel.sweep) return false;
  return sel.phases.empty() || std::find(sel.phases.begin(), sel.phases.end(), phase) != sel.phases.end();
}

// What an A/B record's side is timed in, as a regime name: L2 flushed before every sample, as
// cold is, but alternating with another phase in one process.
constexpr const char* kPairedRegime = "paired (A/B)";

// A board's entry from an A/B record's side: its per-sample busy times.
BoardTime paired_time(const AbRecord& rec, const std::vector<double>& busy_ns) {
  const Spread s = spread(busy_ns);
  BoardTime bt;
  bt.board = board_of_uuid(rec.provenance.gpu.uuid);
  bt.gpu_name = rec.provenance.gpu.name;
  bt.when = rec.started_utc;
  bt.t.median_ns = s.median;
  bt.t.p10_ns = bt.t.wide_p10_ns = s.p10;
  bt.t.p90_ns = bt.t.wide_p90_ns = s.p90;
  bt.t.basis = TimeBasis::kBusy;
  bt.samples_ns = busy_ns;
  return bt;
}

// The groups the selection holds that two boards or more timed, in phase order.
std::vector<Group> groups_of(const std::vector<Run>& runs, const std::vector<AbRecord>& abs, const BoardSelection& sel) {
  std::map<std::tuple<std::string, std::string, std::string>, Group> by_key;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  // A board keeps its newest record of each group, whatever order the records come in.
  const auto put = [&](const std::string& phase, const std::string& shape, const std::string& regime,
                       const std::string& uuid, BoardTime bt) {
    const auto key = std::make_tuple(phase, shape, regime);
    auto [it, fresh] = by_key.try_emplace(key, Group{phase, shape, regime, {}});
    if (fresh) order.push_back(key);
    auto& slot = it->second.boards[uuid];
    if (slot.when <= bt.when) slot = std::move(bt);
  };
  for (const Run& r : runs) {
    if (r.status != "ok" || !selected(sel, r.provenance.sweep_id, r.phase))
      continue;
    for (const Result& res : r.results) {
      if (!res.passed() || !res.timed()) continue;
      const Regime* g = res.headline();
      if (!g) continue;
      BoardTime bt{board(r), r.gpu_name(), r.time_key(), device_time(res, *g), {}};
      // The recorded samples are the span's: they are the device time's only where it is the span.
      if (bt.t.basis == TimeBasis::kOneKernel || bt.t.basis == TimeBasis::kSpan) bt.samples_ns = g->samples_ns;
      put(r.phase, res.name, g->name, r.gpu_uuid(), std::move(bt));
    }
  }
  for (const AbRecord& rec : abs) {
    if (rec.status != "ok") continue;
    for (const auto& [side, is_a] : {std::pair{&rec.a, true}, std::pair{&rec.b, false}}) {
      if (!selected(sel, rec.provenance.sweep_id, side->phase)) continue;
      for (const AbShape& s : rec.results) {
        if (!s.passed) continue;
        const std::vector<double> busy_ns = s.pooled(is_a).busy_ns;
        if (busy_ns.size() >= 2) put(side->phase, s.name, kPairedRegime, rec.provenance.gpu.uuid, paired_time(rec, busy_ns));
      }
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
    for (const auto& [b, bt] : g.boards) gpu_names[b] = bt.gpu_name;
  return gpu_names;
}

// The title and what the numbers are, with the boards named.
std::string intro(const std::string& what, const std::map<std::string, std::string>& gpu_names) {
  std::ostringstream md;
  md << "# Board spread: " << what << "\n\n"
     << "The same phase at the same shape on " << gpu_names.size() << " boards. "
     << "Per board: the median device time of the headline regime with its p10-p90 (each board's newest "
     << "record; `" << kPairedRegime << "`: its side of an A/B record, busy time per sample), and the "
     << pct(paired::kConfidence * 100) << " percentile-bootstrap interval of that median from the board's "
     << "samples (record/paired.hpp's estimate). Between boards: (slowest median - fastest median) / fastest "
     << "median. Within a board: the widest p10-p90 of the boards over its median. Two boards differ where "
     << "the intervals of their medians are disjoint; the last column names each such pair, the faster "
     << "board first (a board whose record keeps no per-sample device time has no interval and is compared "
     << "with none). The interval holds the noise within one record only: the same board's spread between "
     << "runs is not in it, so a difference it finds between two boards can still be a difference between "
     << "two runs. Boards: ";
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

// "yes: A < B, C; D < C" from the pairs that differ, boards by name; "no (...)" without any.
std::string differ_cell(const BoardSpread& s, const std::vector<std::string>& names) {
  if (s.differ.empty()) return "no (the medians' intervals overlap)";
  std::map<std::size_t, std::vector<std::size_t>> slower;  // faster board -> slower ones
  for (const auto& [fast, slow] : s.differ) slower[fast].push_back(slow);
  std::string cell = "yes: ";
  bool first = true;
  for (const auto& [fast, slows] : slower) {
    cell += (first ? "" : "; ") + names[fast] + " <";
    for (std::size_t i = 0; i < slows.size(); ++i) cell += (i ? ", " : " ") + names[slows[i]];
    first = false;
  }
  return cell;
}

// Each board's name in a group: its shortened uuid, or the whole one where two boards share it.
std::vector<std::string> display_names(const Group& g) {
  std::map<std::string, int> uses;
  for (const auto& [uuid, bt] : g.boards) ++uses[bt.board];
  std::vector<std::string> names;
  for (const auto& [uuid, bt] : g.boards) names.push_back(uses[bt.board] > 1 ? uuid : bt.board);
  return names;
}

SpreadTable spread_table(const std::vector<Group>& groups, const std::vector<std::string>& board_order) {
  SpreadTable out;
  Table t({"phase", "shape", "regime", "median per board (p10-p90) [interval of the median]", "between boards",
           "within a board", "boards differ?"},
          "lllrrrl");
  out.data = "# group index, board index, median / mean of the group's board medians, p10 ratio, p90 ratio\n";
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    std::vector<BoardSamples> in;
    const std::vector<std::string> names = display_names(g);
    double mean = 0;
    for (const auto& [b, bt] : g.boards) mean += bt.t.median_ns / g.boards.size();
    for (const auto& [b, bt] : g.boards) {
      in.push_back({bt.t.median_ns, bt.t.p10_ns, bt.t.p90_ns, bt.samples_ns});
      const std::size_t bi = std::find(board_order.begin(), board_order.end(), b) - board_order.begin();
      out.data += std::to_string(gi) + " " + std::to_string(bi) + " " + gp_num(bt.t.median_ns / mean) + " " +
                  gp_num(bt.t.p10_ns / mean) + " " + gp_num(bt.t.p90_ns / mean) + "\n";
    }
    const BoardSpread s = board_spread(in);
    std::string cells;
    std::size_t i = 0;
    for (const auto& [b, bt] : g.boards) {
      cells += (cells.empty() ? "" : "; ") + names[i] + ": " + median_and_range(bt.t.median_ns, bt.t.p10_ns, bt.t.p90_ns) +
               basis_marker(bt.t.basis) +
               (s.intervals[i] ? " [" + duration_range(s.intervals[i]->lo_ns, s.intervals[i]->hi_ns, bt.t.median_ns) + "]"
                               : std::string(" [no interval: no per-sample device time]"));
      ++i;
    }
    if (s.between_pct > out.largest) {
      out.largest = s.between_pct;
      out.largest_at = g.phase + " at " + g.shape;
    }
    t.row({g.phase, shape_label(g.shape), g.regime, cells, pct(s.between_pct), pct(s.within_pct), differ_cell(s, names)});
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
std::string spread_script(const std::string& what, const Plot& p, std::size_t n_groups,
                          const std::vector<std::string>& board_order, const std::string& xtics) {
  std::string script =
      "set title " + gp_quote("Board spread, " + what + ": median and p10-p90 per board, over the group's mean") +
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

BoardSpread board_spread(const std::vector<BoardSamples>& boards) {
  BoardSpread s;
  if (boards.empty()) return s;
  double lo = boards[0].median_ns, hi = lo;
  for (const BoardSamples& b : boards) {
    lo = std::min(lo, b.median_ns);
    hi = std::max(hi, b.median_ns);
    s.within_pct = std::max(s.within_pct, 100.0 * (b.p90_ns - b.p10_ns) / b.median_ns);
    if (b.samples_ns.size() < 2) {
      s.intervals.push_back(std::nullopt);
      continue;
    }
    const paired::RatioEstimate e = paired::estimate(b.samples_ns);
    s.intervals.push_back(MedianInterval{e.lo, e.hi});
  }
  s.between_pct = 100.0 * (hi - lo) / lo;
  // The reports' one verdict rule, on the medians' intervals: a difference counts only where
  // the two intervals are disjoint.
  for (std::size_t i = 0; i < boards.size(); ++i)
    for (std::size_t k = 0; k < boards.size(); ++k)
      if (s.intervals[i] && s.intervals[k] && s.intervals[i]->hi_ns < s.intervals[k]->lo_ns) s.differ.push_back({i, k});
  return s;
}

Rendered render_boards(const std::vector<Run>& runs, const fs::path& root, const BoardSelection& sel,
                       const fs::path& out_dir) {
  std::vector<AbRecord> abs;
  for (const fs::path& f : find_ab_records(root)) {
    try {
      abs.push_back(read_ab_file(f));
    } catch (const std::exception& e) {
      throw InputError(e.what());
    }
  }
  const std::vector<Group> groups = groups_of(runs, abs, sel);
  std::string what = sel.sweep ? "sweep " + *sel.sweep : "every record of " + root.string();
  for (std::size_t i = 0; i < sel.phases.size(); ++i) what += (i ? ", " : ", phase ") + sel.phases[i];
  if (groups.empty())
    throw InputError(what + ": no phase timed the same shape on two boards or more (records with "
                     "provenance.sweep_id of the sweep, or any with `any`; scripts/sweep.sh runs BOARD_PHASES on every GPU)");
  Rendered out;
  const fs::path plots = out_dir / "plots";
  clear_plots(plots);
  const std::map<std::string, std::string> gpu_names = board_names(groups);
  std::vector<std::string> board_order;
  for (const auto& [b, name] : gpu_names) board_order.push_back(b);
  const SpreadTable table = spread_table(groups, board_order);
  std::ostringstream md;
  md << intro(what, gpu_names) << table.markdown << "\n" << basis_footnotes(groups)
     << "The largest spread between boards here: " << pct(table.largest) << " (" << table.largest_at
     << "). A difference of that size between two records from different boards can be the board alone; "
        "compare on one board (or pair on one GPU: make ab) before calling it a change.\n\n";
  Plot p;
  p.stem = "board_spread";
  p.origin = "the records of " + what;
  p.data = table.data;
  p.height = 300 + 40 * static_cast<int>(groups.size());
  p.script = spread_script(what, p, groups.size(), board_order, table.xtics);
  out.scripts.push_back(write_plot(plots, p));
  out.files.push_back(out.scripts.back());
  md << "![median and p10-p90 per board, over the mean of the boards' medians](plots/" << p.stem << ".png)\n";
  write_text(out_dir / "boards.md", md.str());
  out.files.push_back(out_dir / "boards.md");
  return out;
}

}  // namespace attnlab::report
