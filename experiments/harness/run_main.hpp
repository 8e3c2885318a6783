// The skeleton every experiment binary's main shares (attnlab-phase-<id>, attnlab-ab,
// attnlab-calibrate, attnlab-timeline): the command line, exit codes 2 and 3 with one line, the
// device and the instruments' set-up, the run directory, and a fault recorded in the record.
#pragma once

#include <cuda_runtime.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/shape.hpp"
#include "experiments/harness/command_line.hpp"
#include "profiler/profiler.hpp"

namespace attnlab {

// The record a run's body has started, once it exists on disk: its file and how to mark it
// failed with an error (status "failed"). Both stay empty until the record is first written.
// mark_failed runs after the fault has unwound the body: it may use only what outlives run_main.
struct RunRecordFile {
  std::filesystem::path path;
  std::function<void(const std::string& error)> mark_failed;
};

// The record at `path` once written: a fault sets rec.status to "failed" and rec.error, and
// rewrites it with write(path, rec). `rec` must outlive run_main.
template <class Record>
RunRecordFile written_record(const std::filesystem::path& path, Record& rec,
                             void (*write)(const std::filesystem::path&, const Record&)) {
  return {path, [&rec, path, write](const std::string& error) {
            rec.status = "failed";
            rec.error = error;
            write(path, rec);
          }};
}

// A binary's main: parses the command line, then runs `body`, which returns the exit code.
// What body throws ends the run with one line "<program>: <message>" on stderr: UsageError 2,
// EnvironmentError 3, anything else 3 before the record exists, else (a fault mid-run, an
// illegal address, say, which leaves the context unusable) the record marked failed and 1,
// "<fault>: <what> (record <path>)".
int run_main(const char* program, const char* fault, CLI::App& app, int argc, char** argv,
             const std::function<int(RunRecordFile&)>& body);

// A CUDA stream for the run, destroyed with it; a failed destroy is told on stderr (a
// destructor must not throw).
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_{};
};

// Makes CUDA device `ordinal` current and returns its properties; EnvironmentError "no CUDA
// device: <why>" or "no CUDA device <n> (found <m>)".
cudaDeviceProp open_cuda_device(int ordinal);
// Refuses, before anything is allocated or recorded, a shape whose Q, K, V and O do not fit the
// current device's free memory or whose host copies do not fit the host's available memory:
// UsageError "<who>cannot run shape <s>: <why>" (who: "phase 4 " or empty). with_fp8: an
// e4m3 phase takes part (footprint() of reference.hpp).
void refuse_unfit_shapes(const std::vector<Shape>& shapes, const std::string& who, bool with_fp8 = false);
// The root the records go under, created and writable; EnvironmentError otherwise.
void require_writable_directory(const std::filesystem::path& root);

// CUPTI's kernel records, which time every launch; without them nothing can be measured:
// EnvironmentError "CUPTI unavailable, cannot time kernels: <why>".
void start_kernel_activity(std::optional<profiler::KernelActivity>& activity);
// NVML, where the run cannot do without the SM clock it reads: EnvironmentError
// "NVML unavailable, and <need>: <why>".
void require_nvml(const profiler::GpuMonitor& monitor, const std::string& need);

// [s] since the epoch: the run's start, which names its directory and its record's started_utc.
long long now_epoch_seconds();
// A new run's directory, <root>/<name>/<UTC stamp of now>-<short git sha of this build>/.
std::filesystem::path new_run_directory(const std::filesystem::path& root, const std::string& name,
                                        long long now);

}  // namespace attnlab
