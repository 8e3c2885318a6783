// Running the CUDA Toolkit's command-line tools from a run (cuobjdump for the SASS listings and
// the cubins of PC sampling): finding them, and running one with an argv (no shell).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// `name` on PATH, else in the bin directory of the CUDA Toolkit that built this binary (when
// the build recorded one); nullopt when neither has an executable file of that name.
std::optional<std::string> find_tool(const std::string& name);

// Runs argv[0] (a path) with stdout and stderr into `out`, in directory `cwd` when it is not
// empty; returns the exit status (128 + the signal for a killed one), or -1 with `out` holding
// the reason when it could not be started.
int run_capture(const std::vector<std::string>& argv, std::string& out, const std::string& cwd = "");

}  // namespace attnlab
