// Helpers for the report tests: temporary results roots built from the committed H100
// fixture records, and synthetic records with chosen samples for the claim logic.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/shapes.hpp"
#include "common/stats.hpp"
#include "record/ab.hpp"
#include "record/correctness.hpp"
#include "record/record.hpp"

namespace attnlab::report::testing {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag = "") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // The process id keeps two checkouts' test runs on one machine out of each other's way.
    path = fs::temp_directory_path() / ("attnlab-report-" + std::string(info->test_suite_name()) + "-" +
                                        info->name() + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// "2026-11-22T21:56:39Z" -> "20261122T215639Z", the harness's directory stamp.
inline std::string stamp_of(const std::string& iso) {
  std::string out;
  for (char c : iso)
    if (c != '-' && c != ':') out += c;
  return out;
}

// <root>/<phase>/<stamp>-<sha7>/run.json for every tests/fixtures/h100-phase*-run.json: the
// layout the harness writes, named as it names run directories. Returns the run directories.
inline std::vector<fs::path> make_fixture_root(const fs::path& root) {
  std::vector<fs::path> files, dirs;
  for (const auto& e : fs::directory_iterator(ATTNLAB_FIXTURES_DIR)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("h100-phase", 0) == 0 && e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::string text = read_file(f);
    const auto j = ordered_json::parse(text);
    const fs::path dir = root / j["phase"].get<std::string>() /
                         (stamp_of(j["started_utc"].get<std::string>()) + "-" +
                          j["provenance"]["git"]["commit"].get<std::string>().substr(0, 7));
    write_file(dir / "run.json", text);
    dirs.push_back(dir);
  }
  return dirs;
}

// A copy of tests/reports/inputs/side-by-side at `root`: a phase 4 record with launch facts,
// throughput counters and ncu values, and SDPA baseline records beside it (placeholder values;
// see its README.md), with a stand-in for the Nsight Compute report the phase's record names
// (the report links it). Returns the phase 4 run's directory.
inline fs::path make_side_by_side_root(const fs::path& root) {
  const fs::path inputs = fs::path(ATTNLAB_GOLDEN_DIR).parent_path() / "inputs" / "side-by-side";
  fs::create_directories(root);
  fs::copy(inputs, root, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  fs::remove(root / "README.md");
  const fs::path run = root / "4" / "20261122T215639Z-dcabdff";
  write_file(run / "ncu-16x16x2048x64.ncu-rep", "stand-in for an Nsight Compute report\n");
  return run;
}

// n samples evenly spread over [centre - half_width, centre + half_width] [ns].
inline std::vector<double> spread(double centre, double half_width, int n = 21) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre - half_width + 2 * half_width * i / (n - 1));
  return v;
}

struct SynthShape {
  std::string spec;             // "throughput", "1x8x512x64"
  std::vector<double> cold_ns;  // empty: the shape failed its check and has no timing
};

// A record that satisfies the schema, with a cold regime built from the given samples.
inline ordered_json synth_record(const std::string& phase, const std::string& started,
                                 const std::vector<SynthShape>& shapes,
                                 const std::string& gpu = "NVIDIA H100 80GB HBM3",
                                 const std::string& status = "ok") {
  ordered_json r;
  r["schema"] = kRunSchema;
  r["phase"] = phase;
  r["status"] = status;
  r["experiment"] = {{"title", "synthetic " + phase}, {"technique", "test"}, {"question", "test"}};
  r["claims"] = ordered_json::array();
  r["started_utc"] = started;
  Provenance pv;
  pv.git.commit = "0123456789abcdef0123456789abcdef01234567";
  pv.argv = {"attnlab-phase-" + phase};
  pv.build.type = "Release";
  pv.build.cuda_flags = "-O3";
  pv.versions = {"13.0", 13000, 13000, 130001, std::nullopt, std::nullopt};
  pv.gpu.name = gpu;
  pv.gpu.uuid = "GPU-test";
  pv.gpu.sm_count = 132;
  pv.gpu.sm_clock_mhz = 1980;
  pv.gpu.mem_clock_mhz = 2619;
  pv.gpu.l2_bytes = 52428800;
  pv.gpu.peak_dram_gbps = 3352.32;
  pv.seed = 1;
  r["provenance"] = to_json(pv);
  r["options"] = {{"regimes", {"cold"}},
                  {"check_only", false},
                  {"stopping_rule", {{"min_samples", 10}, {"max_samples", 1000}, {"noise_target_pct", 0.5},
                                     {"max_seconds", 2.0}}}};
  r["results"] = ordered_json::array();
  for (const auto& sh : shapes) {
    const Shape s = parse_shape(sh.spec);
    ordered_json e;
    e["name"] = shape_name(s);
    e["shape"] = shape_to_json(s, s.default_scale());
    e["flops"] = s.flops();
    e["min_bytes"] = s.min_bytes();
    // The block as the harness writes it (record/correctness.hpp), placeholder figures.
    Correctness check;
    check.passed = !sh.cold_ns.empty();
    check.max_abs_err = 1e-4;
    check.max_rel_err = 1e-3;
    check.tolerance_abs = 2e-3;
    check.naive_fp16_max_abs_err = 5e-4;
    check.rows_checked = 64;
    check.rows_total = s.B * s.H * s.S;
    check.repeat_identical = true;
    if (!check.passed) check.failure = "max_abs_err above tolerance";
    e["correctness"] = to_json(check);
    if (sh.cold_ns.empty()) {
      e["timing"] = nullptr;
      e["headline_regime"] = nullptr;
      e["tflops"] = nullptr;
      e["dram_gbps_min_bytes"] = nullptr;
    } else {
      const auto m = stats::summarize(sh.cold_ns);
      ordered_json c;
      c["method"] = "synthetic";
      c["median_ns"] = m.median;
      c["p10_ns"] = m.p10;
      c["p90_ns"] = m.p90;
      c["min_ns"] = m.min;
      c["max_ns"] = m.max;
      c["noise_pct"] = m.noise_pct;
      c["count"] = m.count;
      c["tflops"] = s.flops() / m.median / 1e3;
      c["dram_gbps_min_bytes"] = s.min_bytes() / m.median;
      c["samples_ns"] = sh.cold_ns;
      e["timing"] = {{"cold", c}};
      e["headline_regime"] = "cold";
      e["tflops"] = c["tflops"];
      e["dram_gbps_min_bytes"] = c["dram_gbps_min_bytes"];
    }
    r["results"].push_back(e);
  }
  return r;
}

