#include "record/timeline.hpp"
#include "record/record.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "common/shapes.hpp"
#include "record/fields.hpp"

namespace attnlab {

using nlohmann::ordered_json;
using timeline::Span;

namespace {

const ordered_json& node_at(const ordered_json& j, const std::string& ptr, bool array) {
  const ordered_json* p = find(j, ptr);
  if (!p) throw FieldError("missing " + ptr);
  if (array ? !p->is_array() : !p->is_object())
    throw FieldError(type_problem(ptr, array ? "an array" : "an object"));
  return *p;
}

std::uint32_t u32_at(const ordered_json& j, const std::string& ptr) {
  const double v = number_at(j, ptr);
  if (v < 0 || v > 4294967295.0 || v != double(std::uint32_t(v)))
    throw FieldError(type_problem(ptr, "an unsigned 32-bit integer"));
  return std::uint32_t(v);
}

std::uint64_t u64_at(const ordered_json& j, const std::string& ptr) {
  const ordered_json* p = find(j, ptr);
  if (!p) throw FieldError("missing " + ptr);
  if (!p->is_number_unsigned() && !(p->is_number_integer() && p->get<long long>() >= 0))
    throw FieldError(type_problem(ptr, "an unsigned integer"));
  return p->get<std::uint64_t>();
}

std::vector<double> numbers_at(const ordered_json& j, const std::string& ptr) {
  const ordered_json& a = node_at(j, ptr, true);
  std::vector<double> out;
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(number_at(j, ptr + "/" + std::to_string(i)));
  return out;
}

ordered_json role_json(const RoleSummary& r) {
  ordered_json waits = ordered_json::array();
  for (const WaitShare& w : r.waits)
    waits.push_back({{"kind", timeline::span_name(w.kind)}, {"ns", w.ns}, {"fraction", w.fraction}});
  return {{"role", r.role},
          {"warps", r.warps},
          {"lifetime_ns", r.lifetime_ns},
          {"wait_fraction", r.wait_fraction},
          {"waits", waits}};
}

RoleSummary read_role(const ordered_json& j, const std::string& base) {
  RoleSummary r;
  r.role = string_at(j, base + "/role");
  r.warps = u32_at(j, base + "/warps");
  r.lifetime_ns = number_at(j, base + "/lifetime_ns");
  r.wait_fraction = number_at(j, base + "/wait_fraction");
  const ordered_json& waits = node_at(j, base + "/waits", true);
  for (std::size_t i = 0; i < waits.size(); ++i) {
    const std::string w = base + "/waits/" + std::to_string(i);
    r.waits.push_back({parse_span(string_at(j, w + "/kind"), w + "/kind"), number_at(j, w + "/ns"),
                       number_at(j, w + "/fraction")});
  }
  return r;
}

std::vector<RoleSummary> read_roles(const ordered_json& j, const std::string& ptr) {
  std::vector<RoleSummary> out;
  const ordered_json& a = node_at(j, ptr, true);
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(read_role(j, ptr + "/" + std::to_string(i)));
  return out;
}

// Spans as rows [kind, begin_ns, end_ns, item]: a warp holds thousands of them, and objects
// would triple the record's size.
ordered_json warp_json(const TimelineWarp& w) {
  ordered_json spans = ordered_json::array();
  for (const TimelineSpan& s : w.spans)
    spans.push_back(ordered_json::array({timeline::span_name(s.kind), s.begin_ns, s.end_ns, s.item}));
  return {{"cta", w.cta},       {"warp", w.warp},         {"smid", w.smid},
          {"role", w.role},     {"start_ns", w.start_ns}, {"end_ns", w.end_ns},
          {"stamps", w.stamps}, {"overflow", w.overflow}, {"unmatched", w.unmatched},
          {"spans", spans}};
}

TimelineWarp read_warp(const ordered_json& j, const std::string& base) {
  TimelineWarp w;
  w.cta = u32_at(j, base + "/cta");
  w.warp = u32_at(j, base + "/warp");
  w.smid = u32_at(j, base + "/smid");
  w.role = string_at(j, base + "/role");
  w.start_ns = number_at(j, base + "/start_ns");
  w.end_ns = number_at(j, base + "/end_ns");
  w.stamps = u32_at(j, base + "/stamps");
  w.overflow = u32_at(j, base + "/overflow");
  w.unmatched = u32_at(j, base + "/unmatched");
  const ordered_json& spans = node_at(j, base + "/spans", true);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const std::string s = base + "/spans/" + std::to_string(i);
    if (!spans[i].is_array() || spans[i].size() != 4)
      throw FieldError(type_problem(s, "an array [kind, begin_ns, end_ns, item]"));
    w.spans.push_back({parse_span(string_at(j, s + "/0"), s + "/0"), number_at(j, s + "/1"),
                       number_at(j, s + "/2"), u32_at(j, s + "/3")});
  }
  return w;
}

// Paths as rows [cta, item, smid, warp, role, begin_ns, end_ns, {class key: ns}], the classes
// with time alone: a record holds one per stamped item of every SM, thousands at the long shapes.
ordered_json path_json(const ItemPath& p) {
  ordered_json ns = ordered_json::object();
  for (std::size_t c = 0; c < kPathClasses; ++c)
    if (p.ns[c] != 0) ns[path_class_key(PathClass(c))] = p.ns[c];
  return ordered_json::array({p.cta, p.item, p.smid, p.warp, p.role, p.begin_ns, p.end_ns, ns});
}

PathClass parse_path_class(const std::string& key, const std::string& ptr) {
  for (std::size_t c = 0; c < kPathClasses; ++c)
    if (key == path_class_key(PathClass(c))) return PathClass(c);
  throw FieldError(ptr + ": \"" + key + "\" is not a path class");
}

ItemPath read_path(const ordered_json& j, const std::string& base) {
  const ordered_json* row = find(j, base);
  if (!row || !row->is_array() || row->size() != 8)
    throw FieldError(type_problem(base, "an array [cta, item, smid, warp, role, begin_ns, end_ns, {class: ns}]"));
  ItemPath p;
  p.cta = u32_at(j, base + "/0");
  p.item = u32_at(j, base + "/1");
  p.smid = u32_at(j, base + "/2");
  p.warp = u32_at(j, base + "/3");
  p.role = string_at(j, base + "/4");
  p.begin_ns = number_at(j, base + "/5");
  p.end_ns = number_at(j, base + "/6");
  const ordered_json& ns = node_at(j, base + "/7", false);
  for (auto it = ns.begin(); it != ns.end(); ++it)
    p.ns[std::size_t(parse_path_class(it.key(), base + "/7"))] = number_at(j, base + "/7/" + it.key());
  p.bound = path_bound(p.ns);
  return p;
}

}  // namespace

