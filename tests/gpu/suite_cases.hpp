// The GPU correctness suites' parameters, forward (tests/gpu/test_phases.cpp) and backward
// (tests/gpu/test_backward.cpp): every registered phase of one direction at every shape of
// tests/gpu_cases.hpp on every input distribution, with gtest's names for them. Shapes a phase
// refuses stay in the list and must be refusals tests/gpu_cases.hpp expects.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>
#include <vector>

#include "common/shapes.hpp"
#include "experiments/harness/reference.hpp"
#include "kernels/registry.hpp"
#include "tests/gpu_cases.hpp"

namespace attnlab::test {

struct Case {
  const Phase* phase;
  Shape shape;
  std::string spec;
  Inputs inputs;
};

inline void PrintTo(const Case& c, std::ostream* os) {
  *os << "phase " << c.phase->id << " " << c.spec << " " << inputs_name(c.inputs);
}

inline std::vector<Case> suite_cases(bool backward) {
  std::vector<Case> out;
  for (const auto& p : phases())
    if (is_backward(p) == backward)
      for (const auto& spec : gpu_suite_specs())
        for (Inputs d : {Inputs::kNormal, Inputs::kWide, Inputs::kNegative})
          out.push_back({&p, parse_shape(spec), spec, d});
  return out;
}

inline std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string n = std::string("phase_") + info.param.phase->id + "_" + shape_name(info.param.shape) +
                  "_" + inputs_name(info.param.inputs);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace attnlab::test