// `rec` measured on the GPU with this uuid (same model).
inline ordered_json on_gpu(ordered_json rec, const std::string& uuid) {
  rec["provenance"]["gpu"]["uuid"] = uuid;
  return rec;
}

// Result `i`'s cold regime as a launch of `kernels` kernels, with the busy statistics the
// harness writes: the median, and p10/p90 where given (0: not recorded).
inline ordered_json with_busy(ordered_json rec, std::size_t i, int kernels, double median,
                              double p10 = 0, double p90 = 0) {
  auto& c = rec["results"][i]["timing"]["cold"];
  c["kernels_per_launch"] = kernels;
  c["busy_median_ns"] = median;
  if (p10 > 0) c["busy_p10_ns"] = p10;
  if (p90 > 0) c["busy_p90_ns"] = p90;
  return rec;
}

// Writes <root>/<phase>/<stamp>/run.json; returns the run directory.
inline fs::path write_record(const fs::path& root, const ordered_json& rec) {
  const fs::path dir = root / rec["phase"].get<std::string>() /
                       (stamp_of(rec["started_utc"].get<std::string>()) + "-0123456");
  write_file(dir / "run.json", rec.dump(2) + "\n");
  return dir;
}

// A timed A/B shape: `blocks` blocks of `pairs` pairs, A at 600 us, B's per-pair ratios t_B / t_A
// around `ratio` in a fixed pattern of relative spread `rel`, block k's shifted by shift(k).
// Both sides of a pair read one clock value (as NVML gives them) unless `own_clocks`, where
// each reads its own while its kernel ran.
inline AbShape synth_ab_shape(const std::string& name, double ratio, double rel, std::size_t blocks = 4,
                              std::size_t pairs = 10, bool own_clocks = false,
                              double (*shift)(std::size_t) = nullptr) {
  AbShape s;
  s.name = name;
  for (std::size_t k = 0; k < blocks; ++k) {
    AbBlock blk;
    blk.round = k;
    blk.seed = 1000 + k;
    blk.order_seed = 2000 + k;
    blk.started_s = double(k);
    blk.passed = true;
    blk.a_correctness.passed = blk.b_correctness.passed = true;
    blk.orders.assign(pairs / 2, "ABBA");
    const double r = ratio * (1 + (shift ? shift(k) : 0.0));
    for (std::size_t i = 0; i < pairs; ++i) {
      const double t_a = 600e3, t_b = t_a * r * (1 + rel * (double(i % 5) - 2) / 2.0);
      blk.a.busy_ns.push_back(t_a);
      blk.b.busy_ns.push_back(t_b);
      blk.a.span_ns.push_back(t_a);
      blk.b.span_ns.push_back(t_b);
      blk.a.clock_offset_ns.push_back(own_clocks ? 1000 : 0);
      blk.b.clock_offset_ns.push_back(own_clocks ? 1000 : 0);
      blk.first.push_back(i % 2 ? "B" : "A");
      blk.a.sm_clock_mhz.push_back(1700);
      blk.b.sm_clock_mhz.push_back(own_clocks ? 1690 : 1700);
    }
    blk.stop_reason = "pairs";
    s.blocks.push_back(blk);
  }
  return s;
}

// An ok A/B record of `a` against `b` with the given shapes (estimated here), written to
// <root>/ab/<a>-vs-<b>/<run>/run.json; returns that directory.
inline fs::path write_ab(const fs::path& root, const std::string& a, const std::string& b,
                         std::vector<AbShape> shapes, const std::string& gpu = "NVIDIA H100 80GB HBM3",
                         const std::string& started = "2026-11-22T12:00:00Z",
                         const std::string& uuid = "GPU-test", const std::string& run = "20261122T120000Z-abcdef0",
                         const std::string& commit = "0123456789abcdef0123456789abcdef01234567") {
  AbRecord r;
  r.provenance.git.commit = commit;
  r.status = "ok";
  r.a = {a, a, ""};
  r.b = {b, b, ""};
  r.started_utc = started;
  r.provenance.gpu.name = gpu;
  r.provenance.gpu.uuid = uuid;
  r.options.pairs = r.options.min_pairs = 40;
  r.options.blocks = shapes.empty() ? 1 : shapes.front().blocks.size();
  r.options.max_seconds = 1;
  r.options.inputs = "normal";
  r.method = "m";
  for (auto& s : shapes) {
    estimate_shape(s, r.options.bootstrap);
    r.results.push_back(s);
  }
  const fs::path dir = root / "ab" / (a + "-vs-" + b) / run;
  write_file(dir / "run.json", to_json(r).dump(2));
  return dir;
}

}  // namespace attnlab::report::testing
