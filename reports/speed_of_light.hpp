// Speed-of-light floors of one timed shape: the least time this GPU could take for the shape's
// work, resource by resource, from measured rates (a calibration record, record/calibration.hpp),
// and which floor binds; apart from it, the floor of the launch's own schedule (its wave factor).
// Pure arithmetic: no files, no records.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/direction.hpp"
#include "common/shape.hpp"
#include "record/calibration.hpp"

namespace attnlab::report::sol {

// The exponentials softmax needs: one per score, B*H*S^2, halved for causal (the FLOPs rule).
// The backward's too: it rebuilds P = exp(S - LSE) once per score from the forward's LSE.
double exponentials(const Shape& s);
// Wave quantisation: `items` equal work items, `concurrent` of them in progress at once (a
// persistent grid's CTAs, else every CTA slot), on a GPU of `slots` CTA slots (SMs x CTAs per
// SM) take ceil(items / concurrent) rounds where items / slots would do if the work spread over
// every slot; the factor is their ratio (1 for whole rounds on every slot, slots / items for one
// round of fewer items than slots). Throws std::invalid_argument unless all are positive.
double wave_factor(long long items, long long concurrent, long long slots);
// The rates of the floors; nullopt: not measured.
struct Rates {
  std::optional<double> tensor_flops_per_s;  // [FLOP/s] dense wgmma of the inputs' format
  std::string tensor_rate = calibration::kTensor;  // the calibration rate it is (calibration::k*)
  std::optional<double> ex2_per_s;           // [ex2/s]
  std::optional<double> dram_bytes_per_s;    // [B/s] read
};
// The calibration's tensor rate for inputs of `input_format` (a run record's
// correctness.input_format): e4m3 inputs take the e4m3 wgmma rate, which is about twice fp16's;
// fp16, and records before the FP8 path that do not say (their inputs were fp16), the fp16 one.
const char* tensor_rate_for(const std::optional<std::string>& input_format);
// The median rates `cal` measured, as sustained: each at the clock the GPU chose under that load
// (clocks are never locked; under dense wgmma the power cap holds the SM clock well below what
// MUFU or FFMA work runs at), which is the most the board sustains. Not rescaled per SM per clock
// to a run's clock: a run's clock is NVML's reading from the host, which misread the calibration's
// own kernels (record 20261126T090424Z-ba0f991 keeps both clocks per sample).
// The tensor rate is `tensor_rate`'s, and not measured where the record lacks it (a calibration
// before the e4m3 rate): another format's rate would put the floor off by their ratio.
Rates rates_of(const CalibrationRecord& cal, const std::string& tensor_rate = calibration::kTensor);

struct Inputs {
  Shape shape;
  // The pass the run timed (a run record's direction): the tensor floor takes its FLOPs and the
  // DRAM floor its fewest bytes (common/direction.hpp: the backward's FLOPs 2.5 times the
  // forward's, FlashAttention's convention, at the fp16 wgmma rate of its fp16 inputs; its bytes
  // Q, K, V, O, dO and LSE in, dQ, dK and dV out).
  Direction direction = Direction::kForward;
  std::optional<double> executed_flops;  // [FLOP] the tensor work the kernel did, where counted
  // For wave_factor: the launch's work items (a persistent grid's items, else its CTAs), how
  // many run at once (min(CTAs, slots) for a persistent grid, else slots) and the CTA slots
  // (SMs x CTAs per SM); nullopt where the record does not say.
  std::optional<long long> work_items, concurrent, slots;
  std::optional<double> launch_floor_ns;  // [ns] the matching configuration's empty launch
};

enum class FloorKind { kTensorUseful, kTensorExecuted, kExp, kDram, kLaunch };
const char* floor_name(FloorKind k);  // "tensor (useful FLOPs)", ...

struct Floor {
  FloorKind kind;
  double work = 0;                 // FLOPs, ex2 or bytes; 0 for the launch floor
  std::optional<double> ns;        // [ns] work / rate; nullopt: not measured
  // Whether the work is shared among the SMs, so that a schedule's wave quantisation stretches it.
  bool quantised = false;
  std::optional<double> scheduled_ns;  // ns x the launch's wave factor where quantised (else ns)
  bool binding_candidate = true;   // false for executed FLOPs: the kernel's own extra work
};

// The speed of light is the GPU's: the shape's work spread over every SM, whatever grid a kernel
// launches, so two kernels of one shape on one GPU share it. What a launch's own grid costs (its
// last round leaving SMs idle) is the schedule's floor, kept apart so that a kernel with a poor
// wave factor reads further from the speed of light, not nearer.
struct SpeedOfLight {
  std::vector<Floor> floors;                  // in FloorKind order; executed only where known
  std::optional<FloorKind> binding;           // the largest measured candidate floor
  std::optional<double> sol_ns;               // [ns] that floor: the speed of light
  std::optional<double> wave_factor;          // the launch's; nullopt where the record lacks items or slots
  std::optional<FloorKind> schedule_binding;  // the largest candidate floor stretched by the wave factor
  std::optional<double> schedule_ns;          // [ns] that floor: the least time this launch's schedule takes
  // [ns] the tensor (useful FLOPs) and exponential floors added: the least time if the GEMMs and
  // the softmax's exp2s never overlapped, the bound of a kernel that keeps them in series (each
  // warp's softmax waits for its GEMM and the other way round). Nullopt unless both are measured.
  std::optional<double> serial_ns;
  const Floor* floor(FloorKind k) const;
};

// The floors; they overlap at best, so the speed of light is the largest of them, and the
// schedule's floor the largest of them stretched by the wave factor.
SpeedOfLight speed_of_light(const Inputs& in, const Rates& rates);

}  // namespace attnlab::report::sol
