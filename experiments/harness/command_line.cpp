// The command-line half of every binary's skeleton (command_line.hpp).
#include "experiments/harness/command_line.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "experiments/harness/experiment.hpp"

namespace attnlab {

int fail(const char* program, int code, const std::string& msg) {
  std::cerr << program << ": " << msg << std::endl;
  return code;
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const char* program) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(program, kExitUsage, e.what());
  }
  return std::nullopt;
}

const CLI::Validator kPositiveFinite(
    [](std::string& in) -> std::string {
      char* end = nullptr;
      const double v = std::strtod(in.c_str(), &end);
      if (end == in.c_str() || *end != '\0' || !std::isfinite(v) || v <= 0)
        return "must be a positive finite number, got '" + in + "'";
      return "";
    },
    "POSITIVE");
const CLI::Validator kNonNegativeInteger(
    [](std::string& in) -> std::string {
      if (in.empty() || in.find_first_not_of("0123456789") != std::string::npos)
        return "must be a non-negative integer, got '" + in + "'";
      return "";
    },
    "UINT");

}  // namespace attnlab
