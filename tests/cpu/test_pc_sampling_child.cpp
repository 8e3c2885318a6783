// PC sampling in a child process (experiments/harness/pc_sampling_child.hpp): the child's command line
// reads back to what the parent asked for, and the spawn-wait-read turns every way a child can
// fail (non-zero exit, signal, no file, a malformed one, no executable) into an unavailable
// result with its reason, with fake children (shell scripts) in place of the experiment binary.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/shapes.hpp"
#include "experiments/harness/pc_sampling_child.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "attnlab-test-child-XXXXXX").string();
    if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// A fake child: a shell script, argv as the real one gets it ($2 is the result file).
std::string script(const TempDir& d, const std::string& name, const std::string& body) {
  const fs::path p = d.path / name;
  std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
  if (chmod(p.c_str(), 0755) != 0) throw std::runtime_error("chmod failed");
  return p.string();
}

PcSamplingChildRequest request(const std::string& exe) {
  PcSamplingChildRequest req;
  req.executable = exe;
  req.out_file = "/tmp/out dir/pc.json";
  req.shape = shape_name(parse_shape("4x32x1024x128:causal:hkv=8"));
  req.seed = 18446744073709551615ull;
  req.inputs = "wide";
  req.device = 1;
  req.expected_ns = 123456.78901234567;
  return req;
}

PcSamplingResult sample_result() {
  PcSamplingResult r;
  r.available = true;
  r.method = "m";
  r.sampling_period_log2 = 12;
  r.total_samples = 7;
  r.sampled_launch_ns = 2.0;
  r.unsampled_launch_ns = 1.0;
  r.overhead_pct = 100.0;
  KernelPcSamples k;
  k.name = "kern";
  k.samples = 7;
  k.pcs = {{0x20, 7, {{"long_scoreboard", 7}}, {}, "k.cu", 12, "LDG.E R2, desc[UR4][R2.64]"}};
  k.lines = aggregate_lines(k.pcs, nullptr);
  r.kernels = {k};
  return r;
}

TEST(PcSamplingChild, CommandLineReadsBackToTheRequest) {
  const PcSamplingChildRequest req = request("/bin/attnlab-phase-4x");
  const std::vector<std::string> argv = pc_sampling_child_argv(req);
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.front(), "/bin/attnlab-phase-4x");

  // Parsed as the harness parses it: the hidden options and the run's own.
  CLI::App app;
  PcSamplingChildOptions child;
  std::vector<std::string> shapes;
  std::uint64_t seed = 0;
  std::string inputs;
  int device = -1;
  add_pc_sampling_child_options(app, child);
  app.add_option("--shape", shapes);
  app.add_option("--seed", seed);
  app.add_option("--inputs", inputs);
  app.add_option("--device", device);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  ASSERT_NO_THROW(app.parse(int(args.size()), args.data()));
  EXPECT_EQ(child.out_file, req.out_file);
  EXPECT_EQ(child.expected_ns, req.expected_ns);  // the very double
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes[0], "4x32x1024x128:causal:hkv=8");
  EXPECT_EQ(shape_name(parse_shape(shapes[0])), shapes[0]);
  EXPECT_EQ(seed, req.seed);
  EXPECT_EQ(inputs, "wide");
  EXPECT_EQ(device, 1);
  // Hidden: not in --help.
  EXPECT_EQ(app.help().find(kPcSamplingChildOption), std::string::npos);
}

// A backward phase's child samples the launch on the O and LSE of the run's --forward phase;
// a request without one passes none (the gate's fp32 forward).
TEST(PcSamplingChild, ForwardPhaseTravelsOnlyWhenGiven) {
  PcSamplingChildRequest req = request("/bin/attnlab-phase-b5");
  auto forward_of = [](const std::vector<std::string>& argv) -> std::string {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "--forward") return argv[i + 1];
    return "";
  };
  EXPECT_EQ(forward_of(pc_sampling_child_argv(req)), "");
  const std::size_t plain = pc_sampling_child_argv(req).size();
  req.forward = "5lse";
  const std::vector<std::string> argv = pc_sampling_child_argv(req);
  EXPECT_EQ(forward_of(argv), "5lse");
  EXPECT_EQ(argv.size(), plain + 2);
}

TEST(PcSamplingChild, ResultFileIsReadBack) {
  TempDir d;
  const fs::path src = d.path / "result.json";
  std::ofstream(src) << to_json(sample_result()).dump();
  const std::string exe = script(d, "ok", "echo normal output that goes nowhere\ncp '" + src.string() + "' \"$2\"");
  PcSamplingChildRequest req = request(exe);
  req.out_file = (d.path / "out.json").string();
  const PcSamplingResult r = run_pc_sampling_child(pc_sampling_child_argv(req), req.out_file);
  ASSERT_TRUE(r.available) << r.reason;
  EXPECT_EQ(to_json(r), to_json(sample_result()));
}

TEST(PcSamplingChild, EveryFailureIsAnUnavailableResultWithItsReason) {
  TempDir d;
  const fs::path out = d.path / "out.json";
  auto run = [&](const std::string& exe) {
    std::error_code ec;
    fs::remove(out, ec);
    PcSamplingChildRequest req = request(exe);
    req.out_file = out.string();
    return run_pc_sampling_child(pc_sampling_child_argv(req), req.out_file);
  };
  struct Case {
    std::string exe, expect;
  };
  const std::vector<Case> cases = {
      {script(d, "exit3", "echo 'attnlab: no CUDA device' >&2\nexit 3"), "exited with status 3"},
      {script(d, "killed", "kill -9 $$"), "killed by signal 9"},
      {script(d, "nofile", "exit 0"), "wrote no result file"},
      {script(d, "garbage", "echo '{not json' > \"$2\""), "malformed result file"},
      {script(d, "notpcs", "echo '{\"available\": true}' > \"$2\""), "not a PC-sampling result"},
      {(d.path / "no-such-exe").string(), "no-such-exe"},
  };
  for (const auto& c : cases) {
    const PcSamplingResult r = run(c.exe);
    EXPECT_FALSE(r.available) << c.exe;
    EXPECT_NE(r.reason.find(c.expect), std::string::npos) << c.exe << ": " << r.reason;
    EXPECT_NE(r.reason.find("PC-sampling child process"), std::string::npos) << r.reason;
  }
  // An unavailable result the child wrote keeps the child's reason.
  const std::string refused =
      script(d, "refused", "echo '{\"available\": false, \"reason\": \"cuptiPCSamplingEnable failed\"}' > \"$2\"");
  EXPECT_EQ(run(refused).reason, "cuptiPCSamplingEnable failed");
}

TEST(PcSamplingChild, TemporaryDirectoryIsRemovedAfter) {
  TempDir d, tmp;
  const fs::path src = d.path / "result.json";
  std::ofstream(src) << to_json(sample_result()).dump();
  PcSamplingChildRequest req = request(script(d, "ok", "cp '" + src.string() + "' \"$2\""));
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ASSERT_EQ(setenv("TMPDIR", tmp.path.c_str(), 1), 0);
  const PcSamplingResult r = sample_in_child_process(req);
  if (old) setenv("TMPDIR", saved.c_str(), 1); else unsetenv("TMPDIR");
  EXPECT_TRUE(r.available) << r.reason;
  EXPECT_TRUE(fs::is_empty(tmp.path));
}

}  // namespace
