// Fixed, locale-free number formatting and markdown tables for the reports. Every number a
// report prints goes through here, so the same record always renders to the same bytes.
#pragma once

#include <string>
#include <vector>

namespace attnlab::report {

// `digits` significant digits, trailing zeros kept ("23.00", "3.193", "1024"); values
// below 1e-3 in magnitude in scientific notation ("5.877e-05"). Never locale-dependent.
std::string sig(double v, int digits = 4);
// Scientific notation with 3 significant digits ("1.22e-04"), for errors and tolerances.
std::string sci(double v);
// A percentage with two decimals and the sign "%": "0.20%".
std::string pct(double v);

// Durations in nanoseconds, shown in the unit that keeps 1 <= value < 1000: "46.18 us".
const char* time_unit(double ns);            // "ns", "us", "ms" or "s"
double in_unit(double ns, const char* unit);  // ns converted to that unit
std::string duration(double ns, int digits = 4);
// `ns` in the given unit: duration_in(11949024, "ms", 5) is "11.949 ms".
std::string duration_in(double ns, const char* unit, int digits);
// The fewest significant digits, 4 to 7, at which values that differ also read differently,
// so a tight p10-p90 interval does not print as "11.95-11.95 ms".
int resolving_digits(const std::vector<double>& values);
// A p10-p90 style range in the unit of `ref_ns`, resolved against it: "11.949-11.954 ms".
std::string duration_range(double lo_ns, double hi_ns, double ref_ns);
// "11.952 ms (p10-p90 11.949-11.954 ms)" style: the median and its interval at one resolution.
std::string median_and_range(double median_ns, double lo_ns, double hi_ns);
// A value and its interval at one resolution: "22.997 (22.982-23.002)".
std::string value_and_range(double v, double lo, double hi);
// A stated constant as written, without implied precision: "6.42", "10", "0.5".
std::string plain(double v);
// A number rendered as an integer when it is one ("260"), else sig(v).
std::string count(double v);

// A number with its unit: "ns" renders as a duration, anything else as sig() + " " + unit.
std::string with_unit(double v, const std::string& unit);

// Escapes the characters that would break a markdown table cell.
std::string cell(const std::string& s);
// `s` in inline code, for identifiers and paths.
std::string code(const std::string& s);

// A GitHub-flavoured markdown table; `align` has one of 'l', 'r', 'c' per column.
class Table {
 public:
  Table(std::vector<std::string> header, std::string align);
  void row(std::vector<std::string> cells);  // cells are escaped here
  bool empty() const { return rows_.empty(); }
  std::string str() const;

 private:
  std::vector<std::string> header_;
  std::string align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace attnlab::report
