// The progression's shared pieces (attnlab-report progression): its rows, their rates and
// marks, and its charts' families. Internal to the report tool: render_progression.cpp (table,
// dots) and progression_lines.cpp (TFLOPS against S) include it, nothing outside reports/.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/shapes.hpp"
#include "reports/plots.hpp"
#include "reports/published.hpp"
#include "reports/render.hpp"

namespace attnlab::report::detail {

// One phase's row: for every shape, the newest ok record of the phase that timed it, so a
// newer record at a few shapes does not hide an older sweep's other shapes.
struct PhaseRow {
  std::string id;
  const Run* newest = nullptr;           // names the row; its untimed shapes say why
  std::vector<const Run*> runs;          // those that supply a figure, newest first
  std::map<std::string, const Result*> at;  // shape name -> its result
  std::map<std::string, const Run*> from;   // shape name -> the record it came from

  const Result* result(const std::string& name) const {
    auto it = at.find(name);
    return it == at.end() ? nullptr : it->second;
  }
  // "a", "b", ... for runs[i], when more than one run supplies figures; "" otherwise.
  std::string letter(std::size_t i) const {
    return runs.size() < 2 ? "" : std::string(1, char('a' + i));
  }
  // The letter of the run that supplied the figure at shape `name`.
  std::string tag(const std::string& name) const {
    return letter(std::size_t(std::find(runs.begin(), runs.end(), from.at(name)) - runs.begin()));
  }
};

using ShapeKey = std::tuple<bool, int, int, int, int, int>;  // causal, D, S, B, H, H_kv
inline ShapeKey key_of(const Shape& s) { return {s.causal, s.D, s.S, s.B, s.H, s.H_kv}; }

// TFLOPS at the median and at p90 / p10 of the headline regime's device time, and what that
// time is.
struct Rate {
  double mid, lo, hi;
  TimeBasis basis;
};
Rate rate(const Result& r);

// Filled for busy time, hollow where the record gives the span only; the shape says where
// the figure was measured: circle on the board and session of most figures, triangle on
// another board (§), square in another session on it (¶), so no chart passes figures of two
// boards for one.
std::string point_type(const Rate& x, const std::string& mark);
inline constexpr const char* kPointKey =
    "filled: busy time, hollow: span only; circle: the board and session of most figures, "
    "triangle: another board (§), square: another session on it (¶)";

// Where most figures of the table were measured: the GPU (uuid) and, on it, the session
// (session_key) that supply the most figures; ties go to the newer record.
struct Reference {
  std::string uuid, session;
};

// "§" for a record from another GPU than the reference, "¶" for another session on it.
std::string provenance_marker(const Run& r, const Reference& ref, const std::vector<Run>& runs);

// A phase's families, by head dimension: same D, causality, GQA and tokens per head (B*S),
// so a line's steps change S alone in cost per token. A family of one point (the latency
// shape beside the sweep) gets a panel of the chart by phase.
using FamilyKey = std::tuple<int, bool, bool, long long>;  // D, causal, GQA, B*S
std::map<FamilyKey, std::vector<const Result*>> families_of(const PhaseRow& pr);

// Lines: TFLOPS against S, one panel per head dimension, each line labelled at its end, with
// the published series (where given) of each panel's head dimension and mask at the lines' S as
// dashed black lines, complete series only; nullopt when no family has two shapes.
std::optional<Plot> lines_plot(const std::vector<PhaseRow>& chosen, const std::string& origin,
                               const Reference& ref, const std::vector<Run>& runs,
                               const Published* published = nullptr);

}  // namespace attnlab::report::detail
