// One run's report: summary, claims, correctness, timing, hardware metrics, stalls, static
// evidence, roofline and provenance, with gnuplot figures in plots/.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "record/constants.hpp"
#include "record/metrics.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"

namespace attnlab::report {
namespace {

// The metric groups a record can carry (the experiments' metrics collection, in order, from
// record/constants.json); others that a record has are shown too. Stall metrics are the ratio
// of warps stalled for a reason per issued instruction, as Nsight Compute's WarpStateStats
// section reports it, named prefix + reason + suffix.
const std::vector<std::string>& kMetricGroups = metric_vocabulary().groups;
const std::string& kStallPrefix = metric_vocabulary().stall_prefix;
const std::string& kStallSuffix = metric_vocabulary().stall_suffix;

// Latency plots draw a regime with fewer samples as its samples: a box of a handful says
// nothing.
constexpr std::size_t kMinBoxSamples = 10;

std::string fixed_line(const std::string& s) {
  std::string out = s;
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

std::string json_scalar(const ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "null";
  return v.dump();
}

// Flattens an object into ("a.b", value) rows in record order; arrays of scalars joined.
void flatten(const ordered_json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
    return;
  }
  if (j.is_array()) {
    const bool scalars = std::all_of(j.begin(), j.end(), [](const ordered_json& e) {
      return !e.is_object() && !e.is_array();
    });
    if (scalars) {
      std::string joined;
      for (const auto& e : j) joined += (joined.empty() ? "" : " ") + json_scalar(e);
      out.emplace_back(prefix, joined);
      return;
    }
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], prefix + "." + std::to_string(i), out);
    return;
  }
  out.emplace_back(prefix, json_scalar(j));
}

std::string pct_of(double v, const std::optional<double>& peak) {
  return peak ? pct(100.0 * v / *peak) : "not known";
}

// "1980/1980 (NVML)" or "2055/2100 (probe)": the source beside every clock, since the clock64
// probe of older records (no source recorded: the harness then named none) reads one SM in a
// single-thread spin and is not comparable with NVML's reading.
std::string clock_text(const Regime& g) {
  if (!g.clock_before_mhz || !g.clock_after_mhz) return "not recorded";
  const bool nvml = g.clock_source.rfind("NVML", 0) == 0;
  return sig(*g.clock_before_mhz, 4) + "/" + sig(*g.clock_after_mhz, 4) + (nvml ? " (NVML)" : " (probe)");
}

bool any_result_has(const Run& run, const char* key) {
  return std::any_of(run.results.begin(), run.results.end(), [&](const Result& r) {
    return r.json.contains(key) && !r.json[key].is_null();
  });
}

// Whether any shape has a metric group that was collected (`"available": true`).
bool any_metric_measured(const Run& run) {
  for (const auto& r : run.results) {
    const ordered_json* m = find(r.json, "/metrics");
    if (!m || !m->is_object()) continue;
    for (const auto& [name, group] : m->items()) {
      (void)name;
      const ordered_json* a = find(group, "/available");
      if (a && *a == true) return true;
    }
  }
  return false;
}

// The summary's line on hardware metrics: "measured" only where a group was collected.
std::string metrics_summary(const Run& run) {
  if (any_metric_measured(run)) return "measured, see below";
  if (!any_result_has(run, "metrics")) return "not measured (this record has no `metrics`)";
  if (optional_string_at(run.json, "/options/metrics") == std::optional<std::string>("none"))
    return "not measured (the run was started with `--metrics none`)";
  return "not measured (no metric group was collected; see below)";
}

// --- sections --------------------------------------------------------------------------

void summary(std::ostringstream& md, const Run& run, const std::vector<Judgement>& js,
             const Ceilings& c) {
  const ordered_json& j = run.json;
  const auto question = optional_string_at(j, "/experiment/question");
  const auto technique = optional_string_at(j, "/experiment/technique");
  md << "## Summary\n\n";
  if (question) md << "- **Question:** " << fixed_line(*question) << "\n";
  if (technique) md << "- **Technique:** " << fixed_line(*technique) << "\n";
  std::size_t passed = 0, timed = 0, not_run = 0;
  for (const auto& r : run.results) {
    passed += r.passed;
    timed += r.timed();
    not_run += r.unavailable.has_value();
  }
  md << "- **Status:** " << run.status << ": " << passed << " of " << run.results.size()
     << " shapes passed the fp64 reference check, " << timed << " timed";
  if (not_run) md << ", " << not_run << " not run (the implementation cannot run them)";
  if (const auto err = optional_string_at(j, "/error")) md << "; run error: " << fixed_line(*err);
  md << "\n";
  md << "- **Run:** started " << (run.started_utc.empty() ? "(not recorded)" : run.started_utc)
     << ", commit " << code(run.short_commit()) << (run.dirty ? " with uncommitted changes" : " (clean)")
     << ", " << run.gpu_name << ", board " << code(run.gpu_uuid.empty() ? board(run) : run.gpu_uuid) << "\n";
  md << "- **Claims:** " << verdict_counts(js) << "\n";
  md << "- **Hardware metrics:** " << metrics_summary(run) << "\n\n";

  Table t({"shape", "regime", "device time", "p10-p90", "time counted", "noise of device time", "TFLOPS",
           "% of tensor peak"},
          "llrrlrrr");
  for (const auto& r : run.results) {
    if (!r.timed()) {
      t.row({shape_label(r.name), r.untimed_reason(), "", "", "", "", "", ""});
      continue;
    }
    const Regime& g = *r.headline_regime();
    const DeviceTime dt = device_time(r, g);
    const char* u = time_unit(dt.median_ns);
    const int d = resolving_digits({in_unit(dt.p10_ns, u), in_unit(dt.median_ns, u), in_unit(dt.p90_ns, u)});
    const double tflops = dt.rate_at(g, g.tflops, dt.median_ns);
    t.row({shape_label(r.name), g.name, duration_in(dt.median_ns, u, d),
           dt.has_interval() ? duration_range(dt.p10_ns, dt.p90_ns, dt.median_ns) : "not recorded",
           basis_words(dt), device_noise_cell(g, dt),
           sig(tflops), pct_of(tflops, c.tensor_tflops)});
  }
  if (t.empty()) return;
  md << "Headline figures: each shape's headline regime at its device time, the time during "
        "which the launch's kernels ran (busy time: idle gaps between kernels left out; for one "
        "kernel per launch, the span of its samples). Progression, comparisons and claims use "
        "the same figure; \"time counted\" says where a record gives less, and the timing "
        "section below gives each regime's span.\n\n"
     << t.str() << "\n";
}

void claims_section(std::ostringstream& md, const Run& run, const std::vector<Judgement>& js) {
  md << "## Claims\n\n";
  if (js.empty()) {
    md << "This record states no claims.\n\n";
    return;
  }
  md << "Each claim is a predicate over measurements. A timing is the p10-p90 interval of its "
        "samples' device time (busy time, where the record has it; a throughput maps that "
        "interval through work / time). One rule: a difference within the noise is never "
        "SUPPORTED. A claim is SUPPORTED only when the intervals are separated in the claimed "
        "direction (`within_pct`: the interval lies inside the band), REFUTED when separated "
        "against it, and INCONCLUSIVE when they overlap, whatever the operator. NOT TESTED: "
        "the metric or the record to compare with is missing, or the shape failed. A claim "
        "against another phase uses that phase's ok record of the same session (same GPU, "
        "nearest in start time) where there is one; else the newest on the same GPU (uuid); "
        "else the newest on another GPU of the same model. The evidence names the record and "
        "which of these it is.\n\n";
  Table t({"claim", "verdict", "evidence"}, "lll");
  for (const auto& jd : js) {
    std::string ev = jd.evidence;
    if (jd.compared)
      ev += " [record](" + link(run.dir, jd.compared->dir / "report.md") + ")";
    t.row({code(jd.claim.id) + ": " + jd.claim.text, std::string("**") + verdict_name(jd.verdict) + "**", ev});
  }
  md << t.str() << "\n";
}

