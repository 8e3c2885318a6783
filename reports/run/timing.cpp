// A run's report, timing section: each regime's distribution, clocks, idle gaps between a
// launch's kernels and the GPU's state (NVML) while sampled.
#include "reports/run/sections.hpp"

namespace attnlab::report::detail {

namespace {

// "1980/1980 (NVML)" or "2055/2100 (probe)": the source beside every clock, since the clock64
// probe of older records (no source recorded: the harness then named none) reads one SM in a
// single-thread spin and is not comparable with NVML's reading.
std::string clock_text(const Regime& g) {
  if (!g.clock_before_mhz || !g.clock_after_mhz) return "not recorded";
  const bool nvml = g.clock_source.rfind("NVML", 0) == 0;
  return sig(*g.clock_before_mhz, 4) + "/" + sig(*g.clock_after_mhz, 4) + (nvml ? " (NVML)" : " (probe)");
}

// For launches of several kernels (unfused phases, some SDPA backends): how much of the span
// they were running. Silent for single-kernel launches, where busy time equals the span.
void idle_gap_notes(std::ostringstream& md, const Run& run) {
  Table t({"shape", "regime", "kernels per launch", "median span", "median busy", "idle"},
          "llrrrr");
  for (const auto& r : run.results)
    for (const auto& g : r.timing) {
      if (!g.busy_median_ns || g.kernels_per_launch.value_or(1) < 2) continue;
      t.row({shape_label(r.name), g.name, std::to_string(*g.kernels_per_launch),
             duration(g.median_ns), duration(*g.busy_median_ns),
             pct(100.0 * (1.0 - *g.busy_median_ns / g.median_ns))});
    }
  if (t.empty()) return;
  md << "A launch here runs several kernels. The span (the timing above) runs from the first "
        "kernel's start to the last one's end; busy is the time any of them ran, so the "
        "difference is idle time between them (launch gaps, stream hand-offs). Medians of "
        "separate distributions, so idle is approximate:\n\n"
     << t.str() << "\n";
}

// What NVML said while each regime was sampled; only for records that hold it.
void gpu_state_notes(std::ostringstream& md, const Run& run) {
  bool any = false;
  for (const auto& r : run.results)
    for (const auto& g : r.timing) any = any || g.gpu_state.has_value();
  if (!any) return;
  Table t({"shape", "regime", "busy share", "readings", "NVML SM MHz min/median/max", "max power W",
           "max temp C", "clock-event reasons (readings)", "throttled readings",
           "throttled samples"},
          "llrrrrrlrr");
  std::string source;
  for (const auto& r : run.results)
    for (const auto& g : r.timing) {
      if (!g.gpu_state) continue;
      const GpuState& s = *g.gpu_state;
      std::string share = "not measured";
      if (g.wall_s && *g.wall_s > 0) {
        double sum = 0;
        for (double x : g.samples_ns) sum += x;
        share = pct(100.0 * sum * g.launches_per_sample.value_or(1) / (*g.wall_s * 1e9));
      }
      if (!s.unavailable.empty()) {
        t.row({shape_label(r.name), g.name, share, "not measured: " + fixed_line(s.unavailable), "",
               "", "", "", "", ""});
        continue;
      }
      if (source.empty()) source = s.source;
      std::string reasons;
      for (const auto& [name, n] : s.clock_event_readings)
        reasons += (reasons.empty() ? "" : ", ") + code(name) + " " + std::to_string(n);
      const std::string left_out =
          s.throttled_policy.empty()
              ? "not flagged"
              : std::to_string(s.throttled_samples_ns.size()) +
                    (s.throttled_samples_ns.empty() ? "" : ", " + s.throttled_policy);
      t.row({shape_label(r.name), g.name, share, std::to_string(s.readings),
             sig(s.sm_clock_min_mhz, 4) + "/" + sig(s.sm_clock_median_mhz, 4) + "/" +
                 sig(s.sm_clock_max_mhz, 4),
             sig(s.power_max_w), sig(s.temperature_max_c), reasons.empty() ? "none" : reasons,
             std::to_string(s.throttled_readings), left_out});
    }
  md << "### GPU state while sampling\n\n"
     << (source.empty() ? std::string("NVML readings") : fixed_line(source))
     << ". A reading is throttled when a slowdown reason (hardware, thermal, power brake) is "
        "active, or when the busy GPU's SM clock is below 75% of its maximum (nvbench's rule). "
        "A CUPTI sample within one polling period of a throttled reading is a throttled "
        "sample; the last column says whether the run kept such samples in the statistics "
        "above or left them out (`--throttled exclude`, unless every sample was throttled). "
        "The graph regime's samples are not flagged one by one. Busy share: the sampled device "
        "time as a share of the regime's wall time; under a power cap, a GPU left idle between "
        "samples runs the next ones at a higher clock, so compare kernels at similar shares.\n\n"
     << t.str() << "\n";
}

}  // namespace

void timing_section(std::ostringstream& md, const Run& run, const Ceilings& c, bool has_plot) {
  md << "## Timing\n\n";
  std::vector<std::pair<std::string, std::string>> methods;
  for (const auto& r : run.results)
    for (const auto& g : r.timing)
      if (std::none_of(methods.begin(), methods.end(), [&](const auto& m) { return m.first == g.name; }))
        methods.emplace_back(g.name, g.method);
  if (methods.empty()) {
    md << "No shape was timed.\n\n";
    return;
  }
  md << "Regimes, as the record describes them:\n\n";
  for (const auto& [name, method] : methods)
    md << "- " << code(name) << ": " << (method.empty() ? "(no description recorded)" : fixed_line(method)) << "\n";
  md << "\n";
  Table t({"shape", "regime", "median", "p10", "p90", "noise", "samples", "TFLOPS",
           "% of tensor peak", "GB/s", "% of DRAM peak", "SM MHz before/after"},
          "llrrrrlrrrrr");
  for (const auto& r : run.results) {
    if (!r.timed()) {
      t.row({shape_label(r.name), r.untimed_reason(), "", "", "", "", "", "", "", "", "", ""});
      continue;
    }
    for (const auto& g : r.timing) {
      std::string samples = std::to_string(g.count);
      if (!g.stop_reason.empty()) samples += " (" + g.stop_reason + ")";
      const char* u = time_unit(g.median_ns);
      const int d = resolving_digits({in_unit(g.p10_ns, u), in_unit(g.median_ns, u), in_unit(g.p90_ns, u)});
      t.row({shape_label(r.name), g.name == r.headline_regime ? g.name + " (headline)" : g.name,
             duration_in(g.median_ns, u, d), duration_in(g.p10_ns, u, d), duration_in(g.p90_ns, u, d), pct(g.noise_pct),
             samples, sig(g.tflops), pct_of(g.tflops, c.tensor_tflops), sig(g.dram_gbps_min_bytes),
             pct(100.0 * g.dram_gbps_min_bytes / c.dram_gbps), clock_text(g)});
    }
  }
  md << t.str() << "\n";
  md << "This table gives each regime's samples as recorded: the span of a launch, from its "
        "first kernel's start to its last one's end (for one kernel, the time it ran), with "
        "TFLOPS at that median. The headline figures above are the device (busy) time. SM MHz "
        "names its source: NVML is the driver's current SM clock (`nvmlDeviceGetClockInfo`); "
        "probe is `clock64` cycles per `globaltimer` nanosecond over one 2 ms single-thread "
        "spin (`profiler/clock_probe.hpp`; records that name no source used it), one SM's view "
        "of a moment, so compare it with NVML figures only as a rough check.\n\n";
  idle_gap_notes(md, run);
  gpu_state_notes(md, run);
  md << "TFLOPS count 4·B·H·S²·D FLOPs (halved for causal) at the median. GB/s counts the "
        "fewest bytes any implementation moves (Q, K, V read once, O written once). % of DRAM "
        "peak is against the record's `provenance.gpu.peak_dram_gbps` ("
     << sig(c.dram_gbps) << " GB/s). ";
  if (c.tensor_tflops)
    md << "% of tensor peak is against " << sig(*c.tensor_tflops) << " TFLOPS, the fp16 dense "
       << "tensor peak of the " << run.gpu_name() << " (" << c.tensor_source << ").\n\n";
  else
    md << "The tensor peak of the " << run.gpu_name() << " is not known to this tool, so % of "
       << "tensor peak is not shown.\n\n";
  if (has_plot)
    md << "### Latency distribution\n\n![Latency distribution of every shape and regime](plots/latency.png)\n\n"
          "One panel per shape, each on its own scale. Box: quartiles (linear between closest "
          "ranks); black line: median; whiskers: the furthest samples within 1.5 interquartile "
          "ranges of the box; points: samples beyond the whiskers, each where it is. A regime "
          "of fewer than "
       << kMinBoxSamples
       << " samples is drawn as its samples, without a box. Script and data: "
          "`plots/latency.gp`, `plots/latency.dat`.\n\n";
  else
    md << "### Latency distribution\n\nNot plotted: the record holds no timing samples.\n\n";
}

}  // namespace attnlab::report::detail
