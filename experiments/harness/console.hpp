// The experiment's console: every line a run prints while it measures, in one place. The
// harness and the profiler return what they found (structs); this prints them, and the record
// library maps the same structs into the run record.
#pragma once

#include <cstdint>
#include <string>

#include "experiments/harness/backward_gate.hpp"
#include "experiments/harness/gate.hpp"
#include "profiler/metrics.hpp"
#include "record/ab.hpp"
#include "record/pc_sampling.hpp"
#include "record/timing.hpp"

namespace attnlab::console {

// "attnlab: phase 5 on NVIDIA H100 80GB HBM3, seed 42, record results/5/.../run.json"
void run_started(const std::string& phase, const std::string& gpu, std::uint64_t seed,
                 const std::string& record_file);
// "[1/4] 16x16x2048x64 correctness PASS: max_abs_err ..."; `tag` is "[i/n] <shape>". With
// `inputs`, "... correctness on <inputs> inputs PASS: ...".
void correctness(const std::string& tag, const GateResult& gate, const char* inputs = nullptr);
// The same for a backward phase's gate: the worst of dQ, dK and dV, each one's ratio.
void backward_correctness(const std::string& tag, const BackwardGateResult& gate, const char* inputs);
void profiled_launch(const std::string& tag, const std::string& range);
// "[1/4] 16x16x2048x64 cold: median 588.24 us (p10 ..., p90 ..., noise ..., N samples,
// <stop reason>) 467.29 TFLOPS, SM clock 1785->1590 MHz"
void regime(const std::string& tag, const std::string& name, const RegimeTiming& t);
void output_changed_after_timing(const std::string& tag);
// One line per launched kernel's static facts (or why there are none), one per counter group.
void evidence(const std::string& tag, const profiler::ShapeEvidence& ev);
// "[1/2] 16x16x2048x64 pcsampling: N samples (D dropped), period 2^k cycles, K kernels (...)"
// or "... pcsampling: unavailable: <reason>".
void pc_sampling(const std::string& tag, const PcSamplingResult& pcs);
// attnlab-ab: "attnlab-ab: A=5 vs B=cudnn, seed 42, order seed 7, record results/ab/..."
void ab_started(const std::string& a, const std::string& b, std::uint64_t seed,
                std::uint64_t order_seed, const std::string& record_file);
// attnlab-ab, one shape: its pairs and blocks, the wall ratio with interval and verdict, the
// cycles ratio or that it is withheld, and each side's median busy time and SM clock.
void ab_result(const std::string& tag, const std::string& a, const std::string& b, const AbShape& s);
void run_finished(const std::string& status, const std::string& record_file);

// "588.24 us" below a millisecond, "2.926 ms" from there.
std::string human_ns(double ns);

}  // namespace attnlab::console