// The gate's bound beside the error it bounds: under the row rule the bound is on the rms error
// of the row closest to failing, not on the max abs error printed beside it, which may exceed it.
void correctness_section(std::ostringstream& md, const Run& run) {
  md << "## Correctness\n\n"
        "Checked against an fp64 CPU reference on the record's seed; the bound derives from a "
        "naive fp16 implementation's error. Each bound is labelled with what it bounds: a "
        "row-RMS bound limits each checked row's rms error (rule `row_rms`; shown against the "
        "row closest to failing), so the max abs error beside it is reported, not gated, and may "
        "exceed it; a max-abs bound (records before the row rule) limits the max abs error.\n\n";
  Table t({"shape", "check", "gated error", "its bound", "max abs err", "naive fp16 max abs err",
           "max rel err", "rows checked", "non-finite", "repeat identical"},
          "llrrrrrrrl");
  for (const auto& r : run.results) {
    const ordered_json& j = r.json;
    auto num = [&](const char* key, bool scientific) -> std::string {
      const auto v = optional_number_at(j, std::string("/correctness/") + key);
      return v ? (scientific ? sci(*v) : count(*v)) : "not recorded";
    };
    const auto* rep = find(j, "/correctness/repeat_identical");
    const auto rows = optional_number_at(j, "/correctness/rows_checked");
    const auto total = optional_number_at(j, "/correctness/rows_total");
    std::string rows_text = rows ? count(*rows) : "not recorded";
    if (rows && total) rows_text += " of " + count(*total);
    std::string check = r.unavailable ? r.untimed_reason() : r.passed ? "PASS" : "FAIL";
    if (r.failure) check += ": " + *r.failure;
    const bool row_rule = optional_string_at(j, "/correctness/rule").value_or("") == "row_rms";
    const std::string gated = row_rule ? "row rms " + num("row_rms_err", true) : "max abs " + num("max_abs_err", true);
    const std::string bound =
        num("tolerance_abs", true) + (row_rule ? " (row-RMS bound)" : " (max-abs bound)");
    const bool checked = find(j, "/correctness/tolerance_abs") != nullptr;
    t.row({shape_label(r.name), check, checked ? gated : "not recorded", checked ? bound : "not recorded",
           num("max_abs_err", true), num("naive_fp16_max_abs_err", true), num("max_rel_err", true), rows_text,
           num("nonfinite", false), rep && rep->is_boolean() ? (rep->get<bool>() ? "yes" : "no") : "not recorded"});
  }
  md << t.str() << "\n";
}

