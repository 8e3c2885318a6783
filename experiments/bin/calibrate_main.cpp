// attnlab-calibrate: what this GPU sustains for the work of attention, measured, and what an
// empty launch of each phase's launch configuration costs (the reports' speed of light). Dense
// wgmma (fp16 in, fp32 accumulate, m64n256k16 from shared memory, every SM), the same with e4m3
// in (m64n256k32, the FP8 phases' rate), MUFU ex2, FFMA, DRAM read and shared-memory read
// throughput, each sample timed by its CUPTI kernel record and read with its NVML SM clock, so
// every rate is also given per SM per clock and rescales to another run's clock; then the
// empty-kernel time of the launches of every phase that declares a launch configuration (5, d4,
// f8) at the seed and sweep shapes (and any --launch). The record, attnlab.calibration/1, is
// what the run reports' speed-of-light floors read (reports/speed_of_light.hpp).
//   make calibrate                       (results/calibration/<stamp>-<sha>/calibration.json)
//   build/bin/attnlab-calibrate --launch 132x1x1:512x1x1:1x1x1:157696 --phases none
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/experiment.hpp"
#include "experiments/harness/run_main.hpp"
#include "experiments/harness/run_setup.hpp"
#include "kernels/registry.hpp"
#include "profiler/calibration/microbench.hpp"
#include "profiler/gpu_monitor.hpp"
#include "profiler/kernel_activity.hpp"
#include "profiler/l2_flush.hpp"
#include "common/stats.hpp"
#include "record/calibration.hpp"
#include "record/record.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;
namespace mb = profiler::calibration;

// The phases whose declaration gives a launch configuration (Phase::launch_geometry): the ones
// a launch floor is measured for by default.
std::vector<std::string> ids_with_launch_geometry() {
  std::vector<std::string> ids;
  for (const auto& p : phases())
    if (p.launch_geometry) ids.emplace_back(p.id);
  return ids;
}

