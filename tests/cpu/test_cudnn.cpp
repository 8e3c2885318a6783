// The cudnn baseline phase without a GPU: its static refusals, the message of a build without
// cuDNN, cuDNN statuses turned into one-line errors, and the versions it records.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "common/shapes.hpp"
#include "kernels/phase_cudnn.hpp"
#include "kernels/phase_cudnn_bwd.hpp"
#include "kernels/registry.hpp"
#include "record/provenance.hpp"

#if ATTNLAB_HAVE_CUDNN
#include <cudnn_version.h>

#include "kernels/cudnn_check.hpp"
#include "kernels/cudnn_graph.hpp"
#endif

using namespace attnlab;

namespace {

// A cuDNN baseline takes `s` where cuDNN is built in and refuses D = 96 naming itself ("phase
// <id>"); without cuDNN it refuses every shape for that reason.
void expect_runs_or_refuses_by_name(const Phase& c, const Shape& s) {
  if (phase_cudnn::missing_reason()) {
    EXPECT_EQ(c.can_implement(s)->rfind("built without cuDNN: ", 0), 0u);
    return;
  }
  EXPECT_FALSE(c.can_implement(s));
  const auto d96 = c.can_implement(parse_shape("1x2x64x96"));
  ASSERT_TRUE(d96);
  EXPECT_NE(d96->find(std::string("phase ") + c.id), std::string::npos) << *d96;
}

}  // namespace

TEST(Cudnn, OnlyTheCudnnPhasesAreBaselines) {
  for (const auto& p : phases())
    EXPECT_EQ(p.baseline, std::string(p.id) == "cudnn" || std::string(p.id) == "cudnn_fp8" ||
                              std::string(p.id) == "cudnn_bwd")
        << p.id;
  for (const char* id : {"cudnn", "cudnn_fp8", "cudnn_bwd"}) {
    const Phase* c = find_phase(id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_NE(c->prepare, nullptr) << id;  // the plan is built outside the timed region
    EXPECT_EQ(c->required_cc, 0) << id;    // cuDNN itself judges the GPU, at prepare time
  }
}

// The FP8 baseline reads e4m3 codes with their descales, writes its e4m3 O into the caller's
// workspace (then the fp16 output), and refuses by its own name.
TEST(Cudnn, TheFp8BaselineReadsE4m3AndNeedsItsOutputsWorkspace) {
  const Phase* c = find_phase("cudnn_fp8");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->input_format, InputFormat::kE4m3);
  const Shape s = parse_shape("2x4x513x128:causal:hkv=2");
  EXPECT_GE(workspace_bytes(*c, s), std::size_t(s.q_elems()));  // one byte per element of O
  EXPECT_EQ(workspace_bytes(*c, s) % 256, 0u);
  const Phase* fp16 = find_phase("cudnn");
  EXPECT_EQ(fp16->input_format, InputFormat::kFp16);
  expect_runs_or_refuses_by_name(*c, s);
}

// The backward baseline launches through launch_backward, takes its fp32 softmax_sum and dQ
// accumulator from the caller's workspace, and refuses by its own name.
TEST(Cudnn, TheBackwardBaselineIsBackwardAndNeedsItsAccumulatorsWorkspace) {
  const Phase* c = find_phase("cudnn_bwd");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(is_backward(*c));
  EXPECT_EQ(c->launch, nullptr);
  EXPECT_NE(c->launch_backward, nullptr);
  const Shape s = parse_shape("2x4x513x128:causal:hkv=2");
  EXPECT_GE(workspace_bytes(*c, s), std::size_t(s.q_elems() + 2 * 4 * 513) * sizeof(float));
  expect_runs_or_refuses_by_name(*c, s);
}

// The phase runs the frontend's graph (softmax_sum through the MUL by 1, dQ through the fp32
// accumulator); the probe's other choices differ from it in one node each, and a choice past
// the list is refused by name rather than read out of bounds.
TEST(Cudnn, TheBackwardBaselineRunsTheFrontendsGraphAndNamesItsOtherChoices) {
  const auto& choices = phase_cudnn_bwd::graph_choices();
  ASSERT_GE(choices.size(), 2u);
  EXPECT_EQ(choices[0].name, "frontend");
  EXPECT_TRUE(choices[0].sum_times_one);
  EXPECT_TRUE(choices[0].dq_accumulator);
  for (std::size_t i = 1; i < choices.size(); ++i) {
    EXPECT_TRUE(!choices[i].sum_times_one || !choices[i].dq_accumulator) << choices[i].name;
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(choices[i].name, choices[j].name);
  }
  const Shape s = parse_shape("1x2x64x64");
  EXPECT_EQ(phase_cudnn_bwd::workspace_bytes(s), phase_cudnn_bwd::sum_bytes(s) + std::size_t(s.q_elems()) * sizeof(float));
  try {
    phase_cudnn_bwd::prepare_choice(s, choices.size());
    ADD_FAILURE() << "a choice past the list was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("phase cudnn_bwd"), std::string::npos) << e.what();
  }
}

TEST(Cudnn, BuiltWithoutCudnnRefusesEveryShapeWithTheReason) {
  for (const char* spec : {"throughput", "1x1x1x64", "2x3x17x128:causal"}) {
    const auto why = phase_cudnn::static_refusal(parse_shape(spec), std::string("no cudnn_backend.h in /x"));
    ASSERT_TRUE(why) << spec;
    EXPECT_EQ(*why, "built without cuDNN: no cudnn_backend.h in /x");
  }
}

