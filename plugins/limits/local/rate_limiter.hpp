// Token-bucket rate limits keyed by (workspace, environment, operation) or by client IP for
// anonymous traffic. A bucket holds up to `limit` tokens and refills at limit per minute, so a
// client may burst to its per-minute limit and then continues at the steady rate.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "eventsvc/sdk/limits.hpp"

namespace eventsvc::plugins::limits {

using sdk::RateDecision;

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // Takes one token from the bucket `key` whose capacity is `limit_per_minute`.
  RateDecision charge(std::string_view key, int limit_per_minute);
  // For tests: the same with an explicit time.
  RateDecision charge_at(std::string_view key, int limit_per_minute, Clock::time_point now,
                         std::int64_t unix_now_ms);

  std::size_t bucket_count() const;

 private:
  struct Bucket {
    double tokens = 0;
    Clock::time_point updated;
    int limit = 0;
  };
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, Bucket> buckets;
  };
  static constexpr std::size_t kShards = 16;
  // Past this many buckets in a shard, full (idle) buckets are dropped: they hold nothing a fresh
  // bucket would not. Keeps memory bounded under many client IPs.
  static constexpr std::size_t kSweepThreshold = 4096;

  Shard& shard_for(std::string_view key);
  static void sweep(Shard& shard, Clock::time_point now);

  std::array<Shard, kShards> shards_;
};

}  // namespace eventsvc::plugins::limits
