#include "rate_limiter.hpp"

#include <gtest/gtest.h>

namespace eventsvc::plugins::limits {
namespace {

using namespace std::chrono_literals;

TEST(RateLimiter, BurstsToTheLimitThenRefusesWithRetryAfter) {
  RateLimiter limiter;
  const auto t0 = RateLimiter::Clock::now();
  const std::int64_t unix_ms = 1'000'000'000'000;
  for (int i = 0; i < 3; ++i) {
    const auto decision = limiter.charge_at("k", 3, t0, unix_ms);
    EXPECT_TRUE(decision.allowed);
    EXPECT_EQ(decision.limit, 3);
    EXPECT_EQ(decision.remaining, 2 - i);
  }
  const auto refused = limiter.charge_at("k", 3, t0, unix_ms);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.remaining, 0);
  EXPECT_EQ(refused.retry_after, 20);  // one token per 20 s at 3/min
  EXPECT_EQ(refused.reset, unix_ms / 1000 + 60);
}

TEST(RateLimiter, RefillsAtTheSteadyRate) {
  RateLimiter limiter;
  const auto t0 = RateLimiter::Clock::now();
  for (int i = 0; i < 60; ++i)
    limiter.charge_at("k", 60, t0, 0);
  EXPECT_FALSE(limiter.charge_at("k", 60, t0, 0).allowed);
  EXPECT_TRUE(limiter.charge_at("k", 60, t0 + 1s, 1000).allowed);
  EXPECT_FALSE(limiter.charge_at("k", 60, t0 + 1s, 1000).allowed);
}

TEST(RateLimiter, BucketsAreIndependent) {
  RateLimiter limiter;
  const auto t0 = RateLimiter::Clock::now();
  EXPECT_TRUE(limiter.charge_at("a", 1, t0, 0).allowed);
  EXPECT_FALSE(limiter.charge_at("a", 1, t0, 0).allowed);
  EXPECT_TRUE(limiter.charge_at("b", 1, t0, 0).allowed);
}

TEST(RateLimiter, ForgetsIdleBucketsUnderManyKeys) {
  RateLimiter limiter;
  const auto t0 = RateLimiter::Clock::now();
  for (int i = 0; i < 200000; ++i) {
    limiter.charge_at("ip" + std::to_string(i), 60, t0 + std::chrono::seconds(i), 0);
  }
  EXPECT_LT(limiter.bucket_count(), 16U * 4096U + 16U);
}

}  // namespace
}  // namespace eventsvc::plugins::limits
