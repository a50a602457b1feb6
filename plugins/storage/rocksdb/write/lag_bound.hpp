// How ingest answers a projector that trails acceptance. Past projector.pace_from_ms each new
// write's 202 is held for half what the lag exceeds it by (a second at most), so that writers slow
// to what the projector keeps up with; past projector.max_lag_ms writes are refused with 503 and
// Retry-After. Holding first is RocksDB's write slowdown before its write stop: a load a little
// above what the server projects is slowed by a fraction of a second, not stopped for seconds.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace eventsvc::plugins::rocksdb_storage {

class LagBound {
 public:
  // The longest a 202 is held: past it the refusals take over.
  static constexpr std::chrono::milliseconds kLongestHold{1000};

  // Zero turns either off.
  LagBound(std::chrono::milliseconds pace_from, std::chrono::milliseconds max_lag)
      : pace_from_(pace_from), max_lag_(max_lag) {}

  // Throws 503 with Retry-After (about the time the projector needs to bring the oldest write
  // under the bound) when search trails acceptance by `lag`, more than max_lag.
  void admit(std::chrono::milliseconds lag);
  // How long the 202 of a write accepted while search trails by `lag` is held.
  std::chrono::milliseconds hold(std::chrono::milliseconds lag);

  std::chrono::milliseconds max_lag() const { return max_lag_; }
  std::uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }
  std::uint64_t held() const { return held_.load(std::memory_order_relaxed); }
  std::chrono::milliseconds held_for() const {
    return std::chrono::milliseconds(held_ms_.load(std::memory_order_relaxed));
  }

 private:
  const std::chrono::milliseconds pace_from_;
  const std::chrono::milliseconds max_lag_;
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> held_{0};
  std::atomic<std::uint64_t> held_ms_{0};
};

}  // namespace eventsvc::plugins::rocksdb_storage
