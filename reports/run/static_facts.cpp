// A run's report, static evidence section: SASS instruction counts, the ptxas report and each
// kernel's launch facts.
#include "reports/run/sections.hpp"

#include "record/result.hpp"
#include "record/sass.hpp"

namespace attnlab::report::detail {

namespace {

// A ptxas figure; negative: the report did not say (sass::PtxasFunction).
std::string ptxas_count(std::int64_t v) { return v >= 0 ? count(double(v)) : "not recorded"; }

// Per launched kernel, from the launch (CUPTI callback, function attributes, occupancy).
void launch_rows(Table& k, const Result& r) {
  auto count_or = [](const auto& v) { return v ? count(double(*v)) : std::string("not recorded"); };
  for (const KernelFacts& kj : r.launched_kernels())
    k.row({shape_label(r.name), code(kj.name), dims(kj.grid), dims(kj.block), count_or(kj.registers),
           count_or(kj.static_smem_bytes), count(double(kj.dynamic_smem_bytes)), count_or(kj.local_bytes),
           kj.theoretical_occupancy_pct ? pct(*kj.theoretical_occupancy_pct) : "not recorded"});
}

// Per kernel, from the build's ptxas -v report.
void ptxas_rows(Table& px, std::vector<std::string>& notes, const Result& r, const StaticEvidence& st) {
  if (!st.ptxas) return;
  const sass::PtxasEvidence& p = *st.ptxas;
  if (!p.available) notes.push_back(shape_label(r.name) + ": ptxas report not available: " + fixed_line(p.reason));
  for (const sass::PtxasKernel& kj : p.kernels) {
    if (!kj.function) continue;
    const sass::PtxasFunction& f = *kj.function;
    px.row({shape_label(r.name), code(kj.name), ptxas_count(f.registers), ptxas_count(f.barriers),
            ptxas_count(f.stack_frame_bytes), ptxas_count(f.spill_store_bytes), ptxas_count(f.spill_load_bytes),
            ptxas_count(f.smem_bytes)});
  }
}

struct SassCounts {
  std::vector<std::string> opcodes;                            // first-seen order across shapes
  std::map<std::string, std::map<std::string, double>> counts;  // shape -> opcode -> count
};

// A shape's SASS counts, or a note on why it has none.
void add_sass(SassCounts& sass, std::vector<std::string>& notes, const Result& r, const StaticEvidence& st) {
  if (!st.sass) return;
  const sass::SassEvidence& sj = *st.sass;
  if (!sj.available) {
    notes.push_back(shape_label(r.name) + ": SASS counts not available: " + fixed_line(sj.reason));
    return;
  }
  if (!sj.complete) notes.push_back(shape_label(r.name) + ": SASS totals miss kernels the listing lacks");
  for (const auto& [op, n] : sass::named_counts(sj.total)) {
    if (std::find(sass.opcodes.begin(), sass.opcodes.end(), op) == sass.opcodes.end()) sass.opcodes.push_back(op);
    sass.counts[r.name][op] = double(n);
  }
}

// The SASS counts, an opcode a row and a shape a column.
void sass_table(std::ostringstream& md, const Run& run, const SassCounts& sass) {
  const std::vector<std::string>& opcodes = sass.opcodes;
  if (opcodes.empty()) {
    md << "SASS instruction counts: not in the record.\n\n";
    return;
  }
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
      auto it = sass.counts.find(r.name);
      row.push_back(it != sass.counts.end() && it->second.count(op) ? count(it->second.at(op)) : "");
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
}

}  // namespace

void static_section(std::ostringstream& md, const Run& run) {
  md << "## Static evidence\n\n";
  if (!any_result_has(run, &Result::static_evidence)) {
    md << "Not measured: this record has no `static` evidence (registers, shared and local "
          "memory per kernel, SASS instruction counts).\n\n";
    return;
  }
  Table k({"shape", "kernel", "grid", "block", "registers", "static smem [B]", "dynamic smem [B]",
           "local [B]", "theoretical occupancy"},
          "llllrrrrr");
  Table px({"shape", "kernel", "registers", "barriers", "stack [B]", "spill stores [B]",
            "spill loads [B]", "smem [B]"},
           "llrrrrrr");
  std::vector<std::string> notes;
  SassCounts sass;
  for (const auto& r : run.results) {
    if (!r.static_evidence) {
      notes.push_back(shape_label(r.name) + ": no static evidence");
      continue;
    }
    const StaticEvidence& st = *r.static_evidence;
    launch_rows(k, r);
    ptxas_rows(px, notes, r, st);
    add_sass(sass, notes, r, st);
  }
  if (!k.empty()) md << "Launched kernels (CUPTI launch callback and function attributes):\n\n" << k.str() << "\n";
  if (!px.empty()) md << "The build's `ptxas -v` report for those kernels:\n\n" << px.str() << "\n";
  sass_table(md, run, sass);
  for (const auto& n : notes) md << "- " << n << "\n";
  if (!notes.empty()) md << "\n";
}

}  // namespace attnlab::report::detail
