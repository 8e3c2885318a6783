// attnlab-timeline: a warp-role timeline of an instrumented phase (5, d4: every phase whose
// declaration has Phase::launch_timeline). Its kernels with their stamp policy on
// (kernels/timeline.cuh; the timed launches compile it away) run once with a stamp buffer
// attached, warm or, with --cold, behind an L2 flush as in the cold timing regime; the stamps
// are decoded onto one time axis and written as a record (attnlab.timeline/1) and a Chrome trace
// of one SM; attnlab-report timeline renders the record's report and picture (make timeline runs
// both, scripts/timeline). The stamps' cost is measured (CUPTI times of the normal and timeline
// builds, launched alternately at one shape), and the decoded span is checked against CUPTI.
//   make timeline PHASE=5 SHAPES=throughput
//   build/bin/attnlab-timeline --phase d4 --shape latency --sm 0 --out results/timeline
// The tensor pipe over time (the consumers' wgmma issue spans against the dense wgmma rate of
// --calibration: a record, or this GPU's newest in folders of them, which make timeline names;
// else the architecture's ceiling) is in the record; --under-profiler launches the
// stamped build alone, without CUPTI, for Nsight Compute to count the same kernel
// (scripts/timeline-cost --ncu).
// Exit codes: 0 ok, 1 the timeline build's output failed the fp64 check, 2 bad arguments or an
// unsupported shape, 3 no GPU, CUPTI unavailable or the output not writable.
#include <cuda_runtime.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/experiment.hpp"
#include "experiments/harness/gate.hpp"
#include "experiments/harness/reference.hpp"
#include "experiments/harness/run_main.hpp"
#include "experiments/harness/run_setup.hpp"
#include "kernels/registry.hpp"
#include "kernels/timeline_host.hpp"
#include "attnlab_timeline_policy.hpp"
#include "profiler/calibration/microbench.hpp"
#include "profiler/clock_probe.hpp"
#include "profiler/kernel_activity.hpp"
#include "profiler/l2_flush.hpp"
#include "common/stats.hpp"
#include "profiler/timeline_decode.hpp"
#include "record/calibration.hpp"
#include "record/record.hpp"
#include "record/timeline.hpp"
#include "record/timeline_rate.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string phase;
  std::string shape_spec = "throughput";
  std::optional<std::uint32_t> sm;
  std::string out = "results/timeline";
  std::uint32_t events_per_warp = 8192;
  std::uint32_t launches = 21;
  std::optional<std::uint64_t> seed;
  int device = 0;
  // Calibration records (calibration.json) or folders of them: the tensor pipe's wgmma rate.
  std::vector<std::string> calibration;
  bool under_profiler = false;
  bool cold = false;  // an L2 flush before every timed and traced launch
};

// Launches of the stamped build in --under-profiler: two to warm up, the last decoded (Nsight
// Compute: --launch-skip 2 --launch-count 1 profiles the same one).
constexpr int kProfilerLaunches = 3;

