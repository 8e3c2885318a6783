// Shape presets and the parser of shape specifications.
#include "common/shapes.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace attnlab {
namespace {

Shape mha(int b, int h, int s, int d) {
  Shape x;
  x.B = b;
  x.H = x.H_kv = h;
  x.S = s;
  x.D = d;
  return x;
}

int parse_positive(const std::string& text, const std::string& what, const std::string& spec) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < 1 || v > std::numeric_limits<int>::max())
    throw std::invalid_argument("bad " + what + " '" + text + "' in shape '" + spec +
                                "': expected a positive integer");
  return int(v);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

}  // namespace

const std::vector<NamedShape>& shape_presets() {
  static const std::vector<NamedShape> presets = {
      {"throughput", mha(16, 16, 2048, 64)},
      {"latency", mha(1, 8, 512, 64)},
  };
  return presets;
}

const std::vector<ShapeSet>& shape_sets() {
  // The S sweep holds B*S (the tokens) fixed as S grows: 32768 at D = 64 and 16384 at D = 128,
  // with H = 16; 16x16x2048x64 is the throughput shape, so @sweep-d64 leaves it to @seed.
  // @fa3-sweep is FlashAttention-3's figure 5 grid: 16384 tokens and H*D = 2048 at S = 512 ...
  // 8192, causal and not. @targets: the throughput shape and the D = 128 shape, causal and not.
  // @latency-sweep: the family a latency question is about (short prompts, small batches, GQA
  // and MQA, odd S), the latency shape first; kernels/TARGETS.md holds what it is judged by.
  // @throughput-pair and @latency-pair: a seed shape causal and not, where the scripts time,
  // profile or trace a phase at its own seed shape with and without the mask. @pipe-check: the
  // shapes of a head dimension each where scripts/timeline-cost --ncu compares the timeline's
  // tensor pipe with Nsight Compute's.
  static const std::vector<ShapeSet> sets = [] {
    std::vector<ShapeSet> s = {
        {"seed", "the seed shapes", {"throughput", "latency"}},
        {"sweep-d64", "the S sweep at D = 64 (B*S = 32768, H = 16)",
         {"64x16x512x64", "32x16x1024x64", "8x16x4096x64", "4x16x8192x64"}},
        {"sweep-d128", "the S sweep at D = 128 (B*S = 16384, H = 16)",
         {"32x16x512x128", "16x16x1024x128", "8x16x2048x128", "4x16x4096x128", "2x16x8192x128"}},
        {"sweep", "@seed, @sweep-d64 and @sweep-d128", {}},
        {"fa3-sweep", "FlashAttention-3's grid: S = 512 ... 8192, B*S = 16384, H*D = 2048, D = 64 and 128, causal and not", {}},
        {"targets", "the throughput shape and 4x16x4096x128, causal and not",
         {"16x16x2048x64", "16x16x2048x64:causal", "4x16x4096x128", "4x16x4096x128:causal"}},
        {"latency-sweep",
         "short prompts and small batches: B 1 ... 4, H 8 ... 32 (GQA at 8 KV heads, MQA at 1), S 128 ... 2048 "
         "(odd S too), D 64 and 128, causal and not",
         {"1x8x512x64", "1x8x512x64:causal", "1x8x128x64", "2x8x512x64:causal", "1x16x777x64",
          "1x16x777x64:causal", "4x8x256x64", "1x8x2048x64:causal", "1x32x1024x64:hkv=8",
          "1x32x2048x64:causal:hkv=8", "2x16x1024x64:hkv=1", "1x8x512x128", "1x8x512x128:causal",
          "2x8x1000x128", "1x32x1024x128:hkv=8", "1x32x1024x128:causal:hkv=8", "4x16x333x128:causal",
          "1x24x1500x128:hkv=1", "3x8x2048x128:causal:hkv=1"}},
        {"no-regression",
         "what a change to phase 5 or its parts is A/B'd at against the kernel before it: @targets, the "
         "latency shape and shapes of the sweeps",
         {"latency", "32x16x512x128", "8x32x2048x64:causal", "2x16x8192x128", "16x32x1024x64"}},
        {"odd",
         "shapes the GPU suite does not use: tails of every kind, odd head counts, items split over keys, "
         "a consumer without rows in a head's last block",
         {"3x5x1000x64", "3x5x1000x64:causal", "1x2x320x64", "2x3x1600x64", "2x4x4096x64", "2x3x3900x64",
          "3x3x950x128", "1x2x257x128", "8x16x400x128", "1x2x4160x128", "2x3x4000x128", "2x3x4000x128:causal",
          "8x20x333x128:causal", "1x2x385x64", "4x7x2111x64", "2x72x200x64:causal", "2x4x4096x64:causal",
          "1x3x8100x64:causal", "1x2x513x64:causal", "1x9x2048x128", "2x70x2000x128", "1x133x2048x128",
          "3x50x2100x64"}},
        {"sanitizer",
         "short odd shapes for compute-sanitizer's racecheck and synccheck: tails, causal, one split item",
         {"1x2x1000x64:causal", "1x2x257x128", "1x2x385x64", "1x1x1600x64", "1x2x320x64", "1x1x1600x64:causal",
          "1x2x4160x128", "1x2x385x64:causal", "1x2x257x128:causal", "1x2x2049x64:causal", "1x9x2048x128"}},
        {"throughput-pair", "the throughput shape, causal and not", {"throughput", "16x16x2048x64:causal"}},
        {"latency-pair", "the latency shape, causal and not", {"latency", "1x8x512x64:causal"}},
        {"pipe-check", "where the timeline's tensor pipe is held against Nsight Compute's: the throughput shape and 4x16x4096x128",
         {"throughput", "4x16x4096x128"}},
    };
    for (int i : {0, 1, 2}) s[3].specs.insert(s[3].specs.end(), s[i].specs.begin(), s[i].specs.end());
    s[7].specs.insert(s[7].specs.begin(), s[5].specs.begin(), s[5].specs.end());  // @targets first
    for (int d : {64, 128})
      for (int S = 512; S <= 8192; S *= 2) {
        const std::string spec = std::to_string(16384 / S) + "x" + std::to_string(2048 / d) + "x" +
                                 std::to_string(S) + "x" + std::to_string(d);
        s[4].specs.push_back(spec);
        s[4].specs.push_back(spec + ":causal");
      }
    return s;
  }();
  return sets;
}

