// The cudnn baseline phase's pieces that other layers read without running it: its static
// judgement of a shape and the cuDNN versions it was built with and runs on (provenance).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "kernels/registry.hpp"

namespace attnlab::phase_cudnn {

// can_implement's rule, with the build's cuDNN availability as an argument so that tests can
// take both paths: `missing` is why this build has no cuDNN, nullopt when it has one.
Refusal static_refusal(const Shape& s, const std::optional<std::string>& missing);

// Why this build has no cuDNN (cmake/AttnlabCudnn.cmake's reason); nullopt when it has one.
std::optional<std::string> missing_reason();

struct Versions {
  std::size_t loaded = 0;  // cudnnGetVersion(): the library the process loaded, e.g. 91900
  long long header = 0;    // CUDNN_VERSION of the headers it was compiled against
};
// nullopt in a build without cuDNN.
std::optional<Versions> versions();

}  // namespace attnlab::phase_cudnn
