// Helpers every section of a run's report shares (reports/run/sections.hpp).
#include "reports/run/sections.hpp"

namespace attnlab::report::detail {

std::string fixed_line(const std::string& s) {
  std::string out = s;
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}


std::string pct_of(double v, const std::optional<double>& peak) {
  return peak ? pct(100.0 * v / *peak) : "not known";
}

std::string dims(const std::array<unsigned, 3>& d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

}  // namespace attnlab::report::detail
