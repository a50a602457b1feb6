#include "limits/concurrency_limiter.hpp"

#include <gtest/gtest.h>

namespace eventsvc::host {
namespace {

TEST(ConcurrencyLimiter, LeasesUpToTheLimitAndReleaseOnScopeExit) {
  ConcurrencyLimiter limiter;
  {
    auto first = limiter.acquire("t", 2);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->active(), 1);
    auto second = limiter.acquire("t", 2);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->active(), 2);
    EXPECT_FALSE(limiter.acquire("t", 2));
    EXPECT_TRUE(limiter.acquire("other", 2));
    EXPECT_EQ(limiter.active("t"), 2);
  }
  EXPECT_EQ(limiter.active("t"), 0);
  EXPECT_TRUE(limiter.acquire("t", 2));
}

TEST(ConcurrencyLimiter, MovedLeaseReleasesOnce) {
  ConcurrencyLimiter limiter;
  auto lease = limiter.acquire("t", 1);
  ASSERT_TRUE(lease);
  ConcurrencyLimiter::Lease moved = std::move(*lease);
  lease.reset();
  EXPECT_EQ(limiter.active("t"), 1);
  moved = ConcurrencyLimiter::Lease();
  EXPECT_EQ(limiter.active("t"), 0);
}

}  // namespace
}  // namespace eventsvc::host
