// Phase 5's split of a query tile among consumers and its ping-pong turns
// (kernels/consumer_turns.hpp), played without a GPU: for every S up to a bound, every tile of a
// head, both masks and the kernels' tile shapes, the turns pass in the order the protocol
// promises (turn by turn, consumers in order, each consumer once per turn it has), the last
// signal opens the next tile, and the producer's count of consumers that skip a key tile matches
// the consumers' own tile counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/consumer_turns.hpp"

namespace attnlab {
namespace {

template <int K, int TileK, bool Causal>
void play_head(int S) {
  using Turns = ConsumerTurns<K, 64, TileK, Causal>;
  constexpr int kTileQ = K * 64;
  int token = 1;  // the barrier the last consumer's bootstrap arrival opened: consumer 0's
  for (int q0 = 0; q0 < S; q0 += kTileQ) {
    const int active = Turns::active(q0, S);
    const int end = Causal ? std::min(q0 + kTileQ, S) : S;
    const int n = (end + TileK - 1) / TileK;  // the tile's key tiles (KeyMask::key_tiles)
    std::vector<int> tiles(K);
    for (int c = 0; c < K; ++c) tiles[c] = Turns::tiles(q0, c, S);
    ASSERT_GE(active, 1);
    for (int c = 0; c < K; ++c) {
      ASSERT_EQ(tiles[c] > 0, c < active) << "S " << S << " q0 " << q0 << " consumer " << c;
      if (c > 0 && c < active) {
        ASSERT_GE(tiles[c], tiles[c - 1]) << "S " << S << " q0 " << q0;
      }
    }
    ASSERT_EQ(*std::max_element(tiles.begin(), tiles.end()), n) << "S " << S << " q0 " << q0;
    for (int j = 0; j < n; ++j) {
      int skip = 0;
      for (int c = 0; c < K; ++c) skip += tiles[c] <= j;
      ASSERT_EQ(Turns::idle(q0, active, j), skip) << "S " << S << " q0 " << q0 << " tile " << j;
    }
    // Turns j = 0 .. n; within a turn, in consumer order, the consumers that have it.
    for (int j = 0; j <= n; ++j)
      for (int c = 0; c < K; ++c) {
        if (tiles[c] == 0 || j > tiles[c]) continue;
        ASSERT_EQ(token, 1 + c) << "S " << S << " q0 " << q0 << " turn " << j << " consumer " << c;
        token = Turns::signal_to(q0, active, c, j, S);
      }
  }
  EXPECT_EQ(token, 1) << "S " << S << ": the head's last signal opens the next tile";
}

template <int K, int TileK, bool Causal>
void play_all() {
  std::vector<int> sizes;
  for (int S = 1; S <= 1200; ++S) sizes.push_back(S);
  for (int S : {2048, 2049, 3900, 4096, 4160, 8100, 8192}) sizes.push_back(S);
  for (int S : sizes) {
    play_head<K, TileK, Causal>(S);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ConsumerTurns, TwoConsumers128KeyTiles) {
  play_all<2, 128, false>();
  play_all<2, 128, true>();
}
TEST(ConsumerTurns, TwoConsumers176KeyTiles) {
  play_all<2, 176, false>();
  play_all<2, 176, true>();
}
TEST(ConsumerTurns, ThreeConsumers128KeyTiles) {
  play_all<3, 128, false>();
  play_all<3, 128, true>();
}

TEST(ConsumerTurns, CausalLowerConsumersStopEarly) {
  // A 192-row tile at q0 = 192 under the causal mask, 128-key tiles: consumer 0's rows
  // (192 .. 255) read two tiles, the others three; the producer skips consumer 0 at tile 2.
  using Turns = ConsumerTurns<3, 64, 128, true>;
  EXPECT_EQ(Turns::tiles(192, 0, 4096), 2);
  EXPECT_EQ(Turns::tiles(192, 1, 4096), 3);
  EXPECT_EQ(Turns::tiles(192, 2, 4096), 3);
  EXPECT_EQ(Turns::idle(192, 3, 2), 1);
  EXPECT_EQ(Turns::signal_to(192, 3, 2, 2, 4096), 2);  // after turn 2, consumer 1 opens turn 3
  EXPECT_EQ(Turns::signal_to(192, 3, 2, 3, 4096), 1);  // after the last, the next tile's consumer 0
  // Without the mask, the rows past S: S = 2048, the head's last 192-row tile has 128 rows.
  using Plain = ConsumerTurns<3, 64, 128, false>;
  EXPECT_EQ(Plain::active(1920, 2048), 2);
  EXPECT_EQ(Plain::tiles(1920, 2, 2048), 0);
  EXPECT_EQ(Plain::idle(1920, 2, 0), 1);
  EXPECT_EQ(Plain::signal_to(1920, 2, 1, 0, 2048), 1);  // consumer 1 passes the turn to 0
}

}  // namespace
}  // namespace attnlab
