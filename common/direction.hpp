// Which pass of attention a phase computes: the forward (O from Q, K and V) or the backward
// (dQ, dK and dV from Q, K, V, O, dO and the row LSE), and the work and traffic each implies.
#pragma once

#include <optional>
#include <string>

#include "common/shape.hpp"

namespace attnlab {

enum class Direction { kForward, kBackward };

inline const char* direction_name(Direction d) { return d == Direction::kBackward ? "backward" : "forward"; }

inline std::optional<Direction> parse_direction(const std::string& name) {
  if (name == "forward") return Direction::kForward;
  if (name == "backward") return Direction::kBackward;
  return std::nullopt;
}

// FLOPs by FlashAttention's convention: the backward counts 2.5 times the forward (five GEMMs
// of the forward's two sizes), as kernels/backward_problem.hpp's backward_flops, which
// tests/cpu/test_registry.cpp holds equal to this.
inline constexpr double kBackwardFlopsFactor = 2.5;
inline double pass_flops(const Shape& s, Direction d) {
  return d == Direction::kBackward ? kBackwardFlopsFactor * s.flops() : s.flops();
}

// The fewest DRAM bytes of the pass: the forward's Shape::min_bytes; the backward reads Q, K,
// V, O and dO (fp16) and the LSE (fp32) once and writes dQ, dK and dV (fp16) once.
inline double pass_min_bytes(const Shape& s, Direction d) {
  if (d == Direction::kForward) return s.min_bytes();
  const double rows = double(s.B) * s.H * s.S;
  return 2.0 * (3 * s.q_elems() + 2 * s.kv_elems()) + 4.0 * rows + 2.0 * (s.q_elems() + 2 * s.kv_elems());
}

}  // namespace attnlab
