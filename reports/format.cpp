// Number formatting and markdown tables.
#include "reports/format.hpp"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace attnlab::report {
namespace {

std::string printf_double(const char* fmt, int precision, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, precision, v);
  return buf;
}

}  // namespace

std::string sig(double v, int digits) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a < 1e-3) return printf_double("%.*e", digits - 1, v);
  // Decimals so that `digits` significant digits show; rounding may carry into a new digit
  // (9.9996 -> "10.000"), so decide the decimals on the rounded value.
  int magnitude = int(std::floor(std::log10(a)));
  int decimals = std::max(0, digits - 1 - magnitude);
  const double scale = std::pow(10.0, decimals);
  const double rounded = std::round(a * scale) / scale;
  if (int(std::floor(std::log10(rounded))) > magnitude)
    decimals = std::max(0, decimals - 1);
  return printf_double("%.*f", decimals, v);
}

std::string sci(double v) {
  if (v == 0) return "0";
  return printf_double("%.*e", 2, v);
}

std::string pct(double v) { return printf_double("%.*f", 2, v) + "%"; }

const char* time_unit(double ns) {
  const double a = std::fabs(ns);
  if (a >= 1e9) return "s";
  if (a >= 1e6) return "ms";
  if (a >= 1e3) return "us";
  return "ns";
}

double in_unit(double ns, const char* unit) {
  if (std::strcmp(unit, "s") == 0) return ns / 1e9;
  if (std::strcmp(unit, "ms") == 0) return ns / 1e6;
  if (std::strcmp(unit, "us") == 0) return ns / 1e3;
  return ns;
}

std::string duration(double ns, int digits) {
  const char* u = time_unit(ns);
  return sig(in_unit(ns, u), digits) + " " + u;
}

std::string duration_in(double ns, const char* unit, int digits) {
  return sig(in_unit(ns, unit), digits) + " " + unit;
}

int resolving_digits(const std::vector<double>& values) {
  int digits = 4;
  for (; digits < 7; ++digits) {
    bool resolved = true;
    for (std::size_t i = 0; i < values.size() && resolved; ++i)
      for (std::size_t k = i + 1; k < values.size() && resolved; ++k)
        if (values[i] != values[k] && sig(values[i], digits) == sig(values[k], digits)) resolved = false;
    if (resolved) break;
  }
  return digits;
}

std::string duration_range(double lo_ns, double hi_ns, double ref_ns) {
  const char* u = time_unit(ref_ns);
  const int d = resolving_digits({in_unit(lo_ns, u), in_unit(ref_ns, u), in_unit(hi_ns, u)});
  return sig(in_unit(lo_ns, u), d) + "-" + sig(in_unit(hi_ns, u), d) + " " + u;
}

std::string median_and_range(double median_ns, double lo_ns, double hi_ns) {
  const char* u = time_unit(median_ns);
  const int d = resolving_digits({in_unit(lo_ns, u), in_unit(median_ns, u), in_unit(hi_ns, u)});
  return duration_in(median_ns, u, d) + " (" + duration_range(lo_ns, hi_ns, median_ns) + ")";
}

std::string value_and_range(double v, double lo, double hi) {
  const int d = resolving_digits({lo, v, hi});
  return sig(v, d) + " (" + sig(lo, d) + "-" + sig(hi, d) + ")";
}

std::string plain(double v) { return printf_double("%.*g", 10, v); }

std::string count(double v) {
  if (std::fabs(v) < 9e15 && v == std::floor(v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  return sig(v);
}

std::string with_unit(double v, const std::string& unit) {
  if (unit == "ns") return duration(v);
  return unit.empty() ? sig(v) : sig(v) + " " + unit;
}

std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string code(const std::string& s) { return "`" + s + "`"; }

Table::Table(std::vector<std::string> header, std::string align)
    : header_(std::move(header)), align_(std::move(align)) {
  if (align_.size() != header_.size())
    throw std::logic_error("markdown table: one alignment letter per column");
}

void Table::row(std::vector<std::string> cells) {
  if (cells.size() != header_.size()) throw std::logic_error("markdown table: wrong cell count");
  for (auto& c : cells) c = cell(c);
  rows_.push_back(std::move(cells));
}

std::string Table::str() const {
  std::string out = "|";
  for (const auto& h : header_) out += " " + cell(h) + " |";
  out += "\n|";
  for (char a : align_) out += a == 'r' ? "---:|" : a == 'c' ? ":---:|" : "---|";
  out += "\n";
  for (const auto& r : rows_) {
    out += "|";
    for (const auto& c : r) out += " " + c + " |";
    out += "\n";
  }
  return out;
}

}  // namespace attnlab::report
