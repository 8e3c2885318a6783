// Phase b5's work: what every role of the main kernel reads (Params) and which tiles a block of
// the persistent grid takes, in which order (Schedule, tile_of_block).
// Included by kernels/phase_b5_kernel.cuh only: its namespace is anonymous.
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "kernels/attention_common.cuh"
#include "kernels/split_round.hpp"

namespace attnlab::phase_b5 {
namespace {

constexpr int kKeys = 64;     // keys per consumer: wgmma's M for S^T, dP^T, dV and dK
constexpr int kQueries = 64;  // query rows per ring stage: N of S^T and dP^T, M of dQ

// What every role reads besides the tensor maps (the accumulator of dQ, fp32 [S][D] per
// (batch, head) plane, is one of them). Workspace arrays are per (batch, head) row plane: lse2
// and delta [s_pad] (S rounded up to kQueries, padded with +inf and 0); dq_turns
// [s_pad / kQueries].
struct Params {
  const float* lse2;
  const float* delta;
  unsigned* dq_turns;
  __half* dk;
  __half* dv;
  int H, H_kv, S, s_pad;
  float scale_log2;  // the softmax scale times log2(e)
  float scale;       // dK's factor
  int deterministic;
  int key_tiles;  // tiles of T::kTileKeys keys per KV plane
  int tiles;      // the launch's: key_tiles * H_kv * B
  // The split last round (BlockWork, kernels/split_round.hpp): tiles [whole_tiles, tiles) go as
  // parts, their steps (tile_steps each) cut into tail_blocks ranges of tail_quot steps (the
  // first tail_rem of one more); whole_tiles == tiles where the last round is not split. A part
  // adds its dK and dV into tail_acc (fp32, [tail tile][dK, dV][keys][D], zeroed by the
  // pre-pass), which the post-pass scales and stores.
  int whole_tiles, tile_steps, tail_blocks, tail_quot, tail_rem;
  float* tail_acc;
};

// Where a tile's steps stand: the running step's query head (batch * H + head) and query block.
// The producer and the consumers take a tile's steps in order, so advance() carries the pair to
// the next step (the head's next block, past its last the next head's first) with a compare,
// where deriving it from the step's index took a division by the blocks per head a step.
struct StepCursor {
  int bh, m;
  int m_begin, m_end;  // the tile's query blocks of each head (Schedule)
  __device__ void advance() {
    if (++m == m_end) {
      m = m_begin;
      ++bh;
    }
  }
};

// The work of tile t (0 <= t < p.tiles): key tile t % key_tiles of KV plane t / key_tiles
// (batch * H_kv + KV head: the key tile varies fastest, then the KV head, then the batch), and
// its steps, the query blocks [m_begin, m_blocks) of each query head of the group in turn;
// causal tiles start at the first query block that sees the tile's first key.
// The grid takes the tiles in rounds of gridDim.x, block b a round's tile b, but under the causal
// mask every other round's in reverse (tile_of_block); either way a block's tiles increase. It
// runs consecutive tiles at once, of one or two KV planes, which read the same Q, dO, LSE and
// delta and reduce into the same dQ rows, so the L2 serves them (kernels/NOTES.md, "Backward:
// phase b5 (kernels/phase_b5_wgmma.cu)": The grid order, measured). Without the mask the tiles
// are equal and the tail is a block per tile's last wave. Under it a tile's steps fall with its key tile,
// and a plain stride (b, b + gridDim.x, ...) draws, where gridDim.x and key_tiles share a
// factor, some key tiles only for a block (132 blocks over 16 key tiles: those of one residue
// mod 4), the most loaded blocks carrying more than the mean; the reversed rounds give block b
// the residues of b and of gridDim.x - 1 - b in turn, which evens them at the causal targets on
// 132 SMs, though not in general: a few heavy tiles a block still skew it. Without the mask the
// plain stride measured a little faster than the reversed rounds, under it a good deal slower
// (kernels/NOTES.md, "Backward: phase b5 (kernels/phase_b5_wgmma.cu)": A persistent grid).
// A part (BlockWork) runs steps [first, first + steps) of its tile; a tile of the split round
// (whole false, tail its index among the split tiles) goes through the post-pass's sums even
// where one part holds all its steps, since the post-pass stores every split tile.
template <class T>
struct Schedule {
  int key_tile, key0, kv_plane, first_bh, m_begin, per_head, steps, first, tail;
  bool whole;
  __device__ Schedule(const Params& p, int t) {
    key_tile = t % p.key_tiles;
    key0 = key_tile * T::kTileKeys;
    kv_plane = t / p.key_tiles;
    // batch * H + KV head * group, the group's first query head: kv_plane * group, as H = H_kv * group.
    const int group = p.H / p.H_kv;
    first_bh = kv_plane * group;
    m_begin = T::kCausal ? key0 / kQueries : 0;
    per_head = ceil_div(p.S, kQueries) - m_begin;
    steps = group * per_head;
    first = 0;
    tail = t - p.whole_tiles;
    whole = !T::kSplitsTail || tail < 0;  // a kernel that never splits keeps no part's code
  }
  __device__ Schedule(const Params& p, int t, int first_step, int count) : Schedule(p, t) {
    first = first_step;
    steps = count;
  }
  // The first step's place (StepCursor): the group's first query head, at m_begin, moved on to
  // the part's first step (one division a part).
  __device__ StepCursor first_step() const {
    if (!T::kSplitsTail) return {first_bh, m_begin, m_begin, m_begin + per_head};
    return {first_bh + first / per_head, m_begin + first % per_head, m_begin, m_begin + per_head};
  }
};

// The block's tile of round n (Schedule), given its tile t of round n - 1: round n's tile b, or
// under the causal mask in odd rounds gridDim.x - 1 - b, so a block's tiles increase with n (the
// deterministic turns rely on it: Consumer::dq_turn).
template <bool ReverseOddRounds>
__device__ __forceinline__ int tile_of_block(int t, int n) {
  const int b = int(blockIdx.x), g = int(gridDim.x);
  if constexpr (ReverseOddRounds) return n * g + (n % 2 == 0 ? b : g - 1 - b);
  return t + g;
}

// A block's work in order, the same walk for the producer, the reducer and the consumers: its
// whole tiles of the rounds below whole_tiles (tile_of_block), then its range of the split last
// round's steps, as the parts of the tiles it crosses. A whole round's tiles all come before any
// part, so a block's tiles still increase. The walk keeps only its next whole tile and their
// count (n): where a part starts follows from the block's steps so far, which every role counts
// anyway (its ring position), so the consumers hold no more registers for it than before. Its
// shape is the plain tile loop's, `for (BlockWork<T> b(p); b.more(steps); b.advance())`, which
// a kernel that never splits (T::kSplitsTail false) compiles to, tile by tile.
template <class T>
struct BlockWork {
  const Params& p;
  int t, n;
  __device__ explicit BlockWork(const Params& params) : p(params), t(int(blockIdx.x)), n(0) {}
  __device__ int whole_tiles() const { return T::kSplitsTail ? p.whole_tiles : p.tiles; }
  // The block's next split step and its range's end, given the block's steps so far (worked
  // out afresh by more and schedule, not kept: the producer's 24 registers spilled it).
  __device__ int split_at(int done) const {
    return split_round::range_start(int(blockIdx.x), p.tail_quot, p.tail_rem) + done - n * p.tile_steps;
  }
  __device__ int split_end() const { return split_round::range_end(int(blockIdx.x), p.tail_quot, p.tail_rem); }
  // Whether work is left, given the block's steps so far.
  __device__ bool more(int done) const {
    if (t < whole_tiles()) return true;
    if constexpr (!T::kSplitsTail) return false;
    return int(blockIdx.x) < p.tail_blocks && split_at(done) < split_end();
  }
  // The current tile or part (once more(done) has returned true).
  __device__ Schedule<T> schedule(int done) const {
    if (!T::kSplitsTail || t < p.whole_tiles) return Schedule<T>(p, t);
    const split_round::Part part = split_round::part_at(split_at(done), split_end(), p.tile_steps);
    return Schedule<T>(p, p.whole_tiles + part.tile, part.first, part.count);
  }
  __device__ void advance() {
    if (!T::kSplitsTail || t < p.whole_tiles) t = tile_of_block<T::kCausal>(t, ++n);
  }
};

}  // namespace
}  // namespace attnlab::phase_b5
