// The GPU a run measures as the CUDA runtime describes it, read without creating a context: its
// attributes (record/provenance.hpp's GpuAttributes, from which every record's gpu block
// follows), and why there is none. The harness and attnlab-sdpa-import (the PyTorch baseline's
// raw file, while torch holds the device) share it.
#pragma once

#include <optional>
#include <string>

#include "record/provenance.hpp"

namespace attnlab {

// Why the runtime finds no CUDA device `ordinal`, in one line ("no CUDA device: no NVIDIA driver
// found ..."), or nullopt where it does.
std::optional<std::string> missing_cuda_device(int ordinal);

// Device `ordinal`'s attributes; throws std::runtime_error (missing_cuda_device's line) where
// there is no such device.
GpuAttributes gpu_attributes(int ordinal);

// The driver's CUDA version (13000 for 13.0); throws std::runtime_error without a driver.
int driver_version();

}  // namespace attnlab
