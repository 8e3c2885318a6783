// attnlab-ncu-import: the evidence parsers' command line (profiler/ncu_import.hpp,
// profiler/sass.hpp): the record-side steps of make profile (scripts/profile.sh), and the opcode
// tally of a SASS listing that the A/B scripts print beside a change's timings.
//   attnlab-ncu-import metrics                 ncu's --metrics list: every group's metrics
//   attnlab-ncu-import shapes RUN.JSON         "<shape spec> <slug> <NVTX range>" per timed result
//   attnlab-ncu-import seed RUN.JSON           the run's input seed
//   attnlab-ncu-import range PHASE SPEC        "<shape name> <slug> <NVTX range>" of one shape
//                                              spec (make profile-ab, scripts/profile-ab)
//   attnlab-ncu-import ab --a ID --b ID --shape NAME --a-csv F --b-csv F [--records DIR]
//     make profile-ab: ncu's time and cycle ratios of A's and B's launch beside the paired
//     ratio of the newest ok A/B record of the pair at that shape under DIR/ab
//   attnlab-ncu-import merge RUN.JSON [--wall SLUG=S]... [--baseline-wall SLUG=S]...
//                      [--ncu-version V] [--ncu-command C]
//     adds ncu values from the ncu-<slug>.csv files beside RUN.JSON, rewrites it atomically
//     and prints the CUPTI-vs-ncu agreement table.
//   attnlab-ncu-import sass LISTING [PREFIX] [--brief]
//     per kernel of a `cuobjdump -sass` listing, "PREFIX LABEL n=.. uniform=.. ... LDL+STL=.."
//     (sass::opcode_tally_lines); --brief: "PREFIX HGMMA=.. QGMMA=.. UTMALDG=.. LDL+STL=.."
//   attnlab-ncu-import sass-order LISTING REGEX
//     the pipeline order of each kernel whose mangled name matches REGEX: its copies, barriers,
//     GMMAs and their waits, MUFU.EX2s and branches in listing order (profiler/sass_order.hpp)
// Exit codes: 0 ok, 1 no kernel matches (sass-order), 2 bad arguments, 3 the record or listing
// cannot be read, or the record written.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/shapes.hpp"
#include "profiler/ncu_import.hpp"
#include "profiler/metric_groups.hpp"
#include "profiler/sass.hpp"
#include "profiler/sass_order.hpp"
#include "record/ab.hpp"
#include "record/record.hpp"
#include "record/result.hpp"

