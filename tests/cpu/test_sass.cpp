// Static evidence: the cuobjdump -sass and ptxas -v parsers on committed fixtures, with exact
// counts per kernel (every predicated branch form included), and the record's static block.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "profiler/sass.hpp"
#include "profiler/sass_order.hpp"
#include "record/record.hpp"

using namespace attnlab;
using namespace attnlab::sass;

namespace {

std::string fixture(const std::string& name) {
  const std::filesystem::path p = std::filesystem::path(ATTNLAB_FIXTURES_DIR) / name;
  std::ifstream in(p);
  EXPECT_TRUE(in) << "cannot read " << p;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* const kD2 = "_Z13d2_branchlessPK6__halfS1_S1_PS_f";
const char* const kWmma =
    "_ZN7attnlab7phase4x48_GLOBAL__N__7f3c2a10_15_phase4x_wmma_cu_5d2e8a0116attention_"
    "kernelILi64EEEvPK6__halfS5_S5_PS3_iiifb";
const char* const kWgmma =
    "_ZN7attnlab6phase523fwd_wgmma_tma_kernelILi64EEEvK14CUtensorMap_stS3_S3_P6__halfiiif";
const char* const kFlush =
    "_ZN7attnlab8profiler46_GLOBAL__N__0c1d5e77_11_l2_flush_cu_4e6a9b2112flush_kernelEPjm";
const char* const kPhase4 =
    "_ZN7attnlab6phase448_GLOBAL__N__2539f41f_15_phase4_tiled_cu_a008196016attention_"
    "kernelILi64EEEvPK6__halfS5_S5_PS3_iiifb";

const Function& function(const std::vector<Function>& fs, const std::string& name,
                         const std::string& arch) {
  for (const auto& f : fs)
    if (f.name == name && f.arch == arch) return f;
  ADD_FAILURE() << "no function " << name << " for " << arch;
  static const Function none{};
  return none;
}

Listing fixture_listing() {
  Listing l;
  l.available = true;
  l.tool = "cuobjdump -sass";
  l.binary = "fixture";
  l.text = fixture("sm90a-kernels.sass");
  return l;
}

}  // namespace

TEST(Sass, ListsEveryFunctionOfEveryElfWithItsArchitecture) {
  const auto fs = parse_cuobjdump_sass(fixture("sm90a-kernels.sass"));
  ASSERT_EQ(fs.size(), 5u);
  EXPECT_EQ(fs[0].name, kD2);
  EXPECT_EQ(fs[0].arch, "sm_90a");
  EXPECT_EQ(fs[1].name, kWmma);
  EXPECT_EQ(fs[1].arch, "sm_80");
  EXPECT_EQ(fs[2].name, kWmma);
  EXPECT_EQ(fs[2].arch, "sm_90a");
  EXPECT_EQ(fs[3].name, kWgmma);
  EXPECT_EQ(fs[4].name, kFlush);
}

// The seed's d2 kernel "had 4 branches": it counted @P and unpredicated ones and missed @!P.
TEST(Sass, CountsEveryBranchFormAndLocalMemoryOfTheBranchlessKernel) {
  const auto c = function(parse_cuobjdump_sass(fixture("sm90a-kernels.sass")), kD2, "sm_90a").counts;
  EXPECT_EQ(c.instructions, 49);
  EXPECT_EQ(c.bra.total, 6);
  EXPECT_EQ(c.bra.not_p, 3);  // @!P1, @!P3, @!P0
  EXPECT_EQ(c.bra.p, 1);
  EXPECT_EQ(c.bra.unpredicated, 2);
  EXPECT_EQ(c.bra.self_loop, 1);
  EXPECT_EQ(c.bra.pt, 0);
  EXPECT_EQ(c.bra.not_pt, 0);  // its @!PT guards an LDS, not a branch
  EXPECT_EQ(c.bra.predicate_operand, 0);
  EXPECT_EQ(c.ldl, 3);  // LDL, LDL.64, LDL.128; LDS is not local memory
  EXPECT_EQ(c.stl, 3);  // STL, STL.64, STL.128; STS is not
  EXPECT_EQ(c.bar, 2);  // BAR.SYNC twice; MEMBAR and DEPBAR are not barriers of the CTA
  EXPECT_EQ(c.hmma, 0);
  EXPECT_EQ(c.hgmma, 0);
}

TEST(Sass, CountsMmaSyncPerArchitecture) {
  const auto fs = parse_cuobjdump_sass(fixture("sm90a-kernels.sass"));
  const auto hopper = function(fs, kWmma, "sm_90a").counts;
  EXPECT_EQ(hopper.instructions, 42);
  EXPECT_EQ(hopper.hmma, 8);
  EXPECT_EQ(hopper.bar, 3);
  EXPECT_EQ(hopper.ldl + hopper.stl, 0);  // LDSM, LDGSTS, LDGDEPBAR are not local memory
  EXPECT_EQ(hopper.bra.total, 3);
  EXPECT_EQ(hopper.bra.not_p, 1);
  EXPECT_EQ(hopper.bra.p, 1);
  EXPECT_EQ(hopper.bra.unpredicated, 1);
  EXPECT_EQ(hopper.bra.self_loop, 1);
  const auto ampere = function(fs, kWmma, "sm_80").counts;
  EXPECT_EQ(ampere.instructions, 40);
  EXPECT_EQ(ampere.hmma, 6);
}

TEST(Sass, CountsWgmmaTmaAndUniformBranches) {
  const auto c = function(parse_cuobjdump_sass(fixture("sm90a-kernels.sass")), kWgmma, "sm_90a").counts;
  EXPECT_EQ(c.instructions, 45);
  EXPECT_EQ(c.hgmma, 5);    // four from shared memory, one with A from registers
  EXPECT_EQ(c.hmma, 0);
  EXPECT_EQ(c.utmaldg, 2);  // UTMACCTL.PF is a prefetch control, not a load
  EXPECT_EQ(c.ublkcp, 1);
  EXPECT_EQ(c.bar, 2);      // BAR.SYNC and BAR.ARV; UCGABAR_*, WARPGROUP.DEPBAR are not
  EXPECT_EQ(c.bra.total, 4);
  EXPECT_EQ(c.bra.not_p, 1);
  EXPECT_EQ(c.bra.p, 1);
  EXPECT_EQ(c.bra.unpredicated, 2);
  EXPECT_EQ(c.bra.predicate_operand, 1);  // BRA.U UP0, ...: conditional without a guard
  EXPECT_EQ(c.bra.self_loop, 1);          // printed "BRA 0x2a0;", no space before ';'
}

TEST(Sass, CountsHfma2MmaApartFromOtherHalfPrecisionFmas) {
  // As ptxas writes them for sm_90: a constant moved with HFMA2.MMA, fp16x2 math with and
  // without the .MMA form.
  const std::string listing =
      "\tcode for sm_90a\n"
      "\t\tFunction : k\n"
      "        /*0000*/                   HFMA2.MMA R5, -RZ, RZ, 0, 1.78e-07 ;\n"
      "        /*0010*/                   HFMA2.MMA.RELU R6, R2, R3, -RZ ;\n"
      "        /*0020*/                   HFMA2 R7, R2, R3, R4 ;\n"
      "        /*0030*/                   HFMA2.BF16_V2 R8, R2, R3, -RZ ;\n"
      "        /*0040*/                   EXIT ;\n";
  const auto fs = parse_cuobjdump_sass(listing);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].counts.hfma2_mma, 2);
  EXPECT_EQ(fs[0].counts.hmma, 0);
  EXPECT_EQ(fs[0].counts.instructions, 5);
}