const char* path_class_key(PathClass c) {
  switch (c) {
    case PathClass::kLoads: return "loads";
    case PathClass::kTensorCores: return "tensor_cores";
    case PathClass::kPartner: return "partner";
    case PathClass::kConsumers: return "consumers";
    case PathClass::kOtherRanks: return "other_ranks";
    case PathClass::kSoftmax: return "softmax";
    case PathClass::kIssue: return "issue";
    case PathClass::kEpilogue: return "epilogue";
    case PathClass::kPrologue: return "prologue";
    case PathClass::kBetween: return "between";
    case PathClass::kCount: break;
  }
  return "unknown";
}

PathClass path_bound(const std::array<double, kPathClasses>& ns) {
  return PathClass(std::max_element(ns.begin(), ns.end()) - ns.begin());
}

ordered_json to_json(const TimelineTensorPipe& t) {
  ordered_json roles = ordered_json::array();
  for (const auto& r : t.roles)
    roles.push_back({{"role", r.role}, {"flops", r.flops}, {"average", r.average}, {"bins", r.bins}});
  ordered_json j = {{"qk_flops", t.qk_flops},
                    {"pv_flops", t.pv_flops},
                    {"rate_name", t.rate_name},
                    {"flop_per_sm_cycle", t.flop_per_sm_cycle},
                    {"rate_source", t.rate_source},
                    {"rate_from", t.from_calibration ? "calibration" : "ceiling"}};
  if (t.not_measured) {
    j["not_measured"] = *t.not_measured;
    return j;
  }
  j["issued_flops"] = t.issued_flops;
  j["active_sm_ns"] = t.active_sm_ns;
  j["average"] = t.average;
  j["issues"] = t.issues;
  j["uncovered"] = t.uncovered;
  j["bin_ns"] = t.bin_ns;
  j["roles"] = roles;
  return j;
}

