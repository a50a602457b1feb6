// The backlog counts accepted writes per tenant and measures the projection lag from the oldest
// write still waiting, given explicit instants (no clock is read).
#include "write/backlog.hpp"

#include <gtest/gtest.h>

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using std::chrono::milliseconds;

TEST(Backlog, CountsPerTenantAndInAll) {
  Backlog backlog;
  const auto t0 = Backlog::Clock::time_point{} + std::chrono::hours(1);
  backlog.accepted("a", 1, t0);
  backlog.accepted("b", 2, t0);
  backlog.accepted("a", 3, t0);
  EXPECT_EQ(backlog.total(), 3U);
  EXPECT_EQ(backlog.get("a"), 2U);
  EXPECT_EQ(backlog.get("b"), 1U);
  EXPECT_EQ(backlog.get("c"), 0U);
  backlog.projected("a", 1);
  backlog.projected("b", 2);
  EXPECT_EQ(backlog.total(), 1U);
  EXPECT_EQ(backlog.get("a"), 1U);
  EXPECT_EQ(backlog.get("b"), 0U);
  // A write projected twice (a round retried after its commit) is counted once.
  backlog.projected("b", 2);
  backlog.projected("a", 1);
  EXPECT_EQ(backlog.total(), 1U);
  EXPECT_EQ(backlog.get("a"), 1U);
}

TEST(Backlog, LagIsTheWaitOfTheOldestWriteStillWaiting) {
  Backlog backlog;
  const auto t0 = Backlog::Clock::time_point{} + std::chrono::hours(1);
  EXPECT_EQ(backlog.lag(t0), milliseconds(0));
  backlog.accepted("a", 10, t0);
  backlog.accepted("a", 11, t0 + milliseconds(400));
  backlog.accepted("b", 12, t0 + milliseconds(900));
  EXPECT_EQ(backlog.lag(t0 + milliseconds(1000)), milliseconds(1000));
  backlog.projected("a", 10);
  EXPECT_EQ(backlog.lag(t0 + milliseconds(1000)), milliseconds(600));
  backlog.projected("a", 11);
  backlog.projected("b", 12);
  EXPECT_EQ(backlog.lag(t0 + milliseconds(5000)), milliseconds(0));
  // An instant before the acceptance (a clock read racing the write) is no negative lag.
  backlog.accepted("a", 13, t0 + milliseconds(6000));
  EXPECT_EQ(backlog.lag(t0 + milliseconds(5999)), milliseconds(0));
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
