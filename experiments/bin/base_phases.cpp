// Phases 5 and d4 of another commit (ATTNLAB_BASE_COMMIT), and f8 and b5 where that commit has
// them, built from the tree that scripts/base-tree writes with their namespaces renamed (phase_5
// -> phase_5_base and so on, experiments/CMakeLists.txt), added to attnlab-ab-base's phases as
// 5-base, d4-base, f8-base and b5-base so that a change to a kernel is A/B'd against the kernel
// before it in one process.
// The base's kernel files compile against this tree's kernels/registry.hpp, so the base must
// declare its phases with this tree's function types: a base from before a change to them (the
// SM count that Phase::work_items takes, say) does not build; the commit before a kernel change,
// the base such an A/B wants, always does.
#include <deque>
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
#if defined(ATTNLAB_BASE_HAS_F8)
namespace phase_f8_base {
Phase declaration();
}
#endif
#if defined(ATTNLAB_BASE_HAS_B5)
namespace phase_b5_base {
Phase declaration();
}
#endif

namespace {

// A base phase under its id, titled with the base's commit. The ids and titles live as long as
// the process (Phase holds C strings).
Phase as_base(Phase p, const char* id) {
  static std::deque<std::string> titles;
  titles.push_back(std::string(p.title) + " at " + std::string(ATTNLAB_BASE_COMMIT).substr(0, 7));
  p.id = id;
  p.title = titles.back().c_str();
  p.claims.clear();  // its claims are the current phase's business
  return p;
}

std::vector<Phase> base_phases() {
  std::vector<Phase> out = {as_base(phase_5_base::declaration(), "5-base"),
                            as_base(phase_d4_base::declaration(), "d4-base")};
#if defined(ATTNLAB_BASE_HAS_F8)
  out.push_back(as_base(phase_f8_base::declaration(), "f8-base"));
#endif
#if defined(ATTNLAB_BASE_HAS_B5)
  out.push_back(as_base(phase_b5_base::declaration(), "b5-base"));
#endif
  return out;
}

[[maybe_unused]] const bool added = add_phase_source(&base_phases);

}  // namespace
}  // namespace attnlab