namespace {

TimelineTensorPipe read_tensor_pipe(const ordered_json& j, const std::string& base) {
  TimelineTensorPipe t;
  t.qk_flops = number_at(j, base + "/qk_flops");
  t.pv_flops = number_at(j, base + "/pv_flops");
  t.rate_name = string_at(j, base + "/rate_name");
  t.flop_per_sm_cycle = number_at(j, base + "/flop_per_sm_cycle");
  t.rate_source = string_at(j, base + "/rate_source");
  // Records made before rate_from was written name a calibration's rate by its source, which
  // then began "calibration " (the fallback's began "no calibration given").
  if (const auto from = optional_string_at(j, base + "/rate_from")) {
    if (*from != "calibration" && *from != "ceiling")
      throw FieldError(base + "/rate_from: \"" + *from + "\" is neither \"calibration\" nor \"ceiling\"");
    t.from_calibration = *from == "calibration";
  } else {
    t.from_calibration = t.rate_source.rfind("calibration ", 0) == 0;
  }
  t.not_measured = optional_string_at(j, base + "/not_measured");
  if (t.not_measured) return t;
  t.issued_flops = number_at(j, base + "/issued_flops");
  t.active_sm_ns = number_at(j, base + "/active_sm_ns");
  t.average = number_at(j, base + "/average");
  t.issues = u64_at(j, base + "/issues");
  t.uncovered = u64_at(j, base + "/uncovered");
  t.bin_ns = number_at(j, base + "/bin_ns");
  const ordered_json& roles = node_at(j, base + "/roles", true);
  for (std::size_t i = 0; i < roles.size(); ++i) {
    const std::string r = base + "/roles/" + std::to_string(i);
    t.roles.push_back({string_at(j, r + "/role"), number_at(j, r + "/flops"), number_at(j, r + "/average"),
                       numbers_at(j, r + "/bins")});
  }
  return t;
}

ordered_json decoded_json(const TimelineDecoded& d) {
  ordered_json warps = ordered_json::array(), roles = ordered_json::array(),
               sm_roles = ordered_json::array();
  for (const auto& w : d.warps) warps.push_back(warp_json(w));
  for (const auto& r : d.roles) roles.push_back(role_json(r));
  for (const auto& r : d.sm_roles) sm_roles.push_back(role_json(r));
  ordered_json j;
  j["sm_clock_mhz"] = d.sm_clock_mhz;
  if (!d.clock_source.empty()) j["clock_source"] = d.clock_source;
  j["anchor_clock_mhz"] = d.anchor_clock_mhz;
  j["span_ns"] = d.span_ns;
  j["ctas"] = d.ctas;
  j["warps_per_cta"] = d.warps_per_cta;
  j["capacity"] = d.capacity;
  j["stamps"] = d.stamps;
  j["overflow"] = d.overflow;
  j["unmatched"] = d.unmatched;
  j["warps_overflowed"] = d.warps_overflowed;
  if (d.warps_unstamped_by_policy > 0) j["warps_unstamped_by_policy"] = d.warps_unstamped_by_policy;
  j["pictured_sm"] = d.pictured_sm;
  j["roles"] = roles;
  j["sm_roles"] = sm_roles;
  if (d.tensor_pipe) j["tensor_pipe"] = to_json(*d.tensor_pipe);
  if (d.paths) {
    ordered_json paths = ordered_json::array();
    for (const auto& p : *d.paths) paths.push_back(path_json(p));
    j["paths"] = paths;
  }
  j["warps"] = warps;
  return j;
}

TimelineDecoded read_decoded(const ordered_json& j, const std::string& base) {
  TimelineDecoded d;
  d.sm_clock_mhz = number_at(j, base + "/sm_clock_mhz");
  d.clock_source = optional_string_at(j, base + "/clock_source").value_or("");
  if (!d.clock_source.empty() && d.clock_source != kClockAnchors && d.clock_source != kClockGiven)
    throw FieldError(base + "/clock_source: \"" + d.clock_source + "\" is neither \"" + kClockAnchors +
                     "\" nor \"" + kClockGiven + "\"");
  d.anchor_clock_mhz = number_at(j, base + "/anchor_clock_mhz");
  d.span_ns = number_at(j, base + "/span_ns");
  d.ctas = u32_at(j, base + "/ctas");
  d.warps_per_cta = u32_at(j, base + "/warps_per_cta");
  d.capacity = u32_at(j, base + "/capacity");
  d.stamps = u64_at(j, base + "/stamps");
  d.overflow = u64_at(j, base + "/overflow");
  d.unmatched = u64_at(j, base + "/unmatched");
  d.warps_overflowed = u32_at(j, base + "/warps_overflowed");
  if (find(j, base + "/warps_unstamped_by_policy"))
    d.warps_unstamped_by_policy = u32_at(j, base + "/warps_unstamped_by_policy");
  d.pictured_sm = u32_at(j, base + "/pictured_sm");
  d.roles = read_roles(j, base + "/roles");
  d.sm_roles = read_roles(j, base + "/sm_roles");
  if (find(j, base + "/tensor_pipe")) d.tensor_pipe = read_tensor_pipe(j, base + "/tensor_pipe");
  if (find(j, base + "/paths")) {
    const ordered_json& paths = node_at(j, base + "/paths", true);
    d.paths.emplace();
    for (std::size_t i = 0; i < paths.size(); ++i) d.paths->push_back(read_path(j, base + "/paths/" + std::to_string(i)));
  }
  const ordered_json& warps = node_at(j, base + "/warps", true);
  for (std::size_t i = 0; i < warps.size(); ++i)
    d.warps.push_back(read_warp(j, base + "/warps/" + std::to_string(i)));
  return d;
}

ordered_json overhead_json(const TimelineOverhead& o) {
  ordered_json j = {{"normal_ns", o.normal_ns},
          {"timeline_ns", o.timeline_ns},
          {"normal_median_ns", o.normal_median_ns},
          {"timeline_median_ns", o.timeline_median_ns},
          {"overhead_ns", o.overhead_ns},
          {"overhead_fraction", o.overhead_fraction},
          {"traced_launch_ns", o.traced_launch_ns},
          {"span_ns", o.span_ns},
          {"tolerance_ns", o.tolerance_ns},
          {"span_matches", o.span_matches}};
  if (o.launch_floor_ns) j["launch_floor_ns"] = *o.launch_floor_ns;
  return j;
}

TimelineOverhead read_overhead(const ordered_json& j, const std::string& base) {
  TimelineOverhead o;
  o.normal_ns = numbers_at(j, base + "/normal_ns");
  o.timeline_ns = numbers_at(j, base + "/timeline_ns");
  o.normal_median_ns = number_at(j, base + "/normal_median_ns");
  o.timeline_median_ns = number_at(j, base + "/timeline_median_ns");
  o.overhead_ns = number_at(j, base + "/overhead_ns");
  o.overhead_fraction = number_at(j, base + "/overhead_fraction");
  o.traced_launch_ns = number_at(j, base + "/traced_launch_ns");
  o.span_ns = number_at(j, base + "/span_ns");
  o.tolerance_ns = number_at(j, base + "/tolerance_ns");
  o.span_matches = bool_at(j, base + "/span_matches");
  o.launch_floor_ns = optional_number_at(j, base + "/launch_floor_ns");
  return o;
}

}  // namespace

