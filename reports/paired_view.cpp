#include "reports/paired_view.hpp"

#include <cstdio>
#include <set>

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

// The record's timed measurements of `shape`, in record order, combined where there are several
// (combine_measurements): no measurement hides another. None where it timed none.
std::optional<AbShape> measured(const AbRecord& rec, const std::string& shape) {
  std::vector<AbShape> list;
  for (const auto& s : rec.results)
    if (s.name == shape && s.wall) list.push_back(s);
  if (list.empty()) return std::nullopt;
  return list.size() == 1 ? list.front() : combine_measurements(list, rec.options.bootstrap);
}

PairedResult result_of(const Entry& e, const AbShape& s) {
  return PairedResult{e.file, gpu_of(e.rec), e.rec.provenance.gpu.uuid, e.rec.provenance.git.commit, s};
}

}  // namespace

std::optional<PairedChoice> paired_for(const fs::path& root, const std::string& b,
                                      const std::string& shape, const Run& run) {
  // Candidates in start order (oldest first), each with its start time.
  struct Candidate {
    const Entry* e;
    AbShape s;
    std::optional<long long> start;
  };
  const std::vector<Entry> records = ok_records(root);
  std::vector<Candidate> all;
  for (const auto& e : records) {
    if (e.rec.a.phase != run.phase || e.rec.b.phase != b || gpu_of(e.rec) != run.gpu_name()) continue;
    if (auto m = measured(e.rec, shape)) all.push_back({&e, std::move(*m), utc_seconds(e.rec.started_utc)});
  }
  auto choice = [](const Candidate& c, const char* because) {
    return PairedChoice{result_of(*c.e, c.s), because};
  };
  // The same board within a session's gap of the run, nearest in start time (the later on a tie).
  const auto when = run.start_seconds();
  const Candidate* best = nullptr;
  long long best_gap = 0;
  for (const auto& c : all) {
    if (c.e->rec.provenance.gpu.uuid != run.gpu_uuid() || !when || !c.start) continue;
    const long long gap = *c.start > *when ? *c.start - *when : *when - *c.start;
    if (gap < kSessionGapSeconds && (!best || gap <= best_gap)) {
      best = &c;
      best_gap = gap;
    }
  }
  if (best) return choice(*best, "same GPU and session");
  for (auto c = all.rbegin(); c != all.rend(); ++c)
    if (c->e->rec.provenance.gpu.uuid == run.gpu_uuid())
      return choice(*c, "same GPU, another session: the newest");
  if (!all.empty()) return choice(all.back(), "another GPU of this model, the newest: none on this GPU");
  return std::nullopt;
}

std::map<std::string, std::map<std::string, PairedResult>> paired_against(const fs::path& root,
                                                                          const std::string& b) {
  std::map<std::string, std::map<std::string, PairedResult>> out;
  for (const auto& e : ok_records(root)) {
    if (e.rec.b.phase != b) continue;
    std::set<std::string> done;  // a shape measured twice is combined once
    for (const auto& s : e.rec.results)
      if (s.wall && done.insert(s.name).second) out[e.rec.a.phase][s.name] = result_of(e, *measured(e.rec, s.name));
  }
  return out;
}

std::string paired_name(const PairedResult& p) {
  const fs::path run = p.file.parent_path();
  return "ab/" + run.parent_path().filename().string() + "/" + run.filename().string();
}

std::string paired_elsewhere(const PairedResult& p, const Run& run, const std::string& whose) {
  std::string out;
  if (p.commit != run.commit())
    out = "it timed commit " + (p.commit.empty() ? std::string("(not recorded)") : p.commit.substr(0, 7)) + ", not " +
          whose + " " + run.short_commit();
  if (p.gpu_uuid != run.gpu_uuid())
    out += (out.empty() ? "it ran on " : "; on ") + board_of_uuid(p.gpu_uuid) + ", not " + whose + " " + board(run);
  return out;
}

std::string paired_cell(const AbShape& s) {
  const auto& e = s.wall->estimate;
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.3fx (95%% CI %.3f-%.3f) %s", e.median, e.lo, e.hi,
                paired::verdict_name(e.verdict));
  std::string cell = buf;
  if (s.measurements > 1)
    cell += " (" + std::to_string(s.measurements) + " measurements combined, " + std::to_string(e.blocks) + " blocks)";
  else if (e.blocks == 1)
    cell += " (one block: an interval within one run)";
  return cell;
}

}  // namespace attnlab::report