std::string shape_sets_help() {
  std::string out;
  for (const auto& s : shape_sets()) out += std::string(out.empty() ? "" : "; ") + "@" + s.name + ": " + s.what;
  return out;
}

std::vector<std::string> expand_shape_specs(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  for (const auto& spec : specs) {
    if (spec.empty() || spec.front() != '@') {
      out.push_back(spec);
      continue;
    }
    const ShapeSet* set = nullptr;
    std::string names;
    for (const auto& s : shape_sets()) {
      if (spec.substr(1) == s.name) set = &s;
      names += std::string(names.empty() ? "" : ", ") + "@" + s.name;
    }
    if (!set) throw std::invalid_argument("unknown shape set '" + spec + "'; expected one of " + names);
    out.insert(out.end(), set->specs.begin(), set->specs.end());
  }
  return out;
}

std::string shape_grammar() {
  std::string presets;
  for (const auto& p : shape_presets())
    presets += std::string(presets.empty() ? "" : ", ") + p.name + " = " + shape_name(p.shape);
  return "BxHxSxD or B,H,S,D, optionally followed by :causal and :hkv=N (grouped KV heads); "
         "presets: " + presets;
}

Shape parse_shape(const std::string& spec) {
  const auto parts = split(spec, ':');
  if (parts.empty() || parts[0].empty())
    throw std::invalid_argument("empty shape; expected " + shape_grammar());
  Shape s;
  bool preset = false;
  for (const auto& p : shape_presets())
    if (parts[0] == p.name) {
      s = p.shape;
      preset = true;
    }
  if (!preset) {
    const char sep = parts[0].find(',') != std::string::npos ? ',' : 'x';
    const auto dims = split(parts[0], sep);
    if (dims.size() != 4)
      throw std::invalid_argument("shape '" + spec + "' is not " + shape_grammar());
    s = mha(parse_positive(dims[0], "B", spec), parse_positive(dims[1], "H", spec),
            parse_positive(dims[2], "S", spec), parse_positive(dims[3], "D", spec));
  }
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& mod = parts[i];
    const std::string key = mod.substr(0, mod.find('='));
    for (std::size_t k = 1; k < i; ++k)
      if (parts[k].substr(0, parts[k].find('=')) == key)
        throw std::invalid_argument("modifier '" + key + "' repeated in shape '" + spec + "'");
    if (mod == "causal") {
      s.causal = true;
    } else if (mod.rfind("hkv=", 0) == 0) {
      s.H_kv = parse_positive(mod.substr(4), "H_kv", spec);
      if (s.H % s.H_kv != 0)
        throw std::invalid_argument("shape '" + spec + "': H (" + std::to_string(s.H) +
                                    ") is not a multiple of hkv (" + std::to_string(s.H_kv) + ")");
    } else {
      throw std::invalid_argument("unknown modifier '" + mod + "' in shape '" + spec +
                                  "'; expected :causal or :hkv=N");
    }
  }
  return s;
}

std::string shape_name(const Shape& s) {
  std::string n = std::to_string(s.B) + "x" + std::to_string(s.H) + "x" + std::to_string(s.S) +
                  "x" + std::to_string(s.D);
  if (s.causal) n += ":causal";
  if (s.H_kv != s.H) n += ":hkv=" + std::to_string(s.H_kv);
  return n;
}

}  // namespace attnlab
