// Accepted writes not yet projected: how many per tenant (the `projection_backlog` of freshness),
// how many in all (the operator's backlog), and how long the oldest of them has waited (the
// projection lag that ingest is refused past, `projector.max_lag_ms`).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace eventsvc::plugins::rocksdb_storage {

class Backlog {
 public:
  using Clock = std::chrono::steady_clock;

  // The write with inbox sequence number `sequence` is in the inbox since `at` (for writes found
  // there at start: the start).
  void accepted(std::string_view tenant, std::uint64_t sequence,
                Clock::time_point at = Clock::now()) {
    const std::lock_guard lock(mutex_);
    ++counts_[std::string(tenant)];
    ++total_;
    waiting_.emplace(sequence, at);
  }
  // The write `sequence` of `tenant` has been projected.
  void projected(std::string_view tenant, std::uint64_t sequence) {
    const std::lock_guard lock(mutex_);
    if (waiting_.erase(sequence) == 0) return;  // counted once, however often it is said
    --total_;
    if (const auto it = counts_.find(std::string(tenant)); it != counts_.end()) {
      if (--it->second == 0) counts_.erase(it);
    }
  }

  std::size_t total() const {
    const std::lock_guard lock(mutex_);
    return total_;
  }
  std::size_t get(std::string_view tenant) const {
    const std::lock_guard lock(mutex_);
    const auto it = counts_.find(std::string(tenant));
    return it == counts_.end() ? 0 : it->second;
  }
  // How long the oldest write not yet projected has waited; zero when none waits. Sequence
  // numbers are taken in acceptance order, so the smallest waiting one is the oldest (a write that
  // took its number first but committed a moment later counts from its commit: the lag is never
  // overstated).
  std::chrono::milliseconds lag(Clock::time_point now = Clock::now()) const {
    const std::lock_guard lock(mutex_);
    if (waiting_.empty()) return std::chrono::milliseconds(0);
    const auto waited = now - waiting_.begin()->second;
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::max(waited, Clock::duration::zero()));
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::size_t> counts_;
  std::size_t total_ = 0;
  std::map<std::uint64_t, Clock::time_point> waiting_;  // by inbox sequence number
};

}  // namespace eventsvc::plugins::rocksdb_storage
