// The experiment harness every phase binary shares: parse the command line, validate every
// shape before running any, gate each shape on the fp64 reference, time the ones that pass
// in each regime, and keep the run record current on disk throughout.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>

#include <CLI/CLI.hpp>

#include "common/shapes.hpp"
#include "experiments/harness/backward_gate.hpp"
#include "experiments/harness/console.hpp"
#include "experiments/harness/experiment.hpp"
#include "experiments/harness/gate.hpp"
#include "experiments/harness/pc_sampling_child.hpp"
#include "experiments/harness/record_fill.hpp"
#include "experiments/harness/reference.hpp"
#include "experiments/harness/registry_table.hpp"
#include "experiments/harness/run_main.hpp"
#include "experiments/harness/run_setup.hpp"
#include "profiler/sass.hpp"
#include "common/check.hpp"
#include "kernels/phase_cudnn.hpp"
#include "kernels/registry.hpp"
#include "profiler/profiler.hpp"
#include "record/correctness.hpp"
#include "record/provenance.hpp"
#include "record/record.hpp"
#include "record/result.hpp"
#include "record/timing.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;
using profiler::Regime;

struct Options {
  std::vector<std::string> shape_specs;
  std::optional<std::uint64_t> seed;
  std::string results_dir = "results";
  // --regimes, the stopping rule's options and --check-only, parsed once into the value the
  // record's options are written from.
  TimingRequest timing;
  bool can_run = false;  // judge shapes and options only (scripts/sweep.sh)
  bool list_claims = false;
  int device = 0;
  std::string metrics = "all";  // counter groups collected after timing (metric_groups.hpp), or none
  bool profile_launch = false;  // one launch per shape in an NVTX range for ncu; no timing, no CUPTI
  std::string throttled = "keep";  // samples taken while NVML said the GPU throttled: keep, exclude
  // The gate's input distributions (reference.hpp), comma-separated; the first is timed.
  std::string inputs = inputs_list_name(default_gate_inputs());
  // Backward phases: the forward phase that makes the O and LSE they read (one that emits the
  // LSE); empty: the harness's fp32 forward (experiments/harness/backward_forward.hpp).
  std::string forward;
  PcSamplingChildOptions child;     // hidden: this process is a PC-sampling child (pc_sampling_child.hpp)
};

}  // namespace

void prepare_shapes(const Phase& phase, const std::vector<Shape>& shapes) {
  if (!phase.prepare) return;
  for (const auto& s : shapes) {
    try {
      phase.prepare(s);
    } catch (const PhaseRefusal& r) {
      throw PhaseRefusal(std::string("phase ") + phase.id + " cannot run shape " + shape_name(s) +
                         ": " + r.what());
    }
  }
}

