// Phases 5 and d4 of another commit (ATTNLAB_BASE_COMMIT), built from the tree that
// scripts/base-tree writes with their namespaces renamed (phase_5 -> phase_5_base, phase_d4 ->
// phase_d4_base, experiments/CMakeLists.txt), added to attnlab-ab-base's phases as 5-base and
// d4-base so that a change to a kernel is A/B'd against the kernel before it in one process.
// The base's kernel files compile against this tree's kernels/registry.hpp, so the base must
// declare its phases with this tree's function types: a base from before a change to them (the
// SM count that Phase::work_items takes, say) does not build; the commit before a kernel change,
// the base such an A/B wants, always does.
#include <string>
#include <vector>

#include "kernels/registry.hpp"

namespace attnlab {
namespace phase_5_base {
Phase declaration();
}
namespace phase_d4_base {
Phase declaration();
}

namespace {

// The ids and titles live as long as the process (Phase holds C strings).
const std::string g_ids[2] = {"5-base", "d4-base"};
std::string g_titles[2];

std::vector<Phase> base_phases() {
  std::vector<Phase> out = {phase_5_base::declaration(), phase_d4_base::declaration()};
  for (std::size_t i = 0; i < out.size(); ++i) {
    g_titles[i] = std::string(out[i].title) + " at " + std::string(ATTNLAB_BASE_COMMIT).substr(0, 7);
    out[i].id = g_ids[i].c_str();
    out[i].title = g_titles[i].c_str();
    out[i].claims.clear();  // its claims are the current phase's business
  }
  return out;
}

[[maybe_unused]] const bool added = add_phase_source(&base_phases);

}  // namespace
}  // namespace attnlab
