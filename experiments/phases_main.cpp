// attnlab-phases: prints the phase registry (for `make help`; --json: the phase table the
// experiments write beside their records), or checks one phase id and names the valid ones
// when it is unknown (for `make experiment`).
#include <iomanip>
#include <iostream>

#include <CLI/CLI.hpp>

#include "experiments/command_line.hpp"
#include "experiments/experiment.hpp"
#include "experiments/registry_table.hpp"
#include "kernels/registry.hpp"

int main(int argc, char** argv) {
  CLI::App app{"attnlab phase registry"};
  std::string check;
  bool ids = false;
  app.add_option("--check", check, "exit 0 if PHASE is registered, else name the valid ones")
      ->type_name("PHASE");
  app.add_flag("--ids", ids, "print the phase ids only, one per line");
  bool json = false;
  app.add_flag("--json", json, "print the phase table (phases.json, attnlab.phases/1)");
  using namespace attnlab;
  if (const auto code = parse_command_line(app, argc, argv, "attnlab-phases")) return *code;
  if (!check.empty()) {
    if (find_phase(check)) return kExitOk;
    return fail("attnlab", kExitUsage, "unknown phase '" + check + "'; valid phases: " + phase_ids_joined());
  }
  if (json) {
    std::cout << phase_table_listing(phase_table()) << "\n";
    return kExitOk;
  }
  for (const auto& p : phases()) {
    if (ids) {
      std::cout << p.id << "\n";
      continue;
    }
    std::cout << "  " << std::left << std::setw(6) << p.id << std::setw(16) << p.title
              << p.technique << (p.required_cc == 90 ? " [sm_90a only]" : "")
              << (p.baseline ? " [baseline]" : "") << "\n";
  }
  return kExitOk;
}