namespace {

using attnlab::ordered_json;

ordered_json read_record(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return ordered_json::parse(in);
}

// "SLUG=SECONDS" pairs -> map; throws std::invalid_argument on a malformed pair.
std::map<std::string, double> pairs(const std::vector<std::string>& items) {
  std::map<std::string, double> out;
  for (const auto& item : items) {
    const auto eq = item.rfind('=');
    char* end = nullptr;
    const double v = eq == std::string::npos ? 0 : std::strtod(item.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || end == item.c_str() + eq + 1 || *end != '\0')
      throw std::invalid_argument("expected SLUG=SECONDS, got '" + item + "'");
    out[item.substr(0, eq)] = v;
  }
  return out;
}

// ncu's cycle ratio and the lab's paired one agree within this, or the report says why.
constexpr double kNcuAgreementPct = 2.0;

attnlab::NcuLaunchTotals totals(const std::string& csv_path) {
  std::ifstream in(csv_path);
  if (!in) throw std::runtime_error("cannot read " + csv_path);
  try {
    return attnlab::ncu_launch_totals(attnlab::parse_ncu_csv(in));
  } catch (const std::exception& e) {
    throw std::runtime_error(csv_path + ": " + e.what());
  }
}

std::string fmt(const char* f, double v) {
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
std::string f4(double v) { return fmt("%.4f", v); }

// Prints ncu's ratios for the pair at one shape and the newest ok paired record's beside them.
void ab_compare(const std::string& a, const std::string& b, const std::string& shape,
                const std::string& a_csv, const std::string& b_csv, const std::string& records) {
  const auto ta = totals(a_csv), tb = totals(b_csv);
  const double ncu_time = tb.time_ns / ta.time_ns, ncu_cycles = tb.cycles / ta.cycles;
  std::cout << "profile-ab " << a << " vs " << b << " at " << shape << " (" << attnlab::kAbConvention
            << ")\n  ncu (--clock-control none --cache-control all), one launch each: time "
            << f4(ncu_time) << ", cycles " << f4(ncu_cycles) << " (A " << fmt("%.0f", ta.cycles)
            << " cycles in " << fmt("%.0f", ta.time_ns) << " ns over " << ta.kernels << " kernel(s), B "
            << fmt("%.0f", tb.cycles) << " cycles in " << fmt("%.0f", tb.time_ns) << " ns over "
            << tb.kernels << ")\n";
  const std::string pair = a + "-vs-" + b;
  const auto files = attnlab::find_ab_records(records);
  for (auto f = files.rbegin(); f != files.rend(); ++f) {
    if (f->parent_path().parent_path().filename() != pair) continue;
    const attnlab::AbRecord rec = attnlab::read_ab_file(*f);
    if (rec.status != "ok") continue;
    for (const auto& s : rec.results) {
      if (s.name != shape || !s.wall) continue;
      auto line = [](const char* what, const attnlab::AbRatio& r) {
        const auto& e = r.estimate;
        return std::string(what) + " " + f4(e.median) + " [" + f4(e.lo) + ", " + f4(e.hi) + "] " +
               attnlab::paired::verdict_name(e.verdict);
      };
      // Without a cycles ratio of its own (the lab's clock not measured per sample and per
      // kernel) ncu's cycle ratio stands beside the lab's wall ratio: the two agree where both
      // sides ran at one clock, as they do under ncu's locked clock.
      const attnlab::AbRatio& lab = s.cycles ? *s.cycles : *s.wall;
      const double diff = 100.0 * (ncu_cycles / lab.estimate.median - 1.0);
      std::cout << "  lab (paired A/B, " << s.pairs() << " pairs in " << s.blocks.size() << " blocks, "
                << f->string() << "): " << line("wall", *s.wall) << ", "
                << (s.cycles ? line("cycles", *s.cycles) : "cycles withheld: " + *s.cycles_withheld)
                << "\n  ncu cycles against the lab's " << (s.cycles ? "cycles" : "wall") << " ratio: "
                << fmt("%+.2f", diff) << "% (" << (std::fabs(diff) <= kNcuAgreementPct ? "within" : "NOT within") << " "
                << kNcuAgreementPct << "%)" << std::endl;
      return;
    }
  }
  std::cout << "  lab: no ok A/B record of " << pair << " at " << shape << " under " << records
            << "/ab (run make ab A=" << a << " B=" << b << " SHAPES=" << shape << ")" << std::endl;
}

// Every subcommand's options, as the command line fills them.
struct Options {
  std::string record_path;  // shapes, seed, merge
  std::string range_phase, range_spec;
  std::string ab_a, ab_b, ab_shape, ab_a_csv, ab_b_csv, ab_records = "results";
  std::vector<std::string> wall, baseline;  // merge: SLUG=SECONDS each
  attnlab::NcuProfileInfo info;             // merge
  std::string sass_listing, sass_prefix = "sass";
  bool sass_brief = false;
  std::string sass_kernels;  // sass-order: a regular expression of mangled names
};

struct Subcommands {
  CLI::App *metrics, *shapes, *seed, *range, *ab, *merge, *sass, *sass_order;
};

CLI::App* add_ab(CLI::App& app, Options& opt) {
  auto* ab = app.add_subcommand("ab", "ncu's cycle ratio of A's and B's launch beside the newest paired A/B record's");
  ab->add_option("--a", opt.ab_a, "phase A")->required();
  ab->add_option("--b", opt.ab_b, "phase B")->required();
  ab->add_option("--shape", opt.ab_shape, "shape name, as records write it (16x16x2048x64)")->required();
  ab->add_option("--a-csv", opt.ab_a_csv, "ncu --import <A's report> --csv --page raw --print-units base")->required();
  ab->add_option("--b-csv", opt.ab_b_csv, "the same for B")->required();
  ab->add_option("--records", opt.ab_records, "results root holding ab/<A>-vs-<B>/")->capture_default_str();
  return ab;
}

CLI::App* add_merge(CLI::App& app, Options& opt) {
  auto* merge = app.add_subcommand("merge", "import ncu-<slug>.csv files beside the record");
  merge->add_option("record", opt.record_path, "run.json")->required();
  merge->add_option("--wall", opt.wall, "SLUG=SECONDS: wall time of the ncu run of a shape");
  merge->add_option("--baseline-wall", opt.baseline, "SLUG=SECONDS: the same run without ncu");
  merge->add_option("--ncu-version", opt.info.ncu_version, "ncu --version");
  merge->add_option("--ncu-command", opt.info.ncu_command, "the ncu options used");
  return merge;
}

Subcommands add_subcommands(CLI::App& app, Options& opt) {
  app.require_subcommand(1);
  Subcommands sub{};
  sub.metrics = app.add_subcommand("metrics", "print every metric group's names, comma-separated");
  sub.shapes = app.add_subcommand("shapes", "print '<shape spec> <slug> <NVTX range>' per timed result");
  sub.shapes->add_option("record", opt.record_path, "run.json")->required();
  sub.seed = app.add_subcommand("seed", "print the run's input seed");
  sub.seed->add_option("record", opt.record_path, "run.json")->required();
  sub.range = app.add_subcommand("range", "print '<shape name> <slug> <NVTX range>' of a phase's shape spec");
  sub.range->add_option("phase", opt.range_phase, "registry id")->required();
  sub.range->add_option("spec", opt.range_spec, "shape spec, as --shape takes it")->required();
  sub.ab = add_ab(app, opt);
  sub.merge = add_merge(app, opt);
  sub.sass = app.add_subcommand("sass", "print the opcode tally of each kernel of a cuobjdump -sass listing");
  sub.sass->add_option("listing", opt.sass_listing, "cuobjdump -sass output")->required();
  sub.sass->add_option("prefix", opt.sass_prefix, "each line's first word (which build it is)")->capture_default_str();
  sub.sass->add_flag("--brief", opt.sass_brief, "only HGMMA, QGMMA, UTMALDG and LDL+STL, without the kernel's label");
  sub.sass_order = app.add_subcommand("sass-order", "print where each matching kernel's GMMAs, waits, barriers and EX2s come");
  sub.sass_order->add_option("listing", opt.sass_listing, "cuobjdump -sass output")->required();
  sub.sass_order->add_option("kernels", opt.sass_kernels, "regular expression searched in the mangled names")->required();
  return sub;
}

// The command line parsed, --wall's pairs read: nullopt to go on, else the exit code.
std::optional<int> parse(CLI::App& app, Options& opt, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    opt.info.wall_s = pairs(opt.wall);
    opt.info.baseline_wall_s = pairs(opt.baseline);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "attnlab-ncu-import: " << e.what() << std::endl;
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "attnlab-ncu-import: " << e.what() << std::endl;
    return 2;
  }
  return std::nullopt;
}

int print_metrics() {
  std::vector<std::string> all;
  for (const auto& g : attnlab::profiler::metric_groups()) all.emplace_back(g.name);
  std::string joined;
  for (const auto& n : attnlab::profiler::metric_names(all)) joined += (joined.empty() ? "" : ",") + n;
  std::cout << joined << std::endl;
  return 0;
}

int print_range(const Options& opt) {
  std::string name;
  try {
    name = attnlab::shape_name(attnlab::parse_shape(opt.range_spec));
  } catch (const std::invalid_argument& e) {
    std::cerr << "attnlab-ncu-import: " << e.what() << std::endl;
    return 2;
  }
  std::cout << name << " " << attnlab::profiler::shape_slug(name) << " "
            << attnlab::profiler::profile_range_name(opt.range_phase, name) << std::endl;
  return 0;
}

int print_shapes(const ordered_json& record) {
  const std::string phase = record.at("phase").get<std::string>();
  for (const auto& r : record.value("results", ordered_json::array()))
    if (r.contains("timing") && !r["timing"].is_null() && r.contains("name")) {
      const std::string name = r["name"].get<std::string>();
      std::cout << name << " " << attnlab::profiler::shape_slug(name) << " "
                << attnlab::profiler::profile_range_name(phase, name) << "\n";
    }
  return 0;
}

int merge(const Options& opt, const ordered_json& record) {
  const std::filesystem::path path(opt.record_path);
  attnlab::RunRecord run = attnlab::read_run_record(record);
  attnlab::merge_ncu(run, path.parent_path(), opt.info);
  attnlab::write_run_record(path, run);
  std::cout << attnlab::agreement_table(run);
  std::cout << "attnlab-ncu-import: ncu values added to " << path.string() << std::endl;
  return 0;
}

int print_sass_tally(const Options& opt) {
  std::ifstream in(opt.sass_listing);
  if (!in) throw std::runtime_error("cannot read " + opt.sass_listing);
  const std::string listing((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::cout << attnlab::sass::opcode_tally_lines(listing, opt.sass_prefix, opt.sass_brief) << std::flush;
  return 0;
}

int print_sass_order(const Options& opt) {
  std::regex kernels;
  try {
    kernels = std::regex(opt.sass_kernels);
  } catch (const std::regex_error& e) {
    std::cerr << "attnlab-ncu-import: not a regular expression: " << opt.sass_kernels << " (" << e.what() << ")\n";
    return 2;
  }
  std::ifstream in(opt.sass_listing);
  if (!in) throw std::runtime_error("cannot read " + opt.sass_listing);
  const std::string listing((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto orders = attnlab::sass::pipeline_order(listing, kernels);
  if (orders.empty()) {
    std::cerr << "attnlab-ncu-import: no kernel of " << opt.sass_listing << " matches " << opt.sass_kernels << "\n";
    return 1;
  }
  std::cout << "address, other instructions since the event before, count, event (its span where others interleave)\n"
            << attnlab::sass::pipeline_order_text(orders) << std::flush;
  return 0;
}

int run(const Subcommands& sub, const Options& opt) {
  if (sub.metrics->parsed()) return print_metrics();
  if (sub.sass_order->parsed()) return print_sass_order(opt);
  if (sub.sass->parsed()) return print_sass_tally(opt);
  if (sub.ab->parsed()) {
    ab_compare(opt.ab_a, opt.ab_b, opt.ab_shape, opt.ab_a_csv, opt.ab_b_csv, opt.ab_records);
    return 0;
  }
  if (sub.range->parsed()) return print_range(opt);
  const ordered_json record = read_record(opt.record_path);
  if (sub.shapes->parsed()) return print_shapes(record);
  if (sub.seed->parsed()) {
    std::cout << record.at("provenance").at("seed").get<std::uint64_t>() << std::endl;
    return 0;
  }
  return merge(opt, record);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnlab-ncu-import: Nsight Compute values into a run record (make profile), a SASS listing's opcode tally"};
  Options opt;
  const Subcommands sub = add_subcommands(app, opt);
  if (const auto code = parse(app, opt, argc, argv)) return *code;
  try {
    return run(sub, opt);
  } catch (const std::exception& e) {
    std::cerr << "attnlab-ncu-import: " << e.what() << std::endl;
    return 3;
  }
}
