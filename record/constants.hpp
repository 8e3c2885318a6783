// record/constants.json, the constants that writers (the C++ experiments, sdpa_baseline.py) and
// readers (the reports) share, compiled into the record library so that a reader needs no file
// at run time. tests/cpu/test_constants.cpp checks it against the C++ sources it names.
#pragma once

#include <string>
#include <vector>

#include "record/record.hpp"

namespace attnlab {

// The correctness rule the experiments apply (experiments/harness/reference.hpp: each checked row's rms
// error against its bound), as a record names it in correctness.rule; constants.json's
// correctness.rule is this (tests/cpu/test_constants.cpp).
inline constexpr const char* kRowRmsRule = "row_rms";
// The backward's (experiments/harness/backward_gate.hpp): the same rule per row of dQ, dK and dV,
// the record's figures those of the row closest to failing.
inline constexpr const char* kBackwardRowRmsRule = "backward_row_rms";

// The whole file, parsed once.
const ordered_json& shared_constants();

// The metric vocabulary (profiler/metric_groups.cpp): group names in order, the GH100
// stall reasons in their canonical order, and how a stall metric's name wraps its reason.
struct MetricVocabulary {
  std::vector<std::string> groups;
  std::vector<std::string> stall_reasons;  // as in the metric names: "long_scoreboard"
  std::string stall_prefix, stall_suffix;
};
const MetricVocabulary& metric_vocabulary();

}  // namespace attnlab
