#!/bin/sh
# One statistics library, common/stats.hpp, below record/ and profiler/: percentiles, medians,
# summaries, the bootstrap and the stopping rule are defined there and nowhere else, so a report,
# a decoder or a record never computes a figure by a rule of its own. Greps the C++ and CUDA
# sources outside common/stats.* for the definition of a function whose name says it computes
# one of them (median, percentile, quantile, mean, stdev, variance, bootstrap), and the Python
# sources for such a def; calls of the library's functions are left alone, and so are the tests,
# whose own small references check the library.
# Usage: stats_in_common.sh <source root>. Exit 1, listing each offending line, when one is found.
root=${1:?usage: stats_in_common.sh <source root>}
cd "$root" || exit 2
names='[A-Za-z_]*(median|percentile|quantile|mean|stdev|variance|bootstrap)[A-Za-z_]*'
cxx="^[[:space:]]*((static|inline|constexpr)[[:space:]]+)*(double|float|auto|std::vector<double>)[[:space:]]+$names[[:space:]]*\\("
py="^[[:space:]]*def[[:space:]]+$names[[:space:]]*\\("
found=$( {
  grep -rnE "$cxx" --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' \
       common record profiler kernels experiments reports
  grep -rnE "$py" --include='*.py' experiments scripts
} 2>/dev/null | grep -vE '^common/stats\.(hpp|cpp):')
if [ -n "$found" ]; then
  echo "a statistic defined outside common/stats (call stats:: there instead):"
  echo "$found"
  exit 1
fi
echo "statistics are defined only in common/stats"