namespace {

RecordedOptions recorded_options(const Options& opt, const std::vector<Inputs>& inputs) {
  RecordedOptions o;
  static_cast<SamplingOptions&>(o) = sampling_options(opt.timing);
  o.metrics = opt.metrics;
  o.throttled = opt.throttled;
  o.inputs = inputs_list_name(inputs);
  o.profile_launch = opt.profile_launch;
  return o;
}

struct ShapeRun {
  ResultEntry result;
  bool passed = false;
  // Set once the shape was timed and its output checked again: what finish_shape needs after
  // the shape's buffers are freed.
  bool timed = false;
  std::optional<profiler::RegimeResult> per_kernel;    // the headline's CUPTI per-kernel times
  double expected_ns = 0;                              // [ns] its busy median, 0 when unknown
};

// Counters, static facts and derived figures of a timed shape: after timing, so they never
// perturb it.
void add_evidence(ShapeRun& run, const Phase& phase, const Shape& s, profiler::HardwareEvidence& evidence,
                  const profiler::LaunchFn& launch, cudaStream_t stream, const std::string& tag) {
  ResultEntry& r = run.result;
  const profiler::ShapeEvidence ev = evidence.collect(
      launch, stream, profiler::profile_range_name(phase.id, shape_name(s)), pass_flops(s, phase.direction),
      r.headline()->tflops, phase.input_format == InputFormat::kE4m3);
  console::evidence(tag, ev);
  r.metrics = ev.groups;
  StaticFacts facts = ev.facts;
  if (phase.work_items && facts.kernels.size() == 1)  // CUPTI's capture cannot see it
    facts.kernels.front().work_items = phase.work_items(s, device_sm_count());
  r.static_evidence.emplace().facts = std::move(facts);
  r.derived = ev.derived;
}

// The gate on one input distribution; returns its result and, through `kept`, the problem's
// buffers where the caller times them.
GateResult gate_on(const Phase& phase, const Shape& s, Inputs inputs, std::uint64_t seed,
                   cudaStream_t stream, const std::string& tag,
                   std::unique_ptr<ProblemBuffers>* kept) {
  const GateInputs in = make_gate_inputs(s, seed, inputs, {phase.input_format});
  auto buffers = std::make_unique<ProblemBuffers>(s, in, phase.input_format, workspace_bytes(phase, s), phase.emits_lse);
  GateResult g = run_gate(phase, buffers->problem(float(s.default_scale())), in, seed, stream);
  console::correctness(tag, g, inputs_name(inputs));
  if (kept) *kept = std::move(buffers);
  return g;
}

// Times a shape whose gate passed, in every regime through `launch`, then checks that the
// launches left a result the gate still accepts (still_right: empty, or why not), then collects
// the counters. With --profile-launch, one launch for Nsight Compute instead.
void time_shape(ShapeRun& run, const Phase& phase, const Shape& s, const Options& opt, profiler::Sampler* sampler,
                profiler::HardwareEvidence* evidence, cudaStream_t stream, const std::string& tag,
                const profiler::LaunchFn& launch, const std::function<std::string()>& still_right) {
  ResultEntry& r = run.result;
  if (run.passed && opt.profile_launch) {
    const std::string range = profiler::profile_range_name(phase.id, shape_name(s));
    profiler::launch_for_profiler(launch, stream, range);
    console::profiled_launch(tag, range);
    return;
  }
  if (!run.passed || sampler == nullptr) return;
  double estimate;
  {
    profiler::NvtxRange range(std::string(phase.id) + "/" + shape_name(s) + "/warmup");
    estimate = sampler->warm_up(launch);
  }
  std::vector<TimedRegime> timing;
  std::map<std::string, profiler::RegimeResult> per_kernel;  // CUPTI regimes' per-kernel times
  for (const Regime reg : opt.timing.regimes) {
    const std::string name = profiler::regime_name(reg);
    profiler::NvtxRange range(std::string(phase.id) + "/" + shape_name(s) + "/" + name);
    profiler::RegimeResult rr = sampler->run(reg, launch, estimate);
    timing.emplace_back(name, regime_timing(rr, s, phase.direction));
    if (!rr.kernel_ns.empty()) per_kernel[name] = std::move(rr);
    console::regime(tag, name, timing.back());
  }
  // The timed launches rewrote the output many times; it must still pass.
  if (const std::string why = still_right(); !why.empty()) {
    run.passed = false;
    r.correctness.passed = false;
    r.correctness.failure = why;
    console::output_changed_after_timing(tag);
    return;
  }
  r.timing = std::move(timing);
  r.headline_regime = regime_name(*opt.timing.headline());
  run.timed = true;
  if (auto k = per_kernel.find(r.headline_regime); k != per_kernel.end()) run.per_kernel = std::move(k->second);
  run.expected_ns = r.headline()->busy_median_ns.value_or(0.0);
  if (evidence) add_evidence(run, phase, s, *evidence, launch, stream, tag);
}

ShapeRun run_shape(const Phase& phase, const Shape& s, const Options& opt,
                   const std::vector<Inputs>& inputs, std::uint64_t seed,
                   profiler::Sampler* sampler, profiler::HardwareEvidence* evidence,
                   cudaStream_t stream, const std::string& tag) {
  ShapeRun run;
  ResultEntry& r = run.result;
  r.shape = s;
  r.scale = s.default_scale();

  // Every distribution is checked; the first is timed. The others go first, each freeing its
  // buffers before the next, so that no more than one problem's operands are held at a time
  // (the footprint that refuse_unfit_shapes judged); the checks are recorded in the listed order.
  std::vector<InputCheck> checks(inputs.size());
  for (std::size_t i = 1; i < inputs.size(); ++i)
    checks[i] = input_check(correctness_block(gate_on(phase, s, inputs[i], seed, stream, tag, nullptr), s, inputs[i]));
  std::unique_ptr<ProblemBuffers> buffers;
  const GateResult g = gate_on(phase, s, inputs.front(), seed, stream, tag, &buffers);
  const Correctness timed = correctness_block(g, s, inputs.front());
  checks.front() = input_check(timed);
  r.correctness = with_checks(timed, std::move(checks));
  run.passed = r.correctness.passed;
  const Problem p = buffers->problem(float(r.scale));
  const profiler::LaunchFn launch = [&](cudaStream_t st) { phase.launch(p, st); };
  time_shape(run, phase, s, opt, sampler, evidence, stream, tag, launch, [&] {
    return same_result_again(phase, p, g, stream)
               ? std::string()
               : std::string("output after timing differs from the checked output");
  });
  return run;
}

// The backward gate on one distribution, as gate_on: the problem's buffers (O and LSE made by
// the gate's fp32 forward, or by the --forward phase) kept through `kept` where the caller times
// them. The launch it gates and times is the fast one (BackwardProblem::deterministic false).
BackwardGateResult backward_gate_on(const Phase& phase, const Shape& s, Inputs inputs, std::uint64_t seed,
                                    cudaStream_t stream, const std::string& tag, const Phase* forward,
                                    std::unique_ptr<BackwardBuffers>* kept) {
  const BackwardHostInputs in = make_backward_inputs(s, seed, inputs);
  auto buffers = std::make_unique<BackwardBuffers>(s, in, workspace_bytes(phase, s), forward);
  BackwardGateResult g = run_backward_gate(phase, buffers->problem(float(s.default_scale()), false), in, seed, stream);
  g.forward = buffers->forward();
  console::backward_correctness(tag, g, inputs_name(inputs));
  if (kept) *kept = std::move(buffers);
  return g;
}

ShapeRun run_backward_shape(const Phase& phase, const Shape& s, const Options& opt,
                            const std::vector<Inputs>& inputs, std::uint64_t seed, profiler::Sampler* sampler,
                            profiler::HardwareEvidence* evidence, cudaStream_t stream, const std::string& tag) {
  ShapeRun run;
  ResultEntry& r = run.result;
  r.shape = s;
  r.direction = Direction::kBackward;
  r.scale = s.default_scale();
  const Phase* forward = opt.forward.empty() ? nullptr : find_phase(opt.forward);  // plan_run checked it
  std::vector<InputCheck> checks(inputs.size());
  for (std::size_t i = 1; i < inputs.size(); ++i)
    checks[i] = input_check(backward_correctness_block(
        backward_gate_on(phase, s, inputs[i], seed, stream, tag, forward, nullptr), s, inputs[i]));
  std::unique_ptr<BackwardBuffers> buffers;
  const BackwardGateResult g = backward_gate_on(phase, s, inputs.front(), seed, stream, tag, forward, &buffers);
  const Correctness timed = backward_correctness_block(g, s, inputs.front());
  checks.front() = input_check(timed);
  r.correctness = with_checks(timed, std::move(checks));
  run.passed = r.correctness.passed;
  const BackwardProblem p = buffers->problem(float(r.scale), false);
  const profiler::LaunchFn launch = [&](cudaStream_t st) { phase.launch_backward(p, st); };
  // Without the deterministic flag the bits may differ (dQ's atomics): the gradients after
  // timing must pass the same check, on the same sample and reference.
  time_shape(run, phase, s, opt, sampler, evidence, stream, tag, launch, [&] {
    const Gradients after = launch_backward_poisoned(phase, p, stream);
    const BackwardCheck c = check_gradients(s, g.sample, g.reference, after.dq, after.dk, after.dv);
    return c.passed ? std::string() : "gradients after timing fail the gate: " + c.first_failure;
  });
  return run;
}

// After run_shape, its buffers freed: stalls by source line (--metrics pcsampling), sampled in
// a child process (experiments/harness/pc_sampling_child.hpp: why), and the per-kernel breakdown.
void finish_shape(ShapeRun& run, const Shape& s, const Options& opt, Inputs timed,
                  std::uint64_t seed, const std::string& tag, bool pc_sampling) {
  if (!run.passed || !run.timed) return;
  ResultEntry& r = run.result;
  if (pc_sampling) {
    PcSamplingChildRequest req;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) req.executable = exe.string();
    req.shape = shape_name(s);
    req.seed = seed;
    req.inputs = inputs_name(timed);
    req.forward = opt.forward;
    req.device = opt.device;
    req.expected_ns = run.expected_ns;
    PcSamplingResult pcs = sample_in_child_process(req);
    if (pcs.available) pcs.method += "; " + pc_sampling_child_method_note();
    console::pc_sampling(tag, pcs);
    r.pc_sampling = std::move(pcs);
  }
  // Per-kernel breakdown: each kernel's time in a launch and its share (record/pc_sampling.hpp).
  if (run.per_kernel)
    r.kernels = profiler::kernel_shares(run.per_kernel->kernel_ns, run.per_kernel->kernel_instances,
                                        r.headline_regime, r.pc_sampling ? &*r.pc_sampling : nullptr,
                                        r.metrics ? *r.metrics : std::vector<GroupResult>{});
}

