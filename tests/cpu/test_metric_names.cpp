// Every counter name of the range-profiler groups is one that CUPTI's profiler host knows for
// GH100 (the H100's chip), asked without a GPU (cuptiProfilerHostGetMetricProperties, CUPTI
// 13.0), so a misspelt or non-existent name fails here rather than on a borrowed H100, where
// the collector would leave it out of the record with a reason.
#include <gtest/gtest.h>

#include <cupti.h>
#include <cupti_profiler_host.h>

#include <string>

#include "profiler/metric_groups.hpp"

using namespace attnlab::profiler;

namespace {

std::string cupti_error(CUptiResult code) {
  const char* s = nullptr;
  cuptiGetResultString(code, &s);
  return s ? s : std::to_string(int(code));
}

class Gh100Host : public ::testing::Test {
 protected:
  void SetUp() override {
    CUpti_Profiler_Host_Initialize_Params p{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = "GH100";
    const CUptiResult code = cuptiProfilerHostInitialize(&p);
    if (code != CUPTI_SUCCESS) GTEST_SKIP() << "CUPTI's profiler host is not usable here: " << cupti_error(code);
    host_ = p.pHostObject;
  }
  void TearDown() override {
    if (!host_) return;
    CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = host_;
    cuptiProfilerHostDeinitialize(&p);
  }
  CUptiResult known(const char* name) {
    CUpti_Profiler_Host_GetMetricProperties_Params q{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    q.pHostObject = host_;
    q.pMetricName = name;
    return cuptiProfilerHostGetMetricProperties(&q);
  }
  CUpti_Profiler_Host_Object* host_ = nullptr;
};

TEST_F(Gh100Host, EveryRangeProfilerMetricNameExistsOnGh100) {
  int checked = 0;
  for (const char* group : {"tensor", "memory", "throughput", "stalls"}) {
    const MetricGroup* g = find_metric_group(group);
    ASSERT_NE(g, nullptr) << group;
    for (const auto& m : g->metrics) {
      EXPECT_EQ(known(m.name), CUPTI_SUCCESS) << group << ": " << m.name << ": " << cupti_error(known(m.name));
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
  // The check can fail: a counter that GH100 lacks, and a made-up name.
  EXPECT_NE(known("sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"), CUPTI_SUCCESS);
  EXPECT_NE(known("sm__cycles_active_bogus.max"), CUPTI_SUCCESS);
}

}  // namespace
