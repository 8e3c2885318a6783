// Judging the evidence: claims against measurements (SUPPORTED / REFUTED / INCONCLUSIVE /
// NOT TESTED) and two runs against each other (SAME / FASTER / SLOWER).
//
// Every time compared is the device time of the launch (device_time() in record_view.hpp:
// busy time, the span only where a record lacks it, and then said so). The decision rule is
// interval separation, the same for claims and comparisons. A timing measurement is the
// interval [p10, p90] of its samples; a throughput (TFLOPS, GB/s) is the same interval
// mapped through work / time. One rule for every operator: a difference within the noise is
// never SUPPORTED. A claim ("<", "<=", ">", ">=", "==") is SUPPORTED only when the two
// intervals are separated in the claimed direction, REFUTED when they are separated against
// it, and INCONCLUSIVE when they overlap ("as fast as", ">=" on throughput, included: overlap
// neither shows nor disproves it). "within_pct" is SUPPORTED only when the whole interval lies
// inside the band, REFUTED when separated from it, INCONCLUSIVE when it straddles an edge.
// Points (counts, counters) have no noise and compare exactly.
// Why not a rank test (Mann-Whitney): GPU timing samples are not independent (clocks and
// thermals drift through a run), and with the 1000 samples a short kernel collects, a rank
// test calls a 0.1% shift "significant", which is real but not a performance difference a
// reader should act on. Separation of the p10-p90 intervals needs no such assumption and
// answers "did this change move the bulk of the distribution".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/claims.hpp"
#include "reports/record_view.hpp"

namespace attnlab::report {

enum class Verdict { kSupported, kRefuted, kInconclusive, kNotTested };
// "SUPPORTED", "REFUTED", "INCONCLUSIVE", "NOT TESTED"
const char* verdict_name(Verdict v);
// Every verdict, in the order reports count them.
inline constexpr Verdict kVerdicts[] = {Verdict::kSupported, Verdict::kRefuted,
                                        Verdict::kInconclusive, Verdict::kNotTested};

// A measured value and the interval its samples spread over.
struct Measure {
  double value = 0;
  double lo = 0, hi = 0;  // lo == hi == value for a point value (a count, a counter)
  std::string unit;       // "ns", "TFLOPS", "GB/s", a metric's own unit, or ""
  std::string spread;     // what [lo, hi] is ("p10-p90 of 12 cold samples"); "" for a point
  // Where the record does not give the interval (a busy median without its p10-p90): the
  // widest it may be (DeviceTime::wide_p10_ns), beside the point [lo, hi].
  std::optional<std::pair<double, double>> wide;
  // [lo, hi], or the wide interval where there is one and `widest` asks for it.
  std::pair<double, double> interval(bool widest) const {
    return widest && wide ? *wide : std::make_pair(lo, hi);
  }
  Measure scaled(double factor) const;
  std::string describe() const;  // "11.95 ms (p10-p90 of 12 cold samples: 11.95-11.96 ms)"
};

// A claim metric (a JSON pointer into one result entry) looked up in a result. Either a
// measure, or why there is none ("not measured: ..."). Timings (/timing/<regime>/median_ns or
// busy_median_ns) and throughputs (/tflops, /dram_gbps_min_bytes, /timing/<regime>/tflops)
// are taken at the regime's device time.
struct Lookup {
  std::optional<Measure> measure;
  std::string missing;
};
Lookup measure_metric(const Result& r, const std::string& pointer);

// Interval a against interval b.
enum class Relation { kBelow, kOverlap, kAbove };
Relation relate(double a_lo, double a_hi, double b_lo, double b_hi);

struct Judgement {
  Claim claim;
  Verdict verdict = Verdict::kNotTested;
  std::string evidence;  // one line: both sides with their spread, and the reason
  const Run* compared = nullptr;  // the other record of a cross-record claim, when found
  std::string compared_because;   // why that record: "same GPU and session", ...
};


// The newest record with status ok of `phase` on the GPU named `gpu` that `accept` accepts
// (every one when `accept` is empty); nullptr if none.
const Run* newest_ok(const std::vector<Run>& runs, const std::string& phase,
                     const std::string& gpu,
                     const std::function<bool(const Run&)>& accept = nullptr);

// The ok record of `phase` on `to`'s GPU nearest in start time to `to` (before or after; ties go
// to the newer) that `accept` accepts; the newest such record when `to` has no start time.
const Run* nearest_ok(const std::vector<Run>& runs, const Run& to, const std::string& phase,
                      const std::function<bool(const Run&)>& accept = nullptr);

// Judges one claim of `run`. `root_runs` is every record of the run's results root (for
// claims against another phase). The record compared with is an ok record of the other phase
// on the same GPU model with the claim's metric at its shape (failing that, with the shape):
// of the judged record's own session (session_key) where there is one, the nearest in start
// time (so a later session's records never change its verdicts); else the newest on the same
// GPU (uuid); else the newest on another GPU of the model. Records on another GPU model are
// never compared.
Judgement judge_claim(const Claim& c, const Run& run, const std::vector<Run>& root_runs);
std::vector<Judgement> judge_claims(const Run& run, const std::vector<Run>& root_runs);

// Whether any claim of the record needs the other records of its results root.
bool needs_root(const Run& run);

enum class Change { kSame, kFaster, kSlower };
const char* change_name(Change c);
// B against A on device time: FASTER when B's p10-p90 interval lies wholly below A's, SLOWER
// when wholly above, SAME when they overlap. A busy median without its p10-p90 is taken at its
// widest interval (DeviceTime::wide_p10_ns), so a verdict never rests on a spread not recorded.
Change compare_times(const DeviceTime& a, const DeviceTime& b);
// A device time as comparisons print it: "11.952 ms (p10-p90 11.949-11.954 ms)", or the median
// with "(p10-p90 not recorded)", then its basis marker (basis_marker).
std::string device_time_cell(const DeviceTime& t);

}  // namespace attnlab::report
