// attnlab-ab: two phases compared in one process on one GPU, paired and interleaved. Each shape
// is measured in independent blocks, run in rounds across the shapes so one shape's blocks are
// spread over the run: a block has fresh inputs (its own seed), gates both phases on the fp64
// reference (two backward phases on the backward gate, experiments/harness/backward_gate.hpp, their
// flops 2.5x the forward's; the record says which pass), warms them up and times pairs in orders of two (ABBA or BAAB, from its own order
// seed), every sample behind the same L2 flush, timed by CUPTI kernel activity (busy time) and
// read with its NVML SM clock. The headline is the median of per-pair ratios t_B / t_A (A's
// speed-up over B) with a hierarchical bootstrap interval over blocks, then pairs, so that it
// holds between runs, not only within one block (record/paired.hpp); a cycles ratio only where
// the clock was measured per sample and per kernel (cycles_withheld, record/ab.hpp). Clocks are
// never locked or changed.
//   make ab A=5 B=cudnn SHAPES=throughput
//   build/bin/attnlab-ab --a 4x --b 4x --shape latency --pairs 200 --blocks 5
#include <cuda_runtime.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <random>

#include <CLI/CLI.hpp>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/harness/backward_gate.hpp"
#include "experiments/harness/console.hpp"
#include "experiments/harness/experiment.hpp"
#include "experiments/harness/gate.hpp"
#include "experiments/harness/reference.hpp"
#include "experiments/harness/run_main.hpp"
#include "experiments/harness/run_setup.hpp"
#include "kernels/registry.hpp"
#include "profiler/profiler.hpp"
#include "record/ab.hpp"
#include "record/record.hpp"

namespace attnlab {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string a, b;
  std::vector<std::string> shape_specs;
  std::optional<std::uint64_t> seed, order_seed;
  std::size_t pairs = 400;     // per shape, split evenly over its blocks, unless the time cap comes first
  std::size_t min_pairs = 50;  // per shape, at least this many even past --max-time
  std::size_t blocks = paired::kDefaultBlocks;  // per shape
  double max_seconds = 60;     // [s] sampling budget per shape, split evenly over its blocks
  int device = 0;
  std::string results_dir = "results";
};

// Default shapes when no --shape is given: the seed shapes.
const std::vector<std::string> kDefaultShapes = {"@seed"};

// How one sample is taken; written into the record (key "method").
constexpr const char* kMethod =
    "Per sample: L2 flush (write of 2x L2), the launch tagged for CUPTI, the NVML current SM clock "
    "(nvmlDeviceGetClockInfo) read right after the launch was enqueued, then the stream "
    "synchronised. busy_ns: the time any of the launch's kernels ran (CUPTI kernel activity, "
    "union of the kernels' intervals); span_ns: first start to last end. clock_offset_ns: when "
    "the clock was read, relative to the launch's first kernel start (CUPTI clock): negative "
    "while the flush still ran, within [0, busy_ns] while the kernel ran. Cycles: busy_ns x that "
    "clock. Each shape in independent blocks, run in rounds (a round runs one block of every "
    "shape in order): the k-th block of the run has inputs from seed + k and orders of four "
    "samples (ABBA or BAAB) from random_orders(pairs per block / 2, order_seed + k) "
    "(record/paired.hpp), an order's first pair runs its first side first. Every block gates "
    "both phases on its inputs and warms both up (sampler warm-up: 3 launches and 0.2 s each) "
    "before its first pair, and checks both outputs again after its last.";

// One block's share of a shape's sampling.
struct BlockLimits {
  std::size_t pairs = 0, min_pairs = 0;  // even
  double max_seconds = 0;                // [s]
};

// --pairs, --min-pairs and --max-time are per shape; each block takes an equal share (pairs
// checked to divide evenly, the minimum rounded up to an even count).
BlockLimits block_limits(const Options& opt) {
  BlockLimits l;
  l.pairs = opt.pairs / opt.blocks;
  l.min_pairs = std::min(l.pairs, std::max<std::size_t>(2, (opt.min_pairs + opt.blocks - 1) / opt.blocks));
  l.min_pairs += l.min_pairs % 2;
  l.max_seconds = opt.max_seconds / double(opt.blocks);
  return l;
}

