// The phase registry: ids unique, every phase judges shapes with a reason, arch checks.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>

#include "common/shapes.hpp"
#include "experiments/harness/registry_table.hpp"
#include "kernels/phase_cudnn.hpp"
#include "kernels/registry.hpp"
#include "tests/gpu_cases.hpp"
#include "tests/phase_lists.hpp"

using namespace attnlab;

namespace {
// A build without cuDNN keeps the cuDNN baselines, refusing every shape (tests/cpu/test_cudnn.cpp
// checks that path); the shape-acceptance tests below are about phases that can run.
bool unbuilt(const Phase& p) { return p.baseline && phase_cudnn::missing_reason(); }
}  // namespace

TEST(Registry, IdsUniqueAndDescribed) {
  std::set<std::string> ids;
  for (const auto& p : phases()) {
    EXPECT_TRUE(ids.insert(p.id).second) << "duplicate phase id " << p.id;
    // A declaration that leaves them out leaves them null (ATTNLAB_PHASE sets only the id).
    ASSERT_NE(p.title, nullptr) << p.id;
    ASSERT_NE(p.technique, nullptr) << p.id;
    EXPECT_STRNE(p.title, "");
    EXPECT_STRNE(p.technique, "");
    EXPECT_FALSE(p.question.empty()) << p.id;
    // One launcher, of the phase's direction.
    EXPECT_EQ(p.launch != nullptr, !is_backward(p)) << p.id;
    EXPECT_EQ(p.launch_backward != nullptr, is_backward(p)) << p.id;
    EXPECT_NE(p.can_implement, nullptr);
    EXPECT_EQ(find_phase(p.id), &p);
  }
  EXPECT_EQ(find_phase("no-such-phase"), nullptr);
  EXPECT_GE(phases().size(), 2u);
}

// The record's FLOPs of a backward run (common/direction.hpp) follow the backward problem's
// convention (kernels/backward_problem.hpp), and a run without the field is forward.
TEST(Registry, BackwardFlopsAgreeWithTheBackwardProblem) {
  for (const char* spec : {"16x16x2048x64", "4x16x4096x128:causal", "1x8x200x64:hkv=2"}) {
    const Shape s = parse_shape(spec);
    EXPECT_EQ(pass_flops(s, Direction::kBackward), backward_flops(s)) << spec;
    EXPECT_EQ(pass_flops(s, Direction::kForward), s.flops()) << spec;
    EXPECT_GT(pass_min_bytes(s, Direction::kBackward), pass_min_bytes(s, Direction::kForward)) << spec;
  }
  EXPECT_EQ(parse_direction("backward"), Direction::kBackward);
  EXPECT_EQ(parse_direction("sideways"), std::nullopt);
}

TEST(Registry, EveryPhaseAcceptsTheSeedShapesAndRefusesBadOnes) {
  // What a phase refuses of these by design (the GPU suite's list, tests/gpu_cases.hpp, says why).
  const std::set<std::pair<std::string, std::string>> by_design = {{"cudnn_fp8", "1x1x1x64"}};
  for (const auto& p : phases()) {
    if (unbuilt(p)) continue;
    for (const char* ok : {"throughput", "latency", "1x1x1x64", "2x3x17x128:causal", "1x4x333x64:hkv=2"})
      if (!by_design.count({p.id, ok})) {
        EXPECT_FALSE(p.can_implement(parse_shape(ok))) << p.id << " refused " << ok;
      }
    Shape bad = parse_shape("1x2x64x96");
    auto why = p.can_implement(bad);
    ASSERT_TRUE(why) << p.id << " accepted D=96";
    EXPECT_FALSE(why->empty());
    Shape bf = parse_shape("1x2x64x64");
    bf.dtype = DType::bf16;
    EXPECT_TRUE(p.can_implement(bf)) << p.id << " accepted bf16";
    Shape grouped = parse_shape("1x6x64x64");
    grouped.H_kv = 4;
    EXPECT_TRUE(p.can_implement(grouped)) << p.id << " accepted H % H_kv != 0";
  }
}