bool span_agrees(const TimelineOverhead& o) {
  const double outside = o.traced_launch_ns - o.span_ns, allowed = kSpanAgreement * o.traced_launch_ns;
  return outside >= -allowed && outside <= allowed + o.launch_floor_ns.value_or(0);
}

Span parse_span(const std::string& name, const std::string& ptr) {
  for (unsigned k = 0; k < unsigned(Span::kCount); ++k)
    if (name == timeline::span_name(Span(k))) return Span(k);
  throw FieldError(ptr + ": \"" + name + "\" is not a span kind");
}

ordered_json to_json(const TimelineRecord& r) {
  ordered_json j;
  j["schema"] = kTimelineSchema;
  j["status"] = r.status;
  j["phase"] = {{"id", r.phase}, {"title", r.title}, {"technique", r.technique}};
  j["shape_name"] = shape_name(r.shape);
  j["shape"] = shape_to_json(r.shape, r.scale);
  j["started_utc"] = r.started_utc;
  j["provenance"] = to_json(r.provenance);
  ordered_json opts = {{"events_per_warp", r.events_per_warp}, {"launches", r.launches}, {"cold", r.cold}};
  if (r.requested_sm) opts["sm"] = *r.requested_sm;
  if (r.stamps) opts["stamps"] = *r.stamps;
  if (r.stamp_sample) opts["stamp_sample"] = *r.stamp_sample;
  j["options"] = opts;
  j["method"] = r.method;
  j["correctness"] = to_json(r.correctness);
  j["kernel"] = {{"normal", r.kernel_normal},
                 {"timeline", r.kernel_timeline},
                 {"grid_ctas", r.grid_ctas},
                 {"block_threads", r.block_threads}};
  if (r.work_items) j["kernel"]["work_items"] = *r.work_items;
  j["sm_clock_mhz"] = {{"before", r.sm_clock_mhz_before}, {"after", r.sm_clock_mhz_after}};
  if (r.overhead) j["overhead"] = overhead_json(*r.overhead);
  if (r.timeline) j["timeline"] = decoded_json(*r.timeline);
  if (r.error) j["error"] = *r.error;
  return j;
}

