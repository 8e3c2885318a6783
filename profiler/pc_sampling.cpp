// CUPTI PC sampling of one launch: enable on the context, configure (period, continuous
// collection with start/stop control, parsed output), start, launch, stop, drain with
// cuptiPCSamplingGetData, disable; then map the PCs to lines and SASS (see the header).
#include "profiler/pc_sampling.hpp"

#include <cupti.h>
#include <cupti_pcsampling.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "common/check.hpp"
#include "common/process.hpp"
#include "profiler/detail/cupti_check.hpp"
#include "profiler/detail/driver_api.hpp"
#include "profiler/detail/nvperf_host.hpp"
#include "profiler/detail/l2_clean_flush.hpp"
#include "profiler/kernel_activity.hpp"
#include "common/stats.hpp"

namespace attnlab::profiler {

namespace fs = std::filesystem;

namespace {

struct Cubin {
  std::string file;
  std::vector<char> bytes;
  std::string sass;  // cuobjdump -sass of it, "" when that failed
};

// The executable's cubins by CUPTI's CRC, or why there are none.
struct Cubins {
  std::map<std::uint64_t, Cubin> by_crc;
  std::string problem;
};

Cubins extract_cubins(const std::string& executable) {
  Cubins out;
  const std::optional<std::string> found = find_tool("cuobjdump");
  if (!found) {
    out.problem = "cuobjdump not found (PATH, the CUDA Toolkit that built this binary)";
    return out;
  }
  const std::string& tool = *found;
  char tmpl[] = "/tmp/attnlab-cubins-XXXXXX";
  if (!mkdtemp(tmpl)) {
    out.problem = "cannot create a temporary directory for the cubins";
    return out;
  }
  const fs::path dir(tmpl);
  std::string exe = executable;
  if (exe == "/proc/self/exe") exe = "/proc/" + std::to_string(getpid()) + "/exe";
  std::string log;
  if (const int rc = run_capture({tool, "-xelf", "all", exe}, log, dir.string()); rc != 0) {
    out.problem = tool + " -xelf all " + exe + " failed (" +
                  (rc < 0 ? log : "exit " + std::to_string(rc)) + ")";
  } else {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".cubin") continue;
      Cubin c;
      c.file = e.path().filename().string();
      std::ifstream in(e.path(), std::ios::binary);
      c.bytes.assign(std::istreambuf_iterator<char>(in), {});
      if (c.bytes.empty()) continue;
      CUpti_GetCubinCrcParams p{};
      p.size = CUpti_GetCubinCrcParamsSize;
      p.cubin = c.bytes.data();
      p.cubinSize = c.bytes.size();
      if (cuptiGetCubinCrc(&p) != CUPTI_SUCCESS) continue;
      // stdout and stderr together: a listing that failed has no SASS lines to match
      if (std::string listing; run_capture({tool, "-sass", e.path().string()}, listing) == 0)
        c.sass = std::move(listing);
      out.by_crc.emplace(p.cubinCrc, std::move(c));
    }
    if (out.by_crc.empty()) out.problem = "no cubin in " + exe;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return out;
}

// The executable's cubins do not change while it runs: extracted once per executable.
const Cubins& cubins_of(const std::string& executable) {
  static std::map<std::string, Cubins> extracted;
  auto found = extracted.find(executable);
  if (found == extracted.end()) found = extracted.emplace(executable, extract_cubins(executable)).first;
  return found->second;
}

// The cubin of function `fn` whose samples (or counts) name cubin CRC `crc`: the one of that CRC,
// else the one whose listing has the function; nullptr when none. `matched_by` says which.
const Cubin* cubin_for(const Cubins& cubins, const std::string& fn, std::optional<std::uint64_t> crc,
                       std::string& matched_by) {
  matched_by = "CUPTI's cubin CRC";
  if (crc)
    if (const auto it = cubins.by_crc.find(*crc); it != cubins.by_crc.end()) return &it->second;
  matched_by = "the function's name (no cubin has the CRC CUPTI reports)";
  for (const auto& [c, bin] : cubins.by_crc)
    if (bin.sass.find("Function : " + fn + "\n") != std::string::npos) return &bin;
  return nullptr;
}

// One PC's source file and line from the cubin's line table; {"", 0} when it has none.
std::pair<std::string, int> source_of(const Cubin& c, const std::string& function, std::uint64_t offset) {
  CUpti_GetSassToSourceCorrelationParams p{};
  p.size = CUpti_GetSassToSourceCorrelationParamsSize;
  p.cubin = c.bytes.data();
  p.cubinSize = c.bytes.size();
  p.functionName = function.c_str();
  p.pcOffset = offset;
  if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS) return {"", 0};
  std::string file = p.fileName ? p.fileName : "";
  const std::string dirname = p.dirName ? p.dirName : "";
  std::free(p.fileName);  // CUPTI allocates both; the caller frees them
  std::free(p.dirName);
  if (!file.empty() && file.front() != '/' && !dirname.empty()) file = dirname + "/" + file;
  return {file, int(p.lineNumber)};
}

