// Shape specifications as users type them.
#include <gtest/gtest.h>

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
