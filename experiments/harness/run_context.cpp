#include "experiments/harness/run_context.hpp"

#include <unistd.h>

#include <cstdlib>

#include "experiments/harness/build_info.hpp"

namespace attnlab {

RunContext run_context() {
  RunContext c;
  c.git = {build_info::kGitCommit, build_info::kGitDirty};
  char host[256] = "unknown";
  gethostname(host, sizeof host);
  host[sizeof host - 1] = '\0';
  c.host = host;
  if (const char* sweep = std::getenv("ATTNLAB_SWEEP_ID"); sweep && *sweep) c.sweep_id = sweep;
  return c;
}

std::string short_sha(const GitState& git) { return git.commit.substr(0, 7); }

}  // namespace attnlab
