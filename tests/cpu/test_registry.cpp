// The phase registry: ids unique, every phase judges shapes with a reason, arch checks.
#include <gtest/gtest.h>

#include <set>

#include "experiments/shapes.hpp"
#include "kernels/registry.hpp"

using namespace attnlab;

TEST(Registry, IdsUniqueAndDescribed) {
  std::set<std::string> ids;
  for (const auto& p : phases()) {
    EXPECT_TRUE(ids.insert(p.id).second) << "duplicate phase id " << p.id;
    EXPECT_STRNE(p.title, "");
    EXPECT_STRNE(p.technique, "");
    EXPECT_NE(p.launch, nullptr);
    EXPECT_NE(p.can_implement, nullptr);
    EXPECT_EQ(find_phase(p.id), &p);
  }
  EXPECT_EQ(find_phase("no-such-phase"), nullptr);
  EXPECT_GE(phases().size(), 2u);
}

TEST(Registry, EveryPhaseAcceptsTheSeedShapesAndRefusesBadOnes) {
  for (const auto& p : phases()) {
    for (const char* ok : {"throughput", "latency", "1x1x1x64", "2x3x17x128:causal", "1x4x333x64:hkv=2"})
      EXPECT_FALSE(p.can_implement(parse_shape(ok))) << p.id << " refused " << ok;
    Shape bad = parse_shape("1x2x64x96");
    auto why = p.can_implement(bad);
    ASSERT_TRUE(why) << p.id << " accepted D=96";
    EXPECT_FALSE(why->empty());
    Shape bf = parse_shape("1x2x64x64");
    bf.dtype = DType::bf16;
    EXPECT_TRUE(p.can_implement(bf)) << p.id << " accepted bf16";
    Shape grouped = parse_shape("1x6x64x64");
    grouped.H_kv = 4;
    EXPECT_TRUE(p.can_implement(grouped)) << p.id << " accepted H % H_kv != 0";
  }
}

TEST(Registry, HopperOnlyPhasesRefuseOtherGpus) {
  const Phase hopper{"x", "t", "t", 90, nullptr, nullptr, nullptr};
  EXPECT_FALSE(device_refusal(hopper, 9, 0));
  auto why = device_refusal(hopper, 8, 0);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("sm_90a"), std::string::npos);
  EXPECT_TRUE(device_refusal(hopper, 10, 0));
  const Phase any{"y", "t", "t", 0, nullptr, nullptr, nullptr};
  EXPECT_FALSE(device_refusal(any, 8, 0));
}
