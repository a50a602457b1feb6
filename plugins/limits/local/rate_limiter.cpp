#include "rate_limiter.hpp"

#include <algorithm>
#include <functional>

#include "eventsvc/sdk/time.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::plugins::limits {

namespace {
double refill_per_ms(int limit_per_minute) {
  return limit_per_minute / 60000.0;
}
}  // namespace

RateLimiter::Shard& RateLimiter::shard_for(std::string_view key) {
  return shards_[std::hash<std::string_view>{}(key) % kShards];
}

RateDecision RateLimiter::charge(std::string_view key, int limit_per_minute) {
  return charge_at(key, limit_per_minute, Clock::now(), toolkit::now_millis());
}

RateDecision RateLimiter::charge_at(std::string_view key, int limit_per_minute,
                                    Clock::time_point now, std::int64_t unix_now_ms) {
  Shard& shard = shard_for(key);
  const std::lock_guard lock(shard.mutex);
  if (shard.buckets.size() >= kSweepThreshold) sweep(shard, now);
  auto it = shard.buckets.find(std::string(key));
  if (it == shard.buckets.end()) {
    it = shard.buckets
             .emplace(std::string(key),
                      Bucket{static_cast<double>(limit_per_minute), now, limit_per_minute})
             .first;
  }
  Bucket& bucket = it->second;
  const double rate = refill_per_ms(limit_per_minute);
  const double elapsed_ms = std::chrono::duration<double, std::milli>(now - bucket.updated).count();
  bucket.tokens =
      std::min<double>(limit_per_minute, bucket.tokens + std::max(0.0, elapsed_ms) * rate);
  bucket.updated = now;
  bucket.limit = limit_per_minute;

  const bool allowed = bucket.tokens >= 1.0;
  if (allowed) bucket.tokens -= 1.0;
  return sdk::bucket_decision(allowed, bucket.tokens, limit_per_minute, unix_now_ms);
}

void RateLimiter::sweep(Shard& shard, Clock::time_point now) {
  std::erase_if(shard.buckets, [&](const auto& entry) {
    const Bucket& bucket = entry.second;
    const double elapsed_ms =
        std::chrono::duration<double, std::milli>(now - bucket.updated).count();
    return bucket.tokens + elapsed_ms * refill_per_ms(bucket.limit) >= bucket.limit;
  });
}

std::size_t RateLimiter::bucket_count() const {
  std::size_t count = 0;
  for (const auto& shard : shards_) {
    const std::lock_guard lock(shard.mutex);
    count += shard.buckets.size();
  }
  return count;
}

}  // namespace eventsvc::plugins::limits