TEST(Registry, HopperOnlyPhasesRefuseOtherGpus) {
  const Phase hopper{"x", "t", "t", 90, nullptr, nullptr, nullptr};
  EXPECT_FALSE(device_refusal(hopper, 9, 0));
  auto why = device_refusal(hopper, 8, 0);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("sm_90a"), std::string::npos);
  EXPECT_TRUE(device_refusal(hopper, 10, 0));
  const Phase any{"y", "t", "t", 0, nullptr, nullptr, nullptr};
  EXPECT_FALSE(device_refusal(any, 8, 0));
  // wgmma/setmaxnreg (5) and clusters with their bulk copies (d4) exist only in sm_90a code: their
  // kernels trap elsewhere, so the registry must make other GPUs refuse them first. Which
  // phases those are follows from their kernel files (tests/phase_lists.hpp), not from a list.
  const auto hopper_only = test::sm90a_phases_by_source(std::string(ATTNLAB_SOURCE_DIR) + "/kernels");
  EXPECT_FALSE(hopper_only.empty());
  for (const auto& id : hopper_only) {
    ASSERT_NE(find_phase(id), nullptr) << id;
    EXPECT_TRUE(device_refusal(*find_phase(id), 8, 9)) << id;
    EXPECT_FALSE(device_refusal(*find_phase(id), 9, 0)) << id;
  }
}

TEST(Registry, QueryTiledPhasesRefuseMoreHeadsThanGridYBlocks) {
  // Phases that put (batch, head) on grid y refuse B*H > 65535 with the reason; the
  // block-per-head phases (one block per head along x) accept it.
  Shape wide = parse_shape("1x65535x64x64");
  EXPECT_FALSE(query_tiled_refusal(wide, "phase t"));
  wide.B = 2;
  auto why = query_tiled_refusal(wide, "phase t");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("65535"), std::string::npos);
  for (const char* id : {"1", "2", "3a", "4", "4x", "d3"})
    EXPECT_TRUE(find_phase(id)->can_implement(wide)) << id << " accepted B*H = 131070";
  for (const char* id : {"d1", "d2"})
    EXPECT_FALSE(find_phase(id)->can_implement(wide)) << id << " refused B*H = 131070";
  EXPECT_TRUE(query_tiled_refusal(parse_shape("1x2x64x96"), "phase t"));
}

// The committed evidence's phase table (reports/h100/records/phases.json, which the report tool
// reads for the progression's order) is the registry's: regenerate it with
// `build/bin/attnlab-phases --json > reports/h100/records/phases.json` when phases change.
TEST(Registry, CommittedPhaseTableMatchesTheRegistry) {
  std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/reports/h100/records/phases.json");
  ASSERT_TRUE(in) << "reports/h100/records/phases.json is missing";
  EXPECT_EQ(ordered_json::parse(in), phase_table_json());
  std::vector<std::string> ids;
  for (const auto& p : phases()) ids.emplace_back(p.id);
  EXPECT_EQ(read_phase_order(std::string(ATTNLAB_SOURCE_DIR) + "/reports/h100/records"), ids);
}

TEST(Registry, GpuSuiteRefusesOnlyTheExpectedShapes) {
  std::set<std::pair<std::string, std::string>> refused;
  for (const auto& p : phases())
    for (const auto& spec : test::gpu_suite_specs())
      if (auto why = p.can_implement(parse_shape(spec)); why && !unbuilt(p)) {
        refused.insert({p.id, spec});
        EXPECT_TRUE(test::expected_refusals().count({p.id, spec}))
            << "phase " << p.id << " refuses " << spec << " (" << *why
            << "), which tests/gpu_cases.hpp does not expect";
      }
  for (const auto& e : test::expected_refusals())
    EXPECT_TRUE(refused.count(e)) << "phase " << e.first << " now runs " << e.second
                                  << ": drop it from expected_refusals()";
}

