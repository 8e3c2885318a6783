// attnlab-sdpa-import: the PyTorch SDPA baseline's raw measurements (record/sdpa_raw.hpp, written
// by experiments/baselines/sdpa_baseline.py, which runs this at the end) into its run record, in a new run
// directory <results>/sdpa-<backend>/<UTC start>-<short sha>/run.json that never overwrites one.
// The baseline also asks it, while it runs, what needs the harness's code: its shapes parsed and
// held against the memory free, the GPU's attributes, each output checked, the cold and warm
// regimes' number of calls, the graph regime's stopping rule and the NVML monitor
// (experiments/baselines/sdpa_import.hpp).
//
//   build/bin/attnlab-sdpa-import results/.sdpa-raw-cudnn-1234.jsonl --results-dir results
//   build/bin/attnlab-sdpa-import raw.jsonl --output record.json     # a file, no run directory
//   build/bin/attnlab-sdpa-import shapes @seed 2x4x256x64:causal     # one JSON line per shape
//   build/bin/attnlab-sdpa-import fit --device-free 85899345920 @seed   # exit 2 naming one that does not fit
//   build/bin/attnlab-sdpa-import gpu --device 0                     # the raw file's gpu keys, driver
//   build/bin/attnlab-sdpa-import check DIR --shape 1x8x512x64 --seed 7   # the correctness block
//   build/bin/attnlab-sdpa-import plan --per-call-ns 9000 --min-samples 10 --max-samples 1000 --noise-target 0.5 --max-time 1
//   build/bin/attnlab-sdpa-import stop --min-samples 10 --max-samples 1000 --noise-target 0.5 --max-time 1
//   build/bin/attnlab-sdpa-import monitor --device 0                 # clock, start, stop on stdin
//
// Exit codes: 0 written (or answered; a check that fails is an answer); 2 bad arguments, a
// malformed raw file or shape, a shape that does not fit, or unreadable tensors (one line naming
// the field, shape or file); 3 the results directory cannot hold the record, or no GPU (gpu).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/shapes.hpp"
#include "experiments/harness/gpu_attributes.hpp"
#include "experiments/harness/reference.hpp"
#include "experiments/baselines/sdpa_import.hpp"
#include "record/record.hpp"

namespace fs = std::filesystem;
using namespace attnlab;