std::string joined(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

struct Options {
  int device = 0;
  std::string results_dir = "results";
  std::size_t rate_samples = 15;
  std::size_t launch_samples = 50;
  std::size_t warmup = 3;
  double rate_ms = 10;             // [ms] each throughput launch sized to about this long
  long long dram_bytes = 0;        // [bytes] 0: max(1 GiB, 32 x L2), at most a quarter of free memory
  std::vector<std::string> phases = ids_with_launch_geometry();
  std::vector<std::string> shape_specs;
  std::vector<std::string> launch_specs;
};

// The launch floors' shapes by default: scripts/sweep.sh's default shapes (the seed shapes and
// the S sweep), each causal and not, as the phases' records hold them.
constexpr const char* kDefaultShapes = "@sweep";

constexpr const char* kMethod =
    "Per sample: one launch tagged for CUPTI, the NVML current SM clock (nvmlDeviceGetClockInfo) read "
    "right after it was enqueued, then the stream synchronised; the sample's time is the kernel's "
    "device time from its CUPTI kernel record (end - start). Throughput kernels are sized (their "
    "loop count, from one timed launch) to run about rate_target_ms each, after warmup_launches "
    "untimed launches; the rate of a sample is work_per_launch / time, and per_sm_per_clock divides "
    "the median rate by the SM count and the median of the kernels' own SM clocks (kernel_sm_clock_mhz: thread 0 "
    "of block 0 counts clock64 cycles over %globaltimer nanoseconds of its work; NVML's reading is kept beside "
    "it). Launch floors: an empty kernel "
    "launched with the configuration (cudaLaunchKernelEx, cluster dimensions as an attribute), "
    "same sampling, warm (back to back) and then cold (cold: each launch behind an L2 flush, a write of twice "
    "the L2 as the phases' cold regime has it, outside the timed kernel). Clocks are never locked or changed.";

// "132x1x1" or "132" (y and z 1).
std::array<int, 3> parse_dims(const std::string& s, const std::string& spec) {
  std::array<int, 3> d{1, 1, 1};
  std::istringstream in(s);
  std::string part;
  int i = 0;
  while (std::getline(in, part, 'x')) {
    if (i == 3 || part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 9 ||
        std::stoi(part) < 1)
      throw UsageError("launch '" + spec + "' is not GRID:BLOCK:CLUSTER:SMEM (dimensions NxNxN or N, positive)");
    d[std::size_t(i++)] = std::stoi(part);
  }
  if (i == 0) throw UsageError("launch '" + spec + "' has an empty dimension");
  return d;
}

LaunchShape parse_launch(const std::string& spec) {
  std::vector<std::string> f;
  std::istringstream in(spec);
  std::string part;
  while (std::getline(in, part, ':')) f.push_back(part);
  if (f.size() != 4 || f[3].empty() || f[3].find_first_not_of("0123456789") != std::string::npos || f[3].size() > 9)
    throw UsageError("launch '" + spec + "' is not GRID:BLOCK:CLUSTER:SMEM, e.g. 132x1x1:512x1x1:1x1x1:157696");
  LaunchShape l;
  l.grid = parse_dims(f[0], spec);
  l.block = parse_dims(f[1], spec);
  l.cluster = parse_dims(f[2], spec);
  l.dynamic_smem_bytes = std::stoll(f[3]);
  for (int i = 0; i < 3; ++i)
    if (l.grid[std::size_t(i)] % l.cluster[std::size_t(i)] != 0)
      throw UsageError("launch '" + spec + "': the grid is not a whole number of clusters");
  return l;
}

mb::Launch to_launch(const LaunchShape& s) {
  mb::Launch l;
  l.grid = dim3(unsigned(s.grid[0]), unsigned(s.grid[1]), unsigned(s.grid[2]));
  l.block = dim3(unsigned(s.block[0]), unsigned(s.block[1]), unsigned(s.block[2]));
  l.cluster = dim3(unsigned(s.cluster[0]), unsigned(s.cluster[1]), unsigned(s.cluster[2]));
  l.dynamic_smem_bytes = std::size_t(s.dynamic_smem_bytes);
  return l;
}

LaunchShape to_shape(const mb::Launch& l) {
  LaunchShape s;
  s.grid = {int(l.grid.x), int(l.grid.y), int(l.grid.z)};
  s.block = {int(l.block.x), int(l.block.y), int(l.block.z)};
  s.cluster = {int(l.cluster.x), int(l.cluster.y), int(l.cluster.z)};
  s.dynamic_smem_bytes = (long long)l.dynamic_smem_bytes;
  return s;
}

// Times launches one by one: device time from CUPTI, SM clock from NVML.
class Sampler {
 public:
  Sampler(profiler::KernelActivity& activity, profiler::GpuMonitor& monitor, cudaStream_t stream)
      : activity_(activity), monitor_(monitor), stream_(stream) {}

  void warm_up(const std::function<void(cudaStream_t)>& launch, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) launch(stream_);
    ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    activity_.collect();  // untagged: discarded
  }

  // n samples; appends each one's device time [ns] and SM clock [MHz].
  // kernel_clock, where given, reads the sampled kernel's own SM clock once it completed
  // (Microbenchmarks::last_sm_clock_mhz), appended to kernel_clock_mhz sample by sample.
  // flush, where given, is enqueued before each launch (cold samples).
  void sample(const std::function<void(cudaStream_t)>& launch, std::size_t n, std::vector<double>& time_ns,
              std::vector<double>& clock_mhz, const std::function<double()>& kernel_clock = nullptr,
              std::vector<double>* kernel_clock_mhz = nullptr, profiler::L2Flush* flush = nullptr) {
    const std::uint64_t first = next_tag_;
    std::vector<double> clocks;
    for (std::size_t i = 0; i < n; ++i) {
      if (flush) flush->flush(stream_);
      {
        profiler::TagScope tag(activity_, next_tag_++);
        launch(stream_);
      }
      const auto r = monitor_.read();
      if (!r) throw std::runtime_error("NVML read of the SM clock failed during sampling");
      clocks.push_back(r->sm_clock_mhz);
      ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
      if (kernel_clock && kernel_clock_mhz) kernel_clock_mhz->push_back(kernel_clock());
    }
    std::map<std::uint64_t, double> by_tag;
    for (const auto& k : activity_.collect())
      if (k.tag >= first && k.tag < next_tag_) by_tag[k.tag] = double(k.end_ns - k.start_ns);
    if (by_tag.size() != n) throw std::runtime_error("CUPTI delivered no kernel record for a timed launch");
    for (const auto& [tag, ns] : by_tag) time_ns.push_back(ns);
    clock_mhz.insert(clock_mhz.end(), clocks.begin(), clocks.end());
  }

 private:
  profiler::KernelActivity& activity_;
  profiler::GpuMonitor& monitor_;
  cudaStream_t stream_;
  std::uint64_t next_tag_ = 1;
};

