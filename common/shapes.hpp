// Shape specifications on the command line: presets ("throughput", "latency") and explicit
// "BxHxSxD" (or "B,H,S,D") with optional ":causal" and ":hkv=N" suffixes.
#pragma once

#include <string>
#include <vector>

#include "common/shape.hpp"

namespace attnlab {

// The seed series' shapes (kernels/SEEDS.md): every throughput number was taken at the
// first, the "faster than SDPA" target was the second.
struct NamedShape {
  const char* name;
  Shape shape;
};
const std::vector<NamedShape>& shape_presets();

// Throws std::invalid_argument with a one-line reason on a malformed spec.
Shape parse_shape(const std::string& spec);
// "16x16x2048x64", "1x8x512x64:causal", "4x32x1024x128:hkv=8".
std::string shape_name(const Shape& s);
// One-line description of the accepted forms, for --help and error messages.
std::string shape_grammar();

}  // namespace attnlab
