// experiments/baselines/sdpa_import.hpp: the SDPA baseline's record from its raw measurements.
#include "experiments/baselines/sdpa_import.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/shapes.hpp"
#include "profiler/gpu_monitor.hpp"
#include "profiler/pc_sampling_plan.hpp"
#include "profiler/sampler.hpp"
#include "common/stats.hpp"
#include "record/constants.hpp"
#include "record/record.hpp"
#include "record/timing.hpp"

namespace attnlab {

namespace {

struct BackendInfo {
  const char* name;
  const char* sdp_backend;  // torch.nn.attention.SDPBackend member
  const char* title;
};
constexpr BackendInfo kBackends[] = {
    {"cudnn", "CUDNN_ATTENTION", "PyTorch SDPA, cuDNN backend"},
    {"flash", "FLASH_ATTENTION", "PyTorch SDPA, flash backend (FlashAttention-2)"},
    {"efficient", "EFFICIENT_ATTENTION", "PyTorch SDPA, memory-efficient backend"},
};

const char* regime_method(const std::string& regime) {
  if (regime == "cold")
    return "torch.profiler (CUPTI) kernel activity, span of one call's SDPA kernels; L2 flushed "
           "(zero of 2x L2) before every call";
  if (regime == "warm")
    return "torch.profiler (CUPTI) kernel activity, span of one call's SDPA kernels; "
           "back-to-back calls over the same inputs (warm L2)";
  return "CUDA events around each replay of a CUDA graph of launches_per_sample calls, divided "
         "by launches_per_sample; queued behind torch.cuda._sleep";
}

// The readings are the harness's monitor's (serve_monitor), taken in this importer's process while
// the baseline sampled; they are not placed on torch.profiler's clock, so samples are not flagged
// one by one.
GpuState gpu_state(const SdpaRawRegime& r) {
  GpuState g;
  if (!r.nvml_unavailable.empty() || r.readings.empty()) {
    g.unavailable = r.nvml_unavailable.empty() ? "no NVML reading was taken" : r.nvml_unavailable;
    return g;
  }
  std::vector<profiler::GpuReading> readings;
  for (const SdpaRawReading& x : r.readings) {
    profiler::GpuReading reading;
    reading.sm_clock_mhz = x.sm_clock_mhz;
    reading.power_w = x.power_w;
    reading.temperature_c = x.temperature_c;
    reading.reasons = x.reasons;
    readings.push_back(reading);
  }
  return profiler::summarize_readings(readings, r.max_sm_clock_mhz,
                                      "NVML (nvmlDeviceGetClockInfo, GetPowerUsage, GetTemperature, "
                                      "GetCurrentClocksEventReasons) by attnlab-sdpa-import monitor, polled every " +
                                          std::to_string(profiler::sampling::kGpuPollMicroseconds / 1000) +
                                          " ms while sampling; samples not flagged one by one");
}

// Per call of a CUPTI regime: its span, its busy time and each kernel's time (summed over its
// instances), from the calls' [start, end) pairs.
struct CallTimes {
  std::vector<double> span_ns, busy_ns;
  std::vector<std::pair<std::string, std::vector<double>>> per_kernel;  // first-seen order
  std::vector<std::pair<std::string, int>> instances;
};

CallTimes call_times(const SdpaRawRegime& r) {
  CallTimes c;
  for (const std::string& k : r.kernels) {
    auto it = std::find_if(c.instances.begin(), c.instances.end(), [&](const auto& p) { return p.first == k; });
    if (it == c.instances.end()) {
      c.instances.emplace_back(k, 1);
      c.per_kernel.emplace_back(k, std::vector<double>{});
    } else {
      ++it->second;
    }
  }
  for (const std::vector<double>& call : r.launches) {
    std::vector<std::pair<double, double>> iv;
    for (std::size_t i = 0; i < r.kernels.size(); ++i) iv.emplace_back(call[2 * i], call[2 * i + 1]);
    double first = iv[0].first, last = iv[0].second;
    for (const auto& [s, e] : iv) first = std::min(first, s), last = std::max(last, e);
    c.span_ns.push_back(last - first);
    c.busy_ns.push_back(stats::union_length(iv));
    for (auto& [name, ns] : c.per_kernel) {
      double sum = 0;
      for (std::size_t i = 0; i < r.kernels.size(); ++i)
        if (r.kernels[i] == name) sum += iv[i].second - iv[i].first;
      ns.push_back(sum);
    }
  }
  return c;
}

RegimeTiming regime_timing(const SdpaRawRegime& r, const Shape& s, std::vector<KernelShare>* shares) {
  RegimeTiming t;
  const CallTimes calls = r.name == "graph" ? CallTimes{} : call_times(r);
  const std::vector<double>& samples = r.name == "graph" ? r.samples_ns : calls.span_ns;
  const stats::Summary m = stats::summarize(samples);
  if (!(m.median > 0)) throw std::runtime_error("regime " + r.name + " of " + shape_name(s) + ": median time is not positive");
  t.method = regime_method(r.name);
  profiler::copy_statistics(m, t);
  t.stop_reason = r.stop_reason;
  t.wall_s = r.wall_s;
  t.launches_per_sample = r.launches_per_sample;
  t.clock_before_mhz = r.clock_before_mhz;
  t.clock_after_mhz = r.clock_after_mhz;
  t.clock_source = "NVML current SM clock (nvmlDeviceGetClockInfo)";
  t.tflops = s.flops() / m.median / 1e3;             // FLOP/ns = GFLOP/s
  t.dram_gbps_min_bytes = s.min_bytes() / m.median;  // byte/ns = GB/s
  if (r.name != "graph") {
    for (const auto& [name, n] : calls.instances) t.kernels.push_back(name);
    t.kernels_per_launch = static_cast<int>(r.kernels.size());
    const stats::Summary busy = stats::summarize(calls.busy_ns);
    t.busy_median_ns = busy.median;
    t.busy_p10_ns = busy.p10;
    t.busy_p90_ns = busy.p90;
    *shares = profiler::kernel_shares(calls.per_kernel, calls.instances, r.name, nullptr, {});
    for (KernelShare& k : *shares) k.metrics = "not measured: torch.profiler gives kernel times only";
  }
  t.samples_ns = samples;
  t.gpu_state = gpu_state(r);
  return t;
}

// `headline`: the run's (TimingRequest::headline), which a timed entry ran.
ResultEntry result(const SdpaRawResult& raw, const std::string& headline) {
  ResultEntry r;
  r.shape = raw.shape;
  r.scale = raw.scale;
  r.available = raw.unavailable.empty();
  r.unavailable_reason = raw.unavailable;
  if (!*r.available) return r;
  r.correctness = raw.correctness;
  if (raw.changed_after_timing) {
    r.correctness.passed = false;
    r.correctness.failure = "output after timing differs from the checked output";
  }
  if (raw.regimes.empty() || !r.correctness.passed) return r;
  r.headline_regime = headline;
  if (std::none_of(raw.regimes.begin(), raw.regimes.end(), [&](const SdpaRawRegime& g) { return g.name == headline; }))
    throw std::runtime_error("shape " + shape_name(raw.shape) + " was timed without the run's headline regime '" +
                             headline + "'");
  for (const SdpaRawRegime& g : raw.regimes) {
    std::vector<KernelShare> shares;
    r.timing.emplace_back(g.name, regime_timing(g, raw.shape, &shares));
    if (g.name == r.headline_regime && g.name != "graph") r.kernels = std::move(shares);
  }
  return r;
}

std::vector<__half> read_fp16(const std::filesystem::path& file, std::int64_t elements) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot read");
  std::vector<__half> v(static_cast<std::size_t>(elements));
  const std::streamsize bytes = static_cast<std::streamsize>(v.size() * sizeof(__half));
  in.read(reinterpret_cast<char*>(v.data()), bytes);
  if (in.gcount() != bytes || in.peek() != std::char_traits<char>::eof())
    throw std::runtime_error(file.string() + ": not " + std::to_string(elements) + " fp16 values");
  return v;
}

}  // namespace