TEST(Sass, GuardFormsAndWhatIsNotAnInstruction) {
  const std::string listing =
      "\tcode for sm_90a\n"
      "\t\tFunction : k\n"
      "\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
      "        /*0000*/               @PT BRA 0x40 ;     /* 0x0000003000007947 */\n"
      "                                                  /* 0x000fea0003800000 */\n"
      "        /*0010*/              @!PT BRA 0x40 ;     /* 0x000000200000f947 */\n"
      "        /*0020*/              @UP1 BRA 0x40 ;\n"
      "        /*0030*/             @!UP2 BRA.U !UP0, 0x40 ;\n"
      "        /*0040*/                   EXIT ;\n"
      "        /*0050*/                   BRA 0x50;\n"
      "\t\t..........\n"
      "        /*0060*/                   BRA 0x60;\n";  // outside any function: ignored
  const auto fs = parse_cuobjdump_sass(listing);
  ASSERT_EQ(fs.size(), 1u);
  const auto& b = fs[0].counts.bra;
  EXPECT_EQ(fs[0].counts.instructions, 6);
  EXPECT_EQ(b.total, 5);
  EXPECT_EQ(b.pt, 1);
  EXPECT_EQ(b.not_pt, 1);
  EXPECT_EQ(b.up, 1);
  EXPECT_EQ(b.not_up, 1);
  EXPECT_EQ(b.predicate_operand, 1);
  EXPECT_EQ(b.unpredicated, 1);
  EXPECT_EQ(b.self_loop, 1);
}

