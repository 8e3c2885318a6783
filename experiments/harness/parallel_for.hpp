// Host work split over hardware threads, for the fp64 references of the forward and backward
// gates. Host-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace attnlab {

// Runs fn(begin, end) over [0, n) in contiguous chunks, one per hardware thread.
template <class Fn>
void parallel_for(std::int64_t n, Fn fn) {
  const std::int64_t threads =
      std::max<std::int64_t>(1, std::min<std::int64_t>(std::thread::hardware_concurrency(), n));
  std::vector<std::thread> pool;
  const std::int64_t chunk = (n + threads - 1) / threads;
  for (std::int64_t t = 0; t < threads; ++t) {
    const std::int64_t b = t * chunk, e = std::min(n, b + chunk);
    if (b < e) pool.emplace_back(fn, b, e);
  }
  for (auto& th : pool) th.join();
}

}  // namespace attnlab