void add_options(CLI::App& app, Options& opt) {
  app.add_option("-s,--shape", opt.shape_specs,
                 "shape to run, repeatable: " + shape_grammar() + "; or a named set (" + shape_sets_help() + ")")
      ->type_name("SPEC");
  app.add_option("--seed", opt.seed, "input seed (default: fresh from std::random_device; recorded)")
      ->check(kNonNegativeInteger);
  app.add_option("--inputs", opt.inputs,
                 "input distributions the correctness gate checks, comma-separated: normal (Q, "
                 "K, V ~ N(0,1)), wide (Q ~ N(0,100): scaled scores reach +-30, a softmax "
                 "without its max subtraction overflows), negative (Q against K's common mean "
                 "direction: scores near -20, so a zero-filled key past the end would dominate "
                 "the softmax); the first listed is timed")
      ->capture_default_str();
  app.add_option("--forward", opt.forward,
                 "backward phases: the forward phase whose O and LSE the gate and the timed launches "
                 "read, one that emits the LSE (" + lse_phase_ids() + "); default: the harness's fp32 "
                 "forward. Each check's record names it (correctness.forward)")
      ->type_name("PHASE");
  app.add_option("-o,--results-dir", opt.results_dir, "where run records go")
      ->capture_default_str();
  // Each name becomes the enum's number, which is how CLI11 reads an enum.
  const CLI::Validator regime_by_name(
      [](std::string& in) {
        try {
          in = std::to_string(static_cast<int>(parse_regime(in)));
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      "", "regime name");
  app.add_option("--regimes", opt.timing.regimes, "timing regimes, comma-separated, in run order: cold, warm, graph")
      ->delimiter(',')
      ->transform(regime_by_name)
      ->type_name("REGIME")
      ->default_str("cold,warm,graph");
  app.add_option("--noise-target", opt.timing.rule.noise_target_pct,
                 "stop sampling a regime once relative noise [%] is below this")
      ->check(kPositiveFinite)
      ->capture_default_str();
  app.add_option("--max-time", opt.timing.rule.max_seconds, "wall-time budget per regime and shape [s]")
      ->check(kPositiveFinite)
      ->capture_default_str();
  app.add_option("--min-samples", opt.timing.rule.min_samples, "samples per regime at least")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  app.add_option("--max-samples", opt.timing.rule.max_samples, "samples per regime at most")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  app.add_flag("--check-only", opt.timing.check_only, "correctness gate only, no timing");
  app.add_flag("--list-claims", opt.list_claims,
               "print the claims this experiment states (JSON, as its records hold them) and exit");
  app.add_flag("--can-run", opt.can_run,
               "judge the shapes and options only, without touching the GPU: exit 0 if the "
               "phase can run every shape, else say why not and exit 2 (whether a shape fits "
               "the GPU's memory is checked on the GPU at run time)");
  app.add_option("--metrics", opt.metrics,
                 "hardware-counter groups collected after timing with the CUPTI range profiler: "
                 "comma-separated tensor, memory, throughput, stalls, pcsampling (CUPTI PC sampling: "
                 "stalls by source line); all; or none")
      ->capture_default_str();
  app.add_option("--throttled", opt.throttled,
                 "CUPTI samples taken while NVML reports the GPU throttled (a slowdown reason, or "
                 "busy below 75% of its maximum SM clock): keep them in the statistics, as the "
                 "SDPA baseline does, or exclude them (nvbench's rule); counted either way")
      ->check(CLI::IsMember({"keep", "exclude"}))
      ->capture_default_str();
  app.add_flag("--profile-launch", opt.profile_launch,
               "for Nsight Compute (make profile): after the correctness gate, one launch per "
               "shape in NVTX range attnlab.profile.<phase>.<shape>; no timing, no CUPTI");
  app.add_option("--device", opt.device, "CUDA device ordinal")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  add_pc_sampling_child_options(app, opt.child);
}

int fail(int code, const std::string& msg) { return attnlab::fail("attnlab", code, msg); }

// The shapes and counter groups of a run, every one judged before the GPU is touched.
struct Plan {
  std::vector<Shape> shapes;
  std::vector<Inputs> inputs;  // the gate's distributions, the timed one first
  std::vector<std::string> metric_groups;
  bool pc_sampling = false;  // --metrics pcsampling (or all): profiler/pc_sampling.hpp
  const Phase* forward = nullptr;  // --forward: what makes a backward's O and LSE (null: fp32)
};

Plan plan_run(const Phase& phase, const Options& opt) {
  Plan plan;
  try {
    for (const auto& spec : expand_shape_specs(opt.shape_specs.empty() ? phase.default_shapes : opt.shape_specs)) {
      const Shape s = parse_shape(spec);
      if (auto why = phase.can_implement(s))
        throw UsageError(std::string("phase ") + phase.id + " cannot run shape " + shape_name(s) +
                         ": " + *why);
      plan.shapes.push_back(s);
    }
    plan.inputs = parse_inputs_list(opt.inputs);
    plan.forward = lse_forward(phase, opt.forward, plan.shapes);
    const auto [pc_sampling, counter_groups] = profiler::split_pcsampling(opt.metrics);
    plan.pc_sampling = pc_sampling;
    plan.metric_groups = profiler::parse_metric_groups(counter_groups);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (opt.timing.regimes.empty()) throw UsageError("--regimes names no regime; give cold, warm or graph");
  if (opt.timing.rule.min_samples < 2 || opt.timing.rule.max_samples < opt.timing.rule.min_samples)
    throw UsageError("need 2 <= --min-samples <= --max-samples");
  return plan;
}

// Makes the requested device current after checking that it exists, that the phase can run on
// it (EnvironmentError) and that every shape fits in its free memory and the host's (UsageError).
cudaDeviceProp open_device(const Phase& phase, const Options& opt, const std::vector<Shape>& shapes) {
  const cudaDeviceProp prop = open_cuda_device(opt.device);
  if (auto why = device_refusal(phase, prop.major, prop.minor)) throw EnvironmentError(*why);
  refuse_unfit_shapes(shapes, std::string("phase ") + phase.id + " ", phase.input_format == InputFormat::kE4m3);
  return prop;
}

// The record as it is first written: everything but the results, status "incomplete".
RunRecord record_header(const Phase& phase, const Options& opt, const Plan& plan,
                        int argc, char** argv, std::uint64_t seed, long long now,
                        const profiler::HardwareEvidence* evidence) {
  RunRecord record;
  record.phase = phase.id;
  record.direction = phase.direction;
  record.experiment = {phase.title, phase.technique, phase.question};
  record.claims = phase.claims;
  record.started_utc = utc_iso8601(now);
  record.provenance = provenance(argc, argv, seed, opt.device, phase.baseline);
  record.options = recorded_options(opt, plan.inputs);
  if (evidence) {
    record.metrics_config = evidence->config();
  } else {
    record.metrics_config.emplace().not_collected =
        opt.profile_launch ? "--profile-launch: Nsight Compute collects" : "--check-only: nothing is timed";
  }
  return record;
}

// What measures a run: CUPTI kernel activity, the L2 flush, the sampler and the hardware
// evidence (all empty for --check-only and --profile-launch), and the stream it runs on.
struct Instruments {
  std::optional<profiler::KernelActivity> activity;
  std::optional<profiler::L2Flush> flush;
  std::optional<Stream> stream;  // created once CUPTI's activity records are enabled
  std::optional<profiler::GpuMonitor> monitor;
  std::optional<profiler::Sampler> sampler;
  std::optional<profiler::HardwareEvidence> evidence;

  Instruments(const Options& opt, const Plan& plan) {
    const bool timed = !opt.timing.check_only && !opt.profile_launch;
    if (timed) {
      start_kernel_activity(activity);
      flush.emplace();
    }
    stream.emplace();
    if (timed) {
      monitor.emplace(opt.device);
      sampler.emplace(*activity, *flush, stream->get(), opt.timing.rule, &*monitor);
      sampler->exclude_throttled(opt.throttled == "exclude");
      evidence.emplace(opt.device, plan.metric_groups);
    }
  }
};

// Runs every shape, rewriting the record after each; returns the exit code. A fault is
// recorded by run_main (run_main.hpp).
int measure(const Phase& phase, const Options& opt, const Plan& plan, std::uint64_t seed,
            Instruments& inst, RunRecord& record, const fs::path& file) {
  bool all_passed = true;
  for (std::size_t i = 0; i < plan.shapes.size(); ++i) {
    const std::string tag = "[" + std::to_string(i + 1) + "/" + std::to_string(plan.shapes.size()) +
                            "] " + shape_name(plan.shapes[i]);
    auto run = (is_backward(phase) ? run_backward_shape : run_shape)(
        phase, plan.shapes[i], opt, plan.inputs, seed, inst.sampler ? &*inst.sampler : nullptr,
        inst.evidence ? &*inst.evidence : nullptr, inst.stream->get(), tag);
    finish_shape(run, plan.shapes[i], opt, plan.inputs.front(), seed, tag, plan.pc_sampling);
    if (opt.timing.check_only)  // a correctness check: cuobjdump of the binary alone takes seconds
      sass::merge_static_evidence(run.result, phase.id, sass::check_only_listing(),
                                  sass::embedded_ptxas_report());
    else
      sass::add_static_evidence(run.result, phase.id);  // static.sass, static.ptxas
    all_passed = all_passed && run.passed;
    record.results.push_back(std::move(run.result));
    write_run_record(file, record);
  }
  record.status = all_passed ? "ok" : "failed";
  write_run_record(file, record);
  console::run_finished(record.status, file.string());
  return all_passed ? kExitOk : kExitFailed;
}

// Child mode (--pc-sampling-child <out.json>, experiments/harness/pc_sampling_child.hpp): no activity
// tracing, sampler, NVML monitor, evidence, static facts, run record or phase table; the
// shape's inputs from the seed (a backward phase's O and LSE from its --forward phase, or the
// gate's fp32 forward) and the correctness gate as in the run, then one sampled launch
// and, PC sampling disabled, one launch counted by CUPTI's SASS metrics (executed instructions
// per SASS instruction, profiler/sass_metrics.hpp), the result written to <out.json>. Any
// failure is written there as an unavailable result; the exit code is non-zero only when that
// file cannot be written.
int pc_sampling_child(const Phase& phase, const Options& opt, const Plan& plan) {
  PcSamplingResult res;
  try {
    if (plan.shapes.size() != 1) throw UsageError("a PC-sampling child takes exactly one --shape");
    if (!opt.seed) throw UsageError("a PC-sampling child needs --seed");
    const Shape& s = plan.shapes.front();
    open_device(phase, opt, plan.shapes);
    const Stream owned_stream;
    const cudaStream_t stream = owned_stream.get();
    // The sampled launch's buffers, as the run's timed launch had them, and the gate's verdict
    // on them; the gate's first launch loads the kernels' module before PC sampling is enabled.
    std::unique_ptr<ProblemBuffers> fwd;
    std::unique_ptr<BackwardBuffers> bwd;
    profiler::LaunchFn launch;
    std::string failure;
    if (is_backward(phase)) {
      const BackwardHostInputs in = make_backward_inputs(s, *opt.seed, plan.inputs.front());
      bwd = std::make_unique<BackwardBuffers>(s, in, workspace_bytes(phase, s),
                                              opt.forward.empty() ? nullptr : find_phase(opt.forward));
      const BackwardProblem p = bwd->problem(float(s.default_scale()), false);
      failure = run_backward_gate(phase, p, in, *opt.seed, stream).failure;
      launch = [&phase, p](cudaStream_t st) { phase.launch_backward(p, st); };
    } else {
      const GateInputs in = make_gate_inputs(s, *opt.seed, plan.inputs.front(), {phase.input_format});
      fwd = std::make_unique<ProblemBuffers>(s, in, phase.input_format, workspace_bytes(phase, s), phase.emits_lse);
      const Problem p = fwd->problem(float(s.default_scale()));
      failure = run_gate(phase, p, in, *opt.seed, stream).failure;
      launch = [&phase, p](cudaStream_t st) { phase.launch(p, st); };
    }
    if (!failure.empty()) {
      res.reason = "the correctness gate failed in the PC-sampling child process: " + failure;
    } else {
      profiler::PcSamplingOptions po;
      po.expected_ns = opt.child.expected_ns;
      res = profiler::collect_pc_samples(launch, stream, po);
      profiler::add_sass_counts(res, launch, stream, po);  // never throws: a failure is its reason
    }
  } catch (const std::exception& ex) {
    res = PcSamplingResult{};
    res.reason = std::string("PC-sampling child process: ") + ex.what();
  }
  try {
    write_pc_sampling_file(opt.child.out_file, res);
  } catch (const std::exception& ex) {
    return fail(kExitEnvironment, std::string("PC-sampling child cannot write its result: ") + ex.what());
  }
  return kExitOk;
}


// A timed or checked run: device, every shape prepared, the instruments, the record and its
// shapes. `record` outlives the call: run_main marks it failed after a fault unwound this frame.
int run(const Phase& phase, const Options& opt, int argc, char** argv, RunRecord& record,
        RunRecordFile& record_file) {
  const Plan plan = plan_run(phase, opt);
  if (opt.can_run) return kExitOk;
  if (!opt.child.out_file.empty()) return pc_sampling_child(phase, opt, plan);
  const std::uint64_t seed = opt.seed ? *opt.seed : fresh_seed();

  require_writable_directory(opt.results_dir);
  const cudaDeviceProp prop = open_device(phase, opt, plan.shapes);
  if (plan.forward)
    if (auto why = device_refusal(*plan.forward, prop.major, prop.minor)) throw EnvironmentError(*why);
  // A shape the library behind a phase declines only at prepare time (PhaseRefusal,
  // kernels/registry.hpp) is refused like one can_implement refuses, before anything is recorded.
  try {
    prepare_shapes(phase, plan.shapes);
  } catch (const PhaseRefusal& r) {
    throw UsageError(r.what());
  }
  // After the device check: a run refused for want of a GPU leaves nothing in results/.
  write_phase_table(opt.results_dir);  // the phase order reports read
  Instruments inst(opt, plan);

  const long long now = now_epoch_seconds();
  const fs::path run_dir = new_run_directory(opt.results_dir, phase.id, now);
  record = record_header(phase, opt, plan, argc, argv, seed, now, inst.evidence ? &*inst.evidence : nullptr);
  const fs::path file = run_dir / "run.json";
  write_run_record(file, record);
  record_file = written_record(file, record, &write_run_record);
  console::run_started(phase.id, prop.name, seed, file.string());
  return measure(phase, opt, plan, seed, inst, record, file);
}

}  // namespace

int run_experiment(const char* phase_id, int argc, char** argv) {
  const Phase* phase = find_phase(phase_id);
  if (!phase)
    return fail(kExitUsage, std::string("unknown phase '") + phase_id + "'; valid phases: " +
                                phase_ids_joined());
  return run_experiment(*phase, argc, argv);
}

int run_experiment(const Phase& phase, int argc, char** argv) {
  CLI::App app{std::string("attnlab phase ") + phase.id + " (" + phase.title + "): " +
               phase.technique + "\n" + phase.question};
  Options opt;
  add_options(app, opt);
  app.footer("Exit codes: 0 ok, 1 a correctness check failed, 2 bad arguments or unsupported "
             "shape, 3 no GPU, CUPTI unavailable or results directory not writable.");
  RunRecord record;
  return run_main("attnlab", "run failed", app, argc, argv, [&](RunRecordFile& record_file) {
    if (opt.list_claims) {
      std::cout << claims_listing(phase.claims) << std::endl;
      return int(kExitOk);
    }
    return run(phase, opt, argc, argv, record, record_file);
  });
}

}  // namespace attnlab
