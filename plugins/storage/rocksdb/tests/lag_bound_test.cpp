// The lag bound's two answers, given the lag (no clock is read): a 202 held for half what the lag
// passes the pacing mark by, a second at most; a 503 with Retry-After past the bound.
#include "write/lag_bound.hpp"

#include <gtest/gtest.h>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using std::chrono::milliseconds;

TEST(LagBound, HoldsA202ForHalfWhatTheLagPassesTheMarkByUpToASecond) {
  LagBound bound(milliseconds(1000), milliseconds(2000));
  EXPECT_EQ(bound.hold(milliseconds(0)), milliseconds(0));
  EXPECT_EQ(bound.hold(milliseconds(1000)), milliseconds(0));
  EXPECT_EQ(bound.hold(milliseconds(1001)), milliseconds(0));  // under a millisecond: not held
  EXPECT_EQ(bound.held(), 0U);
  EXPECT_EQ(bound.hold(milliseconds(1250)), milliseconds(125));
  EXPECT_EQ(bound.hold(milliseconds(1002)), milliseconds(1));
  EXPECT_EQ(bound.hold(milliseconds(60000)), LagBound::kLongestHold);
  EXPECT_EQ(bound.held(), 3U);
  EXPECT_EQ(bound.held_for(), milliseconds(125 + 1) + LagBound::kLongestHold);
  EXPECT_EQ(bound.refused(), 0U);
}

TEST(LagBound, AMarkOfZeroHoldsNothing) {
  LagBound bound(milliseconds(0), milliseconds(2000));
  EXPECT_EQ(bound.hold(milliseconds(1500)), milliseconds(0));
  EXPECT_EQ(bound.held(), 0U);
}

TEST(LagBound, RefusesPastTheBoundWithRetryAfterAndTheFigures) {
  LagBound bound(milliseconds(1000), milliseconds(2000));
  EXPECT_NO_THROW(bound.admit(milliseconds(2000)));
  try {
    bound.admit(milliseconds(4500));
    ADD_FAILURE() << "admitted past the bound";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.status(), 503);
    EXPECT_EQ(error.retry_after(), 3);  // the excess, rounded up to whole seconds
    EXPECT_EQ(error.message(),
              "search trails acceptance by 4500 ms, more than the 2000 ms allowed "
              "(projector.max_lag_ms): retry after Retry-After seconds");
    EXPECT_EQ(error.data().at("lag_ms"), 4500);
    EXPECT_EQ(error.data().at("max_lag_ms"), 2000);
  }
  EXPECT_EQ(bound.refused(), 1U);
  // Retry-After stays within half a minute, however far behind search is.
  try {
    bound.admit(milliseconds(600000));
    ADD_FAILURE() << "admitted ten minutes past the bound";
  } catch (const sdk::Error& error) {
    EXPECT_EQ(error.retry_after(), 30);
  }
}

TEST(LagBound, ABoundOfZeroRefusesNothing) {
  LagBound bound(milliseconds(1000), milliseconds(0));
  EXPECT_NO_THROW(bound.admit(milliseconds(3600000)));
  EXPECT_EQ(bound.refused(), 0U);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
