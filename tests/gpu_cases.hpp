// The GPU correctness suite's cases: every registered phase at every shape below, on both
// input distributions. A phase may refuse a shape only where kExpectedRefusals says so; the
// CPU test Registry.GpuSuiteRefusesOnlyTheExpectedShapes keeps that list exact, so a shape is
// never dropped from the suite silently.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::test {

inline std::vector<std::string> gpu_suite_specs() {
  std::vector<std::string> specs;
  for (int d : {64, 128}) {
    const std::string D = std::to_string(d);
    // The seed series' test shapes (kernels/SEEDS.md).
    for (const char* bhs : {"1x1x32", "1x2x64", "1x4x128", "4x8x256", "1x8x1024"})
      specs.push_back(std::string(bhs) + "x" + D);
    // Sequence lengths that are not multiples of any tile: every tail path runs.
    for (int s : {1, 17, 100, 333, 1000}) specs.push_back("2x3x" + std::to_string(s) + "x" + D);
    specs.push_back("1x8x200x" + D + ":hkv=2");  // grouped KV heads
    // The latency shape: d4 splits each query tile over a cluster of two blocks there (with two
    // key warpgroups per block at D = 64), a path no other shape here takes.
    specs.push_back("1x8x512x" + D);
  }
  // More work items than a 132-SM H100 has blocks for the persistent phases (phase 5 runs one
  // block per SM over items of 192 or 128 query rows), with key-tile counts that are not a
  // multiple of their K/V stages (4 at D = 64, 3 at D = 128): the ring positions, Q buffer
  // parity and consumer ping-pong then carry across items inside a block.
  specs.push_back("8x16x333x64");
  specs.push_back("8x16x400x128");
  // d4's other cluster splits at D = 64: four blocks of two key warpgroups on 128-key tiles
  // (one head of 1024), and two blocks of four key warpgroups on 64-key tiles, each taking its
  // first product in turn (two heads of 2048).
  specs.push_back("1x1x1024x64");
  specs.push_back("1x2x2048x64");
  std::vector<std::string> out;
  for (const auto& spec : specs)
    for (const char* mask : {"", ":causal"}) out.push_back(spec + mask);
  return out;
}

// (phase id, shape spec) pairs of the list above that the phase refuses, by design.
inline const std::set<std::pair<std::string, std::string>>& expected_refusals() {
  static const std::set<std::pair<std::string, std::string>> r = {
      // cuDNN's FP8 SDPA forward has no engine for a sequence of one (its heuristics offer none).
      {"cudnn_fp8", "2x3x1x64"}, {"cudnn_fp8", "2x3x1x64:causal"},
      {"cudnn_fp8", "2x3x1x128"}, {"cudnn_fp8", "2x3x1x128:causal"},
  };
  return r;
}

}  // namespace attnlab::test
