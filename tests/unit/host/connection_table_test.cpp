#include "server/connection_table.hpp"

#include <gtest/gtest.h>

namespace eventsvc::host {
namespace {

using TableRefusal = ConnectionTable::Refusal;

TEST(ConnectionTable, RefusesPastTheShareOfOneAddress) {
  ConnectionTable table(100, 2);
  EXPECT_EQ(table.admit("10.0.0.1").refusal, TableRefusal::none);
  EXPECT_EQ(table.admit("10.0.0.1").refusal, TableRefusal::none);
  EXPECT_EQ(table.admit("10.0.0.1").refusal, TableRefusal::address_cap);
  EXPECT_EQ(table.admit("10.0.0.2").refusal, TableRefusal::none);
  EXPECT_EQ(table.open(), 3U);
  EXPECT_EQ(table.open_from("10.0.0.1"), 2U);
}

TEST(ConnectionTable, AClosedConnectionFreesItsSlot) {
  ConnectionTable table(100, 1);
  const auto first = table.admit("10.0.0.1");
  EXPECT_EQ(table.admit("10.0.0.1").refusal, TableRefusal::address_cap);
  table.remove(first.id);
  EXPECT_EQ(table.open_from("10.0.0.1"), 0U);
  EXPECT_EQ(table.admit("10.0.0.1").refusal, TableRefusal::none);
  table.remove(first.id);  // twice: ignored
  EXPECT_EQ(table.open(), 1U);
}

TEST(ConnectionTable, AtTheTotalCapTheLongestIdleMakesRoom) {
  ConnectionTable table(3, 10);
  const auto a = table.admit("10.0.0.1");
  const auto b = table.admit("10.0.0.2");
  const auto c = table.admit("10.0.0.3");
  // Nobody idle: refused.
  EXPECT_EQ(table.admit("10.0.0.4").refusal, TableRefusal::total_cap);
  table.set_idle(b.id, true);
  table.set_idle(a.id, true);
  table.set_idle(c.id, true);
  table.set_idle(c.id, false);  // busy again
  const auto d = table.admit("10.0.0.4");
  EXPECT_EQ(d.refusal, TableRefusal::none);
  ASSERT_TRUE(d.evicted.has_value());
  EXPECT_EQ(*d.evicted, b.id);  // idle the longest
  EXPECT_EQ(table.open(), 3U);
  EXPECT_EQ(table.idle(), 1U);
  EXPECT_EQ(table.open_from("10.0.0.2"), 0U);
  const auto e = table.admit("10.0.0.5");
  ASSERT_TRUE(e.evicted.has_value());
  EXPECT_EQ(*e.evicted, a.id);
  EXPECT_EQ(table.admit("10.0.0.6").refusal, TableRefusal::total_cap);
  // The evicted connection's own close later is ignored.
  table.remove(a.id);
  EXPECT_EQ(table.open(), 3U);
}

TEST(ConnectionTable, IdleMarksAreIdempotent) {
  ConnectionTable table(2, 2);
  const auto a = table.admit("10.0.0.1");
  table.set_idle(a.id, true);
  table.set_idle(a.id, true);
  EXPECT_EQ(table.idle(), 1U);
  table.set_idle(a.id, false);
  table.set_idle(a.id, false);
  EXPECT_EQ(table.idle(), 0U);
  table.set_idle(999, true);  // unknown: ignored
  EXPECT_EQ(table.idle(), 0U);
}

}  // namespace
}  // namespace eventsvc::host