// The tally the A/B scripts print per kernel (attnlab-ncu-import sass): of the Ampere and
// Hopper builds of one kernel, the Hopper one's counts alone.
TEST(SassTally, CountsTheOpcodesTheNotesFollowPerKernel) {
  EXPECT_EQ(opcode_tally_lines(fixture("sm90a-kernels.sass"), "cur"),
            "cur _Z13d2_branchlessPK6__halfS1_S1_PS_f n=49 uniform=1 R2UR=0 BSSY=1 WARPSYNC=1 HGMMA=0 "
            "QGMMA=0 UTMALDG=0 EX2=0 LDL+STL=6\n"
            "cur _ZN7attnlab6phase523fwd_wgmma_tma_kernelILi64 n=45 uniform=10 R2UR=1 BSSY=0 WARPSYNC=0 "
            "HGMMA=5 QGMMA=0 UTMALDG=2 EX2=1 LDL+STL=0\n"
            "cur _ZN7attnlab7phase4x48_GLOBAL__N__7f3c2a10_15_phase4x_wmma_cu_5d2e8a0116attention_kernelILi64 "
            "n=42 uniform=1 R2UR=0 BSSY=0 WARPSYNC=0 HGMMA=0 QGMMA=0 UTMALDG=0 EX2=1 LDL+STL=0\n"
            "cur _ZN7attnlab8profiler46_GLOBAL__N__0c1d5e77_11_l2_flush_cu_4e6a9b2112flush_kernelEPjm n=14 "
            "uniform=1 R2UR=0 BSSY=0 WARPSYNC=0 HGMMA=0 QGMMA=0 UTMALDG=0 EX2=0 LDL+STL=0\n");
  EXPECT_EQ(opcode_tally_lines(fixture("sm90a-kernels.sass"), "cur", true),
            "cur HGMMA=0 QGMMA=0 UTMALDG=0 LDL+STL=6\ncur HGMMA=5 QGMMA=0 UTMALDG=2 LDL+STL=0\n"
            "cur HGMMA=0 QGMMA=0 UTMALDG=0 LDL+STL=0\ncur HGMMA=0 QGMMA=0 UTMALDG=0 LDL+STL=0\n");
}

TEST(SassTally, CountsE4m3WgmmaUniformOpsAndExactR2ur) {
  const std::string listing =
      "\tcode for sm_90a\n"
      "\t\tFunction : k\n"
      "        /*0000*/                   QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ;\n"
      "        /*0010*/              @!UP0 UTMALDG.2D [UR8], [UR10] ;\n"
      "        /*0020*/                   UMOV UR4, 0x400 ;\n"
      "        /*0030*/                   R2UR UR5, R3 ;\n"
      "        /*0040*/                   R2UR.FILL UR6, R4 ;\n"
      "        /*0050*/                   MUFU.EX2 R5, R5 ;\n"
      "        /*0060*/                   MUFU.RCP R6, R6 ;\n"
      "        /*0070*/                   EXIT ;\n";
  const OpcodeTally t = opcode_tally(parse_cuobjdump_sass(listing).at(0));
  EXPECT_EQ(t.instructions, 8);
  EXPECT_EQ(t.qgmma, 1);
  EXPECT_EQ(t.hgmma, 0);
  EXPECT_EQ(t.utmaldg, 1);
  EXPECT_EQ(t.uniform, 1);  // UMOV; the TMA load is counted apart
  EXPECT_EQ(t.r2ur, 1);     // R2UR.FILL is another instruction
  EXPECT_EQ(t.ex2, 1);
}

