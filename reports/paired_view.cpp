#include "reports/paired_view.hpp"

#include <cstdio>

#include "reports/record_view.hpp"

namespace attnlab::report {
namespace {

namespace fs = std::filesystem;

struct Entry {
  fs::path file;
  AbRecord rec;
};

// Every ok A/B record under <root>/ab, oldest first (find_ab_records sorts by path: stamp).
std::vector<Entry> ok_records(const fs::path& root) {
  std::vector<Entry> out;
  for (const auto& f : find_ab_records(root)) {
    AbRecord rec;
    try {
      rec = read_ab_file(f);
    } catch (const std::exception& e) {
      throw InputError(e.what());
    }
    if (rec.status == "ok") out.push_back({f, std::move(rec)});
  }
  return out;
}

std::string gpu_of(const AbRecord& r) {
  return r.provenance.gpu.name;
}

}  // namespace

std::optional<PairedResult> newest_paired(const fs::path& root, const std::string& a,
                                          const std::string& b, const std::string& shape,
                                          const std::string& gpu_name) {
  std::optional<PairedResult> found;
  for (const auto& e : ok_records(root)) {
    if (e.rec.a.phase != a || e.rec.b.phase != b) continue;
    if (!gpu_name.empty() && gpu_of(e.rec) != gpu_name) continue;
    for (const auto& s : e.rec.results)
      if (s.name == shape && s.wall) found = PairedResult{e.file, gpu_of(e.rec), s};
  }
  return found;
}

std::map<std::string, std::map<std::string, PairedResult>> paired_against(const fs::path& root,
                                                                          const std::string& b) {
  std::map<std::string, std::map<std::string, PairedResult>> out;
  for (const auto& e : ok_records(root)) {
    if (e.rec.b.phase != b) continue;
    for (const auto& s : e.rec.results)
      if (s.wall) out[e.rec.a.phase][s.name] = PairedResult{e.file, gpu_of(e.rec), s};
  }
  return out;
}

std::string paired_cell(const AbShape& s) {
  const auto& e = s.wall->estimate;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.3fx (95%% CI %.3f-%.3f) %s", e.median, e.lo, e.hi,
                paired::verdict_name(e.verdict));
  return buf;
}

}  // namespace attnlab::report