std::string sig(double v, int digits = 4) {
  std::ostringstream s;
  s << std::setprecision(digits) << v;
  return s.str();
}

struct RateSpec {
  mb::Kind kind;
  const char* name;
  const char* unit;
  const char* method;
  bool scales_with_sm_clock;
  std::int64_t first_iterations;  // loop count of the sizing launch
};

const std::vector<RateSpec>& rate_specs() {
  static const std::vector<RateSpec> specs = {
      {mb::Kind::kTensor, calibration::kTensor, "FLOP/s",
       "wgmma.mma_async m64n256k16 f32.f16.f16, A (64x64) and B (256x64) K-major with the 128-byte swizzle in "
       "shared memory; one block of two warpgroups per SM, four k-steps per commit group, one group in flight; "
       "2*64*256*16 FLOPs per wgmma",
       true, 2000},
      {mb::Kind::kTensorFp8, calibration::kTensorFp8, "FLOP/s",
       "wgmma.mma_async m64n256k32 f32.e4m3.e4m3, A (64x128) and B (256x128) K-major with the 128-byte swizzle in "
       "shared memory (the fp16 kernel's tiles and loop); one block of two warpgroups per SM, four k-steps per "
       "commit group, one group in flight; 2*64*256*32 FLOPs per wgmma",
       true, 2000},
      {mb::Kind::kExp2, calibration::kExp2, "ex2/s",
       "ex2.approx.ftz.f32 (MUFU.EX2), 8 independent chains x <- 2^-x per thread, every SM at full occupancy", true,
       2000},
      {mb::Kind::kFfma, calibration::kFfma, "FLOP/s",
       "fmaf, 8 independent chains a <- a*b + c per thread, every SM at full occupancy; 2 FLOPs per FMA", true, 4000},
      {mb::Kind::kDramRead, calibration::kDramRead, "B/s",
       "one read of a buffer of options.dram_bytes (far above the L2) in 16-byte streaming loads (ld.global.cs), "
       "grid-stride, four loads in flight per thread, every SM at full occupancy; bytes read per launch",
       false, 1},
      {mb::Kind::kSmemRead, calibration::kSmemRead, "B/s",
       "16-byte shared-memory loads (LDS.128) without bank conflicts, 16 KB per block, every SM at full occupancy; "
       "bytes read per launch",
       true, 4000},
  };
  return specs;
}

CalibrationRate measure_rate(const RateSpec& spec, mb::Microbenchmarks& bench, Sampler& sampler, const Options& opt,
                             int sms) {
  std::int64_t iterations = spec.first_iterations;
  const auto launch = [&](cudaStream_t s) { bench.launch(spec.kind, iterations, s); };
  sampler.warm_up(launch, opt.warmup);
  if (spec.kind != mb::Kind::kDramRead) {
    std::vector<double> t, c;
    sampler.sample(launch, 1, t, c);
    const double scale = opt.rate_ms * 1e6 / std::max(t.front(), 1.0);
    iterations = std::max<std::int64_t>(1, std::int64_t(double(iterations) * scale));
    sampler.warm_up(launch, 1);
  }
  CalibrationRate r;
  r.name = spec.name;
  r.unit = spec.unit;
  r.method = spec.method;
  r.scales_with_sm_clock = spec.scales_with_sm_clock;
  r.work_per_launch = bench.work(spec.kind, iterations);
  r.launch = to_shape(bench.launch_of(spec.kind));
  sampler.sample(launch, opt.rate_samples, r.time_ns, r.sm_clock_mhz, [&] { return bench.last_sm_clock_mhz(); },
                 &r.kernel_sm_clock_mhz);
  summarize_rate(r, sms);
  return r;
}