// The PC-sampling data buffer of `pcs` records with every stall reason, owned here.
struct DataBuffer {
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<std::vector<CUpti_PCSamplingStallReason>> reasons;
  DataBuffer(std::size_t n, std::size_t num_reasons) : pcs(n), reasons(n) {
    for (std::size_t i = 0; i < n; ++i) {
      reasons[i].resize(num_reasons);
      pcs[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs[i].stallReason = reasons[i].data();
    }
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = n;
    data.pPcData = pcs.data();
  }
};

constexpr std::size_t kMaxPcs = 20000;  // distinct PCs per drain; CUPTI keeps the rest for the next

struct Raw {
  std::map<std::string, std::map<std::uint64_t, std::map<std::uint32_t, std::uint64_t>>> by_kernel;
  std::map<std::string, std::uint64_t> crc;  // kernel -> cubin CRC
  std::uint64_t total = 0, dropped = 0, non_user = 0;
  bool buffer_full = false;
};

void absorb(Raw& raw, const CUpti_PCSamplingData& d) {
  raw.total += d.totalSamples;
  raw.dropped += d.droppedSamples;
  raw.non_user += d.nonUsrKernelsTotalSamples;
  raw.buffer_full = raw.buffer_full || d.hardwareBufferFull != 0;
  for (std::size_t i = 0; i < d.totalNumPcs; ++i) {
    const CUpti_PCSamplingPCData& pc = d.pPcData[i];
    const std::string fn = pc.functionName ? pc.functionName : "(unknown function)";
    raw.crc[fn] = pc.cubinCrc;
    auto& reasons = raw.by_kernel[fn][pc.pcOffset];
    for (std::size_t r = 0; r < pc.stallReasonCount; ++r)
      reasons[pc.stallReason[r].pcSamplingStallReasonIndex] += pc.stallReason[r].samples;
  }
}

// Two CUDA events around a launch, destroyed with the pair.
struct Events {
  cudaEvent_t a{}, b{};
  Events() {
    ATTNLAB_CUDA_CHECK(cudaEventCreate(&a));
    ATTNLAB_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~Events() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

float event_launch_ms(const LaunchFn& launch, cudaStream_t stream, detail::CleanL2Flush& flush, const Events& ev) {
  flush.flush_and_wait(stream);
  ATTNLAB_CUDA_CHECK(cudaEventRecord(ev.a, stream));
  launch(stream);
  ATTNLAB_CUDA_CHECK(cudaEventRecord(ev.b, stream));
  ATTNLAB_CUDA_CHECK(cudaEventSynchronize(ev.b));
  float ms = 0;
  ATTNLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.a, ev.b));
  return ms;
}

}  // namespace

namespace detail {

// PC sampling enabled and configured on one context: stall-reason names, the buffers.
struct PcSamplingState {
  CUcontext ctx = nullptr;
  bool enabled = false;
  std::optional<std::string> unavailable;
  std::map<std::uint32_t, std::string> reason_name;
  std::vector<std::string> names;
  std::unique_ptr<DataBuffer> config_buffer;  // what Disable copies out, if anything
  std::unique_ptr<DataBuffer> drain;          // what GetData fills

