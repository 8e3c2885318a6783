// attnlab-ab: two phases compared in one process on one GPU, paired and interleaved.
// Both are gated on the fp64 reference with the same inputs, warmed up, then timed in blocks of
// two pairs (ABBA or BAAB, drawn per block from a recorded seed), every sample behind the same
// L2 flush, timed by CUPTI kernel activity (busy time) and read with its NVML SM clock. The
// headline is the median of per-pair ratios t_B / t_A (A's speed-up over B) with a bootstrap
// interval, in wall time and in cycles (record/paired.hpp). Clocks are never locked or changed.
//   make ab A=5 B=cudnn SHAPES=throughput
//   build/bin/attnlab-ab --a 4x --b 4x --shape latency --pairs 200
#include <cuda_runtime.h>

#include <chrono>
#include <iostream>
#include <map>
#include <optional>
#include <random>

#include <CLI/CLI.hpp>

#include "common/check.hpp"
#include "common/shapes.hpp"
#include "experiments/console.hpp"
#include "experiments/experiment.hpp"
#include "experiments/gate.hpp"
#include "experiments/reference.hpp"
#include "experiments/run_main.hpp"
#include "experiments/run_setup.hpp"
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
  std::size_t pairs = 400;     // blocks of two pairs until this many, unless the time cap comes first
  std::size_t min_pairs = 50;  // at least this many even past --max-time
  double max_seconds = 60;     // [s] sampling budget per shape
  int device = 0;
  std::string results_dir = "results";
};

// Default shapes when no --shape is given: the seed shapes.
const std::vector<std::string> kDefaultShapes = {"throughput", "latency"};

