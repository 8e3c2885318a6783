// Lists of phases the tests iterate, derived from the phases' kernel files, never typed: a phase
// added to kernels/ joins them with nothing else touched (tests/cpu/test_fake_phase.cpp).
#pragma once

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace attnlab::test {

// The ids a phase file declares (its ATTNLAB_PHASE lines, as cmake/AttnlabPhases.cmake reads them).
inline std::set<std::string> declared_ids(const std::string& text) {
  std::set<std::string> ids;
  std::istringstream lines(text);
  const std::string macro = "ATTNLAB_PHASE(";
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(macro, 0) == 0) ids.insert(line.substr(macro.size(), line.find(')') - macro.size()));
  return ids;
}

// The phases whose kernel file uses the Hopper helpers (common/hopper.cuh: wgmma, TMA,
// mbarriers, setmaxnreg, clusters), which exist only in sm_90a code: their kernels trap on any
// other GPU, so their declarations must say required_cc = 90.
inline std::set<std::string> sm90a_phases_by_source(const std::filesystem::path& dir) {
  std::set<std::string> ids;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("phase_", 0) != 0) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find("#include \"common/hopper.cuh\"") == std::string::npos) continue;
    for (const auto& id : declared_ids(text.str())) ids.insert(id);
  }
  return ids;
}

}  // namespace attnlab::test