// One timed launch of one side, before CUPTI delivered its records.
struct Pending {
  std::uint64_t tag = 0;
  bool is_a = false;
  std::size_t pair = 0;
  double clock_mhz = 0;
  std::uint64_t clock_t_ns = 0;  // CUPTI timestamp of the clock reading
};

class PairedSampler {
 public:
  PairedSampler(profiler::KernelActivity& activity, profiler::L2Flush& flush,
                profiler::GpuMonitor& monitor, cudaStream_t stream)
      : activity_(activity), flush_(flush), monitor_(monitor), stream_(stream) {}

  // Samples orders of two pairs until `limits.pairs` pairs or the time cap (with at least
  // limits.min_pairs) and fills the block's orders and samples.
  void run(const profiler::LaunchFn& a, const profiler::LaunchFn& b, const BlockLimits& limits,
           AbBlock& out) {
    const auto orders = paired::random_orders(limits.pairs / 2, out.order_seed);
    const std::size_t n = limits.pairs;
    for (AbSamples* s : {&out.a, &out.b}) {
      s->busy_ns.assign(n, 0);
      s->span_ns.assign(n, 0);
      s->sm_clock_mhz.assign(n, 0);
      s->clock_offset_ns.assign(n, 0);
    }
    const auto t0 = Clock::now();
    std::size_t pairs = 0;
    out.stop_reason = "pairs";
    for (const paired::Order order : orders) {
      const bool abba = order == paired::Order::kABBA;
      out.orders.emplace_back(paired::order_name(order));
      out.first.emplace_back(abba ? "A" : "B");
      out.first.emplace_back(abba ? "B" : "A");
      std::vector<Pending> pending;
      sample(abba ? a : b, abba, pairs, pending);
      sample(abba ? b : a, !abba, pairs, pending);
      sample(abba ? b : a, !abba, pairs + 1, pending);
      sample(abba ? a : b, abba, pairs + 1, pending);
      deliver(pending, out);
      pairs += 2;
      const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
      if (pairs < n && elapsed >= limits.max_seconds && pairs >= limits.min_pairs) {
        out.stop_reason = "time_cap";
        break;
      }
    }
    out.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    for (AbSamples* s : {&out.a, &out.b}) {
      s->busy_ns.resize(pairs);
      s->span_ns.resize(pairs);
      s->sm_clock_mhz.resize(pairs);
      s->clock_offset_ns.resize(pairs);
    }
    out.first.resize(pairs);
  }

 private:
  void sample(const profiler::LaunchFn& launch, bool is_a, std::size_t pair,
              std::vector<Pending>& pending) {
    flush_.flush(stream_);
    Pending p;
    p.tag = next_tag_++;
    p.is_a = is_a;
    p.pair = pair;
    {
      profiler::TagScope tag(activity_, p.tag);
      launch(stream_);
    }
    // Read while the GPU works through the flush and the launch; a long kernel is running by
    // now, a short one may not have started (clock_offset_ns says which).
    const auto r = monitor_.read();
    if (!r) throw std::runtime_error("NVML read of the SM clock failed during sampling");
    p.clock_mhz = r->sm_clock_mhz;
    p.clock_t_ns = r->t_ns;
    ATTNLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    pending.push_back(p);
  }

  void deliver(const std::vector<Pending>& pending, AbBlock& out) {
    std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> kernels;
    const std::uint64_t lo = pending.front().tag, hi = pending.back().tag;  // consecutive tags
    for (const auto& r : activity_.collect()) {
      if (r.tag < lo || r.tag > hi) continue;
      kernels[r.tag].emplace_back(r.start_ns, r.end_ns);
      auto& names = pending[std::size_t(r.tag - lo)].is_a ? out.a.kernels : out.b.kernels;
      if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
    }
    for (const Pending& p : pending) {
      const auto it = kernels.find(p.tag);
      if (it == kernels.end())
        throw std::runtime_error("CUPTI delivered no kernel record for a timed launch");
      const stats::LaunchTime t = stats::launch_time(it->second);
      std::uint64_t first = it->second.front().first;
      for (const auto& k : it->second) first = std::min(first, k.first);
      AbSamples& s = p.is_a ? out.a : out.b;
      s.busy_ns[p.pair] = t.busy_ns;
      s.span_ns[p.pair] = t.span_ns;
      s.sm_clock_mhz[p.pair] = p.clock_mhz;
      s.clock_offset_ns[p.pair] = double(std::int64_t(p.clock_t_ns - first));
    }
  }

