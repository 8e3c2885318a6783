// Run-record directories, atomic writes and the schema's required keys.
#include "record/record.hpp"

#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace fs = std::filesystem;

namespace attnlab {
namespace {

std::string format_utc(long long epoch_seconds, const char* fmt) {
  std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

}  // namespace

std::string utc_stamp(long long epoch_seconds) { return format_utc(epoch_seconds, "%Y%m%dT%H%M%SZ"); }
std::string utc_iso8601(long long epoch_seconds) {
  return format_utc(epoch_seconds, "%Y-%m-%dT%H:%M:%SZ");
}

void ensure_writable_directory(const fs::path& root) {
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) throw std::runtime_error("cannot create results directory " + root.string() + ": " + ec.message());
  if (!fs::is_directory(root)) throw std::runtime_error("results path " + root.string() + " is not a directory");
  if (::access(root.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error("results directory " + root.string() + " is not writable: " + std::strerror(errno));
}

fs::path create_run_directory(const fs::path& root, const std::string& phase,
                              const std::string& stamp, const std::string& short_sha) {
  const fs::path parent = root / phase;
  ensure_writable_directory(parent);
  const std::string base = stamp + "-" + short_sha;
  // create_directory reports whether it made the directory, which is atomic against a
  // concurrent run choosing the same name.
  for (int n = 1; n < 1000; ++n) {
    const fs::path dir = parent / (n == 1 ? base : base + "-" + std::to_string(n));
    std::error_code ec;
    if (fs::create_directory(dir, ec)) return dir;
    if (ec) throw std::runtime_error("cannot create run directory " + dir.string() + ": " + ec.message());
  }
  throw std::runtime_error("too many runs named " + (parent / base).string());
}

void write_json_atomically(const fs::path& path, const ordered_json& j) {
  // A temporary name of this process and call alone: runs started together (a sweep's workers
  // on several GPUs) each write <root>/phases.json, and a shared "<file>.tmp" let one rename
  // another's file away ("cannot move ... No such file or directory").
  static std::atomic<unsigned> calls{0};
  const fs::path tmp = path.string() + "." + std::to_string(::getpid()) + "." + std::to_string(calls++) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(errno));
    out << j.dump(2) << '\n';
    out.flush();
    if (!out) throw std::runtime_error("write to " + tmp.string() + " failed");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot move " + tmp.string() + " to " + path.string() + ": " + ec.message());
}

fs::path record_file(const fs::path& file) {
  std::error_code ec;
  if (fs::exists(file, ec)) return file;
  fs::path gz = file;
  gz += ".gz";
  return fs::exists(gz, ec) ? gz : file;
}

std::optional<fs::path> record_file_in(const fs::path& dir, const std::string& name) {
  std::error_code ec;
  for (const fs::path& f : {dir / name, dir / (name + ".gz")})
    if (fs::is_regular_file(f, ec)) return f;
  return std::nullopt;
}

std::string read_record_text(const fs::path& path) {
  const fs::path file = record_file(path);
  // Closed on every path out, the throws included.
  const std::unique_ptr<gzFile_s, int (*)(gzFile)> in(gzopen(file.c_str(), "rb"), gzclose);
  if (!in) throw std::runtime_error(file.string() + ": cannot read");
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(in.get(), buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  if (n < 0) throw std::runtime_error(file.string() + ": not valid gzip");
  return text;
}

ordered_json read_json_file(const fs::path& file) {
  const std::string text = read_record_text(file);
  try {
    return ordered_json::parse(text);
  } catch (const ordered_json::parse_error& e) {
    throw std::runtime_error(file.string() + ": not valid JSON: " + e.what());
  }
}

const std::vector<std::string>& required_record_keys() {
  static const std::vector<std::string> keys = {
      "/schema", "/phase", "/status", "/provenance/git/commit", "/provenance/git/dirty",
      "/provenance/argv", "/provenance/build/type", "/provenance/build/cuda_flags",
      "/provenance/versions/nvcc", "/provenance/versions/driver", "/provenance/versions/runtime",
      "/provenance/versions/cupti", "/provenance/gpu/name", "/provenance/gpu/uuid",
      "/provenance/gpu/sm_count", "/provenance/gpu/sm_clock_mhz", "/provenance/gpu/mem_clock_mhz",
      "/provenance/gpu/l2_bytes", "/provenance/gpu/peak_dram_gbps", "/provenance/seed",
      "/results"};
  return keys;
}

const std::vector<std::string>& required_result_keys() {
  static const std::vector<std::string> keys = {
      "/shape/B", "/shape/H", "/shape/S", "/shape/D", "/shape/causal", "/shape/dtype",
      "/correctness/passed", "/correctness/max_abs_err", "/correctness/max_rel_err",
      "/correctness/rows_checked", "/timing", "/tflops", "/dram_gbps_min_bytes"};
  return keys;
}

std::vector<std::string> record_problems(const ordered_json& record) {
  std::vector<std::string> out;
  if (!record.is_object()) return {"record is not a JSON object"};
  for (const auto& k : required_record_keys())
    if (!record.contains(ordered_json::json_pointer(k))) out.push_back("missing " + k);
  if (record.contains("schema") && record["schema"] != kRunSchema)
    out.push_back("/schema is " + record["schema"].dump() + ", expected \"" + kRunSchema + "\"");
  if (record.contains("status")) {
    const auto& st = record["status"];
    if (st != "ok" && st != "failed" && st != "incomplete")
      out.push_back("/status is " + st.dump() + ", expected ok, failed or incomplete");
  }
  if (record.contains("results")) {
    if (!record["results"].is_array()) {
      out.push_back("/results is not an array");
    } else {
      for (std::size_t i = 0; i < record["results"].size(); ++i)
        for (const auto& k : required_result_keys())
          if (!record["results"][i].contains(ordered_json::json_pointer(k)))
            out.push_back("missing /results/" + std::to_string(i) + k);
    }
  }
  return out;
}

std::vector<std::string> read_phase_order(const std::filesystem::path& root) {
  const std::filesystem::path file = root / kPhasesFile;
  std::vector<std::string> ids;
  std::ifstream in(file);
  if (!in) return ids;
  const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || j.value("schema", "") != kPhasesSchema || !j.contains("phases") ||
      !j["phases"].is_array())
    throw std::runtime_error(file.string() + ": not an " + kPhasesSchema + " phase table");
  for (const auto& p : j["phases"]) {
    if (!p.is_object() || !p.contains("id") || !p["id"].is_string())
      throw std::runtime_error(file.string() + ": a phase without a string id");
    ids.push_back(p["id"].get<std::string>());
  }
  return ids;
}

ordered_json to_json(const std::vector<PhaseTableEntry>& phases) {
  ordered_json j;
  j["schema"] = kPhasesSchema;
  j["phases"] = ordered_json::array();
  for (const auto& p : phases)
    j["phases"].push_back({{"id", p.id},
                           {"title", p.title},
                           {"technique", p.technique},
                           {"required_cc", p.required_cc},
                           {"baseline", p.baseline}});
  return j;
}

std::string phase_table_listing(const std::vector<PhaseTableEntry>& phases) {
  return to_json(phases).dump(2);
}

void write_phase_table_file(const std::filesystem::path& root, const std::vector<PhaseTableEntry>& phases) {
  const ordered_json table = to_json(phases);
  const std::filesystem::path file = root / kPhasesFile;
  std::ifstream in(file);
  if (in) {
    const auto old = ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!old.is_discarded() && old == table) return;
  }
  write_json_atomically(file, table);
}

}  // namespace attnlab
