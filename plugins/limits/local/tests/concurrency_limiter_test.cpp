#include "concurrency_limiter.hpp"

#include <gtest/gtest.h>

namespace eventsvc::plugins::limits {
namespace {

TEST(ConcurrencyLimiter, LeasesUpToTheLimitPerKey) {
  ConcurrencyLimiter limiter;
  EXPECT_EQ(limiter.acquire("t", 2), 1);
  EXPECT_EQ(limiter.acquire("t", 2), 2);
  EXPECT_FALSE(limiter.acquire("t", 2));
  EXPECT_EQ(limiter.acquire("other", 2), 1);
  EXPECT_EQ(limiter.active("t"), 2);
  limiter.release("t");
  EXPECT_EQ(limiter.active("t"), 1);
  EXPECT_EQ(limiter.acquire("t", 2), 2);
}

TEST(ConcurrencyLimiter, ReleasingAnUnheldKeyChangesNothing) {
  ConcurrencyLimiter limiter;
  limiter.release("t");
  EXPECT_EQ(limiter.active("t"), 0);
  EXPECT_EQ(limiter.acquire("t", 1), 1);
  limiter.release("t");
  limiter.release("t");
  EXPECT_EQ(limiter.active("t"), 0);
  EXPECT_FALSE(limiter.acquire("t", 0));
}

}  // namespace
}  // namespace eventsvc::plugins::limits