TimelineRecord read_timeline_record(const ordered_json& j) {
  if (const std::string s = string_at(j, "/schema"); s != kTimelineSchema)
    throw FieldError("/schema is \"" + s + "\", expected \"" + kTimelineSchema + "\"");
  TimelineRecord r;
  r.status = string_at(j, "/status");
  r.phase = string_at(j, "/phase/id");
  r.title = string_at(j, "/phase/title");
  r.technique = string_at(j, "/phase/technique");
  r.shape = read_shape(j, "/shape", &r.scale);
  // The name is written from the shape; a record whose name says otherwise is not one of ours.
  if (const std::string name = string_at(j, "/shape_name"); name != shape_name(r.shape))
    throw FieldError("/shape_name is \"" + name + "\", where /shape describes " + shape_name(r.shape));
  r.started_utc = string_at(j, "/started_utc");
  r.provenance = read_provenance(j, "/provenance");
  r.events_per_warp = u32_at(j, "/options/events_per_warp");
  r.launches = u32_at(j, "/options/launches");
  if (find(j, "/options/cold")) r.cold = bool_at(j, "/options/cold");
  if (find(j, "/options/sm")) r.requested_sm = u32_at(j, "/options/sm");
  r.stamps = optional_string_at(j, "/options/stamps");
  if (find(j, "/options/stamp_sample")) r.stamp_sample = u32_at(j, "/options/stamp_sample");
  r.method = string_at(j, "/method");
  r.correctness = read_correctness(j, "/correctness");
  r.kernel_normal = string_at(j, "/kernel/normal");
  r.kernel_timeline = string_at(j, "/kernel/timeline");
  r.grid_ctas = u32_at(j, "/kernel/grid_ctas");
  r.block_threads = u32_at(j, "/kernel/block_threads");
  if (find(j, "/kernel/work_items")) r.work_items = std::int64_t(u64_at(j, "/kernel/work_items"));
  r.sm_clock_mhz_before = number_at(j, "/sm_clock_mhz/before");
  r.sm_clock_mhz_after = number_at(j, "/sm_clock_mhz/after");
  if (find(j, "/overhead")) r.overhead = read_overhead(j, "/overhead");
  if (find(j, "/timeline")) r.timeline = read_decoded(j, "/timeline");
  r.error = optional_string_at(j, "/error");
  return r;
}

TimelineRecord read_timeline_file(const std::filesystem::path& file) {
  const ordered_json j = read_json_file(file);
  try {
    return read_timeline_record(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

ordered_json chrome_trace_json(const TimelineRecord& r) {
  ordered_json events = ordered_json::array();
  if (r.timeline) {
    for (const TimelineWarp& w : r.timeline->warps) {
      const std::uint32_t pid = w.cta, tid = w.warp;
      events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid},
                        {"args", {{"name", "CTA " + std::to_string(w.cta) + " on SM " + std::to_string(w.smid)}}}});
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                        {"args", {{"name", "warp " + std::to_string(w.warp) + " (" + w.role + ")"}}}});
      events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                        {"args", {{"sort_index", w.warp}}}});
      for (const TimelineSpan& s : w.spans)
        events.push_back({{"name", timeline::span_name(s.kind)},
                          {"cat", timeline::is_wait(s.kind) ? "wait" : "work"},
                          {"ph", "X"},
                          {"ts", s.begin_ns / 1000.0},
                          {"dur", (s.end_ns - s.begin_ns) / 1000.0},
                          {"pid", pid},
                          {"tid", tid},
                          {"args", {{"item", s.item}}}});
    }
  }
  return {{"traceEvents", events},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"schema", kTimelineSchema},
            {"phase", r.phase},
            {"shape", shape_name(r.shape)},
            {"sm", r.timeline ? r.timeline->pictured_sm : 0u},
            {"note", "span times in microseconds from the earliest warp start of the launch"}}}};
}

void write_timeline_file(const std::filesystem::path& file, const TimelineRecord& r) {
  write_json_atomically(file, to_json(r));
}

void write_chrome_trace(const std::filesystem::path& trace, const TimelineRecord& r) {
  write_json_atomically(trace, chrome_trace_json(r));
}

void write_tensor_pipe_file(const std::filesystem::path& file, const TimelineTensorPipe& t) {
  write_json_atomically(file, to_json(t));
}

}  // namespace attnlab
