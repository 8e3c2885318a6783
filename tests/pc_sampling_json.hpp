// Test helper shared by the CPU and report tests: a pc_sampling block as records wrote it
// before executed-instruction counts existed.
#pragma once

#include <nlohmann/json.hpp>

namespace attnlab::testing {

// Removes sass_counts and every executed / thread_executed key from the pc_sampling block `pc`.
inline void strip_sass_counts(nlohmann::ordered_json& pc) {
  pc.erase("sass_counts");
  for (auto& k : pc["kernels"]) {
    k.erase("executed");
    k.erase("thread_executed");
    for (auto& p : k["pcs"]) {
      p.erase("executed");
      p.erase("thread_executed");
    }
    for (auto& l : k["lines"]) l.erase("executed");
  }
}

}  // namespace attnlab::testing