Correctness sdpa_check(const Shape& s, std::uint64_t seed, const HostTensors& in, const std::vector<__half>& out,
                       bool repeat_identical) {
  const CheckResult c = check_output(s, in, float(s.default_scale()), out, rows_to_check(s, seed));
  Correctness corr = correctness_block(c, s, Inputs::kNormal);
  corr.repeat_identical = repeat_identical;
  corr.output_poisoned = false;
  if (!repeat_identical) {
    corr.passed = false;
    corr.failure = (c.passed ? "" : c.first_failure + "; ") + "two calls on the same inputs gave different outputs";
  }
  return corr;
}

SdpaTensors read_sdpa_tensors(const std::filesystem::path& dir, const Shape& s) {
  SdpaTensors t;
  t.in.q = read_fp16(dir / "q.f16", s.q_elems());
  t.in.k = read_fp16(dir / "k.f16", s.kv_elems());
  t.in.v = read_fp16(dir / "v.f16", s.kv_elems());
  t.out = read_fp16(dir / "out.f16", s.q_elems());
  return t;
}

void serve_stopping_rule(const stats::StoppingRule& rule, std::istream& in, std::ostream& out) {
  std::vector<double> samples;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    double elapsed = 0;
    if (!(fields >> elapsed)) throw std::runtime_error("stopping rule: '" + line + "' is not <seconds> <sample ns>...");
    for (double x; fields >> x;) samples.push_back(x);
    if (!fields.eof()) throw std::runtime_error("stopping rule: '" + line + "' is not <seconds> <sample ns>...");
    const stats::StopReason r = stats::should_stop(rule, samples, elapsed);
    out << (r == stats::StopReason::kContinue ? "continue" : stats::stop_reason_name(r)) << std::endl;
  }
}

