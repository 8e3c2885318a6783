// A run's report, launch statistics and occupancy: grid, CTAs per SM, waves, occupancy limits
// and achieved occupancy, per kernel.
#include "reports/run/sections.hpp"

#include "record/static_facts.hpp"

namespace attnlab::report::detail {

namespace {

// Nsight Compute's names for the metrics these sections read from the throughput group.
constexpr const char* kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kSmCyclesMin = "sm__cycles_active.min";
constexpr const char* kSmCyclesAvg = "sm__cycles_active.avg";
constexpr const char* kSmCyclesMax = "sm__cycles_active.max";

std::optional<double> throughput_value(const Result& r, const char* name) {
  const GroupResult* g = r.group("throughput");
  return g ? g->value(name) : std::nullopt;
}

// Why the throughput group gives nothing for a shape.
std::string throughput_missing(const Result& r, const std::string& what) {
  const GroupResult* g = r.group("throughput");
  if (!g) return "not measured (metric group `throughput` was not collected)";
  if (!g->available) return "not measured (metric group `throughput` unavailable: " + fixed_line(g->reason) + ")";
  return "not measured (the `throughput` group of this record has no " + what + ")";
}

std::string limit_cell(const std::optional<int>& ctas) { return ctas ? count(*ctas) : "no limit"; }

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

// The bullets under a shape's table, gathered kernel by kernel.
struct Bullets {
  std::vector<std::string> words, notes;
  std::vector<std::pair<std::string, std::string>> unlimited;  // kernel, why its limits are absent
};

// One kernel's row: grid, CTAs per SM, waves, theoretical occupancy and its CTA limits per
// resource; its waves in words and any note go to `b`.
std::vector<std::string> kernel_row(const KernelFacts& k, const std::string& name, const std::string& who,
                                    const std::optional<double>& sms, Bullets& b) {
  const long long ctas = k.ctas();
  const int per_sm = k.active_blocks_per_sm.value_or(-1);  // -1: not recorded
  std::string waves = "not measured";
  if (per_sm > 0 && sms) {
    waves = sig(double(ctas) / (*sms * per_sm));
    b.words.push_back(waves_words(who, ctas, int(*sms), per_sm, k.work_items));
  } else if (per_sm == 0) {
    waves = "none: no CTA fits an SM";
  }
  std::vector<std::string> row = {name, dims(k.grid), dims(k.block),
                                  count(double(ctas)),
                                  per_sm >= 0 ? count(per_sm) : "not measured", waves,
                                  k.theoretical_occupancy_pct ? pct(*k.theoretical_occupancy_pct) : "not measured"};
  if (const auto& occ = k.occupancy) {
    std::string by;
    for (const auto& x : occ->limited_by) by += (by.empty() ? "" : ", ") + x;
    std::replace(by.begin(), by.end(), '_', ' ');
    row.push_back(by.empty() ? "not measured" : by);
    for (const auto* ctas : {&occ->registers, &occ->shared_memory, &occ->warps, &occ->blocks})
      row.push_back(limit_cell(*ctas));
    if (k.active_blocks_per_sm && *k.active_blocks_per_sm != occ->active_blocks_per_sm)
      b.notes.push_back(who + ": the least computed limit (" + count(occ->active_blocks_per_sm) +
                        ") differs from the driver's CTAs per SM; the driver's figure is the one shown, "
                        "and it reflects a limit this calculation does not model");
  } else {
    row.push_back("not measured");
    for (int i = 0; i < 4; ++i) row.push_back("not measured");
    b.unlimited.emplace_back(who, !k.occupancy_reason.empty() ? fixed_line(k.occupancy_reason)
                                                              : std::string("the record predates them"));
  }
  return row;
}

// Achieved occupancy, against the theoretical where the launch ran one kernel.
void achieved_bullet(std::ostringstream& md, const Result& r, const std::vector<KernelFacts>& kernels,
                     const std::string& scope) {
  if (const auto achieved = throughput_value(r, kAchievedOccupancy)) {
    md << "- Achieved occupancy" << scope << ": " << pct(*achieved) << " of the warp slots, on average over "
       << "the SMs' active cycles (" << code(kAchievedOccupancy) << ")";
    const auto& theoretical = kernels.front().theoretical_occupancy_pct;
    if (kernels.size() == 1 && theoretical && *theoretical > 0)
      md << ", " << pct(100.0 * *achieved / *theoretical) << " of the theoretical " << pct(*theoretical);
    md << ".\n";
  } else {
    md << "- Achieved occupancy: " << throughput_missing(r, code(kAchievedOccupancy)) << ".\n";
  }
}

// How evenly the SMs were busy: their active cycles' min, mean and max.
void balance_bullet(std::ostringstream& md, const Result& r, const std::string& scope) {
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
}

// One shape's table of kernels and its bullets.
void shape_launch_stats(std::ostringstream& md, const Result& r, const std::vector<KernelFacts>& kernels,
                        const std::optional<double>& sms) {
  Table t({"kernel", "grid", "block", "CTAs", "CTAs per SM", "waves per SM", "theoretical occupancy",
           "limited by", "CTA limit: registers", "shared memory", "warps", "CTA slots"},
          "lllrrrrlrrrr");
  Bullets b;
  for (const auto& k : kernels) {
    const std::string name = code(k.name);
    // The bullets below name the kernel only where the launch ran several.
    const std::string who = kernels.size() == 1 ? std::string("The kernel") : name;
    t.row(kernel_row(k, name, who, sms, b));
  }
  md << t.str() << "\n";
  for (const auto& w : b.words) md << "- " << w << "\n";
  for (const auto& n : b.notes) md << "- " << n << "\n";
  // One line where no kernel has them for the same reason (older records), else one per kernel.
  const auto& unlimited = b.unlimited;
  const bool one_reason = !unlimited.empty() && unlimited.size() == kernels.size() &&
                          std::all_of(unlimited.begin(), unlimited.end(),
                                      [&](const auto& u) { return u.second == unlimited.front().second; });
  if (one_reason)
    md << "- CTA limits per resource: not measured (" << unlimited.front().second << ").\n";
  else
    for (const auto& [who, why] : unlimited) md << "- " << who << ": CTA limits per resource not measured (" << why << ").\n";
  const std::string scope = kernels.size() > 1 ? " (over the launch's " + std::to_string(kernels.size()) + " kernels)" : "";
  achieved_bullet(md, r, kernels, scope);
  balance_bullet(md, r, scope);
  md << "\n";
}

}  // namespace

void launch_stats_section(std::ostringstream& md, const Run& run) {
  md << "## Launch statistics and occupancy\n\n";
  const std::optional<double> sms = run.provenance.gpu.sm_count;
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
  if (!any_result_has(run, &Result::static_evidence)) {
    md << "Not measured: this record has no `static` evidence (launch configuration and occupancy "
          "per kernel), so neither launch statistics nor occupancy limits.\n\n";
    return;
  }
  for (const auto& r : run.results) {
    md << "### " << shape_label(r.name) << "\n\n";
    const std::vector<KernelFacts>& kernels = r.launched_kernels();
    if (kernels.empty()) {
      const std::optional<StaticFacts>& facts = r.static_evidence ? r.static_evidence->facts : std::nullopt;
      const auto why = facts && !facts->available ? std::optional<std::string>(facts->reason) : std::nullopt;
      md << "Launch statistics: not measured"
         << (why ? " (" + fixed_line(*why) + ")" : r.timed() ? std::string() : " (" + r.untimed_reason() + ")")
         << ".\n\n";
      continue;
    }
    shape_launch_stats(md, r, kernels, sms);
  }
}

}  // namespace attnlab::report::detail