// A claim's source is where its compared constant comes from, for a reader of the repository:
// a file of the repository (its path before the first ':'), which names the claim by its id
// (kernels/SEEDS.md for the seed series' figures, kernels/TARGETS.md for the lab's targets).
TEST(Registry, EveryClaimSourceCitesAFileOfTheRepositoryThatNamesTheClaim) {
  int cited = 0;
  for (const auto& p : phases())
    for (const auto& c : p.claims) {
      if (c.source.empty()) continue;
      const auto colon = c.source.find(':');
      ASSERT_NE(colon, std::string::npos) << p.id << " " << c.id << ": \"" << c.source
                                          << "\" does not start with a file and ':'";
      const std::string path = c.source.substr(0, colon);
      EXPECT_TRUE(path.find("..") == std::string::npos && path.front() != '/')
          << p.id << " " << c.id << ": " << path << " is not a path inside the repository";
      std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/" + path);
      ASSERT_TRUE(in) << p.id << " " << c.id << ": " << path << " is no file of the repository";
      const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      EXPECT_NE(text.find("`" + c.id + "`"), std::string::npos)
          << p.id << " " << c.id << ": " << path << " does not name the claim `" << c.id << "`";
      ++cited;
    }
  EXPECT_GT(cited, 0);
}

// Phase 5lse is phase 5's kernels with the LSE written beside O: the same work items, scratch and
// launch geometry at every shape, and a launch without Problem::lse is refused before any driver
// call. It alone among the forward phases emits the LSE.
TEST(Registry, Phase5lseIsPhase5WithTheLse) {
  const Phase* p5 = find_phase("5");
  const Phase* lse = find_phase("5lse");
  ASSERT_NE(p5, nullptr);
  ASSERT_NE(lse, nullptr);
  EXPECT_TRUE(lse->emits_lse);
  EXPECT_FALSE(p5->emits_lse);
  EXPECT_EQ(lse_phase_ids(), "5lse");
  for (const char* spec : {"1x9x2048x128", "1x9x1024x128", "16x16x2048x64:causal", "2x3x1000x64",
                           "1x6x8192x128:hkv=2", "2x3x333x128:causal"}) {
    const Shape s = parse_shape(spec);
    EXPECT_EQ(lse->can_implement(s), p5->can_implement(s)) << spec;
    EXPECT_EQ(workspace_bytes(*lse, s), workspace_bytes(*p5, s)) << spec;
    EXPECT_EQ(lse->work_items(s, 132), p5->work_items(s, 132)) << spec;
    const auto a = lse->launch_geometry(s, 132), b = p5->launch_geometry(s, 132);
    ASSERT_TRUE(a && b) << spec;
    EXPECT_EQ(a->grid.x, b->grid.x) << spec;
    EXPECT_EQ(a->block.x, b->block.x) << spec;
    EXPECT_EQ(a->dynamic_smem_bytes, b->dynamic_smem_bytes) << spec;
  }
  const Shape s = parse_shape("1x9x2048x128");
  int scratch = 0;
  Problem p{s};
  p.workspace = &scratch;
  p.workspace_bytes = workspace_bytes(*lse, s);
  try {
    lse->launch(p, nullptr);
    FAIL() << "launched without an LSE buffer";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("need Problem::lse"), std::string::npos) << e.what();
  }
}

// Phase 5's scratch (its scheduler's counter, the key split's partials and flags) comes from the
// caller: it declares the size, larger where the launch splits items over keys, and its launch
// refuses a missing or short workspace before any driver call (so this runs without a GPU).
TEST(Registry, Phase5TakesItsScratchFromTheCaller) {
  const Phase* p5 = find_phase("5");
  ASSERT_NE(p5, nullptr);
  const Shape split = parse_shape("1x9x2048x128");  // D = 128 without the mask, S >= 2048
  const Shape whole = parse_shape("1x9x1024x128");  // items too short to split
  EXPECT_GT(workspace_bytes(*p5, whole), 0u);       // the dynamic scheduler's counter
  EXPECT_GT(workspace_bytes(*p5, split), workspace_bytes(*p5, whole));
  EXPECT_EQ(workspace_bytes(*find_phase("4"), split), 0u);  // a phase without scratch
  Problem p{split};
  try {
    p5->launch(p, nullptr);
    FAIL() << "launched without a workspace";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs a zeroed workspace of " +
                                         std::to_string(workspace_bytes(*p5, split)) + " bytes"),
              std::string::npos)
        << e.what();
  }
  int scratch = 0;
  p.workspace = &scratch;
  p.workspace_bytes = workspace_bytes(*p5, split) - 1;
  EXPECT_THROW(p5->launch(p, nullptr), std::invalid_argument);
}

