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
