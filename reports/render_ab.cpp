// The report of one paired A/B record (attnlab.ab/2, or the older attnlab.ab/1), and the table of
// one pair's measurements across its records. Per shape the
// wall-time ratio t_B / t_A with its hierarchical bootstrap interval and verdict, the cycles
// ratio only where the record measured the clock per sample and per kernel (else why not), each
// side's busy time and SM clock; a shape measured more than once shown per measurement and
// combined; every block's median; and a figure of the per-pair ratios in sampling order, block by
// block (a drift within or between blocks shows there).
#include <algorithm>
#include <map>
#include <sstream>

#include "common/stats.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

std::string ratio_cell(const AbRatio& r) {
  const auto& e = r.estimate;
  return sig(e.median, 4) + "x (" + sig(e.lo, 4) + "-" + sig(e.hi, 4) + ")";
}

// The clock is NVML's reading around each sample, not one the kernel counted: say so beside it.
std::string side_cell(const AbShape& s, bool is_a) {
  const AbSamples x = s.pooled(is_a);
  return duration(stats::median(x.busy_ns)) + " at " + sig(stats::median(x.sm_clock_mhz), 4) + " MHz (NVML)";
}

std::string gate_cell(const AbShape& s) {
  auto gate = [](const Correctness& c) { return c.passed ? std::string("passed") : "FAILED: " + c.failure.value_or("?"); };
  for (std::size_t k = 0; k < s.blocks.size(); ++k) {
    const AbBlock& b = s.blocks[k];
    if (!b.passed)
      return "not timed: block " + std::to_string(k + 1) + " gate A " + gate(b.a_correctness) + ", B " +
             gate(b.b_correctness);
  }
  return "not timed";
}

Plot ratio_plot(const AbShape& s, std::size_t index, const std::string& origin) {
  Plot p;
  p.stem = "ratios_" + std::to_string(index + 1);
  p.origin = origin;
  p.data = "# pair, wall ratio t_B / t_A, cycles ratio (0: withheld), first side (0: A, 1: B), block, "
           "the block's median wall ratio\n";
  std::size_t pair = 0;
  for (std::size_t k = 0; k < s.blocks.size(); ++k) {
    const AbBlock& b = s.blocks[k];
    const auto w = paired::ratios(b.a.busy_ns, b.b.busy_ns);
    const auto c = paired::ratios(paired::cycles(b.a.busy_ns, b.a.sm_clock_mhz),
                                  paired::cycles(b.b.busy_ns, b.b.sm_clock_mhz));
    const double block_median = stats::median(w);
    for (std::size_t i = 0; i < w.size(); ++i, ++pair)
      p.data += std::to_string(pair) + " " + gp_num(w[i]) + " " + (s.cycles ? gp_num(c[i]) : "0") + " " +
                (b.first[i] == "A" ? "0" : "1") + " " + std::to_string(k + 1) + " " + gp_num(block_median) + "\n";
  }
  const auto& e = s.wall->estimate;
  p.script = "set title " + gp_quote(s.name + ": per-pair ratio t_B / t_A in sampling order, block by block") +
             " noenhanced\nset xlabel 'pair'\nset ylabel 't_B / t_A' noenhanced\n"
             "set key above noenhanced\nset grid xtics ytics lc rgb '#dddddd'\n"
             "plot '" + p.stem + ".dat' using 1:2 with points pt 7 ps 0.5 lc rgb '" + palette_colour(0) +
             "' title 'wall', \\\n";
  if (s.cycles)
    p.script += "     '' using 1:3 with points pt 6 ps 0.5 lc rgb '" + palette_colour(1) + "' title 'cycles', \\\n";
  p.script += "     '' using 1:6 with steps lw 2 lc rgb '" + palette_colour(2) + "' title 'block median', \\\n     " +
              gp_num(e.median) + " with lines lc rgb '#444444' title 'median', \\\n     " + gp_num(e.lo) +
              " with lines lc rgb '" + palette_colour(3) + "' title '95% interval', \\\n     " + gp_num(e.hi) +
              " with lines lc rgb '" + palette_colour(3) + "' notitle\n";
  return p;
}