// For launches of several kernels (unfused phases, some SDPA backends): how much of the span
// they were running. Silent for single-kernel launches, where busy time equals the span.
void idle_gap_notes(std::ostringstream& md, const Run& run) {
  Table t({"shape", "regime", "kernels per launch", "median span", "median busy", "idle"},
          "llrrrr");
  for (const auto& r : run.results)
    for (const auto& g : r.regimes) {
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
    for (const auto& g : r.regimes) any = any || g.gpu_state.has_value();
  if (!any) return;
  Table t({"shape", "regime", "busy share", "readings", "SM MHz min/median/max", "max power W",
           "max temp C", "clock-event reasons (readings)", "throttled readings",
           "throttled samples"},
          "llrrrrrlrr");
  std::string source;
  for (const auto& r : run.results)
    for (const auto& g : r.regimes) {
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

void timing_section(std::ostringstream& md, const Run& run, const Ceilings& c, bool has_plot) {
  md << "## Timing\n\n";
  std::vector<std::pair<std::string, std::string>> methods;
  for (const auto& r : run.results)
    for (const auto& g : r.regimes)
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
    for (const auto& g : r.regimes) {
      std::string samples = std::to_string(g.count);
      if (!g.stop_reason.empty()) samples += " (" + g.stop_reason + ")";
      const char* u = time_unit(g.median_ns);
      const int d = resolving_digits({in_unit(g.p10_ns, u), in_unit(g.median_ns, u), in_unit(g.p90_ns, u)});
      t.row({shape_label(r.name), g.name == r.headline ? g.name + " (headline)" : g.name,
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
       << "tensor peak of the " << run.gpu_name << " (" << c.tensor_source << ").\n\n";
  else
    md << "The tensor peak of the " << run.gpu_name << " is not known to this tool, so % of "
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

// The range profiler's replay duration (gpu__time_duration.sum of the throughput group) over the
// launch's device time at the headline median; nullopt where either is missing.
struct Replay {
  double replay_ns = 0, device_ns = 0;
  double ratio() const { return replay_ns / device_ns; }
  bool dominated() const { return replay_ns > kReplayDominatedRatio * device_ns; }
};
std::optional<Replay> replay_of(const Result& r) {
  const auto replay = optional_number_at(r.json, "/metrics/throughput/values/gpu__time_duration.sum/value");
  if (!replay || !r.timed()) return std::nullopt;
  return Replay{*replay, device_time(r, *r.headline_regime()).median_ns};
}

// The derived figures of one result: each scalar with its "<key>_reason" when it is null and
// its "<key>_source" when it has one; "inputs" says what they were computed from. A rate over a
// replay much longer than the kernel (records derived before derived.cpp refused it) is flagged.
void derived_table(std::ostringstream& md, const ordered_json& d, const std::optional<Replay>& replay) {
  auto ends_with = [](const std::string& k, const std::string& suffix) {
    return k.size() > suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  Table t({"derived figure", "value", "note"}, "lrl");
  for (const auto& [k, v] : d.items()) {
    if (ends_with(k, "_reason") || ends_with(k, "_source") || v.is_object() || v.is_array()) continue;
    std::string note;
    std::string base = k;
    if (ends_with(k, "_tflops")) base = k.substr(0, k.size() - 7);
    if (const ordered_json* why = find(d, "/" + k + "_reason"); why && why->is_string()) note = why->get<std::string>();
    else if (const ordered_json* src = find(d, "/" + base + "_source"); src && src->is_string()) note = src->get<std::string>();
    if (k == "dram_gbps_measured" && v.is_number() && replay && replay->dominated())
      note = "dominated by replay overhead: divides by the replay's " + duration(replay->replay_ns) +
             ", " + sig(replay->ratio(), 3) + "x the kernel's device time; not the kernel's bandwidth";
    t.row({code(k), v.is_null() ? "not measured" : v.is_number() ? sig(v.get<double>()) : json_scalar(v), note});
  }
  if (!t.empty()) md << t.str() << "\n";
  if (const ordered_json* in = find(d, "/inputs"); in && in->is_object() && !in->empty()) {
    md << "Computed from: ";
    bool first = true;
    for (const auto& [k, v] : in->items()) {
      md << (first ? "" : "; ") << k << " from " << json_scalar(v);
      first = false;
    }
    md << ".\n\n";
  }
}

void metrics_section(std::ostringstream& md, const Run& run) {
  md << "## Hardware metrics\n\n";
  if (!any_result_has(run, "metrics") && !any_result_has(run, "derived")) {
    md << "Not measured: this record has no `metrics` (hardware counters: ";
    for (std::size_t i = 0; i < kMetricGroups.size(); ++i)
      md << (i ? ", " : "") << code(kMetricGroups[i]);
    md << ") and no `derived` figures. The run did not collect them.\n\n";
    return;
  }
  if (const ordered_json* cfg = find(run.json, "/metrics_config"); cfg && cfg->is_object()) {
    std::string groups;
    if (const ordered_json* g = find(*cfg, "/groups"); g && g->is_array())
      for (const auto& x : *g) groups += (groups.empty() ? "" : ", ") + code(json_scalar(x));
    md << "Requested groups: " << (groups.empty() ? "none" : groups) << ".";
    if (const ordered_json* u = find(*cfg, "/unavailable"); u && u->is_string())
      md << " Counters unavailable for the whole run: " << fixed_line(u->get<std::string>()) << ".";
    if (const ordered_json* m = find(*cfg, "/method"); m && m->is_string())
      md << " Method: " << fixed_line(m->get<std::string>()) << ".";
    md << "\n\n";
  }
  for (const auto& r : run.results) {
    md << "### " << shape_label(r.name) << "\n\n";
    const ordered_json* m = find(r.json, "/metrics");
    if (!m || !m->is_object()) {
      md << "Hardware metrics: not measured for this shape"
         << (r.timed() ? "" : " (" + r.untimed_reason() + ")") << ".\n\n";
    } else {
      std::vector<std::string> groups = kMetricGroups;
      std::vector<std::string> extra;
      for (const auto& [k, v] : m->items()) {
        (void)v;
        if (std::find(groups.begin(), groups.end(), k) == groups.end()) extra.push_back(k);
      }
      std::sort(extra.begin(), extra.end());
      groups.insert(groups.end(), extra.begin(), extra.end());
      Table t({"group", "metric", "value", "unit"}, "llrl");
      for (const auto& g : groups) {
        const ordered_json* gj = find(*m, "/" + g);
        if (!gj || gj->is_null()) {
          md << "- " << code(g) << ": not collected\n";
          continue;
        }
        const bool available = gj->is_object() && gj->contains("available") && (*gj)["available"] == true;
        if (!available) {
          const ordered_json* why = find(*gj, "/reason");
          md << "- " << code(g) << ": not available"
             << (why && why->is_string() ? ": " + fixed_line(why->get<std::string>()) : std::string()) << "\n";
          continue;
        }
        std::string detail;
        if (const ordered_json* p = find(*gj, "/passes"); p && p->is_number())
          detail += count(p->get<double>()) + " passes";
        const ordered_json* ks = find(*gj, "/kernels");
        const ordered_json* kp = find(*gj, "/kernel_passes");
        if (ks && ks->is_array() && kp && kp->is_number())
          detail += (detail.empty() ? "" : ", ") + std::string("and ") + count(kp->get<double>()) + " for " +
                    count(double(ks->size())) + " kernels one by one";
        if (const ordered_json* w = find(*gj, "/collection_wall_s"); w && w->is_number())
          detail += (detail.empty() ? "" : ", ") + sig(w->get<double>(), 3) + " s to collect";
        md << "- " << code(g) << ": measured" << (detail.empty() ? "" : " (" + detail + ")") << "\n";
        if (ks && ks->is_array())
          md << "  - per kernel: in the per-kernel breakdown below\n";
        else if (const ordered_json* why = find(*gj, "/kernels_reason"); why && why->is_string())
          md << "  - per kernel: not measured (" << fixed_line(why->get<std::string>()) << ")\n";
        if (const ordered_json* left = find(*gj, "/unavailable_metrics"); left && left->is_object())
          for (const auto& [name, why] : left->items())
            md << "  - left out " << code(name) << ": " << fixed_line(json_scalar(why)) << "\n";
        const ordered_json* vals = find(*gj, "/values");
        if (!vals || !vals->is_object()) continue;
        std::vector<std::string> names;
        for (const auto& [k, v] : vals->items()) {
          (void)v;
          names.push_back(k);
        }
        std::sort(names.begin(), names.end());
        for (const auto& n : names) {
          const ordered_json& v = (*vals)[n];
          const ordered_json* value = v.is_object() ? find(v, "/value") : &v;
          const ordered_json* unit = v.is_object() ? find(v, "/unit") : nullptr;
          t.row({g, code(n),
                 value && value->is_number() ? sig(value->get<double>()) : value ? json_scalar(*value) : "missing",
                 unit && unit->is_string() ? unit->get<std::string>() : ""});
        }
      }
      md << "\n";
      if (!t.empty()) md << t.str() << "\n";
    }
    const auto replay = replay_of(r);
    if (replay && replay->dominated())
      md << "Replay overhead: the range profiler's replay of one launch took " << duration(replay->replay_ns)
         << " (`gpu__time_duration.sum`) against " << duration(replay->device_ns)
         << " of device time at the headline median, " << sig(replay->ratio(), 3) << "x (more than "
         << plain(kReplayDominatedRatio)
         << "x): figures over the replay's elapsed time (the duration itself, % of peak over elapsed "
            "cycles, rates derived from the duration) are dominated by the replay's overhead, "
            "not the kernel's; counts (bytes, instructions) are the kernel's.\n\n";
    const ordered_json* d = find(r.json, "/derived");
    if (d && d->is_object() && !d->empty()) derived_table(md, *d, replay);
    else md << "Derived figures: not in the record.\n\n";
  }
}

// Stall reason -> value, for one result; empty when it has no stall metrics.
std::map<std::string, double> stall_values(const Result& r) {
  std::map<std::string, double> out;
  const ordered_json* vals = find(r.json, "/metrics/stalls/values");
  const ordered_json* avail = find(r.json, "/metrics/stalls/available");
  if (!vals || !vals->is_object() || !avail || *avail != true) return out;
  for (const auto& [k, v] : vals->items()) {
    if (k.rfind(kStallPrefix, 0) != 0 || k.size() <= kStallPrefix.size() + kStallSuffix.size() ||
        k.compare(k.size() - kStallSuffix.size(), kStallSuffix.size(), kStallSuffix) != 0)
      continue;
    const ordered_json* value = v.is_object() ? find(v, "/value") : &v;
    if (!value || !value->is_number()) continue;
    std::string reason = k.substr(kStallPrefix.size(), k.size() - kStallPrefix.size() - kStallSuffix.size());
    std::replace(reason.begin(), reason.end(), '_', ' ');
    out[reason] = value->get<double>();
  }
  return out;
}

std::optional<Plot> stall_plot(const Run& run, const std::string& origin) {
  std::vector<std::pair<const Result*, std::map<std::string, double>>> rows;
  for (const auto& r : run.results) {
    auto v = stall_values(r);
    if (!v.empty()) rows.emplace_back(&r, std::move(v));
  }
  if (rows.empty()) return std::nullopt;
  // Reasons in the fixed canonical order of the GH100 stall reasons (record/constants.json,
  // from profiler/metric_groups.cpp), each with its own colour, so one colour means one reason
  // in every record's plot. `selected` is left out: it is the warp that issued (always 1.0),
  // not a stall. Reasons that are zero in every bar are left out too; reasons outside the
  // canonical list follow, alphabetically.
  static const std::vector<std::string> kCanonical = [] {
    std::vector<std::string> v = metric_vocabulary().stall_reasons;
    for (auto& r : v) std::replace(r.begin(), r.end(), '_', ' ');  // as stall_values() names them
    return v;
  }();
  std::set<std::string> nonzero;
  for (const auto& [r, v] : rows)
    for (const auto& [k, x] : v)
      if (k != "selected" && x != 0.0) nonzero.insert(k);
  std::vector<std::pair<std::string, std::size_t>> reasons;  // reason, colour index
  for (std::size_t i = 0; i < kCanonical.size(); ++i)
    if (nonzero.count(kCanonical[i])) reasons.emplace_back(kCanonical[i], i);
  std::size_t extra = kCanonical.size();
  for (const auto& k : nonzero)
    if (std::find(kCanonical.begin(), kCanonical.end(), k) == kCanonical.end()) reasons.emplace_back(k, extra++);
  if (reasons.empty()) return std::nullopt;
  Plot p;
  p.stem = "stalls";
  p.origin = origin;
  std::string& d = p.data;
  d = "# warps stalled per issued instruction, by reason (" + kStallPrefix + "<reason>" + kStallSuffix +
      "); 'selected' (the warp that issued, always 1) and reasons zero in every shape left out\n";
  d += dat_quote("shape");
  for (const auto& [k, c] : reasons) d += " " + dat_quote(k);
  d += "\n";
  for (const auto& [r, v] : rows) {
    d += dat_quote(shape_label(r->name));
    for (const auto& [k, c] : reasons) d += " " + gp_num(v.count(k) ? v.at(k) : 0.0);
    d += "\n";
  }
  std::string& s = p.script;
  s += "set title \"Warp stall breakdown: warps stalled per issued instruction, by reason\\n"
       "fixed order and colour per reason; 'selected' (the issuing warp, always 1) not stacked\" noenhanced\n"
       "set ylabel 'stalled warps per issued instruction'\n"
       "set style data histograms\n"
       "set style histogram rowstacked\n"
       "set style fill solid 0.9 border rgb '#333333'\n"
       "set boxwidth 0.6\n"
       "set key outside right top vertical invert noenhanced title 'reason (as stacked)'\n"
       "set grid ytics\n"
       "set yrange [0:*]\n"
       // Shape labels are wider than a bar: slanted, smaller, with room below, so they don't collide.
       "set xtics noenhanced rotate by -25 font ',8'\n"
       "set bmargin 6\n";
  std::string plot;
  int col = 2;
  for (const auto& [k, c] : reasons) {
    plot += std::string(plot.empty() ? "plot 'stalls.dat'" : ", \\\n     ''") + " using " + std::to_string(col) +
            (col == 2 ? ":xtic(1)" : "") + " lc rgb '" + palette_colour(c) + "' title columnheader(" +
            std::to_string(col) + ")";
    ++col;
  }
  s += plot + "\n";
  return p;
}

void stall_section(std::ostringstream& md, bool plotted) {
  md << "## Stall breakdown\n\n";
  if (!plotted) {
    md << "Not measured: no shape of this record has stall metrics (`metrics.stalls`).\n\n";
    return;
  }
  md << "![Warp stall breakdown](plots/stalls.png)\n\n"
        "Each bar stacks, per stall reason, the average number of warps stalled for that reason "
        "per issued instruction (`" << kStallPrefix << "<reason>" << kStallSuffix
     << "`). Reasons keep one order and one colour in every record; `selected` (the warp that "
        "issued, always 1.0) is not a stall and is not stacked, and reasons that are zero in every "
        "bar are left out. Script and data: `plots/stalls.gp`, `plots/stalls.dat`.\n\n";
}

// Numeric leaves of an object as ("a.b", value), in record order, skipping `skip` keys.
void numeric_leaves(const ordered_json& j, const std::string& prefix, const std::set<std::string>& skip,
                    std::vector<std::pair<std::string, double>>& out) {
  for (const auto& [k, v] : j.items()) {
    if (skip.count(k)) continue;
    const std::string name = prefix.empty() ? k : prefix + " " + k;
    if (v.is_number()) out.emplace_back(name, v.get<double>());
    else if (v.is_object()) numeric_leaves(v, name, skip, out);
  }
}

std::string opt_count(const ordered_json& j, const char* key) {
  const ordered_json* v = find(j, std::string("/") + key);
  return v && v->is_number() ? count(v->get<double>()) : "not recorded";
}

std::string dims(const ordered_json& j, const char* key) {
  const ordered_json* v = find(j, std::string("/") + key);
  if (!v || !v->is_array()) return "not recorded";
  std::string out;
  for (const auto& x : *v) out += (out.empty() ? "" : "x") + json_scalar(x);
  return out;
}

void static_section(std::ostringstream& md, const Run& run) {
  md << "## Static evidence\n\n";
  if (!any_result_has(run, "static")) {
    md << "Not measured: this record has no `static` evidence (registers, shared and local "
          "memory per kernel, SASS instruction counts).\n\n";
    return;
  }
  // Per launched kernel, from the launch (CUPTI callback, function attributes, occupancy).
  Table k({"shape", "kernel", "grid", "block", "registers", "static smem [B]", "dynamic smem [B]",
           "local [B]", "theoretical occupancy"},
          "llllrrrrr");
  // Per kernel, from the build's ptxas -v report.
  Table px({"shape", "kernel", "registers", "barriers", "stack [B]", "spill stores [B]",
            "spill loads [B]", "smem [B]"},
           "llrrrrrr");
  std::vector<std::string> notes;
  std::vector<std::string> opcodes;  // first-seen order across shapes
  std::map<std::string, std::map<std::string, double>> sass;  // shape -> opcode -> count
  for (const auto& r : run.results) {
    const ordered_json* st = find(r.json, "/static");
    if (!st || !st->is_object()) {
      notes.push_back(shape_label(r.name) + ": no static evidence");
      continue;
    }
    if (const ordered_json* a = find(*st, "/available"); a && *a == false)
      notes.push_back(shape_label(r.name) + ": launch facts not available: " +
                      fixed_line(optional_string_at(*st, "/reason").value_or("no reason given")));
    if (const ordered_json* kernels = find(*st, "/kernels"); kernels && kernels->is_array())
      for (const auto& kj : *kernels) {
        const ordered_json* occ = find(kj, "/theoretical_occupancy_pct");
        k.row({shape_label(r.name), code(optional_string_at(kj, "/name").value_or("?")), dims(kj, "grid"),
               dims(kj, "block"), opt_count(kj, "registers"), opt_count(kj, "static_smem_bytes"),
               opt_count(kj, "dynamic_smem_bytes"), opt_count(kj, "local_bytes"),
               occ && occ->is_number() ? pct(occ->get<double>()) : "not recorded"});
      }
    if (const ordered_json* p = find(*st, "/ptxas"); p && p->is_object()) {
      if (p->contains("available") && (*p)["available"] == false)
        notes.push_back(shape_label(r.name) + ": ptxas report not available: " +
                        fixed_line(optional_string_at(*p, "/reason").value_or("no reason given")));
      if (const ordered_json* kernels = find(*p, "/kernels"); kernels && kernels->is_array())
        for (const auto& kj : *kernels) {
          if (kj.contains("found") && kj["found"] == false) continue;
          px.row({shape_label(r.name), code(optional_string_at(kj, "/name").value_or("?")),
                  opt_count(kj, "registers"), opt_count(kj, "barriers"), opt_count(kj, "stack_frame_bytes"),
                  opt_count(kj, "spill_store_bytes"), opt_count(kj, "spill_load_bytes"), opt_count(kj, "smem_bytes")});
        }
    }
    if (const ordered_json* sj = find(*st, "/sass"); sj && sj->is_object()) {
      if (sj->contains("available") && (*sj)["available"] == false) {
        notes.push_back(shape_label(r.name) + ": SASS counts not available: " +
                        fixed_line(optional_string_at(*sj, "/reason").value_or("no reason given")));
        continue;
      }
      if (sj->contains("complete") && (*sj)["complete"] == false)
        notes.push_back(shape_label(r.name) + ": SASS totals miss kernels the listing lacks");
      std::vector<std::pair<std::string, double>> leaves;
      numeric_leaves(*sj, "", {"kernels", "available", "complete"}, leaves);
      for (const auto& [op, n] : leaves) {
        if (std::find(opcodes.begin(), opcodes.end(), op) == opcodes.end()) opcodes.push_back(op);
        sass[r.name][op] = n;
      }
    }
  }
  if (!k.empty()) md << "Launched kernels (CUPTI launch callback and function attributes):\n\n" << k.str() << "\n";
  if (!px.empty()) md << "The build's `ptxas -v` report for those kernels:\n\n" << px.str() << "\n";
  if (!opcodes.empty()) {
    std::vector<std::string> header = {"SASS"};
    std::string align = "l";
    for (const auto& r : run.results) {
      header.push_back(r.name);
      align += "r";
    }
    Table s(header, align);
    for (const auto& op : opcodes) {
      std::vector<std::string> row = {code(op)};
      for (const auto& r : run.results) {
        auto it = sass.find(r.name);
        row.push_back(it != sass.end() && it->second.count(op) ? count(it->second.at(op)) : "");
      }
      s.row(row);
    }
    md << "SASS instruction counts of the kernels' code (`LDL`/`STL`: local-memory traffic; "
          "`HMMA`/`HGMMA`: tensor-core instructions; "
       << (std::find(opcodes.begin(), opcodes.end(), "HFMA2.MMA") != opcodes.end()
               ? "`HFMA2.MMA`: fp16x2 FMA, or a constant move, on the pipe the HMMA counters "
                 "also count; "
               : "")
       << "`BRA` by guard, `@P` and `@!P` alike):\n\n"
       << s.str() << "\n";
  } else {
    md << "SASS instruction counts: not in the record.\n\n";
  }
  for (const auto& n : notes) md << "- " << n << "\n";
  if (!notes.empty()) md << "\n";
}

// --- side by side with the baselines ------------------------------------------------------

// The baselines every run's report sets its headline time beside: phase directory, name.
constexpr std::pair<const char*, const char*> kBaselines[] = {{"sdpa-cudnn", "cuDNN"}, {"sdpa-flash", "flash"}};

void baselines_section(std::ostringstream& md, const Run& run, const std::vector<Run>& root_runs) {
  md << "## Side by side with the baselines\n\n";
  md << "Per shape, this run's headline device time (busy time, as the progression and `attnlab-report "
        "compare` use it) against the newest ok record of each PyTorch SDPA baseline in this records "
        "tree (sibling phase directories ";
  for (std::size_t i = 0; i < std::size(kBaselines); ++i) md << (i ? ", " : "") << code(kBaselines[i].first);
  md << ") that timed the shape on the same GPU (`provenance.gpu.uuid` " << code(run.gpu_uuid)
     << "). Time ratio: this run's median device time over the baseline's (below 1: this run is "
        "quicker); difference: (this run - baseline) / "
        "baseline. Verdict, this run against the baseline, by the rule of `attnlab-report compare`: "
        "FASTER when this run's p10-p90 interval lies wholly below the baseline's, SLOWER when wholly "
        "above, SAME when they overlap (a difference within the noise). Records of another device "
        "session on the GPU are marked: figures move between sessions.\n\n";
  Table t({"shape", "baseline", "baseline record", "regimes", "baseline device time", "this run",
           "time ratio", "difference", "verdict"},
          "llllrrrrl");
  std::set<TimeBasis> marked;
  const std::string session = session_key(run, root_runs);
  for (const auto& r : run.results) {
    for (const auto& [phase, label] : kBaselines) {
      auto missing = [&](const std::string& why) {
        t.row({shape_label(r.name), label, why, "", "", "", "", "", ""});
      };
      if (run.phase == phase) {
        missing("this record is that baseline");
        continue;
      }
      if (!r.timed()) {
        missing("not measured: this run did not time the shape (" + r.untimed_reason() + ")");
        continue;
      }
      const Run* b = newest_ok(root_runs, phase, run.gpu_name, [&](const Run& x) {
        const Result* xr = x.result(r.name);
        return x.gpu_uuid == run.gpu_uuid && xr && xr->timed();
      });
      if (!b) {
        missing("not measured: no ok " + code(phase) + " record of this GPU that timed the shape in "
                "this records tree");
        continue;
      }
      const Result& br = *b->result(r.name);
      const Regime& bg = *br.headline_regime();
      const Regime& g = *r.headline_regime();
      const DeviceTime tb = device_time(br, bg), tr = device_time(r, g);
      marked.insert({tb.basis, tr.basis});
      const std::string when = session_key(*b, root_runs) == session ? "same session" : "another session";
      t.row({shape_label(r.name), label,
             "[" + code(b->name) + "](" + link(run.dir, b->dir / "report.md") + ") (" + when + ")",
             bg.name == g.name ? g.name : bg.name + " (baseline), " + g.name + " (this run)",
             device_time_cell(tb), device_time_cell(tr), sig(tr.median_ns / tb.median_ns, 3),
             pct(100.0 * (tr.median_ns - tb.median_ns) / tb.median_ns),
             std::string("**") + change_name(compare_times(tb, tr)) + "**"});
    }
  }
  if (t.empty()) {
    md << "No shape in this record.\n\n";
    return;
  }
  md << t.str() << "\n";
  for (TimeBasis b : marked)
    if (!basis_footnote(b).empty()) md << basis_footnote(b) << "\n\n";
}

// --- the Nsight Compute cross-check -------------------------------------------------------

// A metric's CUPTI value in a result entry: metrics.<group>.values.<name>.value of any group.
std::optional<double> cupti_value(const Result& r, const std::string& name) {
  const ordered_json* m = find(r.json, "/metrics");
  if (!m || !m->is_object()) return std::nullopt;
  for (const auto& [group, gj] : m->items()) {
    (void)group;
    if (!gj.is_object() || !gj.contains("values") || !gj["values"].is_object()) continue;
    const auto& vals = gj["values"];
    if (!vals.contains(name)) continue;
    const ordered_json& v = vals[name];
    const ordered_json* value = v.is_object() ? find(v, "/value") : &v;
    if (value && value->is_number()) return value->get<double>();
  }
  return std::nullopt;
}

void ncu_section(std::ostringstream& md, const Run& run) {
  md << "## Nsight Compute cross-check\n\n";
  if (!any_result_has(run, "ncu")) {
    md << "Not measured: this record has no `ncu` values. `make profile` reruns each shape's launch "
          "under Nsight Compute, keeps its `.ncu-rep` report beside the record and imports ncu's "
          "values of the same metrics here, against CUPTI's.\n\n";
    return;
  }
  if (const ordered_json* p = find(run.json, "/ncu_profile"); p && p->is_object()) {
    if (const auto v = optional_string_at(*p, "/ncu_version")) md << "Nsight Compute: " << fixed_line(*v) << ". ";
    if (const auto c = optional_string_at(*p, "/ncu_command")) md << "Command: " << code(fixed_line(*c)) << ". ";
    if (const auto m = optional_string_at(*p, "/method")) md << "Method: " << fixed_line(*m) << ".";
    md << "\n\n";
  }
  md << "Difference: (CUPTI - ncu) / |ncu|, as the record gives it (`ncu.rel_diff_pct`). CUPTI's "
        "value comes from the range profiler's replay of one launch (hardware metrics above), ncu's "
        "from a separate run of the launch under Nsight Compute: two passes over the kernel.\n\n";
  for (const auto& r : run.results) {
    const ordered_json* n = find(r.json, "/ncu");
    if (!n || !n->is_object()) {
      if (r.timed()) md << "### " << shape_label(r.name) << "\n\nNot measured: no `ncu` values for this shape.\n\n";
      continue;
    }
    md << "### " << shape_label(r.name) << "\n\n";
    const auto report = optional_string_at(*n, "/report");
    if (report) {
      std::error_code ec;
      if (fs::is_regular_file(run.dir / *report, ec))
        md << "Nsight Compute report: [" << code(*report) << "](" << fs::path(*report).generic_string() << ")";
      else
        md << "Nsight Compute report: " << code(*report) << " (not beside the record)";
    } else {
      md << "Nsight Compute report: not recorded";
    }
    if (const ordered_json* k = find(*n, "/kernels"); k && k->is_number())
      md << "; " << count(k->get<double>()) << " kernel" << (k->get<double>() == 1 ? "" : "s") << " profiled";
    md << ".";
    if (const auto c = optional_string_at(*n, "/combined")) md << " Combined " << fixed_line(*c) << ".";
    md << "\n\n";
    const ordered_json* vals = find(*n, "/values");
    if (!vals || !vals->is_object()) {
      const ordered_json* why = find(*n, "/unavailable");
      md << "Not measured: " << (why && why->is_string() ? fixed_line(why->get<std::string>()) : "no ncu values")
         << ".\n\n";
      continue;
    }
    Table t({"metric", "unit", "CUPTI", "ncu", "difference"}, "llrrr");
    for (const auto& [name, v] : vals->items()) {
      const ordered_json* value = v.is_object() ? find(v, "/value") : &v;
      const auto unit = v.is_object() ? optional_string_at(v, "/unit") : std::nullopt;
      const auto cupti = cupti_value(r, name);
      std::string diff = "not computed";
      const ordered_json* d = find(*n, "/rel_diff_pct/" + name);
      if (d && d->is_number()) {
        diff = pct(d->get<double>());
      } else if (const ordered_json* why = find(*n, "/rel_diff_reason/" + name); why && why->is_string()) {
        diff = "not computed: " + why->get<std::string>();
      }
      t.row({code(name), unit.value_or(""), cupti ? sig(*cupti) : "not measured",
             value && value->is_number() ? sig(value->get<double>()) : "not measured", diff});
    }
    md << t.str() << "\n";
    if (const ordered_json* u = find(*n, "/unavailable"); u && u->is_object() && !u->empty()) {
      md << "Not in ncu's values:\n\n";
      for (const auto& [name, why] : u->items()) md << "- " << code(name) << ": " << fixed_line(json_scalar(why)) << "\n";
      md << "\n";
    }
    // Wall time of the profiled process, keyed by the report's shape part (ncu-<slug>.ncu-rep).
    if (report && report->rfind("ncu-", 0) == 0 && report->size() > 12 &&
        report->compare(report->size() - 8, 8, ".ncu-rep") == 0) {
      const std::string slug = report->substr(4, report->size() - 12);
      const ordered_json* s = find(run.json, "/ncu_profile/shapes/" + slug);
      const auto wall = s ? optional_number_at(*s, "/wall_s") : std::nullopt;
      const auto base = s ? optional_number_at(*s, "/baseline_wall_s") : std::nullopt;
      if (wall) {
        md << "Wall time of the experiment under ncu: " << sig(*wall) << " s";
        if (base) md << ", without ncu " << sig(*base) << " s (ncu's overhead " << sig(*wall - *base) << " s)";
        md << ".\n\n";
      }
    }
  }
}

// --- launch statistics and occupancy ------------------------------------------------------

// Nsight Compute's names for the metrics these sections read from the throughput group.
constexpr const char* kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kSmCyclesMin = "sm__cycles_active.min";
constexpr const char* kSmCyclesAvg = "sm__cycles_active.avg";
constexpr const char* kSmCyclesMax = "sm__cycles_active.max";

std::optional<double> throughput_value(const Result& r, const char* name) {
  const ordered_json* a = find(r.json, "/metrics/throughput/available");
  if (!a || *a != true) return std::nullopt;
  const ordered_json* v = find(r.json, std::string("/metrics/throughput/values/") + name + "/value");
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

// Why the throughput group gives nothing for a shape.
std::string throughput_missing(const Result& r, const std::string& what) {
  const ordered_json* g = find(r.json, "/metrics/throughput");
  if (!g || g->is_null()) return "not measured (metric group `throughput` was not collected)";
  if (const ordered_json* a = find(*g, "/available"); !a || *a != true) {
    const auto why = optional_string_at(*g, "/reason");
    return "not measured (metric group `throughput` unavailable" + (why ? ": " + fixed_line(*why) : std::string()) + ")";
  }
  return "not measured (the `throughput` group of this record has no " + what + ")";
}

std::optional<long long> product(const ordered_json& kj, const char* key) {
  const ordered_json* v = find(kj, std::string("/") + key);
  if (!v || !v->is_array() || v->empty()) return std::nullopt;
  long long p = 1;
  for (const auto& x : *v) {
    if (!x.is_number()) return std::nullopt;
    p *= x.get<long long>();
  }
  return p;
}

std::string limit_cell(const ordered_json& occ, const char* resource) {
  const ordered_json* v = find(occ, std::string("/ctas_per_sm/") + resource);
  if (!v) return "not measured";
  return v->is_number() ? count(v->get<double>()) : "no limit";
}

// One kernel's waves in words, from its CTAs, the SM count and the CTAs an SM holds; for a grid
// whose CTAs walk several work items each (a persistent grid, `work_items` in the kernel's
// static facts), the items per CTA and the tail of the last round, which the waves of CTAs hide.
std::string waves_words(const std::string& kernel, long long ctas, int sms, int per_sm,
                        std::optional<long long> work_items) {
  const long long full = 1LL * sms * per_sm;
  const double waves = double(ctas) / double(full);
  std::string s = kernel + ": " + std::to_string(ctas) + " CTAs on " + std::to_string(sms) + " SMs x " +
                  std::to_string(per_sm) + " CTA" + (per_sm == 1 ? "" : "s") + " per SM = " + std::to_string(full) + " at once: " +
                  sig(waves) + " waves";
  if (ctas < full) {
    s += ", under one wave";
    if (ctas < sms)
      s += ": at most " + std::to_string(ctas) + " of the " + std::to_string(sms) +
           " SMs get a CTA, and at least " + std::to_string(sms - ctas) + " SMs have none of it";
    else
      s += ": every SM can get a CTA, but the SMs hold " + pct(100.0 * double(ctas) / double(full)) +
           " of the CTAs they could";
  } else if (ctas % full != 0) {
    s += ": " + std::to_string(ctas / full) + " full wave" + (ctas / full == 1 ? "" : "s") +
         " and a last one of " + std::to_string(ctas % full) + " CTAs (" +
         pct(100.0 * double(ctas % full) / double(full)) + " of a wave), a tail in which the GPU is partly idle";
  } else {
    s += ": " + std::to_string(ctas / full) + " full wave" + (ctas / full == 1 ? "" : "s") + " of CTAs";
  }
  if (work_items && *work_items > ctas) {
    const long long rounds = *work_items / ctas, last = *work_items % ctas;
    s += ". Each CTA walks several work items (a persistent grid): " + std::to_string(*work_items) +
         " items over " + std::to_string(ctas) + " CTAs = " + sig(double(*work_items) / double(ctas)) +
         " per CTA, " + std::to_string(rounds) + " full round" + (rounds == 1 ? "" : "s");
    s += last ? " and a last round in which " + std::to_string(last) + " of the " + std::to_string(ctas) +
                    " CTAs (" + pct(100.0 * double(last) / double(ctas)) + ") have an item while the rest wait: a tail"
              : ", every CTA busy in every round";
  } else if (!work_items && ctas == full) {
    s += ". Work items per CTA: not measured (the record does not say whether each CTA is one "
         "work item or, as in a persistent grid of exactly one wave, walks several; then the "
         "tail is that of the last round, not of the waves)";
  } else if (!work_items && ctas % full == 0) {
    s += ", no partial wave";
  }
  return s + ".";
}

void launch_stats_section(std::ostringstream& md, const Run& run) {
  md << "## Launch statistics and occupancy\n\n";
  const auto sms = optional_number_at(run.json, "/provenance/gpu/sm_count");
  md << "Per kernel of each shape's launch, as Nsight Compute's Launch Statistics and Occupancy "
        "sections show them. CTAs: the grid's blocks. CTAs per SM: what "
        "`cuOccupancyMaxActiveBlocksPerMultiprocessor` allowed for the launch's block and shared "
        "memory (`static.kernels`). Waves per SM: CTAs / (SMs x CTAs per SM), with the SM count "
        "of the record (`provenance.gpu.sm_count`: "
     << (sms ? count(*sms) : std::string("not recorded"))
     << "); under one wave, part of the GPU has no work. CTA limits per resource (registers, "
        "shared memory, warp slots, CTA slots) are computed as CUDA's occupancy calculator does "
        "(`static.kernels[].occupancy_limits`); the least of them sets the theoretical occupancy. "
        "Achieved occupancy and SM busy balance are counters of the `throughput` group, from the "
        "range profiler's replay of one launch (every kernel of it). Where the CTAs of a grid each "
        "walk several work items (a persistent grid), the waves of CTAs say nothing of the tail: "
        "the bullets give the work items per CTA and the last round's busy CTAs from "
        "`static.kernels[].work_items`, or say \"not measured\" where a one-wave grid's record "
        "lacks it.\n\n";
  if (!any_result_has(run, "static")) {
    md << "Not measured: this record has no `static` evidence (launch configuration and occupancy "
          "per kernel), so neither launch statistics nor occupancy limits.\n\n";
    return;
  }
  for (const auto& r : run.results) {
    md << "### " << shape_label(r.name) << "\n\n";
    const ordered_json* kernels = find(r.json, "/static/kernels");
    if (!kernels || !kernels->is_array() || kernels->empty()) {
      const auto why = optional_string_at(r.json, "/static/kernels_unavailable");
      md << "Launch statistics: not measured"
         << (why ? " (" + fixed_line(*why) + ")" : r.timed() ? std::string() : " (" + r.untimed_reason() + ")")
         << ".\n\n";
      continue;
    }
    Table t({"kernel", "grid", "block", "CTAs", "CTAs per SM", "waves per SM", "theoretical occupancy",
             "limited by", "CTA limit: registers", "shared memory", "warps", "CTA slots"},
            "lllrrrrlrrrr");
    std::vector<std::string> words, notes;
    std::vector<std::pair<std::string, std::string>> unlimited;  // kernel, why its limits are absent
    for (const auto& kj : *kernels) {
      const std::string name = code(optional_string_at(kj, "/name").value_or("?"));
      // The bullets below name the kernel only where the launch ran several.
      const std::string who = kernels->size() == 1 ? std::string("The kernel") : name;
      const auto ctas = product(kj, "grid");
      const ordered_json* per = find(kj, "/active_blocks_per_sm");
      const int per_sm = per && per->is_number() ? per->get<int>() : -1;  // -1: not recorded
      std::string waves = "not measured";
      if (ctas && per_sm > 0 && sms) {
        waves = sig(double(*ctas) / (*sms * per_sm));
        const ordered_json* items = find(kj, "/work_items");
        words.push_back(waves_words(who, *ctas, int(*sms), per_sm,
                                    items && items->is_number_integer() ? std::optional<long long>(items->get<long long>())
                                                                        : std::nullopt));
      } else if (per_sm == 0) {
        waves = "none: no CTA fits an SM";
      }
      const ordered_json* occ_pct = find(kj, "/theoretical_occupancy_pct");
      const ordered_json* occ = find(kj, "/occupancy_limits");
      std::vector<std::string> row = {name, dims(kj, "grid"), dims(kj, "block"),
                                      ctas ? count(double(*ctas)) : "not recorded",
                                      per_sm >= 0 ? count(per_sm) : "not measured", waves,
                                      occ_pct && occ_pct->is_number() ? pct(occ_pct->get<double>()) : "not measured"};
      if (occ && occ->is_object()) {
        std::string by;
        if (const ordered_json* l = find(*occ, "/limited_by"); l && l->is_array())
          for (const auto& x : *l) by += (by.empty() ? "" : ", ") + json_scalar(x);
        std::replace(by.begin(), by.end(), '_', ' ');
        row.push_back(by.empty() ? "not measured" : by);
        for (const char* res : {"registers", "shared_memory", "warps", "blocks"}) row.push_back(limit_cell(*occ, res));
        if (const ordered_json* agree = find(*occ, "/agrees_with_driver"); agree && *agree == false)
          notes.push_back(who + ": the least computed limit (" + count(number_at(*occ, "/active_blocks_per_sm")) +
                          ") differs from the driver's CTAs per SM; the driver's figure is the one shown, "
                          "and it reflects a limit this calculation does not model");
      } else {
        const auto why = optional_string_at(kj, "/occupancy_limits_reason");
        row.push_back("not measured");
        for (int i = 0; i < 4; ++i) row.push_back("not measured");
        unlimited.emplace_back(who, why ? fixed_line(*why) : std::string("the record predates them"));
      }
      t.row(row);
    }
    md << t.str() << "\n";
    for (const auto& w : words) md << "- " << w << "\n";
    for (const auto& n : notes) md << "- " << n << "\n";
    // One line where no kernel has them for the same reason (older records), else one per kernel.
    const bool one_reason = !unlimited.empty() && unlimited.size() == kernels->size() &&
                            std::all_of(unlimited.begin(), unlimited.end(),
                                        [&](const auto& u) { return u.second == unlimited.front().second; });
    if (one_reason)
      md << "- CTA limits per resource: not measured (" << unlimited.front().second << ").\n";
    else
      for (const auto& [who, why] : unlimited) md << "- " << who << ": CTA limits per resource not measured (" << why << ").\n";
    const std::string scope = kernels->size() > 1 ? " (over the launch's " + std::to_string(kernels->size()) + " kernels)" : "";
    if (const auto achieved = throughput_value(r, kAchievedOccupancy)) {
      md << "- Achieved occupancy" << scope << ": " << pct(*achieved) << " of the warp slots, on average over "
         << "the SMs' active cycles (" << code(kAchievedOccupancy) << ")";
      const ordered_json* occ_pct = find((*kernels)[0], "/theoretical_occupancy_pct");
      if (kernels->size() == 1 && occ_pct && occ_pct->is_number() && occ_pct->get<double>() > 0)
        md << ", " << pct(100.0 * *achieved / occ_pct->get<double>()) << " of the theoretical "
           << pct(occ_pct->get<double>());
      md << ".\n";
    } else {
      md << "- Achieved occupancy: " << throughput_missing(r, code(kAchievedOccupancy)) << ".\n";
    }
    const auto lo = throughput_value(r, kSmCyclesMin), avg = throughput_value(r, kSmCyclesAvg),
               hi = throughput_value(r, kSmCyclesMax);
    if (lo && avg && hi && *avg > 0 && *hi > 0) {
      md << "- SM busy balance" << scope << ": active cycles per SM min " << count(*lo) << ", mean "
         << count(*avg) << ", max " << count(*hi) << " (" << code("sm__cycles_active") << " .min/.avg/.max); "
         << "the busiest SM is active " << sig(*hi / *avg, 3) << "x the mean, the least busy "
         << pct(100.0 * *lo / *hi) << " of the busiest";
      if (*lo == 0) md << "; at least one SM ran none of the launch";
      md << ".\n";
    } else {
      md << "- SM busy balance: "
         << throughput_missing(r, code(kSmCyclesMin) + ", " + code(kSmCyclesAvg) + " and " + code(kSmCyclesMax))
         << ".\n";
    }
    md << "\n";
  }
}

struct RoofPoint {
  std::string label;
  double intensity;  // [FLOP/byte]
  double tflops;
  std::string basis;
};

std::vector<RoofPoint> roof_points(const Run& run) {
  std::vector<RoofPoint> out;
  for (const auto& r : run.results) {
    if (!r.timed()) continue;
    // The metrics collection writes arithmetic_intensity_flop_per_byte; the shorter name is
    // accepted too.
    const char* key = "arithmetic_intensity_flop_per_byte";
    auto measured = optional_number_at(r.json, std::string("/derived/") + key);
    if (!measured) {
      key = "arithmetic_intensity";
      measured = optional_number_at(r.json, std::string("/derived/") + key);
    }
    const Regime& g = *r.headline_regime();
    const DeviceTime t = device_time(r, g);
    out.push_back({r.name, measured ? *measured : r.flops / r.min_bytes,
                   t.rate_at(g, g.tflops, t.median_ns),
                   measured ? std::string("measured DRAM bytes (derived.") + key + ")" : "minimum bytes"});
  }
  return out;
}

constexpr std::size_t kMaxLabelledRoofPoints = 4;

Plot roofline_plot(const Run& run, const Ceilings& c, const std::vector<RoofPoint>& pts,
                   const std::string& origin) {
  Plot p;
  p.stem = "roofline";
  p.origin = origin;
  p.data = "# shape  arithmetic_intensity[FLOP/byte]  TFLOPS(headline regime, device time)\n";
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
  for (const auto& q : pts) {
    p.data += dat_quote(shape_label(q.label)) + " " + gp_num(q.intensity) + " " + gp_num(q.tflops) + "\n";
    xmin = std::min(xmin, q.intensity);
    xmax = std::max(xmax, q.intensity);
    ymin = std::min(ymin, q.tflops);
    ymax = std::max(ymax, q.tflops);
  }
  std::vector<double> peaks;
  if (c.tensor_tflops) peaks.push_back(*c.tensor_tflops);
  if (c.fp32_tflops) peaks.push_back(*c.fp32_tflops);
  for (double pk : peaks) {
    const double ridge = pk * 1000.0 / c.dram_gbps;  // [FLOP/byte] where the roofs meet
    xmin = std::min(xmin, ridge);
    xmax = std::max(xmax, ridge);
    ymax = std::max(ymax, pk);
  }
  // Whole decades around everything drawn, with room for the labels.
  const double x0 = std::pow(10.0, std::floor(std::log10(xmin / 4)));
  const double x1 = std::pow(10.0, std::ceil(std::log10(xmax * 4)));
  const double y0 = std::pow(10.0, std::floor(std::log10(std::min(ymin, c.dram_gbps * x0 / 1000.0) / 2)));
  const double y1 = std::pow(10.0, std::ceil(std::log10(ymax * 2)));
  // Which intensity the points use: measured DRAM bytes where the record has them.
  const bool all_measured = std::all_of(pts.begin(), pts.end(), [](const RoofPoint& q) { return q.basis != "minimum bytes"; });
  const bool any_measured = std::any_of(pts.begin(), pts.end(), [](const RoofPoint& q) { return q.basis != "minimum bytes"; });
  const std::string xlabel =
      all_measured ? "arithmetic intensity [FLOP/byte], FLOPs / measured DRAM bytes"
      : !any_measured ? "arithmetic intensity [FLOP/byte], FLOPs / minimum bytes (Q, K, V read once, O written once)"
                      : "arithmetic intensity [FLOP/byte], FLOPs / measured DRAM bytes where measured, else / minimum bytes (Q, K, V read once, O written once)";
  std::string& s = p.script;
  s += "bw = " + gp_num(c.dram_gbps) + "  # [GB/s] provenance.gpu.peak_dram_gbps of the record\n";
  if (c.tensor_tflops)
    s += "tensor = " + gp_num(*c.tensor_tflops) + "  # [TFLOPS] fp16 dense tensor peak: " + c.tensor_source + "\n";
  if (c.fp32_tflops)
    s += "fp32 = " + gp_num(*c.fp32_tflops) + "  # [TFLOPS] SMs x " +
         std::to_string(c.sheet->fp32_lanes_per_sm) + " FP32 lanes x 2 FLOP x max SM clock\n";
  s += "dram(x) = bw * x / 1000.0  # [TFLOPS] at x FLOP/byte\n"
       "roof(x, peak) = dram(x) < peak ? dram(x) : peak\n"
       "set title " + gp_quote("Roofline: phase " + run.phase + ", run " + run.name) + " noenhanced\n"
       "set logscale xy\n"
       "set xrange [" + gp_num(x0) + ":" + gp_num(x1) + "]\n"
       "set yrange [" + gp_num(y0) + ":" + gp_num(y1) + "]\n"
       "set xlabel " + gp_quote(xlabel) + " noenhanced\n"
       "set ylabel 'TFLOPS'\n"
       "set format x '10^{%L}'\n"
       "set format y '10^{%L}'\n"
       "set grid xtics ytics mxtics mytics lc rgb '#d0d0d0', lc rgb '#ececec'\n"
       "set key top left Left reverse noenhanced box opaque\n"
       "set samples 2000\n";
  std::string plot = "plot ";
  if (c.tensor_tflops)
    plot += "roof(x, tensor) with lines lw 2 lc rgb '#1f77b4' title sprintf('DRAM %.0f GB/s (record), fp16 tensor peak %.1f TFLOPS', bw, tensor), \\\n     ";
  else
    plot += "dram(x) with lines lw 2 lc rgb '#1f77b4' title sprintf('DRAM %.0f GB/s (record); compute peak not known', bw), \\\n     ";
  if (c.fp32_tflops)
    plot += "roof(x, fp32) with lines lw 2 dt 2 lc rgb '#ff7f0e' title sprintf('FP32 FMA peak %.1f TFLOPS (no tensor cores)', fp32), \\\n     ";
  plot += "'roofline.dat' using 2:3 with points pt 7 ps 1.6 lc rgb '#d62728' title " + gp_quote(std::string("this run, headline regime; x: ") + (all_measured ? "measured DRAM bytes" : !any_measured ? "minimum bytes" : "measured DRAM bytes where measured, else minimum bytes"));
  // Beyond a few points (a sweep) the labels pile up at similar intensities; the section's
  // table names every point instead.
  if (pts.size() <= kMaxLabelledRoofPoints)
    plot += ", \\\n     '' using 2:3:1 with labels left offset 1.2,0.6 font ',9' noenhanced notitle";
  plot += "\n";
  s += plot;
  return p;
}

void roofline_section(std::ostringstream& md, const Ceilings& c, const std::vector<RoofPoint>& pts) {
  md << "## Roofline\n\n";
  if (pts.empty()) {
    md << "Not plotted: no shape was timed.\n\n";
    return;
  }
  md << "![Roofline](plots/roofline.png)\n\n";
  md << "Ceilings: DRAM " << sig(c.dram_gbps) << " GB/s from the record";
  if (c.tensor_tflops)
    md << "; fp16 dense tensor peak " << sig(*c.tensor_tflops) << " TFLOPS (" << c.tensor_source << ")";
  if (c.fp32_tflops)
    md << "; FP32 FMA peak " << sig(*c.fp32_tflops) << " TFLOPS (SM count x "
       << c.sheet->fp32_lanes_per_sm << " lanes x 2 FLOP x max SM clock, from the record)";
  if (!c.tensor_tflops) md << "; the compute peaks of this GPU are not known to this tool";
  md << ". A point's intensity uses the fewest bytes any implementation must move unless the "
        "record measured DRAM bytes; a kernel that moves more sits further left than drawn. "
        "Its TFLOPS is at the headline regime's device time.";
  if (std::any_of(pts.begin(), pts.end(), [](const RoofPoint& q) { return q.basis != "minimum bytes"; }))
    md << " Measured DRAM bytes come from the CUPTI range profiler's replay pass (one launch "
          "with a clean L2, after timing), the time from the timing regime: two different "
          "passes over the kernel, so a point pairs the bytes of one with the time of another.";
  md << "\n\n";
  Table t({"shape", "FLOP/byte", "bytes counted", "TFLOPS"}, "lrlr");
  for (const auto& q : pts) t.row({shape_label(q.label), count(q.intensity), q.basis, sig(q.tflops)});
  md << t.str() << "\n";
}

void provenance_section(std::ostringstream& md, const Run& run) {
  md << "## Environment and provenance\n\n";
  std::vector<std::pair<std::string, std::string>> rows;
  const ordered_json& j = run.json;
  if (j.contains("started_utc")) rows.emplace_back("started_utc", json_scalar(j["started_utc"]));
  flatten(j["provenance"], "provenance", rows);
  if (j.contains("options")) flatten(j["options"], "options", rows);
  Table t({"field", "value"}, "ll");
  for (const auto& [k, v] : rows) t.row({code(k), v});
  md << t.str() << "\n";
}

// --- latency distributions --------------------------------------------------------------

// Quantile q of sorted values, linear between the closest ranks.
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * double(sorted.size() - 1);
  const std::size_t i = std::size_t(pos);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (pos - double(i)) * (sorted[i + 1] - sorted[i]);
}

// Tukey's box: quartiles, whiskers to the furthest samples within 1.5 interquartile ranges
// of the box, and the samples beyond them, each drawn where it is (no spreading of equal ones).
struct Box {
  double q1 = 0, median = 0, q3 = 0, lo = 0, hi = 0;
  std::vector<double> outliers;
};

Box box_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Box b;
  b.q1 = b.lo = quantile(v, 0.25);
  b.median = quantile(v, 0.5);
  b.q3 = b.hi = quantile(v, 0.75);
  const double reach = 1.5 * (b.q3 - b.q1);
  for (double x : v) {
    if (x < b.q1 - reach || x > b.q3 + reach) {
      b.outliers.push_back(x);
      continue;
    }
    b.lo = std::min(b.lo, x);
    b.hi = std::max(b.hi, x);
  }
  return b;
}

// One data block ("x value" per line) of `values`; returns its plot clause.
std::string points_block(Plot& p, int& block, int x, const std::vector<double>& values,
                         const char* unit, const std::string& colour, const char* size) {
  for (double v : values) p.data += std::to_string(x) + " " + gp_num(in_unit(v, unit)) + "\n";
  p.data += "\n\n";
  return "'latency.dat' index " + std::to_string(block++) +
         " using 1:2 with points pt 7 ps " + size + " lc rgb '" + colour + "'";
}

// One regime's samples at x: a box with its outliers, or every sample where there are few.
std::string regime_clauses(Plot& p, int& block, int x, const Regime& g, const char* unit,
                           const std::string& colour) {
  if (g.samples_ns.size() < kMinBoxSamples) {
    p.data += "# samples (fewer than " + std::to_string(kMinBoxSamples) + ")\n";
    return points_block(p, block, x, g.samples_ns, unit, colour, "0.8");
  }
  const Box b = box_of(g.samples_ns);
  p.data += "# x q1 whisker_lo whisker_hi q3 median\n" + std::to_string(x);
  for (double v : {b.q1, b.lo, b.hi, b.q3, b.median}) p.data += " " + gp_num(in_unit(v, unit));
  p.data += "\n\n\n";
  const std::string box = "'latency.dat' index " + std::to_string(block++);
  std::string out = box + " using 1:2:3:4:5 with candlesticks whiskerbars lc rgb '" + colour +
                    "', \\\n     " + box + " using 1:6:6:6:6 with candlesticks lc rgb '#000000'";
  if (b.outliers.empty()) return out;
  p.data += "# beyond the whiskers\n";
  return out + ", \\\n     " + points_block(p, block, x, b.outliers, unit, colour, "0.35");
}

// The panel's y axis: a log axis where it spans more than a decade, so the bulk is not
// squashed, over the samples' own range a quarter beyond each end (autoscaling a log axis
// rounds out to whole decades and can leave most of the panel empty), labelled at 1, 2 and 5
// of every decade; else linear, with the decimals its range needs on every tick.
std::string y_axis(double lo, double hi) {
  if (lo > 0 && hi / lo > 10) {
    const double ylo = lo / 1.25, yhi = hi * 1.25;
    std::string tics;
    for (int e = int(std::floor(std::log10(ylo))); e <= int(std::ceil(std::log10(yhi))); ++e)
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, e);
        if (v >= ylo && v <= yhi) tics += (tics.empty() ? "" : ", ") + gp_num(v);
      }
    return "set logscale y\nset yrange [" + gp_num(ylo) + ":" + gp_num(yhi) + "]\nset ytics (" +
           tics + ")\nset format y '%g'\n";
  }
  const int decimals = hi > lo ? std::max(0, 1 - int(std::floor(std::log10(hi - lo)))) : 2;
  return "unset logscale y\nset autoscale y\nset ytics autofreq\nset format y '%." +
         std::to_string(decimals) + "f'\n";
}

// One panel: the shape's regimes side by side.
void latency_panel(Plot& p, int& block, const Result& r) {
  const char* unit = time_unit(r.headline_regime()->median_ns);
  std::string& s = p.script;
  s += "\nset title " + gp_quote(shape_label(r.name)) + " noenhanced\n";
  s += "set ylabel " + gp_quote(std::string("time per launch [") + unit + "]") + "\n";
  double lo = 1e300, hi = -1e300;
  for (const auto& g : r.regimes)
    for (double v : g.samples_ns) {
      lo = std::min(lo, in_unit(v, unit));
      hi = std::max(hi, in_unit(v, unit));
    }
  s += y_axis(lo, hi);
  std::string xtics, plot;
  int x = 0;
  for (const auto& g : r.regimes) {
    if (g.samples_ns.empty()) continue;
    ++x;
    p.data += "# " + r.name + " " + g.name + " [" + unit + "], " +
              std::to_string(g.samples_ns.size()) + " samples\n";
    xtics += (xtics.empty() ? "" : ", ") + gp_quote(g.name) + " " + std::to_string(x);
    plot += std::string(plot.empty() ? "plot " : ", \\\n     ") +
            regime_clauses(p, block, x, g, unit, palette_colour(std::size_t(x - 1)));
  }
  s += "set xtics (" + xtics + ")\n";
  s += "set xrange [0.4:" + std::to_string(x) + ".6]\n";
  s += plot + "\n";
}

// Latency distributions: one panel per timed shape with samples; nullopt when none has any.
std::optional<Plot> latency_plot(const Run& run, const std::string& origin) {
  std::vector<const Result*> sampled;
  for (const auto& r : run.results)
    if (std::any_of(r.regimes.begin(), r.regimes.end(), [](const Regime& g) { return !g.samples_ns.empty(); }))
      sampled.push_back(&r);
  if (sampled.empty()) return std::nullopt;
  Plot p;
  p.stem = "latency";
  p.origin = origin;
  const std::size_t cols = std::min<std::size_t>(sampled.size(), 3);
  const std::size_t rows = (sampled.size() + cols - 1) / cols;
  p.height = rows == 1 ? 500 : int(rows * 400);
  p.script += "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) +
              " title " + gp_quote("Phase " + run.phase + " run " + run.name +
                                   ": time per launch (boxes; every sample where fewer than " +
                                   std::to_string(kMinBoxSamples) + ")") + " noenhanced\n"
              "set style fill solid 0.35 border -1\n"
              "set boxwidth 0.5\n"
              "unset key\n"
              "set grid ytics lc rgb '#dddddd'\n"
              "set offsets 0,0,graph 0.05,graph 0.05\n";
  int block = 0;
  for (const Result* r : sampled) latency_panel(p, block, *r);
  p.script += "unset multiplot\n";
  return p;
}

}  // namespace

Ceilings ceilings_of(const Run& run) {
  Ceilings c;
  c.dram_gbps = number_at(run.json, "/provenance/gpu/peak_dram_gbps");
  c.sheet = datasheet_peaks(run.gpu_name);
  // The record's own peak (derived.tensor_peak_tflops, written by the metrics collection)
  // wins over this tool's table, so a report never contradicts its record.
  for (const auto& r : run.results) {
    const auto peak = optional_number_at(r.json, "/derived/tensor_peak_tflops");
    if (!peak) continue;
    c.tensor_tflops = *peak;
    c.tensor_source = optional_string_at(r.json, "/derived/tensor_peak_source").value_or("no source given") +
                      "; the record's derived.tensor_peak_tflops";
    break;
  }
  if (c.sheet && !c.tensor_tflops) {
    c.tensor_tflops = c.sheet->tensor_fp16_dense_tflops;
    c.tensor_source = c.sheet->source;
  }
  if (c.sheet) {
    c.fp32_tflops = fp32_peak_tflops(*c.sheet, number_at(run.json, "/provenance/gpu/sm_count"),
                                     number_at(run.json, "/provenance/gpu/sm_clock_mhz"));
  }
  return c;
}

std::string link(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(fs::absolute(from), ec);
  const fs::path b = fs::weakly_canonical(fs::absolute(to), ec);
  return b.lexically_relative(a).generic_string();
}

std::string verdict_counts(const std::vector<Judgement>& js) {
  if (js.empty()) return "none stated";
  std::string out;
  for (Verdict v : kVerdicts) {
    const auto n = std::count_if(js.begin(), js.end(), [&](const Judgement& j) { return j.verdict == v; });
    if (n) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + verdict_name(v);
  }
  return out;
}

Rendered render_run(const Run& run, const std::vector<Run>& root_runs, const std::optional<fs::path>& calibration) {
  Rendered out;
  std::vector<Judgement> js;
  const Ceilings c = ceilings_of(run);
  try {
    js = judge_claims(run, root_runs);
  } catch (const FieldError& e) {
    throw InputError(run.file.string() + ": " + e.what());
  }
  const fs::path plots = run.dir / "plots";
  clear_plots(plots);
  const std::string origin = "run.json of run " + run.id();

  const std::optional<Plot> latency = latency_plot(run, origin);
  if (latency) out.scripts.push_back(write_plot(plots, *latency));
  std::optional<Plot> stalls = stall_plot(run, origin);
  if (stalls) out.scripts.push_back(write_plot(plots, *stalls));
  const auto pts = roof_points(run);
  if (!pts.empty()) out.scripts.push_back(write_plot(plots, roofline_plot(run, c, pts, origin)));

  std::ostringstream md;
  const auto title = optional_string_at(run.json, "/experiment/title");
  md << "# Phase " << run.phase << (title ? " (" + *title + ")" : std::string()) << ", run "
     << code(run.name) << "\n\n";
  md << "Rendered by `attnlab-report run` from [`run.json`](run.json); edits are overwritten. "
        "Every figure is read from that record, except datasheet peaks, which are named where "
        "used.\n\n";
  summary(md, run, js, c);
  claims_section(md, run, js);
  correctness_section(md, run);
  timing_section(md, run, c, latency.has_value());
  speed_of_light_section(md, run, calibration);
  baselines_section(md, run, root_runs);
  metrics_section(md, run);
  ncu_section(md, run);
  stall_section(md, stalls.has_value());
  launch_stats_section(md, run);
  hotlines_sections(md, run, plots, origin, out.scripts);
  static_section(md, run);
  roofline_section(md, c, pts);
  provenance_section(md, run);
  const fs::path report = run.dir / "report.md";
  std::string text = md.str();
  while (text.size() > 1 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
  write_text(report, text);
  out.files.push_back(report);
  for (const auto& sc : out.scripts) {
    out.files.push_back(sc);
    out.files.push_back(fs::path(sc).replace_extension(".dat"));
  }
  return out;
}

}  // namespace attnlab::report