// The launches of `phases` at `shapes` on this GPU, each configuration once with every (phase,
// shape) that uses it.
std::vector<CalibrationLaunch> phase_launches(const Options& opt, const std::vector<Shape>& shapes, int sms) {
  std::vector<CalibrationLaunch> out;
  for (const auto& id : opt.phases) {
    const Phase* p = find_phase(id);
    for (const Shape& s : shapes) {
      const auto g = p->launch_geometry(s, sms);
      if (!g) continue;  // the phase cannot run the shape: it has no launch there
      mb::Launch l;
      l.grid = g->grid;
      l.block = g->block;
      l.cluster = g->cluster;
      l.dynamic_smem_bytes = g->dynamic_smem_bytes;
      const LaunchShape ls = to_shape(l);
      const std::string who = std::string(p->id) + " " + shape_name(s);
      auto it = std::find_if(out.begin(), out.end(), [&](const CalibrationLaunch& c) { return c.launch == ls; });
      if (it == out.end()) {
        out.push_back({});
        out.back().launch = ls;
        it = out.end() - 1;
      }
      it->used_by.push_back(who);
    }
  }
  return out;
}

void add_options(CLI::App& app, Options& opt) {
  app.add_option("--rate-samples", opt.rate_samples, "timed launches per throughput kernel")
      ->check(kNonNegativeInteger)->capture_default_str();
  app.add_option("--launch-samples", opt.launch_samples, "timed launches per launch configuration, warm and as many cold (each behind an L2 flush)")
      ->check(kNonNegativeInteger)->capture_default_str();
  app.add_option("--warmup", opt.warmup, "untimed launches before each kernel's samples")
      ->check(kNonNegativeInteger)->capture_default_str();
  app.add_option("--rate-ms", opt.rate_ms, "each throughput launch sized to run about this long [ms]")
      ->check(kPositiveFinite)->capture_default_str();
  app.add_option("--dram-bytes", opt.dram_bytes,
                 "bytes the DRAM kernel reads per launch (default: max(1 GiB, 32 x L2), at most a quarter of free memory)")
      ->check(kNonNegativeInteger);
  app.add_option("--phases", opt.phases, "phases whose launches get a launch floor, comma-separated, or none")
      ->delimiter(',')->capture_default_str();
  app.add_option("-s,--shape", opt.shape_specs,
                 "shape for the phases' launches, repeatable: " + shape_grammar() + "; or a named set (" +
                     shape_sets_help() + ") (default: " + kDefaultShapes + ", each causal and not)")
      ->type_name("SPEC");
  app.add_option("--launch", opt.launch_specs,
                 "a further launch configuration, repeatable: GRID:BLOCK:CLUSTER:SMEM, e.g. 132x1x1:512x1x1:1x1x1:157696")
      ->type_name("SPEC");
  app.add_option("--device", opt.device, "CUDA device ordinal")->check(kNonNegativeInteger)->capture_default_str();
  app.add_option("-o,--results-dir", opt.results_dir, "records go to <dir>/calibration/")->capture_default_str();
  app.footer("Exit codes: 0 ok, 2 bad arguments, 3 no (Hopper) GPU, CUPTI or NVML unavailable, or results directory "
             "not writable; 1 a fault during the measurements (the record says failed).");
}

// What the command line asks for, checked before the GPU is touched so that a usage error
// needs no device.
struct Request {
  std::vector<Shape> shapes;
  std::vector<LaunchShape> extra;  // --launch configurations
};

