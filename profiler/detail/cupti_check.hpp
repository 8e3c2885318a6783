// Error checking for CUPTI calls: every failure throws with the file, line, the stringified
// call and CUPTI's own name and description of the result, like ATTNLAB_CUDA_CHECK does.
#pragma once

#include <cupti.h>

#include <stdexcept>
#include <string>

namespace attnlab {

class CuptiError : public std::runtime_error {
 public:
  CuptiError(CUptiResult code, const char* call, const char* file, int line)
      : CuptiError(code, std::string(file) + ":" + std::to_string(line) + ": " + call +
                             " failed: " + describe(code)) {}
  // For rethrowing with context a caller adds (what the failure means for it, how to fix it).
  CuptiError(CUptiResult code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  CUptiResult code() const noexcept { return code_; }

  // "CUPTI_ERROR_X" plus CUPTI's description where it has one beyond the name (it does for
  // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, not for most codes). The number stands in for the
  // name of a code this CUPTI does not know, so the message still identifies the failure.
  static std::string describe(CUptiResult code) {
    const char* name = nullptr;
    const std::string text = cuptiGetResultString(code, &name) == CUPTI_SUCCESS && name != nullptr
                                 ? std::string(name)
                                 : "unknown CUptiResult " + std::to_string(static_cast<int>(code));
    const char* message = nullptr;
    if (cuptiGetErrorMessage(code, &message) != CUPTI_SUCCESS || message == nullptr) return text;
    std::string detail(message);
    detail.erase(detail.find_last_not_of(" \n") + 1);  // CUPTI ends some messages with newlines
    return detail.empty() || detail == text ? text : text + " (" + detail + ")";
  }

  // What to do about a refusal, one clause for the record and the console; "" where there is
  // nothing to add to the code. The one mapping for every CUPTI user here (activity tracing,
  // counter groups, PC sampling, SASS counts).
  static const char* fix(CUptiResult code) {
    switch (code) {
      case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return "GPU profiling is restricted to admin users: run as root, or load the nvidia driver with "
               "NVreg_RestrictProfilingToAdminUsers=0 (options nvidia NVreg_RestrictProfilingToAdminUsers=0 "
               "in /etc/modprobe.d, then reload it); in a container, add --cap-add SYS_ADMIN";
      case CUPTI_ERROR_HARDWARE_BUSY:
        return "another profiler holds the GPU's counters (DCGM profiling metrics, Nsight Compute, "
               "nsys --gpu-metrics-devices): stop it (DCGM: dcgmi profile --pause) and rerun";
      case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      case CUPTI_ERROR_NOT_COMPATIBLE:
        return "another CUPTI client, or a CUPTI feature that excludes this one, is active in this "
               "process (nsys, ncu, DCGM, compute-sanitizer): run without it";
      case CUPTI_ERROR_INVALID_METRIC_NAME:
        return "this chip has no such metric";
      case CUPTI_ERROR_NOT_SUPPORTED:
      case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
      case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        return "not supported in this GPU configuration (MIG, CMP, SLI, WSL, confidential computing or vGPU)";
      case CUPTI_ERROR_NOT_INITIALIZED:
      case CUPTI_ERROR_UNKNOWN:
        return "no usable CUDA driver or GPU, or a libcupti that does not match the driver";
      default:
        return "";
    }
  }

  // "<call> failed: <describe(code)>[; <fix(code)>]": a refusal in one line.
  static std::string refusal(const char* call, CUptiResult code) {
    const std::string what = fix(code);
    return std::string(call) + " failed: " + describe(code) + (what.empty() ? "" : "; " + what);
  }

 private:
  CUptiResult code_;
};

namespace detail {
inline void cupti_check(CUptiResult code, const char* call, const char* file, int line) {
  if (code != CUPTI_SUCCESS) throw CuptiError(code, call, file, line);
}
}  // namespace detail

}  // namespace attnlab

#define ATTNLAB_CUPTI_CHECK(call) ::attnlab::detail::cupti_check((call), #call, __FILE__, __LINE__)
