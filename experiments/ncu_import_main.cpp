// attnlab-ncu-import: the record-side steps of make profile (scripts/profile.sh).
//   attnlab-ncu-import metrics                 ncu's --metrics list: every group's metrics
//   attnlab-ncu-import shapes RUN.JSON         "<shape spec> <slug> <NVTX range>" per timed result
//   attnlab-ncu-import seed RUN.JSON           the run's input seed
//   attnlab-ncu-import merge RUN.JSON [--wall SLUG=S]... [--baseline-wall SLUG=S]...
//                      [--ncu-version V] [--ncu-command C]
//     adds ncu values from the ncu-<slug>.csv files beside RUN.JSON, rewrites it atomically
//     and prints the CUPTI-vs-ncu agreement table.
// Exit codes: 0 ok, 2 bad arguments, 3 the record cannot be read or written.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "experiments/ncu_import.hpp"
#include "profiler/metric_groups.hpp"
#include "record/record.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnlab-ncu-import: Nsight Compute values into a run record (make profile)"};
  app.require_subcommand(1);
  auto* metrics = app.add_subcommand("metrics", "print every metric group's names, comma-separated");
  std::string record_path;
  auto* shapes = app.add_subcommand("shapes", "print '<shape spec> <slug> <NVTX range>' per timed result");
  shapes->add_option("record", record_path, "run.json")->required();
  auto* seed = app.add_subcommand("seed", "print the run's input seed");
  seed->add_option("record", record_path, "run.json")->required();
  auto* merge = app.add_subcommand("merge", "import ncu-<slug>.csv files beside the record");
  merge->add_option("record", record_path, "run.json")->required();
  std::vector<std::string> wall, baseline;
  attnlab::NcuProfileInfo info;
  merge->add_option("--wall", wall, "SLUG=SECONDS: wall time of the ncu run of a shape");
  merge->add_option("--baseline-wall", baseline, "SLUG=SECONDS: the same run without ncu");
  merge->add_option("--ncu-version", info.ncu_version, "ncu --version");
  merge->add_option("--ncu-command", info.ncu_command, "the ncu options used");
  try {
    app.parse(argc, argv);
    info.wall_s = pairs(wall);
    info.baseline_wall_s = pairs(baseline);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "attnlab-ncu-import: " << e.what() << std::endl;
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "attnlab-ncu-import: " << e.what() << std::endl;
    return 2;
  }

  try {
    if (metrics->parsed()) {
      std::vector<std::string> all;
      for (const auto& g : attnlab::profiler::metric_groups()) all.emplace_back(g.name);
      std::string joined;
      for (const auto& n : attnlab::profiler::metric_names(all)) joined += (joined.empty() ? "" : ",") + n;
      std::cout << joined << std::endl;
      return 0;
    }
    ordered_json record = read_record(record_path);
    if (shapes->parsed()) {
      const std::string phase = record.at("phase").get<std::string>();
      for (const auto& r : record.value("results", ordered_json::array()))
        if (r.contains("timing") && !r["timing"].is_null() && r.contains("name")) {
          const std::string name = r["name"].get<std::string>();
          std::cout << name << " " << attnlab::profiler::shape_slug(name) << " "
                    << attnlab::profiler::profile_range_name(phase, name) << "\n";
        }
      return 0;
    }
    if (seed->parsed()) {
      std::cout << record.at("provenance").at("seed").get<std::uint64_t>() << std::endl;
      return 0;
    }
    const std::filesystem::path path(record_path);
    attnlab::merge_ncu(record, path.parent_path(), info);
    attnlab::write_json_atomically(path, record);
    std::cout << attnlab::agreement_table(record);
    std::cout << "attnlab-ncu-import: ncu values added to " << path.string() << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "attnlab-ncu-import: " << e.what() << std::endl;
    return 3;
  }
}