constexpr const char* kMethod =
    "The phase's kernels with their stamp policy on (kernels/timeline.cuh; the build's policy is "
    "options.stamps): every warp stamps clock64 at the marked events into its own slot (anchored by "
    "clock64 and %globaltimer at the warp's start and end), each stamp stored there as it is taken "
    "(global, global-boundaries, global-consumers, global-phases, global-phases-leads) or through a shared-memory "
    "ring written out as it fills (shared, shared-boundaries); the -boundaries policies leave out the issue spans, "
    "global-consumers the issue spans and the empty-barrier waits (a producer then stamps its work items alone), "
    "global-phases stamps per work item only (the item, its prologue from its begin to the end of its first "
    "full-barrier wait, the epilogue, the merge and cluster waits), global-phases-leads the same in the first warp "
    "of each warpgroup alone (timeline.warps_unstamped_by_policy counts the others). With options.stamp_sample = "
    "k > 1 only every k-th work item is stamped (timeline::sampled_item), and a role's wait fractions "
    "are shares of its warps' stamped items' time. One launch without the buffer gives the grid and block "
    "(CUPTI); the timeline build is then gated on the fp64 reference (poisoned output, two "
    "launches), warmed up (3 launches of each build), and both builds are launched alternately, "
    "back to back without an L2 flush (warm; with options.cold, each launch behind an L2 flush, a write of twice "
    "the L2 as the cold timing regime has it, the traced launch too), each synchronised, for the overhead (CUPTI kernel "
    "durations, medians; where a launch runs a pre-pass before the instrumented kernel, every CUPTI "
    "time here is the launch's last kernel's). The traced launch follows, between two SM-clock probes "
    "(profiler/clock_probe.hpp, kept for comparison); cycles become ns at the rate fitted to the "
    "warps' own anchors (one least-squares slope of globaltimer against clock64 over every start "
    "and end anchor, an intercept per SM), each SM's cycles are placed on the globaltimer axis by "
    "the median offset of its warps' anchors. launch_floor_ns: the median CUPTI time of as many "
    "launches of an empty kernel with the phase's launch configuration (grid, block, cluster, "
    "dynamic shared memory), each behind an L2 flush with options.cold. span_matches: -tolerance <= CUPTI time of the traced launch - "
    "decoded span <= tolerance + launch floor, the tolerance the fraction kSpanAgreement of the "
    "traced launch (record/timeline.hpp). timeline.tensor_pipe: each QK^T and PV issue span of a warp "
    "carries the phase's FLOPs of one (Phase::tensor_issue_work), spread from its begin to the end of the "
    "first wgmma wait after it on the same key tile, against the dense wgmma rate per SM per cycle (rate_source) "
    "over every SM's active time (the union of its warps' lifetimes; under sampling, of the stamped items' "
    "spans of its warps that issue GEMMs), in cycles at the anchors' rate. timeline.paths: every SM's stamped work "
    "items' critical paths (record/timeline_paths.hpp: the warp that ended the item last, its time by class), where "
    "timeline.warps keeps the pictured SM's alone; kernel.work_items: the items a persistent phase's CTAs share "
    "(Phase::work_items), else one per CTA.";