// The record's header: the two sides, the layout, how the interval and verdicts are read.
void write_header(std::ostringstream& md, const AbRecord& rec) {
  const std::string gpu = rec.provenance.gpu.name.empty() ? "unknown GPU" : rec.provenance.gpu.name;
  const auto& boot = rec.options.bootstrap;
  md << "# A/B: " << rec.a.phase << " against " << rec.b.phase
     << (rec.direction == Direction::kBackward ? " (backward pass)" : "") << "\n\n"
     << "A = " << rec.a.phase << " (" << rec.a.title << "), B = " << rec.b.phase << " ("
     << rec.b.title << "), paired and interleaved in one process on " << gpu << ", started "
     << rec.started_utc << ", status " << code(rec.status) << ", record " << code(rec.schema)
     << ". Convention: " << kAbConvention << ".\n\n";
  if (rec.schema == kAbSchemaV1)
    md << "This record predates blocks: each measured shape is one block of pairs, so its interval "
          "is the spread within one run and does not hold between runs; a verdict here is not "
          "established beyond that run.\n\n";
  md << "Each shape is measured in " << rec.options.blocks << " independent block(s), run in rounds "
        "across the shapes; a block has its own inputs, gates and sample order. Interval: "
        "hierarchical percentile bootstrap of the median (the blocks resampled, then the pairs within "
        "each drawn block), " << boot.resamples << " resamples, seed " << boot.seed << ", "
     << sig(100 * boot.confidence, 3) << "%. Verdict FASTER (interval above 1), SLOWER (below 1) or "
        "SAME; \"as fast as\": lower bound >= " << sig(rec.options.non_inferiority_margin, 3)
     << ". First block's order seed " << rec.options.order_seed << ".\n\n"
     << "How a sample is taken: " << rec.method << "\n\n";
  if (rec.error) md << "The run stopped early: " << *rec.error << "\n\n";
}

// Result indices by shape name, and each result's label among them: "" for a shape measured
// once, "2 of 3" for the second of three measurements.
struct Measurements {
  std::map<std::string, std::vector<std::size_t>> by_name;
  std::vector<std::string> repeated;  // names measured more than once, in record order
  explicit Measurements(const AbRecord& rec) {
    for (std::size_t i = 0; i < rec.results.size(); ++i) by_name[rec.results[i].name].push_back(i);
    for (const auto& s : rec.results)
      if (by_name[s.name].size() > 1 && std::find(repeated.begin(), repeated.end(), s.name) == repeated.end())
        repeated.push_back(s.name);
  }
  std::string label(const AbRecord& rec, std::size_t i) const {
    const auto& all = by_name.at(rec.results[i].name);
    if (all.size() == 1) return "";
    const auto nth = std::size_t(std::find(all.begin(), all.end(), i) - all.begin()) + 1;
    return std::to_string(nth) + " of " + std::to_string(all.size());
  }
  bool last(const AbRecord& rec, std::size_t i) const { return by_name.at(rec.results[i].name).back() == i; }
};

// The ratios table: a row per measurement, and after a shape's last one their combination;
// then why each cycles verdict is withheld.
void write_ratios(std::ostringstream& md, const AbRecord& rec, const Measurements& m) {
  if (!m.repeated.empty()) {
    std::string names;
    for (const auto& n : m.repeated) names += (names.empty() ? "" : ", ") + n;
    md << "Measured more than once: " << names << ". Each such shape is shown per measurement and "
          "combined: the combined row pools the blocks of all its measurements and resamples them "
          "as one shape's blocks.\n\n";
  }
  Table t({"shape", "measurement", "pairs (blocks, stop)", "wall t_B/t_A (95% CI)", "verdict",
           "cycles t_B/t_A (95% CI)", "verdict", "as fast as (wall)", "A busy", "B busy"},
          "llrrlrllrr");
  std::vector<std::pair<std::string, std::string>> withheld;  // row label, why
  auto add_row = [&](const AbShape& s, const std::string& measurement) {
    if (!s.wall) {
      t.row({s.name, measurement, "0", gate_cell(s), "", "", "", "", "", ""});
      return;
    }
    std::string cyc = "withheld", cyc_verdict;
    if (s.cycles) {
      cyc = ratio_cell(*s.cycles);
      cyc_verdict = paired::verdict_name(s.cycles->estimate.verdict);
    } else {
      withheld.emplace_back(s.name + (measurement.empty() ? "" : " (" + measurement + ")"),
                            s.cycles_withheld.value_or("no clock per sample"));
    }
    t.row({s.name, measurement,
           std::to_string(s.pairs()) + " (" + std::to_string(s.blocks.size()) + ", " + s.stop_reasons() + ")",
           ratio_cell(*s.wall), paired::verdict_name(s.wall->estimate.verdict), cyc, cyc_verdict,
           s.wall->estimate.as_fast_as ? "yes" : "no", side_cell(s, true), side_cell(s, false)});
  };
  for (std::size_t i = 0; i < rec.results.size(); ++i) {
    const AbShape& s = rec.results[i];
    add_row(s, m.label(rec, i));
    const auto& all = m.by_name.at(s.name);
    if (all.size() > 1 && m.last(rec, i)) {
      std::vector<AbShape> list;
      for (std::size_t j : all) list.push_back(rec.results[j]);
      add_row(combine_measurements(list, rec.options.bootstrap), "combined");
    }
  }
  md << t.str() << "\n"
     << "Busy: the median busy time of the side's samples in every block at the median of their SM "
        "clocks. Every sample, its clock, the pair order and each block's seeds are in the record.\n";
  if (!withheld.empty()) {
    md << "\nCycles: no verdict unless the clock is measured per sample and per kernel.\n\n";
    for (const auto& [row, why] : withheld) md << "- " << row << ": " << why << "\n";
  }
}

