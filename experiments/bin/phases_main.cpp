// attnlab-phases: prints the phase registry (for `make help`; --json: the phase table the
// experiments write beside their records), or checks one phase id and names the valid ones
// when it is unknown (for `make experiment`); --shapes prints shape specs with each named set
// expanded (for scripts/sweep.sh, so that the sets are written once, in common/shapes.cpp);
// --instrumented prints the ids of the phases with timeline stamps (for scripts that trace
// every one of them); --default-shapes prints the shapes the named phases run by default (for a
// script that times a baseline where the phases ran, without writing their shapes again).
#include <algorithm>
#include <cstring>
#include <iomanip>
#include <iostream>

#include <CLI/CLI.hpp>

#include "common/shapes.hpp"
#include "experiments/harness/command_line.hpp"
#include "experiments/harness/experiment.hpp"
#include "experiments/harness/registry_table.hpp"
#include "kernels/registry.hpp"

int main(int argc, char** argv) {
  CLI::App app{"attnlab phase registry"};
  std::string check;
  bool ids = false;
  app.add_option("--check", check, "exit 0 if PHASE is registered, else name the valid ones")
      ->type_name("PHASE");
  app.add_flag("--ids", ids, "print the phase ids only, one per line");
  bool instrumented = false;
  app.add_flag("--instrumented", instrumented,
               "print the ids of the phases with timeline stamps (attnlab-timeline's), one per line");
  bool json = false;
  app.add_flag("--json", json, "print the phase table (phases.json, attnlab.phases/1)");
  std::vector<std::string> shapes;
  using namespace attnlab;
  app.add_option("--shapes", shapes,
                 "print these shape specs one per line, each named set expanded (" + shape_sets_help() + ")")
      ->type_name("SPEC")->expected(1, -1);
  std::vector<std::string> defaults_of;
  app.add_option("--default-shapes", defaults_of,
                 "print the default shapes of these phases one per line, each named set expanded, "
                 "each shape once in first-seen order")
      ->type_name("PHASE")->expected(1, -1);
  if (const auto code = parse_command_line(app, argc, argv, "attnlab-phases")) return *code;
  if (!defaults_of.empty()) {
    std::vector<std::string> specs;
    for (const auto& id : defaults_of) {
      const Phase* p = find_phase(id);
      if (!p) return fail("attnlab", kExitUsage, "unknown phase '" + id + "'; valid phases: " + phase_ids_joined());
      for (const auto& spec : expand_shape_specs(p->default_shapes))
        if (std::find(specs.begin(), specs.end(), spec) == specs.end()) specs.push_back(spec);
    }
    for (const auto& spec : specs) std::cout << spec << "\n";
    return kExitOk;
  }
  if (!shapes.empty()) {
    try {
      for (const auto& spec : expand_shape_specs(shapes)) std::cout << spec << "\n";
    } catch (const std::invalid_argument& e) {
      return fail("attnlab", kExitUsage, e.what());
    }
    return kExitOk;
  }
  if (!check.empty()) {
    if (find_phase(check)) return kExitOk;
    return fail("attnlab", kExitUsage, "unknown phase '" + check + "'; valid phases: " + phase_ids_joined());
  }
  if (instrumented) {
    const std::string ids_text = instrumented_phase_ids("\n");
    if (!ids_text.empty()) std::cout << ids_text << "\n";
    return kExitOk;
  }
  if (json) {
    std::cout << phase_table_listing(phase_table()) << "\n";
    return kExitOk;
  }
  // Columns as wide as the longest id and title, plus a space.
  std::size_t id_width = 0, title_width = 0;
  for (const auto& p : phases()) {
    id_width = std::max(id_width, std::strlen(p.id) + 1);
    title_width = std::max(title_width, std::strlen(p.title) + 1);
  }
  for (const auto& p : phases()) {
    if (ids) {
      std::cout << p.id << "\n";
      continue;
    }
    std::cout << "  " << std::left << std::setw(int(id_width)) << p.id << std::setw(int(title_width)) << p.title
              << p.technique << (p.required_cc == 90 ? " [sm_90a only]" : "")
              << (p.baseline ? " [baseline]" : "") << (is_backward(p) ? " [backward]" : "") << "\n";
  }
  return kExitOk;
}