  profiler::KernelActivity& activity_;
  profiler::L2Flush& flush_;
  profiler::GpuMonitor& monitor_;
  cudaStream_t stream_;
  std::uint64_t next_tag_ = 1;
};

// Makes the device current after checking that it exists, that both phases run on it
// (EnvironmentError) and that every shape fits its free memory and the host's (UsageError).
void open_device(const Phase& a, const Phase& b, const Options& opt, const std::vector<Shape>& shapes) {
  const cudaDeviceProp prop = open_cuda_device(opt.device);
  for (const Phase* p : {&a, &b})
    if (auto why = device_refusal(*p, prop.major, prop.minor)) throw EnvironmentError(*why);
  refuse_unfit_shapes(shapes, "", a.input_format == InputFormat::kE4m3 || b.input_format == InputFormat::kE4m3);
}

// Gives p (a Problem or a BackwardProblem) a zeroed workspace of its own in `buf`, of `bytes`
// (none where 0), in place of the one it shares with the other side.
template <class P>
void own_workspace(P& p, std::size_t bytes, std::optional<DeviceBuffer>& buf) {
  p.workspace = nullptr;
  p.workspace_bytes = 0;
  if (bytes == 0) return;
  buf.emplace(bytes);
  ATTNLAB_CUDA_CHECK(cudaMemset(buf->get(), 0, bytes));
  p.workspace = buf->get();
  p.workspace_bytes = bytes;
}

// A gated block's timing: both sides warmed up and paired, then each side's result after the
// timed launches checked again (still_right(is_a): empty, or why it no longer passes); the
// block passes when both still do.
void time_block(const Phase& a, const Phase& b, const profiler::LaunchFn& la, const profiler::LaunchFn& lb,
                const BlockLimits& limits, profiler::Sampler& warm, PairedSampler& sampler, const std::string& tag,
                AbBlock& out, const std::function<std::string(bool is_a)>& still_right) {
  warm.warm_up(la);
  warm.warm_up(lb);
  sampler.run(la, lb, limits, out);
  for (const bool is_a : {true, false}) {
    const std::string why = still_right(is_a);
    if (why.empty()) continue;
    Correctness& corr = is_a ? out.a_correctness : out.b_correctness;
    corr.passed = false;
    corr.failure = why;
    console::output_changed_after_timing(tag + " " + (is_a ? a : b).id);
    return;
  }
  out.passed = true;
}

// One block of a shape: fresh inputs from the block's seed, both gates, warm-up, paired
// sampling, the outputs checked again. Its place in the run (round, seeds, start) is set by the
// caller. Both phases read one upload of one draw where they read one format (two FP8 phases:
// the same codes and descales); an fp16 and an e4m3 phase each read their own upload of it.
// Each has its own workspace: one phase's scratch (cudnn_fp8's e4m3 output, phase 5's
// scheduler counter) is not the other's to overwrite.
void run_forward_block(const Phase& a, const Phase& b, const Shape& s, const BlockLimits& limits,
                       profiler::Sampler& warm, PairedSampler& sampler, cudaStream_t stream,
                       const std::string& tag, AbBlock& out) {
  const double scale = s.default_scale();
  const GateInputs in = make_gate_inputs(s, out.seed, Inputs::kNormal, {a.input_format, b.input_format});
  const std::size_t b_workspace_bytes = workspace_bytes(b, s);
  const ProblemBuffers buffers(s, in, a.input_format, workspace_bytes(a, s), a.emits_lse || b.emits_lse);
  std::optional<ProblemBuffers> b_buffers;
  if (b.input_format != a.input_format) b_buffers.emplace(s, in, b.input_format, b_workspace_bytes, b.emits_lse);
  const Problem pa = buffers.problem(float(scale));
  std::optional<DeviceBuffer> b_workspace;
  const Problem pb = [&] {
    Problem p = (b_buffers ? *b_buffers : buffers).problem(float(scale));
    if (!b_buffers) own_workspace(p, b_workspace_bytes, b_workspace);
    return p;
  }();
  const GateResult ga = run_gate(a, pa, in, out.seed, stream);
  console::correctness(tag + " A=" + a.id, ga);
  const GateResult gb = run_gate(b, pb, in, out.seed, stream);
  console::correctness(tag + " B=" + b.id, gb);
  out.a_correctness = correctness_block(ga, s, Inputs::kNormal);
  out.b_correctness = correctness_block(gb, s, Inputs::kNormal);
  if (!ga.passed || !gb.passed) return;  // a failed gate: no timing

  const profiler::LaunchFn la = [&](cudaStream_t st) { a.launch(pa, st); };
  const profiler::LaunchFn lb = [&](cudaStream_t st) { b.launch(pb, st); };
  // The timed launches rewrote the output many times; each must still give its checked result.
  time_block(a, b, la, lb, limits, warm, sampler, tag, out, [&](bool is_a) {
    return same_result_again(is_a ? a : b, is_a ? pa : pb, is_a ? ga : gb, stream)
               ? std::string()
               : std::string("output after timing differs from the checked output");
  });
}