  // Enables and configures; the reason on failure (PC sampling then disabled again).
  std::optional<std::string> open(CUcontext c, int period_log2) {
    ctx = c;
    detail::preload_nvperf_host();
    CUpti_PCSamplingEnableParams ep{};
    ep.size = CUpti_PCSamplingEnableParamsSize;
    ep.ctx = ctx;
    if (const CUptiResult code = cuptiPCSamplingEnable(&ep); code != CUPTI_SUCCESS)
      return CuptiError::refusal("cuptiPCSamplingEnable", code);
    enabled = true;
    std::size_t num_reasons = 0;
    CUpti_PCSamplingGetNumStallReasonsParams np{};
    np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
    np.ctx = ctx;
    np.numStallReasons = &num_reasons;
    if (const CUptiResult code = cuptiPCSamplingGetNumStallReasons(&np); code != CUPTI_SUCCESS)
      return fail(CuptiError::refusal("cuptiPCSamplingGetNumStallReasons", code));
    std::vector<std::uint32_t> index(num_reasons);
    std::vector<std::array<char, CUPTI_STALL_REASON_STRING_SIZE>> text(num_reasons);
    std::vector<char*> ptr(num_reasons);
    for (std::size_t i = 0; i < num_reasons; ++i) ptr[i] = text[i].data();
    CUpti_PCSamplingGetStallReasonsParams rp{};
    rp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
    rp.ctx = ctx;
    rp.numStallReasons = num_reasons;
    rp.stallReasonIndex = index.data();
    rp.stallReasons = ptr.data();
    if (const CUptiResult code = cuptiPCSamplingGetStallReasons(&rp); code != CUPTI_SUCCESS)
      return fail(CuptiError::refusal("cuptiPCSamplingGetStallReasons", code));
    for (std::size_t i = 0; i < num_reasons; ++i) {
      text[i].back() = '\0';
      reason_name[index[i]] = text[i].data();
      names.emplace_back(text[i].data());
    }
    config_buffer = std::make_unique<DataBuffer>(kMaxPcs, num_reasons);
    drain = std::make_unique<DataBuffer>(kMaxPcs, num_reasons);
    std::vector<CUpti_PCSamplingConfigurationInfo> info(6);
    info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    info[0].attributeData.samplingPeriodData.samplingPeriod = std::uint32_t(period_log2);
    info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
    info[1].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
    info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
    info[2].attributeData.enableStartStopControlData.enableStartStopControl = 1;
    info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
    info[3].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
    info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
    info[4].attributeData.samplingDataBufferData.samplingDataBuffer = &config_buffer->data;
    info[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
    info[5].attributeData.scratchBufferSizeData.scratchBufferSize = std::size_t(64) << 20;
    if (auto why = configure(info)) return fail(*why);
    return std::nullopt;
  }

  std::optional<std::string> configure(std::vector<CUpti_PCSamplingConfigurationInfo>& info) {
    CUpti_PCSamplingConfigurationInfoParams p{};
    p.size = CUpti_PCSamplingConfigurationInfoParamsSize;
    p.ctx = ctx;
    p.numAttributes = info.size();
    p.pPCSamplingConfigurationInfo = info.data();
    if (const CUptiResult code = cuptiPCSamplingSetConfigurationAttribute(&p); code != CUPTI_SUCCESS) {
      std::string which;
      for (const auto& i : info)
        if (i.attributeStatus != CUPTI_SUCCESS)
          which += "; attribute " + std::to_string(int(i.attributeType)) + ": " +
                   CuptiError::describe(i.attributeStatus);
      return CuptiError::refusal("cuptiPCSamplingSetConfigurationAttribute", code) + which;
    }
    return std::nullopt;
  }

  std::string fail(std::string why) {
    close();
    return why;
  }

  // Disables; the reason on failure.
  std::optional<std::string> close() {
    if (!enabled) return std::nullopt;
    enabled = false;
    CUpti_PCSamplingDisableParams p{};
    p.size = CUpti_PCSamplingDisableParamsSize;
    p.ctx = ctx;
    if (const CUptiResult code = cuptiPCSamplingDisable(&p); code != CUPTI_SUCCESS)
      return CuptiError::refusal("cuptiPCSamplingDisable", code);
    return std::nullopt;
  }

  ~PcSamplingState() {
    if (auto why = close()) std::fprintf(stderr, "attnlab: %s\n", why->c_str());
  }
};

}  // namespace detail

namespace {

// The current context, or why there is none.
std::pair<CUcontext, std::string> current_context() {
  ATTNLAB_CUDA_CHECK(cudaFree(nullptr));  // the primary context exists
  CUcontext ctx = nullptr;
  try {
    const detail::DriverApi& driver = detail::driver_api();
    const CUresult code = driver.ctx_get_current(&ctx);
    if (code != CUDA_SUCCESS || ctx == nullptr)
      return {nullptr, "cuCtxGetCurrent found no CUDA context (" + driver.describe(code) + ")"};
  } catch (const std::exception& e) {
    return {nullptr, std::string("the CUDA driver lacks an entry point: ") + e.what()};
  }
  return {ctx, ""};
}

// The sampled launch, between cuptiPCSamplingStart and Stop, timed with events as the
// unsampled ones are (L2 flushed clean before it); the reason where CUPTI refuses.
std::optional<std::string> sampled_launch(CUcontext ctx, const LaunchFn& launch, cudaStream_t stream,
                                          detail::CleanL2Flush& flush, const Events& ev, float& ms) {
  flush.flush_and_wait(stream);
  CUpti_PCSamplingStartParams start{};
  start.size = CUpti_PCSamplingStartParamsSize;
  start.ctx = ctx;
  if (const CUptiResult c = cuptiPCSamplingStart(&start); c != CUPTI_SUCCESS)
    return CuptiError::refusal("cuptiPCSamplingStart", c);
  ATTNLAB_CUDA_CHECK(cudaEventRecord(ev.a, stream));
  launch(stream);
  ATTNLAB_CUDA_CHECK(cudaEventRecord(ev.b, stream));
  ATTNLAB_CUDA_CHECK(cudaEventSynchronize(ev.b));
  CUpti_PCSamplingStopParams stop{};
  stop.size = CUpti_PCSamplingStopParamsSize;
  stop.ctx = ctx;
  if (const CUptiResult c = cuptiPCSamplingStop(&stop); c != CUPTI_SUCCESS)
    return CuptiError::refusal("cuptiPCSamplingStop", c);
  ATTNLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.a, ev.b));
  return std::nullopt;
}

