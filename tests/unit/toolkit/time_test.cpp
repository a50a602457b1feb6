#include "eventsvc/toolkit/time.hpp"

#include <gtest/gtest.h>

namespace eventsvc::toolkit {
namespace {

using namespace eventsvc::sdk;

TEST(Rfc3339, ParsesUtcOffsetsAndFractions) {
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:01.5Z"), 1500);
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00.123456789Z"), 123);
  EXPECT_EQ(parse_rfc3339("1970-01-01t01:00:00+01:00"), 0);
  EXPECT_EQ(parse_rfc3339("1969-12-31T23:00:00-01:00"), 0);
  EXPECT_EQ(parse_rfc3339("2026-11-22T08:30:00Z"), 1795336200000);
  EXPECT_EQ(parse_rfc3339("2024-02-29T00:00:00z"), 1709164800000);
  EXPECT_EQ(parse_rfc3339("1969-12-31T23:59:59.999Z"), -1);
}

TEST(Rfc3339, RejectsAnythingElse) {
  for (const char* bad :
       {"", "2026-11-22", "2026-11-22T08:30:00", "2026-11-22 08:30:00Z", "2023-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-11-31T00:00:00Z", "2026-11-22T24:00:00Z",
        "2026-11-22T08:60:00Z", "2026-11-22T08:30:60Z", "2026-11-22T08:30:00.Z",
        "2026-11-22T08:30:00+0100", "2026-11-22T08:30:00Zjunk", "26-11-22T08:30:00Z", "now",
        // Offsets that move the instant out of years 0000-9999 (found by the fuzzer).
        "0000-01-01T04:20:01+10:30", "9999-12-31T23:00:00-02:00"}) {
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
  }
  // The edges themselves, and an offset that stays inside them.
  EXPECT_EQ(parse_rfc3339("0000-01-01T00:00:00Z"), -62167219200000);
  EXPECT_EQ(parse_rfc3339("9999-12-31T23:59:59.999Z"), 253402300799999);
  EXPECT_EQ(parse_rfc3339("0000-01-01T10:30:00+10:30"), -62167219200000);
}

TEST(Rfc3339, FormatsUtcWithMilliseconds) {
  EXPECT_EQ(format_rfc3339(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_rfc3339(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(format_rfc3339(1795336200123), "2026-11-22T08:30:00.123Z");
  EXPECT_EQ(format_rfc3339(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(format_rfc3339(-62167219200000), "0000-01-01T00:00:00.000Z");
  EXPECT_EQ(format_rfc3339(*parse_rfc3339("2024-02-29T23:59:59.5+00:00")),
            "2024-02-29T23:59:59.500Z");
}

TEST(Rfc3339, AppendsAfterWhatTheTextHolds) {
  std::string out = "at ";
  append_rfc3339(out, 1795336200123);
  EXPECT_EQ(out, "at 2026-11-22T08:30:00.123Z");
  out += ", ";
  append_rfc3339(out, 0);
  EXPECT_EQ(out, "at 2026-11-22T08:30:00.123Z, 1970-01-01T00:00:00.000Z");
  // Years past 9999 take the other path, appending just as well.
  std::string far = "x";
  append_rfc3339(far, 253402300800000);
  EXPECT_EQ(far, "x" + format_rfc3339(253402300800000));
  EXPECT_EQ(far.substr(0, 6), "x10000");
}

TEST(Durations, AllUnits) {
  EXPECT_EQ(parse_duration("15ms"), 15);
  EXPECT_EQ(parse_duration("2s"), 2000);
  EXPECT_EQ(parse_duration("3m"), 180000);
  EXPECT_EQ(parse_duration("24h"), 86400000);
  EXPECT_EQ(parse_duration("7d"), 604800000);
  EXPECT_EQ(parse_duration("2w"), 1209600000);
  EXPECT_FALSE(parse_duration("h"));
  EXPECT_FALSE(parse_duration("5"));
  EXPECT_FALSE(parse_duration("5y"));
  EXPECT_FALSE(parse_duration("-5m"));
  EXPECT_FALSE(parse_duration("99999999999999999999d"));
}

TEST(TimeExpressions, RelativeToNow) {
  const Millis now = 1795336200000;
  EXPECT_EQ(parse_time_expression("now", now), now);
  EXPECT_EQ(parse_time_expression("now-24h", now), now - 86400000);
  EXPECT_EQ(parse_time_expression("now+15m", now), now + 900000);
  EXPECT_EQ(parse_time_expression("2026-11-22T08:30:00Z", now), now);
  EXPECT_FALSE(parse_time_expression("now-", now));
  EXPECT_FALSE(parse_time_expression("now*2h", now));
  EXPECT_FALSE(parse_time_expression("yesterday", now));
  EXPECT_FALSE(parse_time_expression("now-9999999w", now));
}

}  // namespace
}  // namespace eventsvc::toolkit
