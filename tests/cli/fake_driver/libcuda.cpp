// A stand-in for the NVIDIA driver's libcuda.so.1, for scripts/gpu-check's tests on machines
// without a GPU: cuInit and cuDeviceGetCount report the devices FAKE_CUDA_DEVICES names (a
// count; 0 makes cuInit fail with CUDA_ERROR_NO_DEVICE, as the real driver does).
#include <cstdlib>

namespace {
constexpr int kSuccess = 0;
constexpr int kNoDevice = 100;  // CUDA_ERROR_NO_DEVICE
int devices() {
  const char* n = std::getenv("FAKE_CUDA_DEVICES");
  return n ? std::atoi(n) : 0;
}
}  // namespace

extern "C" {
int cuInit(unsigned) { return devices() > 0 ? kSuccess : kNoDevice; }
int cuDeviceGetCount(int* count) {
  *count = devices();
  return kSuccess;
}
int cuGetErrorName(int error, const char** name) {
  if (error != kNoDevice) return 1;  // CUDA_ERROR_INVALID_VALUE
  *name = "CUDA_ERROR_NO_DEVICE";
  return kSuccess;
}
}
