// ctest's gate in front of every gpu-labelled GoogleTest (the test binaries'
// CROSSCOMPILING_EMULATOR): where no NVIDIA driver or GPU exists it exits 77 (skipped) in
// milliseconds instead of letting each of over a thousand tests load CUDA, CUPTI and the
// kernels only to find none; elsewhere, and for --gtest_list_tests (discovery), it execs the
// test unchanged. It links nothing of CUDA: libcuda is dlopened, as the driver is optional.
//   attnlab-gpu-gate <test binary> [args...]
#include <dlfcn.h>
#include <glob.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

constexpr int kSkip = 77;  // ctest SKIP_RETURN_CODE of the gpu tests

int skip(const std::string& why) {
  std::printf("no NVIDIA driver/GPU found: skipped (%s)\n", why.c_str());
  return kSkip;
}

bool lists_tests(int argc, char** argv) {
  for (int i = 2; i < argc; ++i)
    if (std::strcmp(argv[i], "--gtest_list_tests") == 0) return true;
  return false;
}

// GPU device nodes: with them the test runs and judges for itself, so a GPU machine pays no
// driver load or cuInit per test here. Without them (no driver; a container with the driver's
// libraries but no device; WSL, which has none), the driver is asked.
bool has_device_nodes() {
  glob_t g{};
  const bool found = glob("/dev/nvidia[0-9]*", 0, nullptr, &g) == 0 && g.gl_pathc > 0;
  globfree(&g);
  return found;
}

// Empty when the driver reports at least one device, else why not.
std::string driver_refusal() {
  if (has_device_nodes()) return "";
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) return dlerror();
  using Init = int (*)(unsigned);
  using Count = int (*)(int*);
  const auto init = reinterpret_cast<Init>(dlsym(cuda, "cuInit"));
  const auto count_fn = reinterpret_cast<Count>(dlsym(cuda, "cuDeviceGetCount"));
  if (!init || !count_fn) return "libcuda.so.1 lacks cuInit or cuDeviceGetCount";
  if (const int e = init(0); e != 0) return "cuInit returned CUresult " + std::to_string(e);
  int count = 0;
  if (const int e = count_fn(&count); e != 0)
    return "cuDeviceGetCount returned CUresult " + std::to_string(e);
  return count > 0 ? "" : "the driver reports no device";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: attnlab-gpu-gate <test binary> [args...]\n");
    return 2;
  }
  if (!lists_tests(argc, argv))
    if (const std::string why = driver_refusal(); !why.empty()) return skip(why);
  execv(argv[1], argv + 1);
  std::fprintf(stderr, "attnlab-gpu-gate: cannot run %s: %s\n", argv[1], std::strerror(errno));
  return 3;
}
