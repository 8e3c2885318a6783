// What one phase's experiment binary declares, and the shared harness that runs it.
// Exit codes: 0 every shape passed (and was timed), 1 a correctness check failed,
// 2 bad command line or unsupported shape, 3 environment problem (no GPU, CUPTI, output).
#pragma once

#include <string>
#include <vector>

#include "record/claims.hpp"

namespace attnlab {

struct Experiment {
  const char* phase;                        // registry id
  const char* question;                     // what this experiment is for, one line
  std::vector<std::string> default_shapes;  // shape specs run when --shape is not given
  std::vector<Claim> claims;                // hypotheses the report judges; may be empty
};

enum ExitCode { kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitEnvironment = 3 };

int run_experiment(const Experiment& exp, int argc, char** argv);

}  // namespace attnlab
