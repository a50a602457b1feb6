#include "limits/rate_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "eventsvc/sdk/time.hpp"

namespace eventsvc::host {

namespace {
double refill_per_ms(int limit_per_minute) {
  return limit_per_minute / 60000.0;
}
}  // namespace

RateLimiter::Shard& RateLimiter::shard_for(std::string_view key) {
  return shards_[std::hash<std::string_view>{}(key) % kShards];
}

RateDecision RateLimiter::charge(std::string_view key, int limit_per_minute) {
  return charge_at(key, limit_per_minute, Clock::now(), sdk::now_millis());
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

  RateDecision decision;
  decision.limit = limit_per_minute;
  if (bucket.tokens >= 1.0) {
    bucket.tokens -= 1.0;
  } else {
    decision.allowed = false;
    decision.retry_after =
        std::max(1, static_cast<int>(std::ceil((1.0 - bucket.tokens) / rate / 1000.0)));
  }
  decision.remaining = static_cast<int>(std::floor(bucket.tokens));
  const double ms_to_full = (limit_per_minute - bucket.tokens) / rate;
  decision.reset = (unix_now_ms + static_cast<std::int64_t>(std::ceil(ms_to_full)) + 999) / 1000;
  return decision;
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

}  // namespace eventsvc::host