SdpaSamplePlan sdpa_sample_plan(const stats::StoppingRule& rule, double per_call_ns) {
  if (!(per_call_ns > 0) || !std::isfinite(per_call_ns))
    throw std::invalid_argument("a call's estimate must be a positive number of ns, got " + std::to_string(per_call_ns));
  const double by_time = std::floor(rule.max_seconds * 1e9 / per_call_ns);
  SdpaSamplePlan plan;
  plan.samples = by_time >= double(rule.max_samples) ? rule.max_samples
                                                      : std::max(rule.min_samples, std::size_t(by_time));
  plan.stop_reason = plan.samples >= rule.max_samples ? stats::StopReason::kMaxSamples : stats::StopReason::kTimeCap;
  return plan;
}

std::string sample_plan_answer(const SdpaSamplePlan& plan) {
  return std::to_string(plan.samples) + " " + stats::stop_reason_name(plan.stop_reason);
}

std::optional<std::string> sdpa_memory_refusal(const Shape& s, std::uint64_t device_free,
                                               std::uint64_t host_available) {
  Footprint f = footprint(s);
  f.device_bytes += std::uint64_t(s.q_elems()) * sizeof(__half);  // the second output
  return memory_refusal(f, "Q, K, V and two outputs", device_free, host_available);
}

std::string sdpa_gpu_answer(const GpuAttributes& gpu, int driver) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string uuid_hex;
  for (unsigned char b : gpu.uuid) uuid_hex += {kHex[b >> 4], kHex[b & 15]};
  std::ostringstream out;
  out << "name " << gpu.name << "\nuuid_hex " << uuid_hex << "\ncc_major " << gpu.cc_major << "\ncc_minor "
      << gpu.cc_minor << "\nsm_count " << gpu.sm_count << "\nsm_clock_khz " << gpu.sm_clock_khz
      << "\nmem_clock_khz " << gpu.mem_clock_khz << "\nbus_width_bits " << gpu.bus_width_bits << "\nl2_bytes "
      << gpu.l2_bytes << "\nglobal_mem_bytes " << gpu.global_mem_bytes << "\nsmem_per_sm_bytes "
      << gpu.smem_per_sm_bytes << "\ndriver " << driver << "\n";
  return out.str();
}