// Every sample into `raw`: drained with cuptiPCSamplingGetData, then PC sampling disabled and
// what Disable copies out taken too; the reason where CUPTI refuses.
std::optional<std::string> drain_samples(CUcontext ctx, detail::PcSamplingState& st, Raw& raw) {
  DataBuffer& drain = *st.drain;
  for (int round = 0; round < 1000; ++round) {
    drain.data.totalNumPcs = 0;
    drain.data.remainingNumPcs = 0;
    CUpti_PCSamplingGetDataParams p{};
    p.size = CUpti_PCSamplingGetDataParamsSize;
    p.ctx = ctx;
    p.pcSamplingData = &drain.data;
    if (const CUptiResult c = cuptiPCSamplingGetData(&p); c != CUPTI_SUCCESS)
      return CuptiError::refusal("cuptiPCSamplingGetData", c);
    absorb(raw, drain.data);
    if (drain.data.remainingNumPcs == 0) break;
  }
  if (auto why = st.close()) return why;
  absorb(raw, st.config_buffer->data);
  return std::nullopt;
}

// One PC's samples by stall reason, CUPTI's reason indices named; issued and stalled apart
// from the not-issued reasons.
SampledPc sampled_pc(std::uint64_t offset, const std::map<std::uint32_t, std::uint64_t>& reasons,
                     const std::map<std::uint32_t, std::string>& reason_name) {
  SampledPc pc;
  pc.offset = offset;
  std::map<std::string, std::uint64_t> all, not_issued;
  for (const auto& [idx, n] : reasons) {
    const auto nm = reason_name.find(idx);
    const std::string name = strip_stall_reason(nm != reason_name.end() ? nm->second : "reason_" + std::to_string(idx));
    if (is_not_issued(name))
      not_issued[name] += n;
    else
      all[name] += n;
  }
  pc.stalls = top_reasons(StallCounts(all.begin(), all.end()), all.size());
  pc.not_issued = top_reasons(StallCounts(not_issued.begin(), not_issued.end()), not_issued.size());
  for (const auto& [name, n] : pc.stalls) pc.samples += n;
  return pc;
}

// One kernel's samples: its cubin found by the samples' CRC, each PC with its source line and
// SASS, the lines aggregated.
KernelPcSamples kernel_samples(const std::string& fn, const Raw& raw, const std::string& executable,
                               const std::map<std::uint32_t, std::string>& reason_name) {
  const Cubins& cubins = cubins_of(executable);
  KernelPcSamples k;
  k.name = fn;
  const auto crc = raw.crc.find(fn);
  std::optional<std::uint64_t> sample_crc;
  if (crc != raw.crc.end()) sample_crc = k.cubin_crc = crc->second;
  std::string matched_by;
  const Cubin* cubin = cubin_for(cubins, fn, sample_crc, matched_by);
  k.cubin = cubin ? cubin->file + " (from " + executable + ", matched by " + matched_by + ")"
                  : "not found: " + (cubins.problem.empty()
                                         ? "no cubin of " + executable + " has the CRC CUPTI reports "
                                           "(a library's kernel): no source lines or SASS"
                                         : cubins.problem);
  const std::map<std::uint64_t, std::string> sass =
      cubin ? sass_by_offset(cubin->sass, fn) : std::map<std::uint64_t, std::string>{};
  for (const auto& [offset, reasons] : raw.by_kernel.at(fn)) {
    SampledPc pc = sampled_pc(offset, reasons, reason_name);
    if (pc.samples == 0) continue;
    if (cubin) std::tie(pc.file, pc.line) = source_of(*cubin, fn, offset);
    if (const auto s = sass.find(offset); s != sass.end()) pc.sass = s->second;
    k.samples += pc.samples;
    k.pcs.push_back(std::move(pc));
  }
  k.lines = aggregate_lines(k.pcs, &read_source_line);
  return k;
}