// Phase b5's workspace holds the split last round's fp32 sums (dK and dV of a tile's 128 keys,
// for as many tiles as a launch can split, at most 256) only where a launch can split: never
// under the causal mask (kernels/phase_b5_wgmma.cu, tile_plan).
TEST(Registry, PhaseB5HoldsTheSplitRoundsSumsOnlyWithoutTheMask) {
  const Phase* b5 = find_phase("b5");
  ASSERT_NE(b5, nullptr);
  auto sums = [&](const char* spec) {
    const Shape s = parse_shape(spec);
    Shape masked = s;
    masked.causal = true;
    return workspace_bytes(*b5, s) - workspace_bytes(*b5, masked);
  };
  EXPECT_EQ(sums("4x16x4096x128"), std::size_t(256) * 2 * 128 * 128 * sizeof(float));  // 2048 tiles
  EXPECT_EQ(sums("1x2x200x64"), std::size_t(4) * 2 * 128 * 64 * sizeof(float));        // 2 tiles a head
}

namespace {
// Whether two launch geometries are the same launch (a phase that picks another's kernel
// launches exactly that kernel's grid, block, cluster and shared memory).
bool same_launch(const LaunchGeometry& a, const LaunchGeometry& b) {
  return a.grid.x == b.grid.x && a.grid.y == b.grid.y && a.grid.z == b.grid.z && a.block.x == b.block.x &&
         a.cluster.x == b.cluster.x && a.dynamic_smem_bytes == b.dynamic_smem_bytes;
}
}  // namespace

// Phase d5 launches d4's kernel or phase 5's by the size of phase 5's grid: its launch geometry
// (what it launches on a GPU of that many SMs) is one of theirs, d4's where phase 5's work items
// number fewer than half the SMs, phase 5's from there on.
TEST(Registry, D5LaunchesD4OrPhase5ByTheGrid) {
  const Phase* d5 = find_phase("d5");
  const Phase* d4 = find_phase("d4");
  const Phase* p5 = find_phase("5");
  ASSERT_TRUE(d5 && d4 && p5);
  int to_d4 = 0, to_5 = 0;
  for (int sms : {78, 132})
    for (const auto& spec : expand_shape_specs({"@latency-sweep"})) {
      const Shape s = parse_shape(spec);
      const auto g = d5->launch_geometry(s, sms);
      ASSERT_TRUE(g) << spec;
      const std::int64_t items = *p5->work_items(s, sms);
      const bool five = 2 * items >= sms;
      const auto want = (five ? p5 : d4)->launch_geometry(s, sms);
      EXPECT_TRUE(same_launch(*g, *want)) << spec << " at " << sms << " SMs: expected "
                                          << (five ? "phase 5's" : "d4's") << " launch";
      ++(five ? to_5 : to_d4);
      EXPECT_EQ(workspace_bytes(*d5, s), workspace_bytes(*p5, s)) << spec;
    }
  // The sweep exercises both sides of the rule; the latency shape stays with d4 on an H100.
  EXPECT_GT(to_d4, 0);
  EXPECT_GT(to_5, 0);
  const auto latency = d5->launch_geometry(parse_shape("latency"), 132);
  EXPECT_TRUE(same_launch(*latency, *d4->launch_geometry(parse_shape("latency"), 132)));
}

