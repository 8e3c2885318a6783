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

// Named shape sets, given on the command line as "@name" (`--shape @sweep-d64`), so that a set
// the tools and scripts share is written once (record/constants.json holds the same lists for
// the SDPA baseline; tests/cpu/test_constants.cpp keeps the two equal).
struct ShapeSet {
  const char* name;  // without the "@"
  const char* what;  // what the set is for, for --help
  std::vector<std::string> specs;
};
const std::vector<ShapeSet>& shape_sets();
// "@seed: the seed shapes; @sweep-d64: ...", for the --help of options that take several shapes.
std::string shape_sets_help();
// Each "@name" replaced by its set's specs, in order; every other spec kept as it is. Throws
// std::invalid_argument naming the sets on an unknown name.
std::vector<std::string> expand_shape_specs(const std::vector<std::string>& specs);

// Throws std::invalid_argument with a one-line reason on a malformed spec.
Shape parse_shape(const std::string& spec);
// "16x16x2048x64", "1x8x512x64:causal", "4x32x1024x128:hkv=8".
std::string shape_name(const Shape& s);
// One-line description of the accepted forms, for --help and error messages.
std::string shape_grammar();

}  // namespace attnlab
