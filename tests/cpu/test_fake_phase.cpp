// Adding a phase is one kernel file: the fake phases of tests/fake_phases/, built into a
// registry of their own by the function that builds kernels/' (cmake/AttnlabPhases.cmake),
// appear in the registry, the phase table the records keep, the ids the experiment binaries
// are built from and the test lists, though nothing but their own files names them.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/shapes.hpp"
#include "experiments/harness/registry_table.hpp"
#include "kernels/registry.hpp"
#include "tests/phase_lists.hpp"

using namespace attnlab;

TEST(FakePhase, OneDeclarationPutsItInTheRegistry) {
  const Phase* zz = find_phase("zz");
  ASSERT_NE(zz, nullptr);
  EXPECT_STREQ(zz->title, "fake");
  EXPECT_EQ(zz->required_cc, 90);
  EXPECT_FALSE(zz->baseline);
  EXPECT_NE(zz->launch, nullptr);
  EXPECT_FALSE(zz->can_implement(parse_shape("latency")));
  EXPECT_EQ(zz->question, "Does one declaration put a phase everywhere?");
  EXPECT_EQ(zz->default_shapes, std::vector<std::string>{"latency"});
  ASSERT_EQ(zz->claims.size(), 1u);
  EXPECT_EQ(zz->claims[0].id, "faster-than-zbase-latency");
  EXPECT_EQ(zz->claims[0].other_phase, "zbase");
  // Declared first (its file sorts first), listed last: baselines follow the phases of ours.
  ASSERT_EQ(phases().size(), 2u);
  EXPECT_STREQ(phases()[0].id, "zz");
  EXPECT_STREQ(phases()[1].id, "zbase");
  EXPECT_TRUE(phases()[1].baseline);
  EXPECT_EQ(phase_ids_joined(), "zz, zbase");
}

// An instrumented phase is a property of its declaration: the stamped launch and the warps'
// roles it gives make it one of the timeline tool's phases (attnlab-timeline lists and accepts
// instrumented_phase_ids()), with nothing named elsewhere.
TEST(FakePhase, ItsDeclarationMakesItInstrumented) {
  const Phase* zz = find_phase("zz");
  ASSERT_NE(zz, nullptr);
  EXPECT_NE(zz->launch_timeline, nullptr);
  ASSERT_NE(zz->warp_role, nullptr);
  EXPECT_EQ(zz->warp_role(0), "the fake warp");
  const Phase* zbase = find_phase("zbase");
  ASSERT_NE(zbase, nullptr);
  EXPECT_EQ(zbase->launch_timeline, nullptr);
  EXPECT_EQ(instrumented_phase_ids(), "zz");
}

TEST(FakePhase, TheRecordsPhaseTableListsIt) {
  std::vector<std::string> ids;
  const ordered_json table = phase_table_json();
  for (const auto& p : table["phases"]) ids.push_back(p["id"].get<std::string>());
  EXPECT_EQ(ids, (std::vector<std::string>{"zz", "zbase"}));
}

// ATTNLAB_FAKE_PHASE_IDS: the ids CMake read from the declarations (comma-separated), the list
// that the real build makes one experiment binary (attnlab-phase-<id>) for.
TEST(FakePhase, TheExperimentBinariesListHasIt) {
  std::set<std::string> cmake_ids;
  std::istringstream in(ATTNLAB_FAKE_PHASE_IDS);
  for (std::string id; std::getline(in, id, ',');) cmake_ids.insert(id);
  std::set<std::string> registry_ids;
  for (const auto& p : phases()) registry_ids.insert(p.id);
  EXPECT_EQ(cmake_ids, registry_ids);
}

TEST(FakePhase, TheTestListsHaveIt) {
  EXPECT_EQ(test::sm90a_phases_by_source(ATTNLAB_FAKE_PHASES_DIR), std::set<std::string>{"zz"});
  EXPECT_TRUE(device_refusal(*find_phase("zz"), 8, 9));
}
