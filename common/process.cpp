#include "common/process.hpp"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

extern char** environ;

namespace attnlab {

namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::string> find_tool(const std::string& name) {
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest = path;
    while (true) {
      const auto colon = rest.find(':');
      std::string dir(rest.substr(0, colon));
      if (dir.empty()) dir = ".";
      const std::string candidate = dir + "/" + name;
      if (executable_file(candidate)) return candidate;
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
#ifdef ATTNLAB_CUDA_BIN_DIR
  // The toolkit that compiled this binary: its tools read its cubins.
  const std::string built_with = std::string(ATTNLAB_CUDA_BIN_DIR) + "/" + name;
  if (executable_file(built_with)) return built_with;
#endif
  return std::nullopt;
}

int run_capture(const std::vector<std::string>& argv, std::string& out, const std::string& cwd) {
  int fds[2];
  if (::pipe(fds) != 0) {
    out = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  if (!cwd.empty()) {
    if (const int e = posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str()); e != 0) {
      posix_spawn_file_actions_destroy(&actions);
      ::close(fds[0]);
      ::close(fds[1]);
      out = "cannot run " + argv[0] + " in " + cwd + ": " + std::strerror(e);
      return -1;
    }
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    out = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) out.append(buf, std::size_t(n));
    else if (n == 0 || errno != EINTR) break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace attnlab