void serve_monitor(profiler::GpuMonitor& monitor, std::istream& in, std::ostream& out) {
  const auto clock = [&]() -> std::optional<double> {
    const std::optional<profiler::GpuReading> r = monitor.read();
    return r ? std::optional<double>(r->sm_clock_mhz) : std::nullopt;
  };
  for (std::string line; std::getline(in, line);) {
    if (line == "clock") {
      out << sm_clock_line(clock()) << std::endl;
    } else if (line == "start") {
      monitor.start(std::chrono::microseconds(profiler::sampling::kGpuPollMicroseconds));
      out << sm_clock_line(clock()) << std::endl;
    } else if (line == "stop") {
      std::vector<SdpaRawReading> readings;
      for (const profiler::GpuReading& r : monitor.stop())
        readings.push_back({r.sm_clock_mhz, r.power_w, r.temperature_c, r.reasons});
      const std::string why = monitor.unavailable().value_or(readings.empty() ? "no NVML reading was taken" : "");
      out << nvml_block_line(why, monitor.max_sm_clock_mhz(), readings) << std::endl;
    } else {
      throw std::runtime_error("monitor: unknown command '" + line + "'; expected clock, start or stop");
    }
  }
}

RunRecord sdpa_record(const SdpaRaw& raw, const RunContext& ctx) {
  const BackendInfo* b = nullptr;
  for (const BackendInfo& x : kBackends)
    if (raw.backend == x.name) b = &x;
  if (!b) throw std::runtime_error("unknown backend '" + raw.backend + "'");
  RunRecord rec;
  rec.phase = std::string("sdpa-") + b->name;
  rec.direction = Direction::kForward;
  rec.experiment = {b->title,
                    std::string("torch.nn.functional.scaled_dot_product_attention under "
                                "torch.nn.attention.sdpa_kernel(") + b->sdp_backend + ")",
                    "What do PyTorch's SDPA kernels take on this GPU at the phases' shapes and "
                    "regimes: the baseline every phase is compared with."};
  rec.started_utc = utc_iso8601(raw.started_unix_s);
  Provenance& p = rec.provenance;
  p.git = ctx.git;
  p.argv = raw.argv;
  p.torch = TorchVersions{raw.torch, raw.torch_cuda};
  p.versions.driver = raw.driver;
  p.versions.cudnn = raw.cudnn;
  // The CUDA torch was built with, as the runtime version number: "13.0" -> 13000.
  const std::size_t dot = raw.torch_cuda.find('.');
  try {
    p.versions.runtime = std::stoi(raw.torch_cuda.substr(0, dot)) * 1000 +
                         (dot == std::string::npos ? 0 : std::stoi(raw.torch_cuda.substr(dot + 1)) * 10);
  } catch (const std::exception&) {
    throw std::runtime_error("torch's CUDA version '" + raw.torch_cuda + "' is not <major>.<minor>");
  }
  p.gpu = gpu_identity(raw.gpu);
  p.seed = raw.seed;
  p.sweep_id = ctx.sweep_id;
  p.inputs = "N(0,1) fp32 from torch.Generator(device).manual_seed(seed), drawn for q, k, v in "
             "that order and rounded to fp16; reproducible with the same torch and GPU, not "
             "bit-identical to the C++ phases' counter-based inputs";
  p.host = ctx.host;
  static_cast<SamplingOptions&>(rec.options) = sampling_options(raw.timing);
  rec.options.backend = raw.backend;
  bool ok = !raw.error.has_value();
  for (const SdpaRawResult& r : raw.results) {
    rec.results.push_back(result(r, rec.options.headline()));
    ok = ok && *rec.results.back().available && rec.results.back().correctness.passed;
  }
  rec.error = raw.error;
  rec.status = ok ? "ok" : "failed";
  return rec;
}

}  // namespace attnlab
