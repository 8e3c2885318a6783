// The registry as a file beside the records (record/record.hpp's phases.json), so that the
// report tool orders phases without linking the kernels.
#pragma once

#include <filesystem>
#include <vector>

#include "record/record.hpp"

namespace attnlab {

// The registry's phases in its order, as the table holds them (record/record.hpp maps it).
std::vector<PhaseTableEntry> phase_table();
// Its JSON (attnlab.phases/1), as phases.json holds it.
ordered_json phase_table_json();

// Writes <root>/phases.json atomically when it is missing or differs from the registry.
void write_phase_table(const std::filesystem::path& root);

}  // namespace attnlab
