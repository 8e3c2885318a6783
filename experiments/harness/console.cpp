#include "experiments/harness/console.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "common/stats.hpp"

namespace attnlab::console {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string human_ns(double ns) {
  if (ns >= 1e6) return fmt("%.3f ms", ns / 1e6);
  return fmt("%.2f us", ns / 1e3);
}

void run_started(const std::string& phase, const std::string& gpu, std::uint64_t seed,
                 const std::string& record_file) {
  std::cout << "attnlab: phase " << phase << " on " << gpu << ", seed " << seed << ", record "
            << record_file << std::endl;
}

void correctness(const std::string& tag, const GateResult& gate, const char* inputs) {
  const CheckResult& c = gate.check;
  std::cout << tag << " correctness " << (inputs ? std::string("on ") + inputs + " inputs " : "")
            << (gate.passed ? "PASS" : "FAIL") << ": worst row rms err "
            << fmt("%.3g", c.row_rms_err) << " (tolerance " << fmt("%.3g", c.row_tolerance_rms)
            << ", ratio " << fmt("%.2f", c.row_err_ratio) << "), max_abs_err "
            << fmt("%.3g", c.max_abs_err) << " (naive " << input_format_name(gate.format) << " "
            << fmt("%.3g", c.naive_max_abs_err) << "), rms err "
            << fmt("%.3g", gate.rmse_unquantised)
            << (gate.scales ? " against the unquantised inputs (e4m3 scales Q " + fmt("%g", gate.scales->q) +
                                  ", K " + fmt("%g", gate.scales->k) + ", V " + fmt("%g", gate.scales->v) + ")"
                            : std::string())
            << ", " << c.rows_checked << " rows, " << c.nonfinite << " NaN/inf of "
            << c.elements_scanned
            << (gate.lse ? ", LSE max err " + fmt("%.3g", gate.lse->max_abs_err) + " (worst row ratio " +
                               fmt("%.2f", gate.lse->worst_ratio) + ", " + std::to_string(gate.lse->nonfinite) +
                               " NaN/inf)"
                         : std::string())
            << (gate.passed ? "" : "; " + gate.failure) << std::endl;
}

void backward_correctness(const std::string& tag, const BackwardGateResult& gate, const char* inputs) {
  const BackwardCheck& c = gate.check;
  std::cout << tag << " correctness on " << inputs << " inputs " << (gate.passed ? "PASS" : "FAIL")
            << ": worst gradient row ratio " << fmt("%.2f", c.worst_ratio) << " (dQ " << fmt("%.2f", c.dq.worst_ratio)
            << ", dK " << fmt("%.2f", c.dk.worst_ratio) << ", dV " << fmt("%.2f", c.dv.worst_ratio) << "), "
            << c.dq.rows_checked << " dQ rows and " << c.dk.rows_checked << " dK/dV rows, " << c.nonfinite
            << " NaN/inf of " << c.elements_scanned << ", O and LSE from " << gate.forward
            << (gate.repeat_identical ? "" : ", two launches differed in bits")
            << (gate.passed ? "" : "; " + gate.failure) << std::endl;
}

void profiled_launch(const std::string& tag, const std::string& range) {
  std::cout << tag << " profiled launch in NVTX range attnlab@" << range << std::endl;
}

void regime(const std::string& tag, const std::string& name, const RegimeTiming& t) {
  const double nan = std::nan("");
  std::cout << tag << " " << name << ": median " << human_ns(t.median_ns) << " (p10 "
            << human_ns(t.p10_ns) << ", p90 " << human_ns(t.p90_ns) << ", noise "
            << fmt("%.2f%%", t.noise_pct) << ", " << t.count << " samples, " << t.stop_reason
            << ") " << fmt("%.2f TFLOPS", t.tflops) << ", SM clock "
            << fmt("%.0f", t.clock_before_mhz.value_or(nan)) << "->"
            << fmt("%.0f MHz", t.clock_after_mhz.value_or(nan));
  if (t.gpu_state && !t.gpu_state->throttled_samples_ns.empty())
    std::cout << "; " << t.gpu_state->throttled_samples_ns.size()
              << " samples taken while the GPU throttled, " << t.gpu_state->throttled_policy;
  std::cout << std::endl;
}

void output_changed_after_timing(const std::string& tag) {
  std::cout << tag << " FAIL: output after timing differs from the checked output" << std::endl;
}

void evidence(const std::string& tag, const profiler::ShapeEvidence& ev) {
  if (!ev.facts.available) std::cout << tag << " static: unavailable: " << ev.facts.reason << std::endl;
  for (const profiler::KernelFacts& k : ev.facts.kernels) {
    std::cout << tag << " static: " << k.name << " grid " << k.grid[0] << "x" << k.grid[1] << "x"
              << k.grid[2] << " block " << k.block[0] << "x" << k.block[1] << "x" << k.block[2];
    if (k.registers)
      std::cout << ", " << *k.registers << " registers, " << *k.static_smem_bytes << "+"
                << k.dynamic_smem_bytes << " B shared, " << *k.local_bytes << " B local";
    if (k.theoretical_occupancy_pct)
      std::cout << ", theoretical occupancy " << fmt("%.1f%%", *k.theoretical_occupancy_pct);
    if (!k.attributes_reason.empty()) std::cout << " (" << k.attributes_reason << ")";
    std::cout << std::endl;
  }
  for (const GroupResult& g : ev.groups)
    std::cout << tag << " metrics " << profiler::console_line(g) << std::endl;
}

void pc_sampling(const std::string& tag, const PcSamplingResult& pcs) {
  if (!pcs.available) {
    std::cout << tag << " pcsampling: unavailable: " << pcs.reason << std::endl;
    return;
  }
  std::cout << tag << " pcsampling: " << pcs.total_samples << " samples (" << pcs.dropped_samples
            << " dropped), period 2^" << pcs.sampling_period_log2 << " cycles, " << pcs.kernels.size()
            << " kernels (" << pcs.non_user_samples << " samples of non-user kernels), launch "
            << (pcs.sampled_launch_ns ? human_ns(*pcs.sampled_launch_ns) : "?") << " sampled vs "
            << (pcs.unsampled_launch_ns ? human_ns(*pcs.unsampled_launch_ns) : "?") << " unsampled"
            << std::endl;
}

void ab_started(const std::string& a, const std::string& b, std::uint64_t seed,
                std::uint64_t order_seed, const std::string& record_file) {
  std::cout << "attnlab-ab: A=" << a << " vs B=" << b << " (" << kAbConvention << "), seed " << seed
            << ", order seed " << order_seed << ", record " << record_file << std::endl;
}

void ab_result(const std::string& tag, const std::string& a, const std::string& b, const AbShape& s) {
  auto ratio = [](const char* what, const AbRatio& r) {
    const auto& e = r.estimate;
    return std::string(what) + " " + fmt("%.4f", e.median) + " [" + fmt("%.4f", e.lo) + ", " +
           fmt("%.4f", e.hi) + "] " + paired::verdict_name(e.verdict) +
           (e.as_fast_as ? ", as fast as" : ", not as fast as");
  };
  // Every block's samples of one side, pooled for the medians. The clock is NVML's, sampled
  // beside each launch: the board's setting, which a kernel on the tensor cores runs below
  // without NVML showing it (kernels/NOTES.md, "Floors: measured per GPU").
  auto side = [&s](const std::string& id, bool is_a) {
    const AbSamples x = s.pooled(is_a);
    return id + " busy median " + human_ns(stats::median(x.busy_ns)) + " at NVML's " +
           fmt("%.0f MHz", stats::median(x.sm_clock_mhz));
  };
  std::cout << tag << " " << s.pairs() << " pairs in " << s.blocks.size() << " blocks (" << s.stop_reasons() << "), B/A: "
            << ratio("wall", *s.wall) << "; "
            << (s.cycles ? ratio("cycles", *s.cycles) : std::string("cycles withheld")) << "; "
            << side("A=" + a, true) << ", " << side("B=" + b, false) << std::endl;
}

void run_finished(const std::string& status, const std::string& record_file) {
  std::cout << "attnlab: status " << status << ", record " << record_file << std::endl;
}

}  // namespace attnlab::console