// Every timed block's place in the run and its median ratio.
void write_blocks(std::ostringstream& md, const AbRecord& rec, const Measurements& m) {
  Table blocks({"shape", "measurement", "block", "round", "started [s]", "inputs seed", "order seed", "pairs",
                "wall t_B/t_A median"},
               "llrrrrrrr");
  for (std::size_t i = 0; i < rec.results.size(); ++i) {
    const AbShape& s = rec.results[i];
    if (!s.wall) continue;
    for (std::size_t k = 0; k < s.blocks.size(); ++k) {
      const AbBlock& b = s.blocks[k];
      blocks.row({s.name, m.label(rec, i), std::to_string(k + 1), std::to_string(b.round),
                  b.started_s ? sig(*b.started_s, 4) : "not recorded", std::to_string(b.seed),
                  std::to_string(b.order_seed), std::to_string(b.a.busy_ns.size()),
                  sig(stats::median(paired::ratios(b.a.busy_ns, b.b.busy_ns)), 4)});
    }
  }
  if (!blocks.empty())
    md << "\n## Blocks\n\nEach block's median per-pair wall ratio: their spread is what the interval "
          "resamples.\n\n" << blocks.str();
}

// Whether both sides read e4m3 inputs, as every block's gates of the record say.
bool fp8_pair(const AbRecord& rec) {
  bool any = false;
  for (const AbShape& s : rec.results)
    for (const AbBlock& b : s.blocks) {
      if (b.a_correctness.input_format != "e4m3" || b.b_correctness.input_format != "e4m3") return false;
      any = true;
    }
  return any;
}

// [TFLOPS] the shape's FLOPs over a side's busy median.
double side_tflops(const AbShape& s, bool is_a) {
  return s.flops / (stats::median(s.pooled(is_a).busy_ns) * 1e3);
}

// Every published figure at exactly the shape, each marked published with its source's board
// and clock; "no published figure" where no source has one.
std::string published_cell(const Shape& shape, const std::vector<const Published*>& sources) {
  std::string cell;
  for (const Published* p : sources)
    if (const auto t = p->at(shape))
      cell += (cell.empty() ? "" : "; ") + plain(*t) + " published, " + code(p->label) + " (board " + p->board +
              "; clock " + p->clock + ")";
  return cell.empty() ? "no published figure" : cell;
}

// An FP8 pair's TFLOPS per side beside the published FP8 figures at the same shape: the ratio
// says which side is faster, the sources' figures where both stand against what FA3 and cuDNN
// publish, on the sources' boards and clocks.
void write_tflops(std::ostringstream& md, const AbRecord& rec, const Measurements& m,
                  const std::vector<Published>& published) {
  if (!fp8_pair(rec)) return;
  std::vector<const Published*> sources;
  for (const Published& p : published)
    if (p.precision == "fp8") sources.push_back(&p);
  md << "\n## TFLOPS beside published FP8 figures\n\nBoth sides read e4m3 inputs (every block's gates say so). "
        "A side's TFLOPS: the shape's FLOPs (4·B·H·S²·D, halved for causal) over its busy median above. ";
  if (sources.empty())
    md << "No published FP8 figures were given (`attnlab-report ab --published FILE`).\n\n";
  else
    md << "Beside them, each published figure at exactly the shape (batch, heads, key/value heads, S, D and "
          "mask), as its source states it: not measured here, on the source's board and clock, not scaled "
          "to this record's.\n\n";
  std::vector<std::string> head = {"shape", "measurement", "A " + rec.a.phase + " TFLOPS", "B " + rec.b.phase + " TFLOPS"};
  if (!sources.empty()) head.push_back("published at this shape");
  Table t(head, sources.empty() ? "llrr" : "llrrl");
  for (std::size_t i = 0; i < rec.results.size(); ++i) {
    const AbShape& s = rec.results[i];
    if (!s.wall) continue;
    std::vector<std::string> row = {s.name, m.label(rec, i), sig(side_tflops(s, true), 4), sig(side_tflops(s, false), 4)};
    if (!sources.empty()) row.push_back(published_cell(s.shape, sources));
    t.row(row);
  }
  md << t.str();
  if (sources.empty()) return;
  md << "\nPublished sources:\n\n";
  for (const Published* p : sources)
    md << "- " << code(p->label) << ": " << p->citation() << "; board: " << p->board << "; clock: " << p->clock
       << "; its shapes: " << p->shapes.str() << (p->note ? "; " + *p->note : "") << ".\n";
}