// A block of two backward phases, as run_forward_block: one draw of Q, K, V and dO, O and LSE
// from the harness's fp32 forward (experiments/harness/backward_gate.hpp), read by both; each phase
// its own workspace; both gated on the backward rule against one sample and its references,
// each launch the fast one (BackwardProblem::deterministic false, as the harness times it). Its
// gradients after timing must pass the same check (with atomics their last bits may differ).
void run_backward_block(const Phase& a, const Phase& b, const Shape& s, const BlockLimits& limits,
                        profiler::Sampler& warm, PairedSampler& sampler, cudaStream_t stream,
                        const std::string& tag, AbBlock& out) {
  const double scale = s.default_scale();
  const BackwardHostInputs in = make_backward_inputs(s, out.seed, Inputs::kNormal);
  const BackwardBuffers buffers(s, in, workspace_bytes(a, s));
  const BackwardProblem pa = buffers.problem(float(scale), false);
  std::optional<DeviceBuffer> b_workspace;
  const BackwardProblem pb = [&] {
    BackwardProblem p = buffers.problem(float(scale), false);
    own_workspace(p, workspace_bytes(b, s), b_workspace);
    return p;
  }();
  const BackwardGateResult ga = run_backward_gate(a, pa, in, out.seed, stream);
  console::backward_correctness(tag + " A=" + a.id, ga, inputs_name(Inputs::kNormal));
  const BackwardGateResult gb = run_backward_gate(b, pb, ga.sample, ga.reference, stream);
  console::backward_correctness(tag + " B=" + b.id, gb, inputs_name(Inputs::kNormal));
  out.a_correctness = backward_correctness_block(ga, s, Inputs::kNormal);
  out.b_correctness = backward_correctness_block(gb, s, Inputs::kNormal);
  if (!ga.passed || !gb.passed) return;  // a failed gate: no timing

  const profiler::LaunchFn la = [&](cudaStream_t st) { a.launch_backward(pa, st); };
  const profiler::LaunchFn lb = [&](cudaStream_t st) { b.launch_backward(pb, st); };
  time_block(a, b, la, lb, limits, warm, sampler, tag, out, [&](bool is_a) {
    const Gradients after = launch_backward_poisoned(is_a ? a : b, is_a ? pa : pb, stream);
    const BackwardCheck c = check_gradients(s, ga.sample, ga.reference, after.dq, after.dk, after.dv);
    return c.passed ? std::string() : "gradients after timing fail the gate: " + c.first_failure;
  });
}

// One block of a shape in the phases' direction.
void run_block(const Phase& a, const Phase& b, const Shape& s, const BlockLimits& limits,
               profiler::Sampler& warm, PairedSampler& sampler, cudaStream_t stream,
               const std::string& tag, AbBlock& out) {
  (is_backward(a) ? run_backward_block : run_forward_block)(a, b, s, limits, warm, sampler, stream, tag, out);
}