// The result's counts and timings from the drained samples and the launches' times.
void fill_totals(PcSamplingResult& res, const Raw& raw, float sampled_ms, const std::vector<double>& unsampled) {
  res.sampled_launch_ns = 1e6 * double(sampled_ms);
  res.unsampled_launch_ns = stats::summarize(unsampled).median;
  if (*res.unsampled_launch_ns > 0)
    res.overhead_pct = 100.0 * (*res.sampled_launch_ns / *res.unsampled_launch_ns - 1.0);
  res.total_samples = raw.total;
  res.dropped_samples = raw.dropped;
  res.non_user_samples = raw.non_user;
  res.hardware_buffer_full = raw.buffer_full;
}

std::string method() {
  return std::string("CUPTI PC sampling (cupti_pcsampling.h), ") + "enabled for this launch alone, " +
    "continuous mode with start/stop around one launch of its own after timing, L2 flushed clean before it; lines from "
    "cuptiGetSassToSourceCorrelation on the executable's cubin of the samples' CRC, SASS "
    "from cuobjdump -sass of that cubin; overhead: that launch against the median of " +
    std::to_string(kUnsampledLaunches) + " unsampled launches, both timed with CUDA events";
}

// [log2 cycles] the sampling period: the option's, else one for the launch's expected time (or
// the unsampled launches' median) on this GPU.
int sampling_period_log2(const PcSamplingOptions& options, const std::vector<double>& unsampled) {
  if (options.period_log2 > 0) return options.period_log2;
  int dev = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
  int sms = 0, khz = 0;
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  return choose_period_log2(options.expected_ns > 0 ? options.expected_ns : stats::summarize(unsampled).median, sms,
                            khz / 1000.0);
}

}  // namespace

PcSamplingResult collect_pc_samples(const LaunchFn& launch, cudaStream_t stream,
                                    const PcSamplingOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  PcSamplingResult res;
  auto unavailable = [&](std::string why) {
    res.available = false;
    res.reason = std::move(why);
    return res;
  };
  const auto [ctx, no_ctx] = current_context();
  if (!ctx) return unavailable(no_ctx);

  const ActivityPause pause;  // no activity records of these launches in any timing window
  detail::CleanL2Flush flush;
  const Events events;
  // Baseline: unsampled launches, timed as the sampled one is (events, L2 flushed clean).
  std::vector<double> unsampled;
  for (int i = 0; i < kUnsampledLaunches; ++i) unsampled.push_back(1e6 * event_launch_ms(launch, stream, flush, events));
  res.sampling_period_log2 = sampling_period_log2(options, unsampled);

  detail::PcSamplingState st;
  if (auto why = st.open(ctx, res.sampling_period_log2)) return unavailable(*why);
  res.stall_reason_names = st.names;
  float sampled_ms = 0;
  if (auto why = sampled_launch(ctx, launch, stream, flush, events, sampled_ms)) return unavailable(*why);
  Raw raw;
  if (auto why = drain_samples(ctx, st, raw)) return unavailable(*why);
  fill_totals(res, raw, sampled_ms, unsampled);

  for (const auto& [fn, pcs] : raw.by_kernel) res.kernels.push_back(kernel_samples(fn, raw, options.executable, st.reason_name));
  std::sort(res.kernels.begin(), res.kernels.end(),
            [](const KernelPcSamples& a, const KernelPcSamples& b) {
              return a.samples != b.samples ? a.samples > b.samples : a.name < b.name;
            });
  res.method = method();
  res.collection_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.available = true;
  return res;
}

std::vector<CountedInstruction> counted_instructions(const FunctionCounts& f, std::uint64_t cubin_crc,
                                                     const std::string& executable) {
  std::string matched_by;
  const Cubin* cubin = cubin_for(cubins_of(executable), f.name, cubin_crc, matched_by);
  std::vector<CountedInstruction> out;
  out.reserve(f.by_offset.size());
  for (const auto& [offset, counts] : f.by_offset) {
    CountedInstruction c;
    c.offset = offset;
    c.counts = counts;
    if (cubin) std::tie(c.file, c.line) = source_of(*cubin, f.name, offset);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace attnlab::profiler
