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