TEST(Cudnn, RefusesWhatTheLabDoesNotRunWithoutAGpu) {
  const std::optional<std::string> have;  // this build's cuDNN is present
  for (const char* ok : {"throughput", "latency", "1x1x1x64", "4x16x4096x128:causal", "1x8x200x128:hkv=2"})
    EXPECT_FALSE(phase_cudnn::static_refusal(parse_shape(ok), have)) << ok;
  const auto d96 = phase_cudnn::static_refusal(parse_shape("1x2x64x96"), have);
  ASSERT_TRUE(d96);
  EXPECT_NE(d96->find("head dim 64 and 128"), std::string::npos) << *d96;
  Shape bf = parse_shape("1x2x64x64");
  bf.dtype = DType::bf16;
  EXPECT_TRUE(phase_cudnn::static_refusal(bf, have));
  Shape grouped = parse_shape("1x6x64x64");
  grouped.H_kv = 4;
  EXPECT_TRUE(phase_cudnn::static_refusal(grouped, have));
}

TEST(Cudnn, CanImplementFollowsTheBuild) {
  const Phase* c = find_phase("cudnn");
  ASSERT_NE(c, nullptr);
  const auto why = c->can_implement(parse_shape("latency"));
  if (const auto missing = phase_cudnn::missing_reason()) {
    ASSERT_TRUE(why);
    EXPECT_EQ(*why, "built without cuDNN: " + *missing);
    EXPECT_FALSE(phase_cudnn::versions());
  } else {
    EXPECT_FALSE(why) << *why;
    EXPECT_TRUE(phase_cudnn::versions());
  }
}

TEST(Cudnn, VersionsGoToTheRecordOnlyWhenSet) {
  Provenance p;
  EXPECT_FALSE(to_json(p)["versions"].contains("cudnn"));  // older records and our kernels
  EXPECT_FALSE(to_json(p)["versions"].contains("cudnn_header"));
  p.versions.cudnn = 91900;
  p.versions.cudnn_header = 91400;
  const auto v = to_json(p)["versions"];
  EXPECT_EQ(v["cudnn"], 91900);
  EXPECT_EQ(v["cudnn_header"], 91400);
}

#if ATTNLAB_HAVE_CUDNN
TEST(Cudnn, VersionsAreTheLoadedLibraryAndTheHeaders) {
  const auto v = phase_cudnn::versions();
  ASSERT_TRUE(v);
  EXPECT_EQ(v->header, CUDNN_VERSION);
  EXPECT_EQ(v->loaded / 10000, std::size_t(CUDNN_MAJOR));  // the RPATH found the same major
  EXPECT_GE(v->loaded, std::size_t(CUDNN_VERSION));          // and no older release of it
}

// cuDNN runs what was built against its own or an earlier release: a later library is fine, an
// older one of the same major version or another major version is refused with both versions.
TEST(Cudnn, AnOlderLoadedReleaseThanTheHeadersIsAProblem) {
  EXPECT_EQ(cudnn_graph::loaded_version_problem(91900, 91900), "");
  EXPECT_EQ(cudnn_graph::loaded_version_problem(92000, 91900), "");
  EXPECT_EQ(cudnn_graph::loaded_version_problem(91400, 91900),
            "was built against cuDNN 9.19.0 but loaded 9.14.0, an older release than its headers: "
            "put 9.19.0 or a later 9.x first on the library path");
  EXPECT_EQ(cudnn_graph::loaded_version_problem(81000, 91900), "was built against cuDNN 9.19.0 but loaded 8.10.0");
  EXPECT_EQ(cudnn_graph::loaded_version_problem(100000, 91900), "was built against cuDNN 9.19.0 but loaded 10.0.0");
}

TEST(Cudnn, AStatusBecomesOneLineWithItsNameAndCudnnsReason) {
  const std::string m = cudnn_error_message(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN,
                                            "cudnnBackendFinalize(plan)", "phase_cudnn.cpp", 42,
                                            one_line("no engine\nfor this pattern\n"));
  EXPECT_EQ(m, "phase_cudnn.cpp:42: cudnnBackendFinalize(plan) failed: "
               "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN (no engine; for this pattern)");
  EXPECT_EQ(cudnn_error_message(CUDNN_STATUS_BAD_PARAM, "f()", "x.cpp", 1, ""),
            "x.cpp:1: f() failed: CUDNN_STATUS_BAD_PARAM");
}

TEST(Cudnn, OnlyTheNotSupportedFamilyIsADecline) {
  // A decline becomes a refusal (exit 2); a bad call is a failure of ours.
  EXPECT_TRUE(CudnnError(CUDNN_STATUS_NOT_SUPPORTED, "f()", "x", 1).not_supported());
  EXPECT_TRUE(CudnnError(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN, "f()", "x", 1).not_supported());
  EXPECT_TRUE(CudnnError(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, "f()", "x", 1).not_supported());
  EXPECT_FALSE(CudnnError(CUDNN_STATUS_BAD_PARAM, "f()", "x", 1).not_supported());
  EXPECT_FALSE(CudnnError(CUDNN_STATUS_INTERNAL_ERROR, "f()", "x", 1).not_supported());
  EXPECT_FALSE(CudnnError(CUDNN_STATUS_EXECUTION_FAILED, "f()", "x", 1).not_supported());
}

TEST(Cudnn, ACheckedCallThrowsWithTheCallAndStatus) {
  try {
    ATTNLAB_CUDNN_CHECK(cudnnBackendFinalize(nullptr));  // a null descriptor: refused on the host
    FAIL() << "no throw";
  } catch (const CudnnError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cudnnBackendFinalize(nullptr) failed: CUDNN_STATUS_BAD_PARAM"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}
#endif