TEST(SassTally, LabelsPhase5KernelsByTheirTraitsAndScheduler) {
  EXPECT_EQ(kernel_label("_ZN7attnlab7phase_518persistent_kernelINS0_6TraitsILi64ELi2ELi2ENS_6hopper7KeyMaskILb0EEEEENS_"
                         "15StaticSchedulerEEEvPK6__half"),
            "T64ELi2ELi2ENS_6hopper7KeyMaskILb0,Static");
  EXPECT_EQ(kernel_label("_ZN7attnlab7phase_518persistent_kernelINS0_6TraitsILi128ELi1ELi3ENS_6hopper7KeyMaskILb1EEEEENS_"
                         "16DynamicSchedulerENS_10WarpStampsEEEvPK6__half"),
            "T128ELi1ELi3ENS_6hopper7KeyMaskILb1,Dynamic,stamps");
  // The stamping policies by their names in the mangled kernel.
  for (const std::string policy : {"12GlobalStampsILj4095ELj1EEE", "12SharedStampsILj3697ELj8EEE"})
    EXPECT_EQ(kernel_label("_ZN7attnlab7phase_518persistent_kernelINS0_6TraitsILi128ELi1ELi3ENS_6hopper7KeyMaskILb1EEEEE"
                           "NS_16DynamicSchedulerENS_8timeline" + policy + "EEvPK6__half"),
              "T128ELi1ELi3ENS_6hopper7KeyMaskILb1,Dynamic,stamps")
        << policy;
  EXPECT_EQ(kernel_label("_Z13d2_branchlessPK6__halfS1_S1_PS_f"), "_Z13d2_branchlessPK6__halfS1_S1_PS_f");
}

TEST(Ptxas, ReadsRegistersSpillsAndStackPerEntryFunction) {
  const auto fs = parse_ptxas_report(fixture("phase-kernels.ptxas"));
  ASSERT_EQ(fs.size(), 6u);  // the device function's properties are not an entry
  EXPECT_EQ(fs[1].name, kPhase4);
  EXPECT_EQ(fs[1].arch, "sm_90a");
  EXPECT_EQ(fs[1].source, "kernels/phase_4_tiled.cu");
  EXPECT_EQ(fs[1].registers, 95);
  EXPECT_EQ(fs[1].barriers, 1);
  EXPECT_EQ(fs[1].stack_frame_bytes, 0);
  EXPECT_EQ(fs[1].spill_store_bytes, 0);
  EXPECT_EQ(fs[1].spill_load_bytes, 0);
  EXPECT_EQ(fs[1].smem_bytes, 0);

  EXPECT_EQ(fs[2].arch, "sm_80");
  EXPECT_EQ(fs[2].registers, 96);
  EXPECT_EQ(fs[2].smem_bytes, 36864);
  EXPECT_EQ(fs[2].cmem0_bytes, 400);
  EXPECT_EQ(fs[3].arch, "sm_90a");
  EXPECT_EQ(fs[3].registers, 122);

  const auto& wg = fs[4];
  EXPECT_EQ(wg.name, kWgmma);
  EXPECT_EQ(wg.registers, 168);
  EXPECT_EQ(wg.barriers, 2);
  EXPECT_EQ(wg.stack_frame_bytes, 1256);  // not the 24 bytes of its device function
  EXPECT_EQ(wg.spill_store_bytes, 1248);
  EXPECT_EQ(wg.spill_load_bytes, 1312);
  EXPECT_EQ(wg.smem_bytes, 1024);
  EXPECT_EQ(wg.cmem0_bytes, 592);
  ASSERT_EQ(wg.notes.size(), 1u);  // reported before ptxas named the entry
  EXPECT_NE(wg.notes[0].find("(C7511) Potential Performance Loss"), std::string::npos);

  EXPECT_EQ(fs[5].registers, 255);
  EXPECT_EQ(fs[5].spill_store_bytes, 2048);
  EXPECT_EQ(fs[5].spill_load_bytes, 3072);
  EXPECT_EQ(fs[0].notes.size() + fs[1].notes.size() + fs[5].notes.size(), 0u);
}

TEST(Ptxas, PhaseSourceSelectsOnlyThatPhasesKernels) {
  const auto fs = parse_ptxas_report(fixture("phase-kernels.ptxas"));
  EXPECT_EQ(phase_kernels_in_report(fs, "4").size(), 2u);  // not phase_4x_wmma.cu's kernel
  ASSERT_EQ(phase_kernels_in_report(fs, "4x").size(), 1u);  // one name, two architectures
  EXPECT_EQ(phase_kernels_in_report(fs, "4x")[0], kWmma);
  EXPECT_TRUE(phase_kernels_in_report(fs, "3").empty());
}

TEST(StaticEvidence, MissingCuobjdumpIsSaidNeverZeros) {
  Listing none;
  none.reason = kNoCuobjdump;
  const auto j = to_json(sass_evidence(none, {kD2}, "test"));
  EXPECT_EQ(j, (ordered_json{{"available", false},
                             {"reason", "cuobjdump not found on PATH; install the CUDA "
                                        "toolkit's cuda-cuobjdump"}}));
}