void add_options(CLI::App& app, Options& opt) {
  app.add_option("--a", opt.a, "phase A (registry id)")->required();
  app.add_option("--b", opt.b, "phase B (registry id)")->required();
  app.add_option("-s,--shape", opt.shape_specs, "shape, repeatable: " + shape_grammar() + "; or a named set (" + shape_sets_help() + ")" +
                                                    " (default: throughput and latency)")
      ->type_name("SPEC");
  app.add_option("--seed", opt.seed, "input seed of the first block, block k's is this + k (default: fresh; recorded)")->check(kNonNegativeInteger);
  app.add_option("--order-seed", opt.order_seed,
                 "seed of the first block's ABBA/BAAB orders, block k's is this + k (default: fresh; recorded)")
      ->check(kNonNegativeInteger);
  app.add_option("--pairs", opt.pairs,
                 "pairs per shape in all its blocks (an even number per block: orders of two pairs)")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  app.add_option("--blocks", opt.blocks,
                 "independent blocks per shape (fresh inputs, gates and order each; run in rounds "
                 "across the shapes); the interval resamples blocks, then pairs")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  app.add_option("--min-pairs", opt.min_pairs, "pairs per shape at least, even past --max-time")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  app.add_option("--max-time", opt.max_seconds, "sampling budget per shape, split over its blocks [s]")
      ->check(kPositiveFinite)
      ->capture_default_str();
  app.add_option("--device", opt.device, "CUDA device ordinal")->check(kNonNegativeInteger)->capture_default_str();
  app.add_option("-o,--results-dir", opt.results_dir, "records go to <dir>/ab/<A>-vs-<B>/")
      ->capture_default_str();
  app.footer("Exit codes: 0 ok, 1 a correctness check failed, 2 bad arguments or unsupported "
             "shape, 3 no GPU, CUPTI or NVML unavailable, or results directory not writable.");
}

// The phases and shapes the command line asks for, checked before the GPU is touched.
struct Request {
  const Phase* a = nullptr;
  const Phase* b = nullptr;
  std::vector<Shape> shapes;
};

