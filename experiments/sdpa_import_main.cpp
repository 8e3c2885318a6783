// attnlab-sdpa-import: the PyTorch SDPA baseline's raw measurements (record/sdpa_raw.hpp, written
// by experiments/sdpa_baseline.py, which runs this at the end) into its run record, in a new run
// directory <results>/sdpa-<backend>/<UTC start>-<short sha>/run.json that never overwrites one.
//
//   build/bin/attnlab-sdpa-import results/.sdpa-raw-cudnn-1234.json --results-dir results
//   build/bin/attnlab-sdpa-import raw.json --output record.json      # a file, no run directory
//
// Exit codes: 0 written; 2 bad arguments or a malformed raw file (one line naming the field);
// 3 the results directory cannot hold the record.
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "common/shapes.hpp"
#include "experiments/sdpa_import.hpp"
#include "record/record.hpp"

namespace fs = std::filesystem;
using namespace attnlab;

namespace {

// Each timed regime's statistics, one line each, as the baseline printed them while it computed
// them itself.
void print_timing(const RunRecord& rec) {
  for (const ResultEntry& r : rec.results)
    for (const auto& [name, t] : r.timing)
      std::printf("%s %s %s: median %.2f us (p10 %.2f, p90 %.2f, noise %.2f%%, %lld samples, %s) %.2f TFLOPS\n",
                  shape_name(r.shape).c_str(), rec.options.backend->c_str(), name.c_str(), t.median_ns / 1e3,
                  t.p10_ns / 1e3, t.p90_ns / 1e3, t.noise_pct, t.count, t.stop_reason.c_str(), t.tflops);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnlab-sdpa-import: the SDPA baseline's raw measurements into its run record"};
  std::string raw_file, results_dir = "results", output;
  app.add_option("raw", raw_file, "raw measurements (attnlab.sdpa-raw/1)")->required();
  app.add_option("-o,--results-dir", results_dir, "where run directories go")->capture_default_str();
  app.add_option("--output", output, "write the record to this file instead of a new run directory");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "attnlab-sdpa-import: %s\n", e.what());
    return 2;
  }
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