// Phase f8d launches f8v's kernel (V turned in shared memory) while the keys a row sees times D
// times the GQA group are at most 131072, f8's pre-pass and kernel from there on: its launch
// geometry and workspace are the picked phase's (f8's workspace holds V^T, f8v's does not).
TEST(Registry, F8dTakesF8vOrF8ByLength) {
  const Phase* f8d = find_phase("f8d");
  const Phase* f8 = find_phase("f8");
  const Phase* f8v = find_phase("f8v");
  ASSERT_TRUE(f8d && f8 && f8v);
  int to_v = 0, to_pre = 0;
  std::vector<std::string> specs = expand_shape_specs({"@fa3-sweep"});
  for (const char* gqa : {"1x32x512x64:hkv=8", "1x32x1000x128:causal:hkv=8", "2x16x333x128:hkv=16"})
    specs.push_back(gqa);
  for (const auto& spec : specs) {
    const Shape s = parse_shape(spec);
    const std::int64_t keys = s.causal ? (s.S + 1) / 2 : s.S;
    const bool in_kernel = keys * s.D * (s.H / s.H_kv) <= 131072;
    const Phase& want = in_kernel ? *f8v : *f8;
    const auto g = f8d->launch_geometry(s, 132);
    ASSERT_TRUE(g) << spec;
    EXPECT_TRUE(same_launch(*g, *want.launch_geometry(s, 132))) << spec << ": expected " << want.id << "'s launch";
    EXPECT_EQ(workspace_bytes(*f8d, s), workspace_bytes(want, s)) << spec;
    ++(in_kernel ? to_v : to_pre);
  }
  EXPECT_GT(to_v, 0);
  EXPECT_GT(to_pre, 0);
  // The two paths differ in what a launch needs, so the checks above can tell them apart.
  const Shape long_s = parse_shape("4x16x4096x128"), short_s = parse_shape("32x16x512x128");
  EXPECT_GT(workspace_bytes(*f8d, long_s), workspace_bytes(*f8v, long_s));
  EXPECT_EQ(workspace_bytes(*f8d, short_s), workspace_bytes(*f8v, short_s));
  EXPECT_NE(f8->launch_geometry(short_s, 132)->dynamic_smem_bytes, f8v->launch_geometry(short_s, 132)->dynamic_smem_bytes);
}

// The FLOPs the timeline's tensor pipe gives a warp's QK^T and PV issue span: its 16 of the
// warpgroup's 64 rows against one K/V tile, 2 x 16 x keys x D, at the tile the launch picks
// (phase 5: 128 keys, 176 for D = 128 past S = 4096; d4: 128 at D = 64 in a cluster of at most
// two key warpgroups, else 64). Every instrumented phase declares it.
TEST(Registry, TheTimelinesIssueSpansCarryTheirTilesFlops) {
  for (const auto& p : phases()) {
    if (p.launch_timeline) {
      EXPECT_NE(p.tensor_issue_work, nullptr) << p.id;
    }
  }
  const auto flops = [](const char* id, const char* shape) {
    const Phase* p = find_phase(id);
    EXPECT_NE(p, nullptr) << id;
    const auto w = p && p->tensor_issue_work ? p->tensor_issue_work(parse_shape(shape), 132) : std::nullopt;
    EXPECT_TRUE(w) << id << " at " << shape;
    if (w) {
      EXPECT_EQ(w->qk_flops, w->pv_flops) << id << " at " << shape;
    }
    return w ? w->qk_flops : 0.0;
  };
  EXPECT_EQ(flops("5", "throughput"), 2.0 * 16 * 128 * 64);
  EXPECT_EQ(flops("5", "16x16x2048x64:causal"), 2.0 * 16 * 128 * 64);
  EXPECT_EQ(flops("5", "4x16x4096x128"), 2.0 * 16 * 128 * 128);
  EXPECT_EQ(flops("5", "2x16x8192x128"), 2.0 * 16 * 176 * 128);
  EXPECT_EQ(flops("d4", "latency"), 2.0 * 16 * 128 * 64);
  EXPECT_EQ(flops("d4", "1x8x1024x64"), 2.0 * 16 * 64 * 64);        // four key warpgroups
  EXPECT_EQ(flops("d4", "1x32x512x64:hkv=8"), 2.0 * 16 * 64 * 64);  // no cluster
  EXPECT_EQ(flops("d4", "1x8x512x128"), 2.0 * 16 * 64 * 128);
  EXPECT_FALSE(find_phase("5")->tensor_issue_work(parse_shape("1x2x64x96"), 132)) << "a shape phase 5 refuses";
}
