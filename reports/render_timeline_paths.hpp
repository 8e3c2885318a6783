// The timeline report's section on the work items' critical paths (reports/timeline_paths.hpp):
// how they distribute over every SM's items, and the what-if of each class.
#pragma once

#include <string>

#include "record/timeline.hpp"

namespace attnlab::report {

// `rec` is on the report's time axis, with a decoded block.
std::string paths_section(const TimelineRecord& rec);

}  // namespace attnlab::report
