// The README's results table: every phase and baseline at the seed shapes (the presets
// "throughput" and "latency"), TFLOPS and device time of the headline regime, each figure from
// the record the progression takes for it (progression_rows), linked. Written between the
// README's markers by `attnlab-report readme-table` (make readme-results); nothing in it is
// typed by hand.
#include <algorithm>
#include <set>
#include <sstream>

#include "common/shapes.hpp"
#include "reports/format.hpp"
#include "reports/paired_view.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

constexpr const char* kBegin = "<!-- attnlab:results begin -->";
constexpr const char* kEnd = "<!-- attnlab:results end -->";

std::string phase_label(const Run& r) { return r.phase + " " + r.experiment.title; }

// The record a figure comes from, linked: its rendered report where there is one, else run.json.
std::string record_link(const Run& r, const fs::path& base) {
  const fs::path rep = r.dir / "report.md";
  return "[" + r.id() + "](" + link(base, fs::exists(rep) ? rep : r.file) + ")";
}

// Phase -> shape name -> its newest paired A/B record against cuDNN (paired_view.hpp).
using PairedMap = std::map<std::string, std::map<std::string, PairedResult>>;

// The "vs cuDNN (paired)" cell of phase `id`: per seed shape, the ratio of its newest A/B record,
// the record linked, and where that record timed another commit or board than the shape's
// figures (else than the phase's newest record); "none" without one.
std::string paired_cells(const ProgressionRow* row, const std::string& id, const PairedMap& paired,
                         const fs::path& base) {
  std::string cell;
  const auto it = paired.find(id);
  if (it == paired.end()) return "none";
  for (const auto& p : shape_presets()) {
    const auto at = it->second.find(shape_name(p.shape));
    if (at == it->second.end()) continue;
    const Run* beside = nullptr;
    if (row) {
      const auto f = row->from.find(at->first);
      beside = f != row->from.end() ? f->second : row->newest;
    }
    const std::string elsewhere = beside ? paired_elsewhere(at->second, *beside, "the figures'") : "";
    cell += (cell.empty() ? "" : "; ") + std::string(p.name) + " " + paired_cell(at->second.shape) + " in [" +
            paired_name(at->second) + "](" + link(base, at->second.file) + ")" +
            (elsewhere.empty() ? "" : " (" + elsewhere + ")");
  }
  return cell.empty() ? "none" : cell;
}

