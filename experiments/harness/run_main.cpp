// The skeleton every experiment binary's main shares (run_main.hpp): one place for the exit
// codes, the device checks and the run directory, so that the binaries' messages agree.
#include "experiments/harness/run_main.hpp"

#include <chrono>
#include <iostream>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/build_info.hpp"
#include "experiments/harness/experiment.hpp"
#include "experiments/harness/gpu_attributes.hpp"
#include "experiments/harness/reference.hpp"
#include "record/record.hpp"

namespace attnlab {

namespace {

// The fault that ended a run, in its record (where that can still be written) and on stderr.
int record_fault(const char* program, const char* fault, const RunRecordFile& record, const std::exception& ex) {
  try {
    record.mark_failed(ex.what());
  } catch (const std::exception& w) {
    std::cerr << program << ": cannot update the record: " << w.what() << std::endl;
  }
  return fail(program, kExitFailed,
              std::string(fault) + ": " + ex.what() + " (record " + record.path.string() + ")");
}

}  // namespace

int run_main(const char* program, const char* fault, CLI::App& app, int argc, char** argv,
             const std::function<int(RunRecordFile&)>& body) {
  if (const auto code = parse_command_line(app, argc, argv, program)) return *code;
  RunRecordFile record;
  try {
    return body(record);
  } catch (const UsageError& ex) {
    return fail(program, kExitUsage, ex.what());
  } catch (const EnvironmentError& ex) {
    return fail(program, kExitEnvironment, ex.what());
  } catch (const std::exception& ex) {
    if (record.path.empty() || !record.mark_failed) return fail(program, kExitEnvironment, ex.what());
    return record_fault(program, fault, record, ex);
  }
}

Stream::Stream() { ATTNLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }

Stream::~Stream() {
  if (const cudaError_t e = cudaStreamDestroy(s_); e != cudaSuccess)
    std::cerr << "attnlab: cudaStreamDestroy failed: " << cudaGetErrorString(e) << std::endl;
}

cudaDeviceProp open_cuda_device(int ordinal) {
  if (const auto why = missing_cuda_device(ordinal)) throw EnvironmentError(*why);
  ATTNLAB_CUDA_CHECK(cudaSetDevice(ordinal));
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  return prop;
}

void refuse_unfit_shapes(const std::vector<Shape>& shapes, const std::string& who, bool with_fp8) {
  std::size_t device_free = 0, device_total = 0;
  ATTNLAB_CUDA_CHECK(cudaMemGetInfo(&device_free, &device_total));
  const std::uint64_t host_available = host_available_bytes();
  for (const auto& s : shapes)
    if (auto why = memory_refusal(s, device_free, host_available, with_fp8))
      throw UsageError(who + "cannot run shape " + shape_name(s) + ": " + *why);
}

void require_writable_directory(const std::filesystem::path& root) {
  try {
    ensure_writable_directory(root);
  } catch (const std::exception& e) {
    throw EnvironmentError(e.what());
  }
}

void start_kernel_activity(std::optional<profiler::KernelActivity>& activity) {
  try {
    activity.emplace();
  } catch (const std::exception& ex) {
    throw EnvironmentError(std::string("CUPTI unavailable, cannot time kernels: ") + ex.what());
  }
}

void require_nvml(const profiler::GpuMonitor& monitor, const std::string& need) {
  if (monitor.unavailable()) throw EnvironmentError("NVML unavailable, and " + need + ": " + *monitor.unavailable());
}

long long now_epoch_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::filesystem::path new_run_directory(const std::filesystem::path& root, const std::string& name, long long now) {
  const std::string sha = std::string(build_info::kGitCommit).substr(0, 7);
  return create_run_directory(root, name, utc_stamp(now), sha);
}

}  // namespace attnlab