// One measurement of a shape across records: where it comes from.
struct Across {
  std::string record, commit, gpu;  // run directory name, short commit (+ dirty), GPU uuid
  std::string label;                // "2 of 3" within its record, or ""
  const AbShape* shape = nullptr;
};

std::string short_commit(const Provenance& p) {
  return p.git.commit.substr(0, 7) + (p.git.dirty ? " dirty" : "");
}

}  // namespace

Rendered render_ab_across(const std::vector<std::pair<fs::path, AbRecord>>& records, const fs::path& out) {
  if (records.empty()) throw InputError("no A/B record to read across");
  const AbRecord& first = records.front().second;
  std::map<std::string, std::vector<Across>> by_shape;  // shape name -> measurements, record order
  std::vector<std::string> order;
  for (const auto& [file, rec] : records) {
    if (rec.a.phase != first.a.phase || rec.b.phase != first.b.phase)
      throw InputError(file.string() + ": " + rec.a.phase + " against " + rec.b.phase + ", not " + first.a.phase +
                       " against " + first.b.phase + ": records of one pair only");
    const Measurements m(rec);
    for (std::size_t i = 0; i < rec.results.size(); ++i) {
      const AbShape& s = rec.results[i];
      if (!s.wall) continue;
      if (!by_shape.count(s.name)) order.push_back(s.name);
      by_shape[s.name].push_back({file.parent_path().filename().string(), short_commit(rec.provenance),
                                  rec.provenance.gpu.uuid, m.label(rec, i), &s});
    }
  }
  std::ostringstream md;
  md << "# A/B across records: " << first.a.phase << " against " << first.b.phase << "\n\n"
     << records.size() << " record(s) of the pair. Convention: " << kAbConvention << ". Every measurement "
     << "of a shape is a row; where one commit on one GPU measured a shape more than once, a row "
        "combines those measurements (their blocks resampled together, as in one record). "
        "Measurements of different commits or GPUs are shown side by side and never combined.\n\n";
  Table t({"shape", "record", "commit", "GPU", "measurement", "pairs (blocks)", "wall t_B/t_A (95% CI)", "verdict"},
          "lllllrrl");
  for (const auto& name : order) {
    std::map<std::pair<std::string, std::string>, std::vector<AbShape>> groups;  // (commit, GPU)
    for (const Across& x : by_shape[name]) {
      t.row({name, x.record, x.commit, x.gpu, x.label.empty() ? "1 of 1" : x.label,
             std::to_string(x.shape->pairs()) + " (" + std::to_string(x.shape->blocks.size()) + ")",
             ratio_cell(*x.shape->wall), paired::verdict_name(x.shape->wall->estimate.verdict)});
      groups[{x.commit, x.gpu}].push_back(*x.shape);
    }
    for (const auto& [key, list] : groups) {
      if (list.size() < 2) continue;
      const AbShape c = combine_measurements(list, first.options.bootstrap);
      t.row({name, "combined: " + std::to_string(list.size()) + " measurements", key.first, key.second, "",
             std::to_string(c.pairs()) + " (" + std::to_string(c.blocks.size()) + ")", ratio_cell(*c.wall),
             paired::verdict_name(c.wall->estimate.verdict)});
    }
  }
  md << t.str();
  Rendered r;
  write_text(out / "report.md", md.str());
  r.files.push_back(out / "report.md");
  return r;
}

Rendered render_ab(const AbRecord& rec, const fs::path& dir, const std::vector<Published>& published) {
  Rendered out;
  const fs::path plots = dir / "plots";
  clear_plots(plots);
  std::ostringstream md;
  const Measurements m(rec);
  write_header(md, rec);
  write_ratios(md, rec, m);
  write_tflops(md, rec, m, published);
  write_blocks(md, rec, m);
  for (std::size_t i = 0; i < rec.results.size(); ++i) {
    if (!rec.results[i].wall) continue;
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