Request check_request(Options& opt) {
  if (opt.rate_samples < 1 || opt.launch_samples < 1) throw UsageError("--rate-samples and --launch-samples must be at least 1");
  if (opt.phases.size() == 1 && opt.phases.front() == "none") opt.phases.clear();
  for (const auto& id : opt.phases) {
    const Phase* p = find_phase(id);
    if (!p) throw UsageError("unknown phase '" + id + "'; valid phases: " + phase_ids_joined());
    if (!p->launch_geometry)
      throw UsageError("phase " + id + " has no launch configuration to calibrate (phases with one: " +
                       joined(ids_with_launch_geometry()) + ")");
  }
  Request req;
  try {
    if (opt.shape_specs.empty())
      for (const auto& spec : expand_shape_specs({kDefaultShapes}))
        for (const char* mod : {"", ":causal"}) req.shapes.push_back(parse_shape(spec + mod));
    for (const auto& spec : expand_shape_specs(opt.shape_specs)) req.shapes.push_back(parse_shape(spec));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  for (const auto& spec : opt.launch_specs) req.extra.push_back(parse_launch(spec));
  return req;
}

// The device selected and its properties; the wgmma kernel runs only on compute capability 9.0.
cudaDeviceProp open_device(int device) {
  const cudaDeviceProp prop = open_cuda_device(device);
  if (prop.major != 9)
    throw EnvironmentError(std::string("the calibration's wgmma kernel needs a compute capability 9.0 GPU (sm_90a); ") +
                           prop.name + " is " + std::to_string(prop.major) + "." + std::to_string(prop.minor));
  return prop;
}

// [bytes] the DRAM kernel's read per launch: --dram-bytes, or enough to stream well past L2;
// either must leave 64 MiB of the GPU's free memory spare.
std::size_t dram_read_bytes(const Options& opt, const cudaDeviceProp& prop) {
  std::size_t free_bytes = 0, total_bytes = 0;
  ATTNLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t dram = opt.dram_bytes > 0 ? std::size_t(opt.dram_bytes)
                                        : std::min(std::max<std::size_t>(std::size_t(1) << 30, 32 * std::size_t(prop.l2CacheSize)),
                                                   free_bytes / 4);
  if (dram + (std::size_t(64) << 20) > free_bytes)
    throw UsageError("--dram-bytes " + std::to_string(dram) + " does not fit the GPU's " + std::to_string(free_bytes) +
                     " free bytes");
  return dram;
}

// Every throughput kernel's samples, the record rewritten after each so that a fault keeps
// what was measured.
void measure_rates(CalibrationRecord& rec, const fs::path& file, Sampler& sampler, const Options& opt,
                   std::size_t dram, int sms) {
  mb::Microbenchmarks bench(dram);
  for (const RateSpec& spec : rate_specs()) {
    rec.rates.push_back(measure_rate(spec, bench, sampler, opt, sms));
    const CalibrationRate& r = rec.rates.back();
    std::cout << "attnlab-calibrate: " << r.name << ": median " << sig(r.rate.median) << " " << r.unit << " (p10 "
              << sig(r.rate.p10) << ", p90 " << sig(r.rate.p90) << ") at " << sig(r.sm_clock_median_mhz)
              << " MHz: " << sig(r.per_sm_per_clock) << " per SM per clock, " << r.time_ns.size() << " samples of "
              << sig(stats::summarize(r.time_ns).median / 1e3) << " us" << std::endl;
    write_calibration_file(file, rec);
  }
}

// Every launch configuration's empty-kernel samples (the launch floors), warm and then cold.
void measure_launches(CalibrationRecord& rec, std::vector<CalibrationLaunch>& launches, Sampler& sampler,
                      const Options& opt) {
  profiler::L2Flush flush;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    CalibrationLaunch& l = launches[i];
    const mb::Launch cfg = to_launch(l.launch);
    const auto launch = [&](cudaStream_t s) { mb::launch_empty(cfg, s); };
    sampler.warm_up(launch, opt.warmup);
    sampler.sample(launch, opt.launch_samples, l.time_ns, l.sm_clock_mhz);
    sampler.sample(launch, opt.launch_samples, l.cold_time_ns, l.cold_sm_clock_mhz, nullptr, nullptr, &flush);
    summarize_launch(l);
    rec.launches.push_back(l);
    std::cout << "attnlab-calibrate: [" << i + 1 << "/" << launches.size() << "] launch " << launch_text(l.launch)
              << ": median " << sig(l.time.median / 1e3) << " us (p10 " << sig(l.time.p10 / 1e3) << ", p90 "
              << sig(l.time.p90 / 1e3) << "), cold " << sig(l.cold_time->median / 1e3) << " us (p10 "
              << sig(l.cold_time->p10 / 1e3) << ", p90 " << sig(l.cold_time->p90 / 1e3) << "); " << l.used_by.front()
              << (l.used_by.size() > 1 ? " and " + std::to_string(l.used_by.size() - 1) + " more" : std::string())
              << std::endl;
  }
}