TEST(StaticEvidence, TotalsOverTheKernelsOneLaunchRan) {
  const auto j = to_json(sass_evidence(fixture_listing(), {kWmma, kWgmma, "_Z15cublas_gemm_kernelv"}, "CUPTI"));
  EXPECT_EQ(j["available"], true);
  EXPECT_EQ(j["complete"], false);  // the library kernel is not in the listing
  EXPECT_EQ(j["HMMA"], 8);          // the sm_90a code of the two-architecture kernel
  EXPECT_EQ(j["HGMMA"], 5);
  EXPECT_EQ(j["UTMALDG"], 2);
  EXPECT_EQ(j["UBLKCP"], 1);
  EXPECT_EQ(j["BAR"], 5);
  EXPECT_EQ(j["BRA"]["total"], 7);
  EXPECT_EQ(j["BRA"]["@!P"], 2);
  EXPECT_EQ(j["kernels"].size(), 3u);
  EXPECT_EQ(j["kernels"][0]["arch"], "sm_90a");
  EXPECT_EQ(j["kernels"][2]["found"], false);
  EXPECT_TRUE(j.contains(ordered_json::json_pointer("/BRA/@!PT")));
}

namespace {
// A timed regime that names `kernels`.
TimedRegime regime(const std::string& name, std::vector<std::string> kernels) {
  RegimeTiming t;
  t.kernels = std::move(kernels);
  return {name, t};
}
}  // namespace

TEST(StaticEvidence, MergesIntoTheResultKeepingOtherStaticKeys) {
  ResultEntry r;
  r.timing = {regime("cold", {kD2}), regime("warm", {kD2})};
  r.static_evidence.emplace().facts.emplace().kernels.emplace_back().name = "kept";
  merge_static_evidence(r, "d2", fixture_listing(), fixture("phase-kernels.ptxas"));
  const ordered_json result = {{"static", to_json(*r.static_evidence->facts)}};
  EXPECT_EQ(result["static"]["kernels"][0]["name"], "kept");
  const auto s = to_json(*r.static_evidence->sass);
  EXPECT_EQ(s["kernels"].size(), 1u);  // the same kernel from two regimes counts once
  EXPECT_EQ(s["LDL"], 3);
  EXPECT_EQ(s["STL"], 3);
  EXPECT_EQ(s["BRA"]["@!P"], 3);
  const auto p = to_json(*r.static_evidence->ptxas);
  EXPECT_EQ(p["registers_max"], 255);
  EXPECT_EQ(p["spill_store_bytes"], 2048);
  EXPECT_EQ(p["spill_load_bytes"], 3072);
  EXPECT_EQ(p["kernels"][0]["source"], "kernels/d2_branchless.cu");
}

TEST(StaticEvidence, WithoutTimingKernelsTheLaunchFactsNameAreUsed) {
  ResultEntry r;
  r.timing = {regime("graph", {})};  // the graph regime names no kernels
  KernelFacts k;
  k.name = kWgmma;
  k.registers = 168;
  r.static_evidence.emplace().facts.emplace().kernels.push_back(k);
  merge_static_evidence(r, "5", fixture_listing(), fixture("phase-kernels.ptxas"));
  EXPECT_EQ(to_json(*r.static_evidence->sass)["HGMMA"], 5);
  EXPECT_EQ(to_json(*r.static_evidence->ptxas)["spill_store_bytes"], 1248);
  EXPECT_EQ(to_json(*r.static_evidence->facts)["kernels"][0]["registers"], 168);
}

TEST(StaticEvidence, WithoutTimingFallsBackToThePhaseSource) {
  ResultEntry r;  // --check-only: no timing
  merge_static_evidence(r, "4x", fixture_listing(), fixture("phase-kernels.ptxas"));
  const ordered_json result = to_json(r);
  const auto& s = result["static"]["sass"];
  EXPECT_NE(s["kernels_from"].get<std::string>().find("phase_4x_*.cu"), std::string::npos);
  EXPECT_EQ(s["HMMA"], 8);
  EXPECT_EQ(result["static"]["ptxas"]["kernels"][0]["arch"], "sm_90a");
  EXPECT_EQ(result["static"]["ptxas"]["registers_max"], 122);

  ResultEntry bare_entry;
  merge_static_evidence(bare_entry, "9", fixture_listing(), "");
  const ordered_json bare = to_json(bare_entry);
  EXPECT_EQ(bare["static"]["sass"]["available"], false);
  EXPECT_EQ(bare["static"]["ptxas"]["available"], false);
  EXPECT_FALSE(bare["static"]["sass"].contains("HMMA"));
}

