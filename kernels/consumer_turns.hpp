// How phase 5 splits a query tile among its consumer warpgroups and who takes which ping-pong
// turn: host and device code (kernels/phase_5_wgmma.cu uses it; tests/cpu/test_consumer_turns.cpp
// plays the protocol for every S up to a bound without a GPU).
//
// A tile of Consumers x Rows query rows starting at q0 is read against key tiles of TileK keys.
// Consumer c (rows q0 + c*Rows ...) reads tiles(q0, c, S) of them: none where its rows all lie
// past S, fewer than the tile's under the causal mask for the lower consumers of a tile that
// spans more than one key tile's worth of rows. A consumer with n > 0 tiles takes turns 0 .. n
// (turn j issues QK^T of tile j and PV of tile j - 1; turn n only PV), in consumer order within
// a turn; the producer releases each K/V tile for the consumers that do not read it. (Without the
// causal mask the kernel takes an item's tiles last first, Work::key_tile in
// kernels/phase_5_work.cuh; nothing here depends on the order there.)
#pragma once

#include "kernels/host_device.hpp"
#include "kernels/named_barrier.hpp"

namespace attnlab {

template <int Consumers, int Rows, int TileK, bool Causal>
struct ConsumerTurns {
  // Consumers with rows below S (q0 < S): all but in a head's last tile where S does not fill it.
  ATTNLAB_HOST_DEVICE static int active(int q0, int S) {
    const int a = ceil_div(S - q0, Rows);
    return a < Consumers ? a : Consumers;
  }
  // Key tiles consumer c reads. They grow with c among the active consumers.
  ATTNLAB_HOST_DEVICE static int tiles(int q0, int c, int S) {
    const int r0 = q0 + c * Rows;
    if (r0 >= S) return 0;
    const int end = Causal ? (r0 + Rows < S ? r0 + Rows : S) : S;
    return ceil_div(end, TileK);
  }
  // Under the causal mask, the consumers that read no key tile from j on (tiles(q0, c) <= j
  // with rows below S), in closed form: the producer has few registers.
  ATTNLAB_HOST_DEVICE static int done_before(int q0, int j) {
    if (!Causal) return 0;
    const int past = j * TileK - q0;
    const int d = past > 0 ? past / Rows : 0;
    return d < Consumers ? d : Consumers;
  }
  // Consumers that do not read key tile j (j < the tile's key tiles): past S or done before it.
  ATTNLAB_HOST_DEVICE static int idle(int q0, int active_consumers, int j) {
    return Consumers - active_consumers + done_before(q0, j);
  }
  // The named barrier (kTurnBarrier + consumer) that consumer c arrives at after its turn j: the next
  // consumer of turn j (the next active one has every turn this one has), else the first of
  // turn j + 1 (the first not done before tile j while tile j lies below S), else consumer 0,
  // which opens the next tile.
  ATTNLAB_HOST_DEVICE static int signal_to(int q0, int active_consumers, int c, int j, int S) {
    static_assert(kTurnBarrier + Consumers <= kStoreBarrier, "a turn barrier per consumer");
    int to = kTurnBarrier + (c + 1 < active_consumers ? c + 1 : 0);
    if (Causal) {
      const int first = done_before(q0, j);
      if (c + 1 >= active_consumers && first < active_consumers && j * TileK < S) to = kTurnBarrier + first;
    }
    return to;
  }
};

}  // namespace attnlab