// The launch configurations to floor: the phases' at the shapes asked for, then --launch's.
std::vector<CalibrationLaunch> all_launches(const Options& opt, const Request& req, int sms) {
  std::vector<CalibrationLaunch> launches = phase_launches(opt, req.shapes, sms);
  for (const auto& l : req.extra) {
    CalibrationLaunch c;
    c.launch = l;
    c.used_by = {"command line"};
    launches.push_back(c);
  }
  return launches;
}

// The device, the instruments, the record, then every rate and launch floor measured.
// `rec` outlives the call: run_main marks it failed after a fault.
int run(Options& opt, int argc, char** argv, CalibrationRecord& rec, RunRecordFile& record_file) {
  const Request req = check_request(opt);
  const fs::path root = fs::path(opt.results_dir);
  require_writable_directory(root);
  const cudaDeviceProp prop = open_device(opt.device);
  const int sms = prop.multiProcessorCount;
  const std::size_t dram = dram_read_bytes(opt, prop);
  std::vector<CalibrationLaunch> launches = all_launches(opt, req, sms);

  std::optional<profiler::KernelActivity> activity;
  start_kernel_activity(activity);
  profiler::GpuMonitor monitor(opt.device);
  require_nvml(monitor, "every calibration sample needs its SM clock");

  const long long now = now_epoch_seconds();
  rec.started_utc = utc_iso8601(now);
  rec.provenance = provenance(argc, argv, 0, opt.device, false);
  rec.options = {opt.rate_samples, opt.launch_samples, opt.warmup, opt.rate_ms, (long long)dram};
  rec.method = kMethod;
  const fs::path file = new_run_directory(root, "calibration", now) / kCalibrationFile;
  write_calibration_file(file, rec);
  record_file = written_record(file, rec, &write_calibration_file);
  std::cout << "attnlab-calibrate: " << prop.name << " (" << sms << " SMs), " << rate_specs().size()
            << " rates and " << launches.size() << " launch configurations; record " << file.string() << std::endl;

  const Stream stream;
  Sampler sampler(*activity, monitor, stream.get());
  measure_rates(rec, file, sampler, opt, dram, sms);
  measure_launches(rec, launches, sampler, opt);
  rec.status = "ok";
  write_calibration_file(file, rec);
  std::cout << "attnlab-calibrate: status ok; record " << file.string() << std::endl;
  return kExitOk;
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) {
  using namespace attnlab;
  CLI::App app{"attnlab-calibrate: what this GPU sustains for attention's work (wgmma fp16 m64n256k16 and e4m3 m64n256k32, MUFU ex2, "
               "FFMA, DRAM read, shared-memory read), each at the measured SM clock and per SM per clock, and the "
               "empty-launch time (launch floor) of the launch configurations of the phases that declare one; writes "
               "<results-dir>/calibration/<stamp>-<sha>/calibration.json (attnlab.calibration/1)."};
  Options opt;
  add_options(app, opt);
  CalibrationRecord rec;
  return run_main("attnlab-calibrate", "calibration failed", app, argc, argv,
                  [&](RunRecordFile& record_file) { return run(opt, argc, argv, rec, record_file); });
}