// The pipeline order (profiler/sass_order.hpp): which instructions are events, and the order of
// the committed phase-5 kernel's, run by run.
TEST(SassOrder, EventsAreCopiesBarriersGmmasWaitsExponentialsAndBranches) {
  EXPECT_EQ(pipeline_event("@!P3 SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR40+0x28050], RZ"), "SYNCS.ARRIVE.TRANS64.A1T0");
  EXPECT_EQ(pipeline_event("WARPGROUP.DEPBAR.LE gsb0, 0x1 "), "WARPGROUP.DEPBAR.LE gsb0, 0x1");
  EXPECT_EQ(pipeline_event("QGMMA.64x192x32.F32.E4M3.E4M3 R24, gdesc[UR8], RZ, !UPT"), "QGMMA.64x192x32.F32.E4M3.E4M3");
  EXPECT_EQ(pipeline_event("@P0 BRA 0x46c0"), "BRA");
  EXPECT_EQ(pipeline_event("MUFU.EX2 R26, R26"), "MUFU.EX2");
  EXPECT_EQ(pipeline_event("FMNMX R6, R28, R29, !PT"), "");
  EXPECT_EQ(pipeline_event("MEMBAR.SC.CTA"), "");   // not BAR.
  EXPECT_EQ(pipeline_event("DEPBAR.LE SB0, 0x0"), "");  // cp.async's wait, not a wgmma's
}

TEST(SassOrder, PhaseFiveFixtureRunsInListingOrder) {
  const auto orders = pipeline_order(fixture("sm90a-kernels.sass"), std::regex("phase523fwd"));
  ASSERT_EQ(orders.size(), 1u);
  const PipelineOrder& f = orders[0];
  EXPECT_EQ(f.arch, "sm_90a");
  EXPECT_EQ(f.instructions, 45);
  std::vector<std::string> events;
  for (const auto& r : f.runs) events.push_back(std::to_string(r.count) + " " + r.event);
  const std::vector<std::string> want = {
      "1 SYNCS.EXCH.64", "1 BAR.SYNC.DEFER_BLOCKING", "1 SYNCS.ARRIVE.TRANS64", "2 UTMALDG.2D", "1 UBLKCP.S.G",
      "1 SYNCS.PHASECHK.TRANS64.TRYWAIT", "1 BRA", "1 WARPGROUP.ARRIVE", "4 HGMMA.64x64x16.F32",
      "1 WARPGROUP.DEPBAR.LE gsb0, 0x0", "1 MUFU.EX2", "1 WARPGROUP.ARRIVE", "1 HGMMA.64x64x16.F32",
      "1 WARPGROUP.DEPBAR.LE gsb0, 0x0", "1 BRA.U", "1 BRA", "1 UCGABAR_ARV", "1 UCGABAR_WAIT", "1 BAR.ARV",
      "1 EXIT", "1 BRA"};
  EXPECT_EQ(events, want);
  EXPECT_EQ(f.runs.at(0).gap, 8);  // eight instructions before the first event
  EXPECT_EQ(f.runs.at(0).address, 0x80u);
  EXPECT_EQ(f.runs.at(10).gap, 2);  // FMNMX and FMUL between the wait and the EX2
  EXPECT_EQ(f.runs.at(10).address, 0x1b0u);
}

TEST(SassOrder, ARunSpansTheOthersBetweenItsEvents) {
  const std::string listing =
      "\t\tFunction : k\n"
      "        /*0000*/                   MUFU.EX2 R1, R1 ;\n"
      "        /*0010*/                   FMUL R2, R2, R3 ;\n"
      "        /*0020*/                   MUFU.EX2 R2, R2 ;\n"
      "        /*0030*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;\n"
      "        /*0040*/                   MUFU.EX2 R4, R4 ;\n";
  const auto orders = pipeline_order(listing, std::regex("^k$"));
  ASSERT_EQ(orders.size(), 1u);
  ASSERT_EQ(orders[0].runs.size(), 3u);
  EXPECT_EQ(orders[0].runs[0].count, 2);
  EXPECT_EQ(orders[0].runs[0].span, 3);
  EXPECT_NE(pipeline_order_text(orders).find("2x MUFU.EX2 (over 3)"), std::string::npos);
  EXPECT_TRUE(pipeline_order(listing, std::regex("other")).empty());
}
