// What every record's provenance says of where and from what it ran, host-only: the build's git
// state, the host and the sweep it belongs to. The harness and attnlab-sdpa-import share it.
#pragma once

#include <string>

#include "record/provenance.hpp"

namespace attnlab {

struct RunContext {
  GitState git;          // the build's (cmake/WriteBuildInfo.cmake, at every build)
  std::string host;      // gethostname
  std::string sweep_id;  // $ATTNLAB_SWEEP_ID (scripts/sweep.sh); empty when unset
};
RunContext run_context();

// The run directory's suffix: the commit's first 7 characters.
std::string short_sha(const GitState& git);

}  // namespace attnlab
