// Error checking for cuDNN calls, like common/check.hpp's for CUDA: every failure throws with
// the file, line, the stringified call, the status's name and cuDNN's own last error message.
#pragma once

#include <cudnn_graph.h>

#include <stdexcept>
#include <string>

namespace attnlab {

inline std::string one_line(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c == '\r') continue;
    if (c == '\n') s += "; ";
    else s += c;
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == ';')) s.pop_back();
  return s;
}

// One line: "<file>:<line>: <call> failed: <status name> (<cuDNN's message>)"; the message part
// is left out when cuDNN gave none. Separate from the throw so that tests can check the wording.
inline std::string cudnn_error_message(cudnnStatus_t status, const char* call, const char* file,
                                       int line, const std::string& last_error) {
  std::string m = std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                  cudnnGetErrorString(status);
  if (!last_error.empty()) m += " (" + last_error + ")";
  return m;
}

// cuDNN's message about the last failed call of this thread (cudnnGetLastErrorString) on one
// line, the line an error gets: line breaks become "; ", trailing ones are dropped.
inline std::string cudnn_last_error() {
  char buf[4096] = "";
  cudnnGetLastErrorString(buf, sizeof buf);
  return one_line(buf);
}

class CudnnError : public std::runtime_error {
 public:
  CudnnError(cudnnStatus_t status, const char* call, const char* file, int line)
      : std::runtime_error(cudnn_error_message(status, call, file, line, cudnn_last_error())),
        status_(status) {}
  cudnnStatus_t status() const noexcept { return status_; }
  // cuDNN declines the graph or configuration (the CUDNN_STATUS_NOT_SUPPORTED_* family), as
  // opposed to a bad call or a failure of the library or the GPU.
  bool not_supported() const noexcept {
    return CUDNN_STATUS_CATEGORY(status_) == CUDNN_STATUS_NOT_SUPPORTED;
  }

 private:
  cudnnStatus_t status_;
};

namespace detail {
inline void cudnn_check(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) throw CudnnError(status, call, file, line);
}
}  // namespace detail

}  // namespace attnlab

#define ATTNLAB_CUDNN_CHECK(call) ::attnlab::detail::cudnn_check((call), #call, __FILE__, __LINE__)
