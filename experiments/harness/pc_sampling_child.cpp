#include "experiments/harness/pc_sampling_child.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "record/fields.hpp"

extern char** environ;

namespace attnlab {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

void add_pc_sampling_child_options(CLI::App& app, PcSamplingChildOptions& opt) {
  app.add_option(kPcSamplingChildOption, opt.out_file,
                 "internal: sample the shape's launch with CUPTI PC sampling in this process and "
                 "write the result's JSON to this file; no run record")
      ->group("");
  app.add_option(kPcSamplingExpectedNsOption, opt.expected_ns,
                 "internal: the timed launch's duration [ns], which sets the sampling period")
      ->check(CLI::NonNegativeNumber)
      ->group("");
}

std::vector<std::string> pc_sampling_child_argv(const PcSamplingChildRequest& req) {
  char ns[64];
  std::snprintf(ns, sizeof ns, "%.17g", req.expected_ns);
  std::vector<std::string> argv{req.executable,
                                kPcSamplingChildOption, req.out_file,
                                kPcSamplingExpectedNsOption, ns,
                                "--shape", req.shape,
                                "--seed", std::to_string(req.seed),
                                "--inputs", req.inputs,
                                "--device", std::to_string(req.device)};
  if (!req.forward.empty()) argv.insert(argv.end(), {"--forward", req.forward});
  return argv;
}

namespace {

PcSamplingResult unavailable(std::string why) {
  PcSamplingResult r;
  r.available = false;
  r.reason = std::move(why);
  return r;
}

std::string errno_text(int code) { return std::strerror(code); }

}  // namespace

PcSamplingResult run_pc_sampling_child(const std::vector<std::string>& argv, const std::string& result_file) {
  if (argv.empty()) return unavailable("PC-sampling child process: no command");
  const std::string who = "the PC-sampling child process (" + argv.front() + " " + kPcSamplingChildOption + ")";
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  if (const int e = posix_spawn_file_actions_init(&actions); e != 0)
    return unavailable(who + ": posix_spawn_file_actions_init failed: " + errno_text(e));
  struct Actions {
    posix_spawn_file_actions_t* a;
    ~Actions() { posix_spawn_file_actions_destroy(a); }
  } guard{&actions};
  // Its normal console output is the parent's to give; its error lines (stderr) pass through.
  if (const int e = posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0); e != 0)
    return unavailable(who + ": posix_spawn_file_actions_addopen(/dev/null) failed: " + errno_text(e));
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = 0;
  if (const int e = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ); e != 0)
    return unavailable(who + " could not start: posix_spawn failed: " + errno_text(e));
  int status = 0;
  for (;;) {
    if (waitpid(pid, &status, 0) == pid) break;
    if (errno != EINTR) return unavailable(who + ": waitpid failed: " + errno_text(errno));
  }
  if (WIFSIGNALED(status))
    return unavailable(who + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                       strsignal(WTERMSIG(status)) + ")");
  if (!WIFEXITED(status)) return unavailable(who + " ended with wait status " + std::to_string(status));
  if (WEXITSTATUS(status) != 0)
    return unavailable(who + " exited with status " + std::to_string(WEXITSTATUS(status)) +
                       " (its error line, if any, is on stderr above)");
  std::ifstream in(result_file);
  if (!in) return unavailable(who + " exited 0 but wrote no result file " + result_file);
  std::stringstream text;
  text << in.rdbuf();
  ordered_json j;
  try {
    j = ordered_json::parse(text.str());
  } catch (const std::exception& e) {
    return unavailable(who + " wrote a malformed result file " + result_file + ": " + e.what());
  }
  try {
    return read_pc_sampling(j, "");  // the file holds the block itself, at the root
  } catch (const std::exception& e) {
    return unavailable(who + " wrote a result file " + result_file + " that is not a PC-sampling result: " + e.what());
  }
}

PcSamplingResult sample_in_child_process(PcSamplingChildRequest req) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = (tmp && *tmp ? std::string(tmp) : std::string("/tmp")) + "/attnlab-pcsampling-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    return unavailable("cannot create a temporary directory for the PC-sampling child (" + tmpl + "): " +
                       errno_text(errno));
  const fs::path dir(buf.data());
  req.out_file = (dir / "pc_sampling.json").string();
  PcSamplingResult r = run_pc_sampling_child(pc_sampling_child_argv(req), req.out_file);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) std::fprintf(stderr, "attnlab: cannot remove %s: %s\n", dir.c_str(), ec.message().c_str());
  return r;
}

std::string pc_sampling_child_method_note() {
  return "sampled in a child process of this executable (" + std::string(kPcSamplingChildOption) +
         ": same shape, seed and inputs, correctness gate passed again) in which PC sampling is the only "
         "CUPTI client, since in the timing process, after CUPTI kernel activity tracing and the "
         "static-facts callback subscriber, CUPTI gave every sample as a non-user-kernel sample "
         "without PCs (H100)";
}

}  // namespace attnlab
