// The registry as a file beside the records (record/record.hpp's phases.json), so that the
// report tool orders phases without linking the kernels.
#pragma once

#include <filesystem>

#include "record/record.hpp"

namespace attnlab {

// {"schema": "attnlab.phases/1", "phases": [{"id", "title", "technique", "required_cc", "baseline"}...]}
// in registry order.
ordered_json phase_table_json();

// Writes <root>/phases.json atomically when it is missing or differs from the registry.
void write_phase_table(const std::filesystem::path& root);

}  // namespace attnlab
