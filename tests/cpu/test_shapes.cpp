// Shape specifications as users type them.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "common/shapes.hpp"

using namespace attnlab;

TEST(Shapes, PresetsAreTheSeedShapes) {
  const Shape t = parse_shape("throughput");
  EXPECT_EQ(shape_name(t), "16x16x2048x64");
  EXPECT_EQ(shape_name(parse_shape("latency")), "1x8x512x64");
  EXPECT_TRUE(parse_shape("latency:causal").causal);
}

TEST(Shapes, ExplicitFormsAndModifiers) {
  const Shape a = parse_shape("4,8,256,128");
  EXPECT_EQ(a.B, 4);
  EXPECT_EQ(a.H, 8);
  EXPECT_EQ(a.H_kv, 8);
  EXPECT_EQ(a.S, 256);
  EXPECT_EQ(a.D, 128);
  EXPECT_FALSE(a.causal);
  const Shape b = parse_shape("2x32x100x64:causal:hkv=8");
  EXPECT_TRUE(b.causal);
  EXPECT_EQ(b.H_kv, 8);
  EXPECT_EQ(shape_name(b), "2x32x100x64:causal:hkv=8");
  EXPECT_EQ(shape_name(parse_shape(shape_name(b))), shape_name(b));
}

TEST(Shapes, MalformedSpecsSayWhy) {
  auto message = [](const std::string& spec) {
    try {
      parse_shape(spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("").find("empty shape"), std::string::npos);
  EXPECT_NE(message("1x2x3").find("is not BxHxSxD"), std::string::npos);
  EXPECT_NE(message("1x0x3x64").find("bad H '0'"), std::string::npos);
  EXPECT_NE(message("1x2x-3x64").find("bad S"), std::string::npos);
  EXPECT_NE(message("1x2x3x64x").find("is not BxHxSxD"), std::string::npos);
  EXPECT_NE(message("1x2x99999999999x64").find("bad S"), std::string::npos);
  EXPECT_NE(message("1x6x64x64:hkv=4").find("not a multiple of hkv"), std::string::npos);
  EXPECT_NE(message("1x2x64x64:fast").find("unknown modifier 'fast'"), std::string::npos);
  EXPECT_NE(message("huge").find("is not BxHxSxD"), std::string::npos);
}

TEST(Shapes, FlopsAndBytesFollowTheConvention) {
  const Shape t = parse_shape("throughput");
  EXPECT_DOUBLE_EQ(t.flops(), 4.0 * 16 * 16 * 2048.0 * 2048 * 64);
  EXPECT_DOUBLE_EQ(parse_shape("throughput:causal").flops(), t.flops() / 2);
  EXPECT_DOUBLE_EQ(t.min_bytes(), 4.0 * 16 * 16 * 2048 * 64 * 2);
  // Grouped KV heads read fewer K/V bytes.
  EXPECT_LT(parse_shape("16x16x2048x64:hkv=2").min_bytes(), t.min_bytes());
}

TEST(Shapes, NamedSetsExpandInPlace) {
  const std::vector<std::string> got = expand_shape_specs({"1x2x64x64", "@targets", "latency"});
  const std::vector<std::string> want = {"1x2x64x64", "16x16x2048x64", "16x16x2048x64:causal", "4x16x4096x128",
                                         "4x16x4096x128:causal", "latency"};
  EXPECT_EQ(got, want);
  // @sweep is the seed shapes, then the S sweep at D = 64 and at D = 128.
  std::vector<std::string> sweep = expand_shape_specs({"@seed", "@sweep-d64", "@sweep-d128"});
  EXPECT_EQ(expand_shape_specs({"@sweep"}), sweep);
  EXPECT_EQ(sweep.size(), 11u);
  // FlashAttention-3's grid: 16384 tokens and H*D = 2048 at every S, causal and not.
  const auto fa3 = expand_shape_specs({"@fa3-sweep"});
  ASSERT_EQ(fa3.size(), 20u);
  for (const auto& spec : fa3) {
    const Shape s = parse_shape(spec);
    EXPECT_EQ(s.B * s.S, 16384) << spec;
    EXPECT_EQ(s.H * s.D, 2048) << spec;
  }
  // The latency sweep covers what a latency question spans: at least 16 shapes, B 1 ... 4, H 8 ...
  // 32 with GQA at 8 KV heads and MQA at 1, S 128 ... 2048 with odd S, D 64 and 128, causal and
  // not, the latency shape among them.
  const auto lat = expand_shape_specs({"@latency-sweep"});
  EXPECT_GE(lat.size(), 16u);
  std::set<int> B, H, S, D, kv_groups;
  bool causal = false, full = false, odd = false, latency = false;
  for (const auto& spec : lat) {
    const Shape s = parse_shape(spec);
    EXPECT_TRUE(s.B >= 1 && s.B <= 4 && s.H >= 8 && s.H <= 32 && s.S >= 128 && s.S <= 2048) << spec;
    B.insert(s.B), H.insert(s.H), S.insert(s.S), D.insert(s.D);
    if (s.H_kv != s.H) kv_groups.insert(s.H_kv);
    (s.causal ? causal : full) = true;
    odd = odd || s.S % 2 == 1;
    latency = latency || shape_name(s) == shape_name(parse_shape("latency"));
  }
  EXPECT_TRUE(B.count(1) && B.count(4) && H.count(8) && H.count(32) && S.count(128) && S.count(2048));
  EXPECT_EQ(D, (std::set<int>{64, 128}));
  EXPECT_TRUE(kv_groups.count(8) && kv_groups.count(1)) << "GQA at 8 KV heads and MQA at 1";
  EXPECT_TRUE(causal && full && odd && latency);
  // What a change to phase 5 is A/B'd at: the targets first, then the latency shape and four
  // shapes of the sweeps, nine in all.
  const auto nr = expand_shape_specs({"@no-regression"});
  ASSERT_EQ(nr.size(), 9u);
  EXPECT_EQ(std::vector<std::string>(nr.begin(), nr.begin() + 4), expand_shape_specs({"@targets"}));
  EXPECT_EQ(nr[4], "latency");
  // Every spec of every set parses.
  for (const auto& set : shape_sets())
    for (const auto& spec : set.specs) EXPECT_NO_THROW(parse_shape(spec)) << set.name << ": " << spec;
  try {
    expand_shape_specs({"@nope"});
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown shape set '@nope'; expected one of @seed"), std::string::npos)
        << e.what();
  }
}
