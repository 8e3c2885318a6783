#include "experiments/registry_table.hpp"

#include <fstream>

#include "kernels/registry.hpp"

namespace attnlab {

ordered_json phase_table_json() {
  ordered_json j;
  j["schema"] = kPhasesSchema;
  j["phases"] = ordered_json::array();
  for (const auto& p : phases())
    j["phases"].push_back({{"id", p.id},
                           {"title", p.title},
                           {"technique", p.technique},
                           {"required_cc", p.required_cc},
                           {"baseline", p.baseline}});
  return j;
}

void write_phase_table(const std::filesystem::path& root) {
  const ordered_json table = phase_table_json();
  const std::filesystem::path file = root / kPhasesFile;
  std::ifstream in(file);
  if (in) {
    const auto old = ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!old.is_discarded() && old == table) return;
  }
  write_json_atomically(file, table);
}

}  // namespace attnlab
