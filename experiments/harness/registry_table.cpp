#include "experiments/harness/registry_table.hpp"

#include "kernels/registry.hpp"

namespace attnlab {

std::vector<PhaseTableEntry> phase_table() {
  std::vector<PhaseTableEntry> table;
  for (const auto& p : phases()) table.push_back({p.id, p.title, p.technique, p.required_cc, p.baseline});
  return table;
}

ordered_json phase_table_json() { return to_json(phase_table()); }

void write_phase_table(const std::filesystem::path& root) { write_phase_table_file(root, phase_table()); }

}  // namespace attnlab