// How one sample is taken; written into the record (key "method").
constexpr const char* kMethod =
    "Per sample: L2 flush (write of 2x L2), the launch tagged for CUPTI, the NVML current SM clock "
    "(nvmlDeviceGetClockInfo) read right after the launch was enqueued, then the stream "
    "synchronised. busy_ns: the time any of the launch's kernels ran (CUPTI kernel activity, "
    "union of the kernels' intervals); span_ns: first start to last end. clock_offset_ns: when "
    "the clock was read, relative to the launch's first kernel start (CUPTI clock): negative "
    "while the flush still ran, within [0, busy_ns] while the kernel ran. Cycles: busy_ns x that "
    "clock. Blocks of four samples (ABBA or BAAB) from block_orders(pairs / 2, order_seed + i) for "
    "the i-th shape (record/paired.hpp), a block's first pair runs its first side first. Both "
    "phases warmed up (sampler warm-up: 3 launches and 0.2 s each) before the first block.";

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

  // Samples blocks until `opt.pairs` pairs or the time cap (with at least min_pairs) and
  // fills the shape's orders and samples.
  void run(const profiler::LaunchFn& a, const profiler::LaunchFn& b, const Options& opt,
           std::uint64_t order_seed, AbShape& out) {
    const auto orders = paired::block_orders(opt.pairs / 2, order_seed);
    const std::size_t n = opt.pairs;
    for (AbSamples* s : {&out.a, &out.b}) {
      s->busy_ns.assign(n, 0);
      s->span_ns.assign(n, 0);
      s->sm_clock_mhz.assign(n, 0);
      s->clock_offset_ns.assign(n, 0);
    }
    const auto t0 = Clock::now();
    std::size_t pairs = 0;
    out.stop_reason = "pairs";
    for (const paired::Block blk : orders) {
      const bool abba = blk == paired::Block::kABBA;
      out.blocks.emplace_back(paired::block_name(blk));
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
      if (pairs < n && elapsed >= opt.max_seconds && pairs >= opt.min_pairs) {
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

  void deliver(const std::vector<Pending>& pending, AbShape& out) {
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
      const profiler::LaunchTime t = profiler::launch_time(it->second);
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
  refuse_unfit_shapes(shapes, "");
}

// One shape: both gates, warm-up, paired sampling, the outputs checked again, the ratios.
AbShape run_shape(const Phase& a, const Phase& b, const Shape& s, const Options& opt,
                  std::uint64_t seed, std::uint64_t order_seed, profiler::Sampler& warm,
                  PairedSampler& sampler, cudaStream_t stream, const std::string& tag,
                  const paired::BootstrapConfig& boot) {
  AbShape out;
  const double scale = s.default_scale();
  out.name = shape_name(s);
  out.shape = s;
  out.scale = scale;
  out.flops = s.flops();
  const HostTensors in = make_inputs(s, seed);
  const ProblemBuffers buffers(s, in, std::max(workspace_bytes(a, s), workspace_bytes(b, s)));
  const Problem p = buffers.problem(float(scale));
  const GateResult ga = run_gate(a, p, in, seed, stream);
  console::correctness(tag + " A=" + a.id, ga);
  const GateResult gb = run_gate(b, p, in, seed, stream);
  console::correctness(tag + " B=" + b.id, gb);
  out.a_correctness = correctness_block(ga, s, Inputs::kNormal);
  out.b_correctness = correctness_block(gb, s, Inputs::kNormal);
  if (!ga.passed || !gb.passed) return out;  // a failed gate: no timing, no ratio

  const profiler::LaunchFn la = [&](cudaStream_t st) { a.launch(p, st); };
  const profiler::LaunchFn lb = [&](cudaStream_t st) { b.launch(p, st); };
  warm.warm_up(la);
  warm.warm_up(lb);
  sampler.run(la, lb, opt, order_seed, out);
  // The timed launches rewrote the output many times; each must still give its checked result.
  for (const auto& [phase, gate, corr] :
       {std::tie(a, ga, out.a_correctness), std::tie(b, gb, out.b_correctness)})
    if (!same_bits(gate.output, launch_poisoned(phase, p, stream))) {
      corr.passed = false;
      corr.failure = "output after timing differs from the checked output";
      console::output_changed_after_timing(tag + " " + phase.id);
      return out;
    }
  out.passed = true;
  out.wall = ab_ratio(out.a.busy_ns, out.b.busy_ns, boot);
  out.cycles = ab_ratio(paired::cycles(out.a.busy_ns, out.a.sm_clock_mhz),
                        paired::cycles(out.b.busy_ns, out.b.sm_clock_mhz), boot);
  console::ab_result(tag, a.id, b.id, out);
  return out;
}

void add_options(CLI::App& app, Options& opt) {
  app.add_option("--a", opt.a, "phase A (registry id)")->required();
  app.add_option("--b", opt.b, "phase B (registry id)")->required();
  app.add_option("-s,--shape", opt.shape_specs, "shape, repeatable: " + shape_grammar() +
                                                    " (default: throughput and latency)")
      ->type_name("SPEC");
  app.add_option("--seed", opt.seed, "input seed (default: fresh; recorded)")->check(kNonNegativeInteger);
  app.add_option("--order-seed", opt.order_seed,
                 "seed of the blocks' ABBA/BAAB order (default: fresh; recorded)")
      ->check(kNonNegativeInteger);
  app.add_option("--pairs", opt.pairs, "pairs per shape (even: blocks of two pairs)")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  app.add_option("--min-pairs", opt.min_pairs, "pairs per shape at least, even past --max-time")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  app.add_option("--max-time", opt.max_seconds, "sampling budget per shape [s]")
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
  if (opt.pairs < 2 || opt.pairs % 2 != 0)
    throw UsageError("--pairs must be even and at least 2 (blocks of two pairs), got " +
                     std::to_string(opt.pairs));
  if (opt.min_pairs < 2 || opt.min_pairs > opt.pairs)
    throw UsageError("need 2 <= --min-pairs <= --pairs");
  try {
    for (const auto& spec : opt.shape_specs.empty() ? kDefaultShapes : opt.shape_specs) {
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
  rec.started_utc = utc_iso8601(now);
  rec.provenance = provenance(argc, argv, seed, opt.device, a.baseline || b.baseline);
  rec.options.pairs = opt.pairs;
  rec.options.min_pairs = opt.min_pairs;
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
  profiler::Sampler warm(*activity, flush, stream.get(), profiler::StoppingRule{});
  PairedSampler sampler(*activity, flush, monitor, stream.get());

  const long long now = now_epoch_seconds();
  rec = start_record(a, b, opt, argc, argv, seed, order_seed, now);
  const fs::path file = new_run_directory(root, std::string(a.id) + "-vs-" + b.id, now) / "run.json";
  write_ab_record(file, rec);
  record_file = written_record(file, rec, &write_ab_record);
  console::ab_started(a.id, b.id, seed, order_seed, file.string());

  bool all_passed = true;
  for (std::size_t i = 0; i < req.shapes.size(); ++i) {
    const std::string tag = "[" + std::to_string(i + 1) + "/" + std::to_string(req.shapes.size()) +
                            "] " + shape_name(req.shapes[i]);
    rec.results.push_back(run_shape(a, b, req.shapes[i], opt, seed, order_seed + i, warm, sampler,
                                    stream.get(), tag, rec.options.bootstrap));
    all_passed = all_passed && rec.results.back().passed;
    write_ab_record(file, rec);
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
               "interleaved (ABBA/BAAB blocks, L2 flushed before every sample, CUPTI busy time, "
               "NVML SM clock per sample). Ratio = t_B / t_A: A's speed-up over B."};
  Options opt;
  add_options(app, opt);
  AbRecord rec;
  return run_main("attnlab-ab", "run failed", app, argc, argv,
                  [&](RunRecordFile& record_file) { return run(opt, argc, argv, rec, record_file); });
}