std::string table(const std::vector<ProgressionRow>& rows, const std::vector<std::string>& ids,
                  const PairedMap& paired, const fs::path& base, std::set<TimeBasis>& bases,
                  std::set<std::string>& regimes, std::set<std::string>& gpus,
                  std::set<std::string>& boards) {
  const auto& presets = shape_presets();
  std::vector<std::string> header = {"phase"};
  std::string align = "l";
  for (const auto& p : presets) {
    header.push_back(std::string(p.name) + " TFLOPS");
    header.push_back(std::string(p.name) + " us");
    align += "rr";
  }
  // Only where an A/B record against cuDNN exists, so the table is unchanged without one.
  if (!paired.empty()) {
    header.push_back("vs cuDNN (paired)");
    align += "l";
  }
  header.push_back("records");
  align += "l";
  Table t(header, align);
  for (const std::string& id : ids) {
    const ProgressionRow* row = nullptr;
    for (const auto& r : rows)
      if (r.id == id) row = &r;
    std::vector<std::string> cells = {row ? phase_label(*row->newest) : id};
    // shape label -> record; records in first-use order, each with the shapes it supplies
    std::vector<std::pair<const Run*, std::string>> sources;
    for (const auto& p : presets) {
      const std::string name = shape_name(p.shape);
      const Result* found = nullptr;
      if (row)
        if (const auto it = row->at.find(name); it != row->at.end()) found = it->second;
      if (!found) {
        cells.push_back("not measured");
        cells.push_back("not measured");
        continue;
      }
      const Result& res = *found;
      const Regime& g = *res.headline();
      const DeviceTime dt = device_time(res, g);
      const std::string mark = basis_marker(dt.basis);
      bases.insert(dt.basis);
      regimes.insert(g.name);
      cells.push_back(sig(dt.rate_at(g, g.tflops, dt.median_ns)) + mark);
      cells.push_back(sig(in_unit(dt.median_ns, "us")) + mark + span_beside(dt, "us"));
      const Run* from = row->from.at(name);
      gpus.insert(from->gpu_name());
      boards.insert(board(*from));
      bool seen = false;
      for (auto& [run, shapes] : sources)
        if (run == from) {
          shapes += std::string(", ") + p.name;
          seen = true;
        }
      if (!seen) sources.emplace_back(from, p.name);
    }
    if (!paired.empty()) cells.push_back(paired_cells(row, id, paired, base));
    std::string recs;
    for (const auto& [run, shapes] : sources)
      recs += (recs.empty() ? "" : "; ") + shapes + ": " + record_link(*run, base) + " on " + board(*run);
    cells.push_back(recs.empty() ? "none" : recs);
    t.row(cells);
  }
  return t.str();
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

std::string readme_with_results(const std::vector<Run>& runs, const fs::path& root,
                                const fs::path& progression_dir, const fs::path& readme,
                                const std::string& readme_text) {
  const auto begin = readme_text.find(kBegin);
  const auto end = readme_text.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw InputError(readme.string() + ": no \"" + kBegin + "\" ... \"" + kEnd +
                     "\" markers, in that order, to put the results table between");
  const fs::path base = fs::absolute(readme).parent_path();

  const std::vector<ProgressionRow> rows = progression_rows(runs, root);
  // Every phase of the root's phase table (those without an ok record too), then the other
  // ids in the progression's order (baselines).
  std::vector<std::string> ids = read_phase_order(root);
  for (const auto& r : rows)
    if (std::find(ids.begin(), ids.end(), r.id) == ids.end()) ids.push_back(r.id);

  std::set<TimeBasis> bases;
  std::set<std::string> regimes, gpus, boards;
  const PairedMap paired = paired_against(root, kCudnnPhase);
  const std::string tab = table(rows, ids, paired, base, bases, regimes, gpus, boards);
  const fs::path prog = progression_dir / "report.md";

  std::ostringstream md;
  md << kBegin << "\n"
     << "<!-- generated by `make readme-results` (attnlab-report readme-table) from "
     << code(link(base, root) + "/") << "; edits are overwritten -->\n\n"
     << "Every phase and PyTorch SDPA baseline at the seed shapes ";
  const auto& presets = shape_presets();
  for (std::size_t i = 0; i < presets.size(); ++i)
    md << (i ? " and " : "") << code(presets[i].name) << " (" << shape_name(presets[i].shape) << ")";
  md << ", from the committed records under " << code(link(base, root) + "/") << " ("
     << (gpus.empty() ? std::string("no GPU") : join(gpus)) << "): TFLOPS and device time in "
     << "microseconds at the median of the headline regime (" << (regimes.empty() ? "none" : join(regimes))
     << "), device time being the time during which a launch's kernels ran (busy time; where a "
        "launch runs several kernels, its span, from the first kernel's start to the last one's end with "
        "the idle gaps between them, follows in brackets). Each shape's figure comes from the record the "
     << "[progression](" << link(base, prog) << ") takes for it (the newest ok record of the "
        "phase that timed the shape), named in the last column; the progression gives the "
        "p10-p90 ranges and every other shape.";
  if (boards.size() > 1)
    md << " The figures come from " << boards.size() << " boards (" << join(boards)
       << ", by uuid, named beside each record): clocks, power caps and sessions differ between "
          "them, so compare two rows only where they name the same board; the progression marks "
          "figures from another board or session.";
  if (!paired.empty())
    md << " The column vs cuDNN (paired) gives, where an A/B record of the phase against cuDNN's "
          "fused SDPA exists under "
       << code(link(base, root) + "/ab/") << " (make ab A=<phase> B=" << kCudnnPhase
       << ", both timed alternately in one process), the newest one's median of per-pair ratios "
          "t_cuDNN / t_phase (above 1: the phase is faster) in device time, its 95% bootstrap "
          "interval and verdict, and the A/B record, with the commit and board it timed where they are not "
          "those of the shape's figures.";
  md << "\n\n" << tab << "\n";
  for (TimeBasis b : bases)
    if (!basis_footnote(b).empty()) md << basis_footnote(b) << "\n\n";
  md << "Charts: [TFLOPS by phase](" << link(base, progression_dir / "plots" / "tflops_by_phase.png")
     << ") and [TFLOPS against sequence length](" << link(base, progression_dir / "plots" / "tflops_vs_s.png")
     << ") from the [progression report](" << link(base, prog) << ").\n\n"
     << "![TFLOPS by phase](" << link(base, progression_dir / "plots" / "tflops_by_phase.png") << ")\n"
     << kEnd;
  return readme_text.substr(0, begin) + md.str() + readme_text.substr(end + std::string(kEnd).size());
}

}  // namespace attnlab::report