// Launches `launch` under `tag`, synchronised.
void tagged(profiler::KernelActivity& activity, std::uint64_t tag, const std::function<void()>& launch,
            cudaStream_t stream) {
  {
    profiler::TagScope scope(activity, tag);
    launch();
  }
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// The kernel record of each tag's launch, by tag: the launch's last kernel, the one that stamps. A
// phase may run a pre-pass first (f8 transposes V), the same in both builds, so the overhead
// compares the instrumented kernels, and the decoded span is that kernel's.
std::map<std::uint64_t, profiler::KernelRecord> by_tag(profiler::KernelActivity& activity) {
  std::map<std::uint64_t, profiler::KernelRecord> out;
  for (auto& r : activity.collect()) {
    if (r.tag == 0) continue;
    const auto [it, fresh] = out.emplace(r.tag, r);
    if (!fresh && r.start_ns > it->second.start_ns) it->second = r;
  }
  return out;
}

double duration_ns(const profiler::KernelRecord& r) { return double(r.end_ns - r.start_ns); }

// Makes the device current after checking that the phase runs on it (EnvironmentError) and that
// the shape fits its free memory and the host's (UsageError).
void open_device(const Phase& phase, const Options& opt, const Shape& s) {
  const cudaDeviceProp prop = open_cuda_device(opt.device);
  if (auto why = device_refusal(phase, prop.major, prop.minor)) throw EnvironmentError(*why);
  refuse_unfit_shapes({s}, "", phase.input_format == InputFormat::kE4m3);
}

void add_options(CLI::App& app, Options& opt) {
  app.add_option("--phase", opt.phase, "phase with stamps: " + instrumented_phase_ids())->required();
  app.add_option("-s,--shape", opt.shape_spec, "shape: " + shape_grammar())
      ->type_name("SPEC")
      ->capture_default_str();
  app.add_option("--sm", opt.sm, "SM to picture (default: the SM of the first CTA)")
      ->check(kNonNegativeInteger);
  app.add_option("--out", opt.out, "records go to <out>/<phase>/<run>/")->capture_default_str();
  app.add_option("--events-per-warp", opt.events_per_warp,
                 "stamps a warp's slot holds; later ones are counted, not written")
      ->check(CLI::Range(16u, 1u << 24))
      ->capture_default_str();
  app.add_option("--launches", opt.launches, "launches of each build for the overhead")
      ->check(CLI::Range(3u, 10000u))
      ->capture_default_str();
  app.add_option("--seed", opt.seed, "input seed (default: fresh; recorded)")->check(kNonNegativeInteger);
  app.add_option("--device", opt.device, "CUDA device ordinal")->check(kNonNegativeInteger)->capture_default_str();
  app.add_option("--calibration", opt.calibration,
                 "calibration record (calibration.json, make calibrate) whose dense wgmma rate the tensor pipe "
                 "is measured against, or a folder of them (<dir>/<run>/calibration.json; repeatable), where "
                 "this GPU's newest is taken, its board's before its model's; a record named as a file is taken "
                 "as it is (default, and where no folder holds one of this GPU: the architecture's per-clock "
                 "ceiling, which the record names)")
      ->check(CLI::ExistingPath);
  auto* cold = app.add_flag("--cold", opt.cold,
                            "flush the L2 (a write of twice its size) before every launch of both builds and before "
                            "the traced launch, as the cold timing regime does: the timeline of a launch whose inputs "
                            "come from HBM (default: warm, back to back)");
  app.add_flag("--under-profiler", opt.under_profiler,
               "no CUPTI and no record (a profiler such as Nsight Compute holds the counters): launch the "
               "stamped build " + std::to_string(kProfilerLaunches) + " times, decode the last launch, print "
               "its tensor-pipe line and write its tensor_pipe block to <out>/tensor_pipe.json")
      ->excludes(cold);
  app.footer("Exit codes: 0 ok, 1 the timeline build's output failed the fp64 check, 2 bad "
             "arguments or unsupported shape, 3 no GPU, CUPTI unavailable or output not writable.");
}

// The phase and shape the command line asks for, checked before the GPU is touched.
struct Request {
  const Phase* phase = nullptr;
  Shape shape;
};

Request check_request(const Options& opt) {
  Request req;
  req.phase = find_phase(opt.phase);
  if (!req.phase || !req.phase->launch_timeline || !req.phase->warp_role)
    throw UsageError("phase '" + opt.phase + "' has no timeline stamps; phases with them: " + instrumented_phase_ids());
  try {
    req.shape = parse_shape(opt.shape_spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (auto why = req.phase->can_implement(req.shape))
    throw UsageError(std::string("phase ") + req.phase->id + " cannot run shape " + shape_name(req.shape) + ": " + *why);
  return req;
}

// The timeline build's launch geometry, which sizes the stamp buffer.
struct Geometry {
  std::string kernel;  // the timeline build's kernel name
  std::uint32_t ctas = 0;
  std::uint32_t threads = 0;  // per CTA
  std::uint32_t warps = 0;    // per CTA
};

// The launch geometry, from CUPTI, with no buffer attached (the stamps record nothing); refuses
// a stamp buffer over half the GPU's free memory.
Geometry launch_geometry(profiler::KernelActivity& activity, std::uint64_t& tag, const std::function<void()>& traced,
                         cudaStream_t stream, std::uint32_t events_per_warp) {
  timeline::detach_all();
  tagged(activity, tag, traced, stream);
  const auto sizing = by_tag(activity);
  if (!sizing.count(tag)) throw std::runtime_error("CUPTI delivered no kernel record for the sizing launch");
  const profiler::KernelRecord& k = sizing.at(tag++);
  Geometry g;
  g.kernel = k.name;
  g.ctas = std::uint32_t(k.grid_x) * k.grid_y * k.grid_z;
  g.threads = std::uint32_t(k.block_x) * k.block_y * k.block_z;
  g.warps = (g.threads + 31) / 32;
  std::size_t device_free = 0, device_total = 0;
  ATTNLAB_CUDA_CHECK(cudaMemGetInfo(&device_free, &device_total));
  const std::uint64_t need = timeline::DeviceTimeline::bytes(g.ctas, g.warps, events_per_warp);
  if (need > device_free / 2)
    throw UsageError("the stamp buffer (" + std::to_string(g.ctas) + " CTAs x " + std::to_string(g.warps) +
                     " warps x " + std::to_string(events_per_warp) + " stamps = " +
                     std::to_string(need >> 20) + " MiB) exceeds half the GPU's free memory (" +
                     std::to_string(device_free >> 20) + " MiB); lower --events-per-warp");
  return g;
}

// The launch's work items: those a persistent phase's CTAs share, else one per CTA.
std::int64_t launch_work_items(const Phase& phase, const Shape& s, const Geometry& g) {
  int dev = 0, sms = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const auto items = phase.work_items ? phase.work_items(s, sms) : std::nullopt;
  return items ? *items : std::int64_t(g.ctas);
}

// The record's header: what runs, where and how, before anything is measured.
TimelineRecord start_record(const Phase& phase, const Shape& s, double scale, const Options& opt, const Geometry& g,
                            long long now) {
  TimelineRecord rec;
  rec.phase = phase.id;
  rec.title = phase.title;
  rec.technique = phase.technique;
  rec.shape = s;
  rec.scale = scale;
  rec.started_utc = utc_iso8601(now);
  rec.events_per_warp = opt.events_per_warp;
  rec.launches = opt.launches;
  rec.cold = opt.cold;
  rec.requested_sm = opt.sm;
  rec.stamps = timeline::stamp_policy_name(timeline::kBuildStampPolicy);
  rec.stamp_sample = timeline::kBuildStampSample;
  rec.method = kMethod;
  rec.kernel_timeline = g.kernel;
  rec.grid_ctas = g.ctas;
  rec.block_threads = g.threads;
  rec.work_items = launch_work_items(phase, s, g);
  return rec;
}

// The stamps must not change the result: the timeline build passes the same gate. A failure is
// recorded and told on stderr.
bool gate_passes(TimelineRecord& rec, const fs::path& file, const Phase& phase,
                 const Problem& p, const GateInputs& in, std::uint64_t seed, cudaStream_t stream) {
  Phase instrumented = phase;
  instrumented.launch = phase.launch_timeline;
  const GateResult gate = run_gate(instrumented, p, in, seed, stream);
  rec.correctness = correctness_block(gate, p.shape, Inputs::kNormal);
  if (!gate.passed) {
    rec.status = "failed";
    write_timeline_file(file, rec);
    std::cerr << "attnlab-timeline: the timeline build's output failed the check: " << gate.failure
              << " (record " << file.string() << ")" << std::endl;
  }
  return gate.passed;
}

// The stamps' cost: both builds warmed up, then launched alternately, each timed by CUPTI.
// With `flush`, each launch follows an L2 flush (cold), the stamp buffer's clear before it.
TimelineOverhead time_overhead(TimelineRecord& rec, profiler::KernelActivity& activity, std::uint64_t& tag,
                               const std::function<void()>& normal, const std::function<void()>& traced,
                               const timeline::DeviceTimeline& buffer, cudaStream_t stream, std::uint32_t launches,
                               profiler::L2Flush* flush) {
  const auto flushed = [&] { if (flush) flush->flush(stream); };
  for (int i = 0; i < 3; ++i) {
    normal();
    buffer.clear(stream);
    traced();
  }
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  activity.collect();  // the gate's and the warm-up's kernels
  TimelineOverhead ovh;
  std::vector<std::uint64_t> normal_tags, timeline_tags;
  for (std::uint32_t i = 0; i < launches; ++i) {
    normal_tags.push_back(tag);
    flushed();
    tagged(activity, tag++, normal, stream);
    buffer.clear(stream);
    flushed();
    timeline_tags.push_back(tag);
    tagged(activity, tag++, traced, stream);
  }
  const auto timed = by_tag(activity);
  for (const auto& [tags, out] : {std::pair{&normal_tags, &ovh.normal_ns}, std::pair{&timeline_tags, &ovh.timeline_ns}})
    for (const std::uint64_t t : *tags) {
      if (!timed.count(t)) throw std::runtime_error("CUPTI delivered no kernel record for a timed launch");
      out->push_back(duration_ns(timed.at(t)));
    }
  rec.kernel_normal = timed.at(normal_tags.front()).name;
  return ovh;
}

struct TracedLaunch {
  timeline::RawTimeline raw;  // its stamps
  double ns = 0;              // [ns] its CUPTI time
};

// The traced launch, between two SM-clock probes; behind an L2 flush where `flush` is given.
TracedLaunch traced_launch(TimelineRecord& rec, profiler::KernelActivity& activity, std::uint64_t& tag,
                           const std::function<void()>& traced, const timeline::DeviceTimeline& buffer,
                           cudaStream_t stream, profiler::L2Flush* flush) {
  rec.sm_clock_mhz_before = profiler::measure_sm_clock_mhz(stream);
  buffer.clear(stream);
  if (flush) flush->flush(stream);
  const std::uint64_t traced_tag = tag++;
  tagged(activity, traced_tag, traced, stream);
  rec.sm_clock_mhz_after = profiler::measure_sm_clock_mhz(stream);
  const auto last = by_tag(activity);
  if (!last.count(traced_tag)) throw std::runtime_error("CUPTI delivered no kernel record for the traced launch");
  TracedLaunch out;
  out.ns = duration_ns(last.at(traced_tag));
  out.raw = buffer.pull(stream);
  return out;
}

// The dense wgmma rate of the phase's input format (record/timeline_rate.hpp): the calibration's
// where --calibration gives one for this GPU, else the architecture's per-clock ceiling, named as
// such.
void tensor_rate(timeline::TensorPipeInputs& in, const Phase& phase, const Options& opt, const GpuIdentity& gpu) {
  const std::string rate = phase.input_format == InputFormat::kE4m3 ? calibration::kTensorFp8 : calibration::kTensor;
  try {
    set_tensor_pipe_rate(in, rate, opt.calibration, gpu);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

// What the tensor pipe over time is computed from at this shape; none where the phase declares
// no issue work.
std::optional<timeline::TensorPipeInputs> tensor_pipe_inputs(const Phase& phase, const Shape& s, const Options& opt) {
  if (!phase.tensor_issue_work) return std::nullopt;
  int dev = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  ATTNLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  const auto work = phase.tensor_issue_work(s, prop.multiProcessorCount);
  if (!work) return std::nullopt;
  timeline::TensorPipeInputs in;
  in.qk_flops = work->qk_flops;
  in.pv_flops = work->pv_flops;
  tensor_rate(in, phase, opt, gpu_identity(dev));
  if (!timeline::stamps_issue_spans(timeline::kBuildStampPolicy))
    in.not_measured = std::string("the stamp policy ") + timeline::stamp_policy_name(timeline::kBuildStampPolicy) +
                      " stamps no issue spans";
  return in;
}

// `pipe`: tensor_pipe_inputs', taken before the launches, so that a calibration that cannot be
// read ends the run before the GPU's time is spent.
timeline::DecodeOptions decode_options(const Options& opt, const Phase& phase,
                                       const std::optional<timeline::TensorPipeInputs>& pipe) {
  timeline::DecodeOptions dopt;  // no clock: the rate the warps' anchors give
  dopt.sm = opt.sm;
  dopt.role = phase.warp_role;
  dopt.sample_every = timeline::kBuildStampSample;
  dopt.policy = timeline::kBuildStampPolicy;
  dopt.tensor_pipe = pipe;
  return dopt;
}

// The traced launch's stamps on one time axis; an --sm the launch did not use is a usage error,
// recorded as a failed run.
void decode_traced(TimelineRecord& rec, const fs::path& file, const timeline::RawTimeline& raw, const Options& opt,
                   const Phase& phase, const std::optional<timeline::TensorPipeInputs>& pipe) {
  const timeline::DecodeOptions dopt = decode_options(opt, phase, pipe);
  try {
    rec.timeline = timeline::decode(raw, dopt);
  } catch (const std::invalid_argument& e) {
    rec.status = "failed";
    rec.error = e.what();
    write_timeline_file(file, rec);
    throw UsageError(e.what());
  }
}

// The median CUPTI time of an empty kernel with the phase's launch configuration at this shape,
// each launch behind an L2 flush where `flush` is given (a cold run's floor); nullopt where the
// phase gives none.
std::optional<double> launch_floor(const Phase& phase, const Shape& s, profiler::KernelActivity& activity,
                                   std::uint64_t& tag, cudaStream_t stream, std::uint32_t launches,
                                   profiler::L2Flush* flush) {
  if (!phase.launch_geometry) return std::nullopt;
  int dev = 0, sms = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const auto g = phase.launch_geometry(s, sms);
  if (!g) return std::nullopt;
  const profiler::calibration::Launch l{g->grid, g->block, g->cluster, g->dynamic_smem_bytes};
  const std::function<void()> empty = [&] { profiler::calibration::launch_empty(l, stream); };
  for (int i = 0; i < 3; ++i) empty();
  ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  activity.collect();  // the warm-up
  std::vector<std::uint64_t> tags;
  for (std::uint32_t i = 0; i < launches; ++i) {
    tags.push_back(tag);
    if (flush) flush->flush(stream);
    tagged(activity, tag++, empty, stream);
  }
  const auto timed = by_tag(activity);
  std::vector<double> ns;
  for (const std::uint64_t t : tags) {
    if (!timed.count(t)) throw std::runtime_error("CUPTI delivered no kernel record for an empty launch");
    ns.push_back(duration_ns(timed.at(t)));
  }
  return stats::summarize(ns).median;
}

// The overhead's medians, and whether the decoded span agrees with CUPTI (span_agrees).
void summarize_overhead(TimelineOverhead& ovh, double traced_ns, double span_ns) {
  ovh.normal_median_ns = stats::summarize(ovh.normal_ns).median;
  ovh.timeline_median_ns = stats::summarize(ovh.timeline_ns).median;
  ovh.overhead_ns = ovh.timeline_median_ns - ovh.normal_median_ns;
  ovh.overhead_fraction = ovh.overhead_ns / ovh.normal_median_ns;
  ovh.traced_launch_ns = traced_ns;
  ovh.span_ns = span_ns;
  ovh.tolerance_ns = kSpanAgreement * traced_ns;
  ovh.span_matches = span_agrees(ovh);
}

// The tensor pipe's line: the whole-kernel average and its roles', or why it is not measured.
std::string tensor_pipe_line(const TimelineDecoded& d) {
  if (!d.tensor_pipe) return "tensor pipe: not measured (the phase declares no issue work)";
  const TimelineTensorPipe& t = *d.tensor_pipe;
  if (t.not_measured) return "tensor pipe: not measured (" + *t.not_measured + ")";
  std::ostringstream line;
  line << "tensor pipe: " << 100 * t.average << "% of " << t.flop_per_sm_cycle << " FLOP per SM per cycle over the SMs' "
       << "active time (" << t.issues << " issue spans, " << t.uncovered << " without a covering wait);";
  for (const auto& r : t.roles) line << " " << r.role << " " << 100 * r.average << "%;";
  line << " rate: " << t.rate_source;
  return line.str();
}

// --under-profiler: the stamped build alone, no CUPTI, no record. Its buffer is sized from the
// phase's launch geometry; the last launch's stamps are decoded and its tensor-pipe line printed.
int run_under_profiler(const Options& opt, const Request& req) {
  const Phase& phase = *req.phase;
  const Shape& s = req.shape;
  open_device(phase, opt, s);
  const auto pipe = tensor_pipe_inputs(phase, s, opt);
  if (!phase.launch_geometry) throw UsageError("phase " + std::string(phase.id) + " gives no launch geometry");
  int dev = 0, sms = 0;
  ATTNLAB_CUDA_CHECK(cudaGetDevice(&dev));
  ATTNLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const auto g = phase.launch_geometry(s, sms);
  if (!g) throw UsageError("phase " + std::string(phase.id) + " gives no launch geometry at " + shape_name(s));
  const Stream stream;
  const std::uint64_t seed = opt.seed ? *opt.seed : fresh_seed();
  const GateInputs in = make_gate_inputs(s, seed, Inputs::kNormal, {phase.input_format});
  const ProblemBuffers buffers(s, in, phase.input_format, workspace_bytes(phase, s), phase.emits_lse);
  const Problem p = buffers.problem(float(s.default_scale()));
  const timeline::DeviceTimeline buffer(g->grid.x * g->grid.y * g->grid.z,
                                        (g->block.x * g->block.y * g->block.z + 31) / 32, opt.events_per_warp);
  buffer.attach();
  for (int i = 0; i < kProfilerLaunches; ++i) {
    buffer.clear(stream.get());
    phase.launch_timeline(p, stream.get());
    ATTNLAB_CHECK_LAUNCH();
  }
  const TimelineDecoded d = timeline::decode(buffer.pull(stream.get()), decode_options(opt, phase, pipe));
  std::cout << "attnlab-timeline: phase " << phase.id << " at " << shape_name(s) << " under a profiler, launch "
            << kProfilerLaunches << " of " << kProfilerLaunches << ": " << tensor_pipe_line(d) << std::endl;
  if (d.tensor_pipe) {
    const fs::path file = fs::path(opt.out) / "tensor_pipe.json";
    require_writable_directory(file.parent_path());
    write_tensor_pipe_file(file, *d.tensor_pipe);
    std::cout << "attnlab-timeline: wrote " << file.string() << std::endl;
  }
  return kExitOk;
}

// The run's summary on stdout; the report is attnlab-report's to render.
void print_summary(const TimelineRecord& rec, const fs::path& dir, const Options& opt) {
  const TimelineOverhead& ovh = *rec.overhead;
  const TimelineDecoded& d = *rec.timeline;
  std::cout << "attnlab-timeline: kernel " << ovh.normal_median_ns / 1000 << " us normal, "
            << ovh.timeline_median_ns / 1000 << " us with stamps (median of " << opt.launches
            << " each): overhead " << ovh.overhead_fraction * 100 << "%\n"
            << "attnlab-timeline: decoded span " << ovh.span_ns / 1000 << " us vs CUPTI "
            << ovh.traced_launch_ns / 1000 << " us for the traced launch: "
            << (ovh.span_matches ? "agrees" : "DISAGREES") << " within " << kSpanAgreement * 100
            << "% of it (" << ovh.tolerance_ns / 1000 << " us) and the launch floor ("
            << (ovh.launch_floor_ns ? std::to_string(*ovh.launch_floor_ns / 1000) + " us" : std::string("not measured"))
            << ")\n"
            << "attnlab-timeline: cycles at " << d.sm_clock_mhz << " MHz, fitted to the warps' anchors "
            << "(probes around the launch: " << rec.sm_clock_mhz_before << " and " << rec.sm_clock_mhz_after
            << " MHz)\n"
            << "attnlab-timeline: " << d.stamps << " stamps, " << d.overflow << " past capacity in "
            << d.warps_overflowed << " warps, " << d.unmatched << " unmatched; SM "
            << d.pictured_sm << " pictured\n";
  for (const RoleSummary& role : d.roles)
    std::cout << "attnlab-timeline:   " << role.role << " (" << role.warps << " warps): waiting "
              << role.wait_fraction * 100 << "% of its time" << std::endl;
  std::cout << "attnlab-timeline: " << tensor_pipe_line(d) << std::endl;
  std::cout << "attnlab-timeline: wrote " << (dir / "run.json").string() << ", " << (dir / "trace.json").string()
            << "; its report: attnlab-report timeline " << dir.string() << std::endl;
}

// The device, the inputs, the timeline build's geometry and gate, its overhead, the traced
// launch decoded, then the record, trace and report. `rec` outlives the call: run_main marks it
// failed after a fault.
int run(const Options& opt, int argc, char** argv, TimelineRecord& rec, RunRecordFile& record_file) {
  const Request req = check_request(opt);
  if (opt.under_profiler) return run_under_profiler(opt, req);
  const Phase* phase = req.phase;
  const Shape& s = req.shape;
  const fs::path root = fs::path(opt.out);
  require_writable_directory(root);
  open_device(*phase, opt, s);
  const auto pipe = tensor_pipe_inputs(*phase, s, opt);

  std::optional<profiler::KernelActivity> activity;
  start_kernel_activity(activity);
  const Stream stream;
  const std::uint64_t seed = opt.seed ? *opt.seed : fresh_seed();
  const double scale = s.default_scale();
  const GateInputs in = make_gate_inputs(s, seed, Inputs::kNormal, {phase->input_format});
  // One workspace for both builds: their launches take turns on one stream.
  const ProblemBuffers buffers(s, in, phase->input_format, workspace_bytes(*phase, s), phase->emits_lse);
  const Problem p = buffers.problem(float(scale));
  std::uint64_t tag = 1;
  const std::function<void()> normal = [&] { phase->launch(p, stream.get()); };
  const std::function<void()> traced = [&] { req.phase->launch_timeline(p, stream.get()); };

  const Geometry g = launch_geometry(*activity, tag, traced, stream.get(), opt.events_per_warp);
  const timeline::DeviceTimeline buffer(g.ctas, g.warps, opt.events_per_warp);
  buffer.attach();

  const long long now = now_epoch_seconds();
  rec = start_record(*phase, s, scale, opt, g, now);
  rec.provenance = provenance(argc, argv, seed, opt.device, false);
  const fs::path dir = new_run_directory(root, phase->id, now);
  const fs::path file = dir / "run.json";
  write_timeline_file(file, rec);
  record_file = written_record(file, rec, &write_timeline_file);
  std::cout << "attnlab-timeline: phase " << phase->id << " at " << shape_name(rec.shape) << ", " << g.ctas
            << " CTAs x " << g.warps << " warps, " << (opt.cold ? "cold (an L2 flush before every launch)" : "warm")
            << ", record " << file.string() << std::endl;

  if (!gate_passes(rec, file, *phase, p, in, seed, stream.get())) return kExitFailed;

  std::optional<profiler::L2Flush> flush;
  if (opt.cold) flush.emplace();
  profiler::L2Flush* const flush_or_none = flush ? &*flush : nullptr;
  TimelineOverhead ovh =
      time_overhead(rec, *activity, tag, normal, traced, buffer, stream.get(), opt.launches, flush_or_none);
  ovh.launch_floor_ns = launch_floor(*phase, s, *activity, tag, stream.get(), opt.launches, flush_or_none);
  const TracedLaunch last = traced_launch(rec, *activity, tag, traced, buffer, stream.get(), flush_or_none);
  decode_traced(rec, file, last.raw, opt, *req.phase, pipe);
  summarize_overhead(ovh, last.ns, rec.timeline->span_ns);
  rec.overhead = ovh;
  rec.status = "ok";
  write_timeline_file(file, rec);
  try {
    write_chrome_trace(dir / "trace.json", rec);
  } catch (const std::runtime_error& ex) {
    throw EnvironmentError(ex.what());  // the trace's file: the record itself is written
  }
  print_summary(rec, dir, opt);
  return kExitOk;
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) {
  using namespace attnlab;
  CLI::App app{"attnlab-timeline: a warp-role timeline of an instrumented phase (its kernels with "
               "their stamps on, never the timed launches): record, Chrome trace, picture of one "
               "SM, and the stamps' overhead against the normal build"};
  Options opt;
  add_options(app, opt);
  TimelineRecord rec;
  return run_main("attnlab-timeline", "run failed", app, argc, argv,
                  [&](RunRecordFile& record_file) { return run(opt, argc, argv, rec, record_file); });
}