namespace {

// Each timed regime's statistics, one line each, as the baseline printed them while it computed
// them itself.
void print_timing(const RunRecord& rec) {
  for (const ResultEntry& r : rec.results)
    for (const TimedRegime& t : r.timing)
      std::printf("%s %s %s: median %.2f us (p10 %.2f, p90 %.2f, noise %.2f%%, %lld samples, %s) %.2f TFLOPS\n",
                  shape_name(r.shape).c_str(), rec.options.backend->c_str(), t.name.c_str(), t.median_ns / 1e3,
                  t.p10_ns / 1e3, t.p90_ns / 1e3, t.noise_pct, t.count, t.stop_reason.c_str(), t.tflops);
}

int import_raw(const std::string& raw_file, const std::string& results_dir, const std::string& output) {
  SdpaRaw raw;
  RunRecord record;
  try {
    raw = read_sdpa_raw(raw_file);
    record = sdpa_record(raw, run_context());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab-sdpa-import: %s\n", e.what());
    return 2;
  }
  fs::path file = output;
  try {
    if (output.empty()) {
      ensure_writable_directory(results_dir);
      file = create_run_directory(results_dir, record.phase, utc_stamp(raw.started_unix_s),
                                  short_sha(record.provenance.git)) / "run.json";
    }
    write_run_record(file, record);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab-sdpa-import: %s\n", e.what());
    return 3;
  }
  print_timing(record);
  std::printf("attnlab: %s status %s, record %s\n", record.phase.c_str(), record.status.c_str(),
              file.string().c_str());
  return 0;
}

// The stopping rule's options, as the baseline passes them to plan and stop.
void add_rule_options(CLI::App* app, stats::StoppingRule& rule) {
  app->add_option("--min-samples", rule.min_samples)->required();
  app->add_option("--max-samples", rule.max_samples)->required();
  app->add_option("--noise-target", rule.noise_target_pct, "[%]")->required();
  app->add_option("--max-time", rule.max_seconds, "[s]")->required();
}

// Exit 2 naming the first shape that does not fit, as the experiments refuse it.
int fit(const std::vector<std::string>& specs, std::uint64_t device_free) {
  const std::uint64_t host_available = host_available_bytes();
  for (const std::string& spec : expand_shape_specs(specs)) {
    const Shape s = parse_shape(spec);
    if (const auto why = sdpa_memory_refusal(s, device_free, host_available)) {
      std::fprintf(stderr, "attnlab-sdpa-import: cannot run shape '%s': %s\n", shape_name(s).c_str(), why->c_str());
      return 2;
    }
  }
  return 0;
}

int print_gpu(int device) {
  try {
    std::printf("%s", sdpa_gpu_answer(gpu_attributes(device), driver_version()).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab-sdpa-import: %s\n", e.what());
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnlab-sdpa-import: the SDPA baseline's raw measurements into its run record"};
  std::string raw_file, results_dir = "results", output;
  app.add_option("raw", raw_file, "raw measurements (attnlab.sdpa-raw/1)");
  app.add_option("-o,--results-dir", results_dir, "where run directories go")->capture_default_str();
  app.add_option("--output", output, "write the record to this file instead of a new run directory");

  std::vector<std::string> specs;
  CLI::App* shapes = app.add_subcommand("shapes", "print each shape (specs, presets, @sets) as one JSON line");
  shapes->add_option("spec", specs, "shape specs")->required();

  std::string dir, spec;
  std::uint64_t seed = 0;
  bool repeat_differs = false;
  CLI::App* check = app.add_subcommand("check", "check an output (DIR/q.f16, k.f16, v.f16, out.f16) and print "
                                                "its correctness block as one JSON line");
  check->add_option("dir", dir, "directory of the tensors")->required();
  check->add_option("--shape", spec, "the shape")->required();
  check->add_option("--seed", seed, "the run's seed (picks the rows)")->required();
  check->add_flag("--repeat-differs", repeat_differs, "a second call on the same inputs gave other bits");

  stats::StoppingRule rule;
  CLI::App* stop = app.add_subcommand("stop", "answer the stopping rule for batches of samples on stdin");
  add_rule_options(stop, rule);
  double per_call_ns = 0;
  CLI::App* plan = app.add_subcommand("plan", "print the cold or warm regime's number of calls and its stop reason");
  plan->add_option("--per-call-ns", per_call_ns, "[ns] one call's estimate, the L2 flush included when cold")->required();
  add_rule_options(plan, rule);
  std::uint64_t device_free = 0;
  CLI::App* fits = app.add_subcommand("fit", "exit 2 naming the first shape the baseline cannot hold in memory");
  fits->add_option("spec", specs, "shape specs")->required();
  fits->add_option("--device-free", device_free, "[bytes] free on the GPU, as torch sees it")->required();
  int device = 0;
  CLI::App* gpu = app.add_subcommand("gpu", "print the GPU's attributes and the driver's version as one JSON line");
  gpu->add_option("--device", device, "CUDA device ordinal")->capture_default_str();
  CLI::App* monitor = app.add_subcommand("monitor", "serve the harness's NVML monitor: clock, start, stop on stdin");
  monitor->add_option("--device", device, "CUDA device ordinal")->capture_default_str();
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
    if (app.got_subcommand(shapes)) {
      for (const std::string& s : expand_shape_specs(specs)) std::printf("%s\n", sdpa_shape_line(parse_shape(s)).c_str());
      return 0;
    }
    if (app.got_subcommand(check)) {
      const Shape s = parse_shape(spec);
      const SdpaTensors t = read_sdpa_tensors(dir, s);
      std::printf("%s\n", correctness_line(sdpa_check(s, seed, t.in, t.out, !repeat_differs)).c_str());
      return 0;
    }
    if (app.got_subcommand(fits)) return fit(specs, device_free);
    if (app.got_subcommand(gpu)) return print_gpu(device);
    if (app.got_subcommand(plan)) {
      std::printf("%s\n", sample_plan_answer(sdpa_sample_plan(rule, per_call_ns)).c_str());
      return 0;
    }
    if (app.got_subcommand(stop)) {
      serve_stopping_rule(rule, std::cin, std::cout);
      return 0;
    }
    if (app.got_subcommand(monitor)) {
      profiler::GpuMonitor m(device);
      serve_monitor(m, std::cin, std::cout);
      return 0;
    }
    if (raw_file.empty()) throw CLI::RequiredError("raw");
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "attnlab-sdpa-import: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab-sdpa-import: %s\n", e.what());
    return 2;
  }
  return import_raw(raw_file, results_dir, output);
}