Request check_request(const Options& opt) {
  Request req{find_phase(opt.a), find_phase(opt.b), {}};
  for (const auto& [id, p] : {std::pair{opt.a, req.a}, std::pair{opt.b, req.b}})
    if (!p) throw UsageError("unknown phase '" + id + "'; valid phases: " + phase_ids_joined());
  if (req.a->direction != req.b->direction)
    throw UsageError(std::string("phase ") + req.a->id + " computes the " + direction_name(req.a->direction) +
                     " pass and phase " + req.b->id + " the " + direction_name(req.b->direction) +
                     "; attnlab-ab pairs two phases of one pass");
  if (opt.blocks < 1) throw UsageError("--blocks must be at least 1");
  if (opt.pairs < 2 * opt.blocks || opt.pairs % (2 * opt.blocks) != 0)
    throw UsageError("--pairs must be a multiple of 2 x --blocks (an even number of pairs per block), got " +
                     std::to_string(opt.pairs) + " pairs in " + std::to_string(opt.blocks) + " blocks");
  if (opt.min_pairs < 2 || opt.min_pairs > opt.pairs)
    throw UsageError("need 2 <= --min-pairs <= --pairs");
  try {
    for (const auto& spec : expand_shape_specs(opt.shape_specs.empty() ? kDefaultShapes : opt.shape_specs)) {
      const Shape s = parse_shape(spec);
      for (const Phase* p : {req.a, req.b})
        if (auto why = p->can_implement(s))
          throw UsageError(std::string("phase ") + p->id + " cannot run shape " + shape_name(s) + ": " + *why);
      req.shapes.push_back(s);
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return req;
}

// The record's header: both phases, how the run samples, before anything is measured.
AbRecord start_record(const Phase& a, const Phase& b, const Options& opt, int argc, char** argv,
                      std::uint64_t seed, std::uint64_t order_seed, long long now) {
  AbRecord rec;
  rec.a = {a.id, a.title, a.technique};
  rec.b = {b.id, b.title, b.technique};
  rec.direction = a.direction;
  rec.started_utc = utc_iso8601(now);
  rec.provenance = provenance(argc, argv, seed, opt.device, a.baseline || b.baseline);
  rec.options.pairs = opt.pairs;
  rec.options.min_pairs = opt.min_pairs;
  rec.options.blocks = opt.blocks;
  rec.options.max_seconds = opt.max_seconds;
  rec.options.order_seed = order_seed;
  rec.options.inputs = inputs_name(Inputs::kNormal);
  rec.method = kMethod;
  return rec;
}

// The device, every shape prepared and the instruments, then every shape paired, the record
// rewritten after each. `rec` outlives the call: run_main marks it failed after a fault.
int run(const Options& opt, int argc, char** argv, AbRecord& rec, RunRecordFile& record_file) {
  const Request req = check_request(opt);
  const Phase& a = *req.a;
  const Phase& b = *req.b;
  const std::uint64_t seed = opt.seed ? *opt.seed : fresh_seed();
  const std::uint64_t order_seed = opt.order_seed ? *opt.order_seed : fresh_seed();
  const fs::path root = fs::path(opt.results_dir) / "ab";
  require_writable_directory(root);
  open_device(a, b, opt, req.shapes);
  for (const Phase* p : {&a, &b}) {
    try {
      prepare_shapes(*p, req.shapes);
    } catch (const PhaseRefusal& r) {
      throw UsageError(r.what());
    }
  }

  std::optional<profiler::KernelActivity> activity;
  start_kernel_activity(activity);
  profiler::GpuMonitor monitor(opt.device);
  require_nvml(monitor, "an A/B needs the SM clock of every sample");
  profiler::L2Flush flush;
  const Stream stream;
  profiler::Sampler warm(*activity, flush, stream.get(), stats::StoppingRule{});
  PairedSampler sampler(*activity, flush, monitor, stream.get());

  const long long now = now_epoch_seconds();
  rec = start_record(a, b, opt, argc, argv, seed, order_seed, now);
  const fs::path file = new_run_directory(root, std::string(a.id) + "-vs-" + b.id, now) / "run.json";
  write_ab_record(file, rec);
  record_file = written_record(file, rec, &write_ab_record);
  console::ab_started(a.id, b.id, seed, order_seed, file.string());

  for (const Shape& s : req.shapes) {
    AbShape out;
    out.name = shape_name(s);
    out.shape = s;
    out.scale = s.default_scale();
    out.flops = pass_flops(s, a.direction);
    rec.results.push_back(std::move(out));
  }
  // Rounds across the shapes, so that one shape's blocks are spread over the run; a shape whose
  // gate failed in one block runs no further block.
  const BlockLimits limits = block_limits(opt);
  const auto t0 = Clock::now();
  const std::size_t n = req.shapes.size();
  auto tag_of = [&](std::size_t i) {
    return "[" + std::to_string(i + 1) + "/" + std::to_string(n) + "] " + rec.results[i].name;
  };
  std::vector<bool> failed(n, false);
  for (std::size_t round = 0; round < opt.blocks; ++round)
    for (std::size_t i = 0; i < n; ++i) {
      if (failed[i]) continue;
      const std::uint64_t k = round * n + i;
      AbBlock block;
      block.round = round;
      block.seed = seed + k;
      block.order_seed = order_seed + k;
      block.started_s = std::chrono::duration<double>(Clock::now() - t0).count();
      run_block(a, b, req.shapes[i], limits, warm, sampler, stream.get(),
                tag_of(i) + " block " + std::to_string(round + 1) + "/" + std::to_string(opt.blocks), block);
      failed[i] = !block.passed;
      rec.results[i].blocks.push_back(std::move(block));
      write_ab_record(file, rec);
    }
  bool all_passed = true;
  for (std::size_t i = 0; i < n; ++i) {
    AbShape& s = rec.results[i];
    estimate_shape(s, rec.options.bootstrap);
    if (s.wall) console::ab_result(tag_of(i), a.id, b.id, s);
    all_passed = all_passed && s.passed;
  }
  rec.status = all_passed ? "ok" : "failed";
  write_ab_record(file, rec);
  console::run_finished(rec.status, file.string());
  return rec.status == "ok" ? kExitOk : kExitFailed;
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) {
  using namespace attnlab;
  CLI::App app{"attnlab-ab: phases A and B compared in one process on one GPU, paired and "
               "interleaved in independent blocks per shape (fresh inputs, gates and ABBA/BAAB orders "
               "each), L2 flushed before every sample, CUPTI busy time, NVML SM clock per sample; "
               "interval: hierarchical bootstrap over blocks, then pairs. Ratio = t_B / t_A: A's "
               "speed-up over B."};
  Options opt;
  add_options(app, opt);
  AbRecord rec;
  return run_main("attnlab-ab", "run failed", app, argc, argv,
                  [&](RunRecordFile& record_file) { return run(opt, argc, argv, rec, record_file); });
}
