// The run report's "Speed of light" section: per timed shape, the floors of this
// GPU from the sustained rates of a calibration record of the same GPU (reports/speed_of_light.hpp)
// and how far the headline time is from the binding one; and the report of a calibration record.
#include <sstream>

#include "record/provenance.hpp"
#include "record/static_facts.hpp"
#include "reports/format.hpp"
#include "reports/plots.hpp"
#include "reports/render.hpp"
#include "reports/speed_of_light.hpp"

namespace attnlab::report {
namespace {

// The tensor work a kernel executed, as the range profiler counted it (HGMMA fp16 operations:
// two per multiply-add, so FLOPs, padding and masked tiles included).
constexpr const char* kExecutedFlops = "sm__ops_path_tensor_op_hgmma_src_fp16.sum";

struct Found {
  CalibrationRecord rec;
  fs::path file;
  std::string match;  // "the same GPU (uuid ...)" or "another board of the same model (...)"
};

std::string short_uuid(const std::string& uuid) { return uuid.substr(0, std::min<std::size_t>(uuid.size(), 12)); }

// Where a run's calibration records are looked for without --calibration: beside its records
// (<root>/calibration/) and beside the records folder (reports/<gpu>/calibration/).
std::vector<fs::path> default_dirs(const Run& run) {
  const fs::path root = fs::absolute(run.dir).lexically_normal().parent_path().parent_path();
  return {root / "calibration", root.parent_path() / "calibration"};
}

std::optional<Found> find_calibration(const Run& run, const std::optional<fs::path>& given, std::string& looked) {
  std::vector<fs::path> files;
  if (given && fs::is_regular_file(*given)) {
    files.push_back(*given);
    looked = code(link(run.dir, *given));
  } else {
    const std::vector<fs::path> dirs = given ? std::vector<fs::path>{*given} : default_dirs(run);
    for (const auto& d : dirs) {
      looked += (looked.empty() ? "" : ", ") + code(link(run.dir, d) + "/");
      for (auto& f : find_calibration_records(d)) files.push_back(f);
      if (const auto f = record_file_in(d, kCalibrationFile)) files.push_back(*f);
    }
  }
  std::optional<Found> by_uuid, by_name;
  for (const auto& f : files) {
    CalibrationRecord rec;
    try {
      rec = read_calibration_file(f);
    } catch (const std::exception& e) {
      throw InputError(e.what());
    }
    if (rec.status != "ok") continue;
    const GpuIdentity& gpu = rec.provenance.gpu;
    // Files come sorted by their stamped directory: a later one is newer and replaces the earlier.
    if (gpu.uuid == run.gpu_uuid())
      by_uuid = Found{rec, f, "the same GPU (" + short_uuid(gpu.uuid) + ")"};
    else if (gpu.name == run.gpu_name())
      by_name = Found{rec, f, "another board of the same model (" + short_uuid(gpu.uuid) + "; this run's is " +
                                  short_uuid(run.gpu_uuid()) + ")"};
  }
  return by_uuid ? by_uuid : by_name;
}

std::array<int, 3> dims3(const std::array<unsigned, 3>& dims) { return {int(dims[0]), int(dims[1]), int(dims[2])}; }

// The run's SM clock while the headline regime sampled, and where it comes from.
std::pair<std::optional<double>, std::string> run_clock(const Regime& g) {
  if (g.gpu_state && g.gpu_state->sm_clock_median_mhz > 0)
    return {g.gpu_state->sm_clock_median_mhz, "the median NVML SM clock while the " + g.name + " regime sampled"};
  if (g.clock_before_mhz && g.clock_after_mhz)
    return {(*g.clock_before_mhz + *g.clock_after_mhz) / 2, "the mean of the SM clock before and after the " + g.name +
                                                                " regime"};
  return {std::nullopt, ""};
}

std::string work_cell(const sol::Floor& f) {
  switch (f.kind) {
    case sol::FloorKind::kTensorUseful:
    case sol::FloorKind::kTensorExecuted: return sig(f.work) + " FLOP";
    case sol::FloorKind::kExp: return sig(f.work) + " ex2";
    case sol::FloorKind::kDram: return sig(f.work) + " B";
    case sol::FloorKind::kLaunch: return "empty kernel";
  }
  return "";
}

std::string rate_cell(const sol::Floor& f, const sol::Rates& r) {
  const auto show = [](const std::optional<double>& v, double scale, const char* unit) {
    return v ? sig(*v / scale) + " " + unit : std::string("not measured");
  };
  switch (f.kind) {
    case sol::FloorKind::kTensorUseful:
    case sol::FloorKind::kTensorExecuted: return show(r.tensor_flops_per_s, 1e12, "TFLOP/s");
    case sol::FloorKind::kExp: return show(r.ex2_per_s, 1e12, "Tex2/s");
    case sol::FloorKind::kDram: return show(r.dram_bytes_per_s, 1e9, "GB/s");
    case sol::FloorKind::kLaunch: return "";
  }
  return "";
}

// A shape's inputs to the floors: the shape, the executed FLOPs the profiler counted, the
// wave geometry of its one kernel and the calibration's launch floor for it.
struct ShapeInputs {
  sol::Inputs in;
  const CalibrationLaunch* floor = nullptr;  // the launch floor's entry; none: not measured
  std::string launch_src;                     // which entry, in words
  bool cold_floor = false;                    // the floor is the entry's cold one (a cold headline)
};

ShapeInputs shape_inputs(const Run& run, const Result& r, const Found& cal, int sms) {
  ShapeInputs out;
  sol::Inputs& in = out.in;
  in.shape = r.shape;
  in.direction = run.pass();
  const GroupResult* tensor = r.group("tensor");
  if (const auto ex = tensor ? tensor->value(kExecutedFlops) : std::nullopt; ex && *ex > 0)
    in.executed_flops = *ex;
  const std::vector<KernelFacts>& kernels = r.launched_kernels();
  out.floor = cal.rec.launch_used_by(run.phase, r.name);
  out.launch_src = out.floor ? "the calibration's launch of " + run.phase + " " + r.name : "";
  if (kernels.size() == 1) {
    const KernelFacts& k = kernels.front();
    const long long ctas = k.ctas();
    const std::optional<int> per_sm = k.active_blocks_per_sm;
    if (per_sm && *per_sm > 0) {
      const long long slots = (long long)sms * *per_sm;
      in.slots = slots;
      if (k.work_items) {
        in.work_items = *k.work_items;
        in.concurrent = std::min(ctas, slots);
      } else {
        in.work_items = ctas;
        in.concurrent = slots;
      }
    }
    if (!out.floor) {
      // No entry names this phase and shape: an entry of the same grid, block and shared memory
      // (the record keeps no cluster dimensions, so only a clusterless entry matches).
      LaunchShape ls;
      ls.grid = dims3(k.grid);
      ls.block = dims3(k.block);
      ls.dynamic_smem_bytes = k.dynamic_smem_bytes;
      out.floor = cal.rec.launch_of(ls);
      if (out.floor) out.launch_src = "the calibration's launch of the same configuration (" + launch_text(ls) + ")";
    }
  }
  // A cold headline is set against the cold launch floor: the empty kernel behind the same L2
  // flush, whose code and parameters then come from HBM too.
  if (out.floor) {
    out.cold_floor = r.headline_regime == "cold" && out.floor->cold_time.has_value();
    in.launch_floor_ns = out.cold_floor ? out.floor->cold_time->median : out.floor->time.median;
  }
  return out;
}

// Which tensor rate the floors took, said where it is not the fp16 one that the section's
// opening assumes (fp16 records' reports stay as they were).
void tensor_rate_line(std::ostream& md, const sol::Rates& rates) {
  md << "- Tensor rate: " << code(rates.tensor_rate) << ", the calibration's e4m3 wgmma rate, for this record's e4m3 "
     << "inputs (`correctness.input_format`)";
  if (!rates.tensor_flops_per_s)
    md << "; not measured: the calibration has no such rate (it predates the e4m3 rate; `make calibrate` measures "
          "it); the fp16 rate in its place would overstate the floor about twofold";
  md << ".\n";
}

// The launch floor's line: the entry's cold floor under a cold headline where the calibration
// measured one, the warm floor beside it; else the warm floor, and why it is the one given.
std::string launch_floor_text(const ShapeInputs& si, const std::string& headline) {
  const CalibrationLaunch* floor = si.floor;
  if (!floor) return "not measured (no launch of this phase and shape, or of its configuration, in the calibration)";
  const auto spread_text = [](const Spread& t) {
    return duration(t.median) + " (p10-p90 " + duration_range(t.p10, t.p90, t.median) + ")";
  };
  if (si.cold_floor)
    return spread_text(*floor->cold_time) + " cold, each empty launch behind an L2 flush as the headline's cold samples " +
           "are (warm " + duration(floor->time.median) + "), " + si.launch_src;
  std::string text = spread_text(floor->time) + ", " + si.launch_src;
  if (headline == "cold")
    text += "; warm: the calibration has no cold launch floor (it predates it; make calibrate measures it), so the "
            "cold headline's floor is understated";
  return text;
}

void shape_floors(std::ostream& md, const Run& run, const Result& r, const Found& cal, int sms) {
  md << "### " << shape_label(r.name) << "\n\n";
  if (!r.timed()) {
    md << "Not measured: " << r.untimed_reason() << ".\n\n";
    return;
  }
  const Regime& g = *r.headline();
  const auto [clock, clock_src] = run_clock(g);
  const ShapeInputs si = shape_inputs(run, r, cal, sms);
  const sol::Inputs& in = si.in;
  const sol::Rates rates = sol::rates_of(cal.rec, sol::tensor_rate_for(r.correctness.input_format));
  const sol::SpeedOfLight s = sol::speed_of_light(in, rates);
  const DeviceTime t = device_time(r, g);
  if (s.sol_ns && s.binding) {
    md << "**" << pct(100.0 * *s.sol_ns / t.median_ns) << " of the speed of light; bound by "
       << sol::floor_name(*s.binding) << "**: " << duration(t.median_ns) << " (" << g.name << ", "
       << basis_words(t) << ") against " << duration(*s.sol_ns) << ".\n\n";
  } else {
    md << "Speed of light: not measured (the calibration has none of these rates).\n\n";
  }
  if (s.serial_ns)
    md << "The tensor and exponential floors in series (the GEMMs and the softmax's exponentials never "
          "overlapping) take "
       << duration(*s.serial_ns) << ": " << pct(100.0 * *s.serial_ns / t.median_ns) << " of the headline time.\n\n";
  if (s.schedule_ns && s.schedule_binding)
    md << "This launch's schedule (wave factor " << sig(*s.wave_factor) << ") costs at least "
       << duration(*s.schedule_ns) << ", bound by " << sol::floor_name(*s.schedule_binding) << ": "
       << pct(100.0 * *s.schedule_ns / t.median_ns) << " of the headline time is the schedule's floor.\n\n";
  Table tab({"floor", "work", "sustained rate", "floor time", "x wave factor (this schedule)", "binds"}, "llrrrl");
  for (const auto& f : s.floors) {
    const std::string waved = !f.scheduled_ns ? "" : f.quantised && s.wave_factor ? duration(*f.scheduled_ns) : "n/a";
    tab.row({sol::floor_name(f.kind), work_cell(f), rate_cell(f, rates), f.ns ? duration(*f.ns) : "not measured",
             waved, s.binding && *s.binding == f.kind ? "yes" : f.binding_candidate ? "" : "not counted"});
  }
  md << tab.str() << "\n";
  md << "- SM clock of the run: " << (clock ? sig(*clock) + " MHz, " + clock_src : std::string("not recorded"))
     << " (for comparison with the calibration's clocks; the floors do not use it).\n";
  if (s.wave_factor)
    md << "- Wave factor " << sig(*s.wave_factor) << ": " << count(double(*in.work_items)) << " work items, "
       << count(double(*in.concurrent)) << " at once, on " << count(double(*in.slots))
       << " CTA slots (SMs x CTAs per SM); the rounds the items take over what they would take spread "
          "over every slot (items of unequal length, as in causal launches, count as equal).\n";
  else
    md << "- Wave factor: not measured (the record's `static.kernels` does not give one kernel's grid and CTAs per SM).\n";
  md << "- Launch floor: " << launch_floor_text(si, r.headline_regime) << ".\n";
  if (rates.tensor_rate != calibration::kTensor) tensor_rate_line(md, rates);
  if (in.direction == Direction::kBackward)
    md << "- Backward pass: the tensor floor's FLOPs are the backward's, " << sig(kBackwardFlopsFactor, 2)
       << " times the forward's (FlashAttention's convention), at the fp16 wgmma rate; the DRAM floor's bytes are "
          "Q, K, V, O, dO and LSE read once and dQ, dK and dV written once; one exponential per score rebuilds P.\n";
  if (!in.executed_flops)
    md << "- Executed FLOPs: not measured (no `" << kExecutedFlops << "` in the record's tensor group"
       << (rates.tensor_rate == calibration::kTensorFp8 ? ", which counts fp16-source HGMMA only, not e4m3's" : "")
       << ").\n";
  md << "\n";
}

}  // namespace

void speed_of_light_section(std::ostream& md, const Run& run, const std::optional<fs::path>& calibration) {
  md << "## Speed of light\n\n";
  std::string looked;
  const std::optional<Found> cal = find_calibration(run, calibration, looked);
  if (!cal) {
    md << "Not measured: no calibration record (`attnlab.calibration/1`, status ok) of this GPU (" << run.gpu_name()
       << ", " << short_uuid(run.gpu_uuid()) << ") in " << looked
       << ". `make calibrate` on it writes one; copy it to `reports/<gpu>/calibration/` or pass "
          "`attnlab-report run --calibration <record>`.\n\n";
    return;
  }
  const std::optional<double> sms = run.provenance.gpu.sm_count;
  md << "The least time this GPU could take for each shape, floor by floor, from the calibration record ["
     << code(cal->file.parent_path().filename().string()) << "](" << link(run.dir, cal->file) << ") of " << cal->match
     << ", its rates as measured: each sustained at the clock the GPU chose under that load (clocks are never "
        "locked; under dense wgmma the power cap holds the SM clock lowest), the most this board sustains, not "
        "rescaled to this run's clock, which is NVML's reading from the host (the calibration keeps the kernels' own "
        "clocks beside NVML's to show how far apart they are). Tensor: the shape's useful FLOPs (4·B·H·S²·D, halved for causal) over the measured wgmma rate; the "
        "executed FLOPs (the range profiler's count, padding and masked tiles included) are shown but not counted, "
        "being this kernel's own extra work. Exponentials: B·H·S² (halved for causal) over the measured ex2 rate. "
        "DRAM: the fewest bytes (Q, K, V read, O written) over the measured read bandwidth. Launch: the "
        "calibration's empty kernel of the same launch configuration. The floors overlap at best, so the speed of "
        "light is the largest; x% is that over the headline device time. It is the GPU's floor for the shape's "
        "work, the same for every kernel of the shape: the launch's own wave factor (its work items' last round "
        "leaves SMs idle) stretches the tensor and exponential floors into this schedule's floor, shown apart as "
        "what the schedule costs.\n\n";
  if (!sms || *sms <= 0) {
    md << "Not measured: the record has no `provenance.gpu.sm_count`.\n\n";
    return;
  }
  for (const auto& r : run.results) shape_floors(md, run, r, *cal, int(*sms));
}

// The calibration report's launch floors: each configuration's empty kernel, warm and cold.
std::string launch_floors_section(const CalibrationRecord& rec) {
  std::ostringstream md;
  md << "\n## Launch floors\n\nThe device time of an empty kernel launched with each configuration (CUPTI kernel "
        "record), warm (back to back) and cold (each launch behind an L2 flush, as the phases' cold samples are; "
        "not measured in records made before it was).\n\n";
  Table l({"grid", "block", "cluster", "dynamic smem (B)", "median", "p10-p90", "cold median", "cold p10-p90", "used by"},
          "lllrrrrrl");
  for (const auto& x : rec.launches) {
    std::string who;
    for (const auto& u : x.used_by) who += (who.empty() ? "" : ", ") + u;
    const std::optional<Spread>& c = x.cold_time;
    l.row({dims_text(x.launch.grid), dims_text(x.launch.block), dims_text(x.launch.cluster),
           count(double(x.launch.dynamic_smem_bytes)), duration(x.time.median),
           duration_range(x.time.p10, x.time.p90, x.time.median), c ? duration(c->median) : "not measured",
           c ? duration_range(c->p10, c->p90, c->median) : "-", who});
  }
  md << l.str();
  return md.str();
}

Rendered render_calibration(const CalibrationRecord& rec, const fs::path& file) {
  std::ostringstream md;
  const fs::path dir = file.parent_path();
  md << "# Calibration " << code(dir.filename().string()) << "\n\n";
  md << "Rendered by `attnlab-report calibration` from [`" << file.filename().string() << "`]("
     << file.filename().string() << "); edits are overwritten.\n\n";
  const GpuIdentity& gpu = rec.provenance.gpu;
  md << "- **Status:** " << rec.status << (rec.error ? ": " + *rec.error : std::string()) << "\n";
  md << "- **GPU:** " << gpu.name << ", " << code(gpu.uuid) << ", " << count(gpu.sm_count) << " SMs\n";
  md << "- **Run:** started " << rec.started_utc << " at commit " << code(rec.provenance.git.commit.substr(0, 7))
     << "\n";
  // A newer ok calibration of the same GPU beside this one is what the reports use.
  std::optional<std::pair<std::string, fs::path>> newer;
  for (const auto& f : find_calibration_records(dir.parent_path())) {
    if (f == file) continue;
    CalibrationRecord other;
    try {
      other = read_calibration_file(f);
    } catch (const std::exception& e) {
      throw InputError(e.what());
    }
    if (other.status == "ok" && other.started_utc > rec.started_utc &&
        other.provenance.gpu.uuid == gpu.uuid &&
        (!newer || other.started_utc > newer->first))
      newer = std::make_pair(other.started_utc, f);
  }
  if (newer)
    md << "- **SUPERSEDED** by [" << code(newer->second.parent_path().filename().string()) << "]("
       << link(dir, newer->second.parent_path() / "report.md")
       << "), a newer calibration of this GPU: the run reports take their floors from the newest.\n";
  // Records before kernel_sm_clock_mhz hold NVML's clock only; their per-clock rates used it.
  const bool own_clock = !rec.rates.empty() && !rec.rates.front().kernel_sm_clock_mhz.empty();
  const std::string clock_kind = own_clock ? "counted by the kernels" : "NVML's reading around the samples";
  const std::string& cc = gpu.compute_capability;
  std::vector<std::string> impossible;
  Table t({"rate", "median", "p10", "p90", "unit", "SM clock (MHz, " + clock_kind + ")", "per SM per clock", "samples",
           "follows SM clock"},
          "lrrrlrrrl");
  for (const auto& r : rec.rates) {
    std::string per_clock = sig(r.per_sm_per_clock);
    // Above what an SM can issue per clock (1% for rounding): the clock it divides by is too low.
    if (const auto ceiling = per_clock_ceiling(cc, r.name); ceiling && r.per_sm_per_clock > 1.01 * ceiling->per_sm_per_clock) {
      per_clock += " IMPOSSIBLE";
      impossible.push_back(code(r.name) + ": " + sig(r.per_sm_per_clock) + " per SM per clock, above the " +
                           ceiling->source);
    }
    t.row({code(r.name), sig(r.rate.median), sig(r.rate.p10), sig(r.rate.p90), r.unit, sig(r.sm_clock_median_mhz),
           per_clock, count(double(r.time_ns.size())), r.scales_with_sm_clock ? "yes" : "no"});
  }
  if (!impossible.empty()) {
    md << "- **IMPOSSIBLE as recorded:** ";
    for (std::size_t i = 0; i < impossible.size(); ++i) md << (i ? "; " : "") << impossible[i];
    md << ". The clock these rates are divided by (" << clock_kind
       << ") is lower than the one the kernels ran at, so no per-clock figure of this record holds.\n";
  }
  md << "\n## Rates\n\n" << t.str() << "\n";
  md << "The SM clock is the median of " << (own_clock ? "the kernels' own clocks (clock64 over %globaltimer), a clock the kernel counted"
                                                        : "NVML's readings during the samples, the driver's report around the run, not a clock the kernel counted")
     << "; per SM per clock divides the median rate by the SMs and that clock.\n\n";
  for (const auto& r : rec.rates)
    md << "- " << code(r.name) << ": " << r.method << "; " << launch_text(r.launch) << ".\n";
  md << launch_floors_section(rec);
  md << "\n## Method\n\n" << rec.method << "\n";
  Rendered out;
  const fs::path report = dir / "report.md";
  write_text(report, md.str());
  out.files.push_back(report);
  return out;
}

}  // namespace attnlab::report
