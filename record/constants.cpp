#include "record/constants.hpp"

namespace attnlab {

extern const char* const kSharedConstantsJson;  // generated from record/constants.json

const ordered_json& shared_constants() {
  static const ordered_json c = ordered_json::parse(kSharedConstantsJson);
  return c;
}

const MetricVocabulary& metric_vocabulary() {
  static const MetricVocabulary v = [] {
    const ordered_json& m = shared_constants().at("metric_vocabulary");
    return MetricVocabulary{m.at("groups").get<std::vector<std::string>>(),
                            m.at("stall_reasons").get<std::vector<std::string>>(),
                            m.at("stall_metric_prefix").get<std::string>(),
                            m.at("stall_metric_suffix").get<std::string>()};
  }();
  return v;
}

}  // namespace attnlab
