// The command-line half of every binary's skeleton (run_main.hpp), CUDA-free so that
// attnlab-phases shares it: usage and environment errors, one line on stderr, CLI11 parsed with
// exit 2 for a bad argument, and the number checks CLI11 lacks.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace attnlab {

// A bad argument or a shape the phase or the machine cannot take: one line, exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A failure of the environment rather than of the phase: one line, exit 3.
struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// One line on stderr, "<program>: <msg>"; returns code.
int fail(const char* program, int code, const std::string& msg);
// Parses the command line: nullopt to go on, else the exit code (0 after --help, 2 with one
// line for a bad argument).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const char* program);

// CLI11's number checks let NaN and infinities through (NaN <= 0 is false) and parse "-1" into
// an unsigned option by wrapping; these refuse both with one line.
extern const CLI::Validator kPositiveFinite;
extern const CLI::Validator kNonNegativeInteger;

}  // namespace attnlab
