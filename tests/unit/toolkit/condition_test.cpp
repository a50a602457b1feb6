#include "eventsvc/toolkit/condition.hpp"

#include <gtest/gtest.h>

namespace eventsvc::toolkit {
namespace {

using namespace eventsvc::sdk;

Record sample() {
  Record record;
  record.id = "evt-1";
  record.type = "Reading";
  record.stream = "sensors";
  record.namespace_name = "plant-a";
  record.timestamp = 1795336200000;
  record.ingested_at = 1795336201000;
  record.payload = parse_json(
      R"({"temp":21.5,"count":3,"name":"Boiler Room","on":true,"none":null,"tags":["hot","east"],"nested":{"a":[{"b":7}]}})");
  record.metrics = parse_json(R"({"cpu":0.75})");
  return record;
}

bool check(const char* field, Op op, json::value operand) {
  return matches(sample(), Condition{*FieldPath::parse(field), op, std::move(operand)});
}

TEST(FieldPath, ParsesTheThreeNamespaces) {
  EXPECT_TRUE(FieldPath::parse("id"));
  EXPECT_TRUE(FieldPath::parse("timestamp")->is_instant());
  EXPECT_EQ(FieldPath::parse("payload.a.0.b")->segments, (std::vector<std::string>{"a", "0", "b"}));
  EXPECT_EQ(FieldPath::parse("metrics.cpu")->root, FieldPath::Root::metrics);
  EXPECT_TRUE(FieldPath::parse("payload"));
  for (const char* bad :
       {"", "data.x", "payload.", "payload..a", "payloadx", "attributes.x", ".id", "ID"}) {
    EXPECT_FALSE(FieldPath::parse(bad)) << bad;
  }
}

TEST(Conditions, Equality) {
  EXPECT_TRUE(check("payload.temp", Op::eq, 21.5));
  EXPECT_TRUE(check("payload.count", Op::eq, 3.0));  // numbers by value
  EXPECT_FALSE(check("payload.count", Op::eq, "3"));
  EXPECT_TRUE(check("payload.none", Op::eq, nullptr));
  EXPECT_FALSE(check("payload.missing", Op::eq, nullptr));  // absent is not null
  EXPECT_TRUE(check("payload.nested.a.0.b", Op::eq, 7));
  EXPECT_TRUE(check("namespace", Op::eq, "plant-a"));
  EXPECT_TRUE(check("timestamp", Op::eq, std::int64_t{1795336200000}));
  EXPECT_TRUE(check("metrics.cpu", Op::eq, 0.75));
  EXPECT_FALSE(check("payload.tags", Op::eq, "hot"));  // an array is not its element
}

TEST(Conditions, NegationsMatchAbsentFields) {
  EXPECT_TRUE(check("payload.temp", Op::neq, 20));
  EXPECT_FALSE(check("payload.temp", Op::neq, 21.5));
  EXPECT_TRUE(check("payload.missing", Op::neq, 1));
  EXPECT_TRUE(check("site_id", Op::not_in, json::array{"x"}));
  EXPECT_FALSE(check("type", Op::not_in, json::array{"Reading", "x"}));
}

TEST(Conditions, MembershipAndCase) {
  EXPECT_TRUE(check("type", Op::in, json::array{"Alert", "Reading"}));
  EXPECT_FALSE(check("type", Op::in, json::array{"reading"}));
  EXPECT_TRUE(check("type", Op::ieq, "rEaDiNg"));
  EXPECT_TRUE(check("payload.name", Op::ieq, "boiler room"));
  EXPECT_FALSE(check("payload.count", Op::ieq, "3"));
}

TEST(Conditions, RangesCompareOnlyLikeTypes) {
  EXPECT_TRUE(check("payload.temp", Op::gt, 21));
  EXPECT_TRUE(check("payload.temp", Op::gte, 21.5));
  EXPECT_FALSE(check("payload.temp", Op::lt, 21.5));
  EXPECT_TRUE(check("payload.temp", Op::lte, 21.5));
  EXPECT_FALSE(check("payload.temp", Op::gt, "20"));
  EXPECT_TRUE(check("payload.name", Op::gt, "Apple"));
  EXPECT_FALSE(check("payload.name", Op::lt, "Apple"));
  EXPECT_TRUE(check("timestamp", Op::gte, std::int64_t{1795336200000}));
  EXPECT_FALSE(check("timestamp", Op::gt, std::int64_t{1795336200000}));
  EXPECT_TRUE(check("ingested_at", Op::gt, std::int64_t{1795336200000}));
  EXPECT_FALSE(check("payload.missing", Op::lt, 100));
}

TEST(Conditions, ExistsContainsPrefix) {
  EXPECT_TRUE(check("payload.none", Op::exists, true));
  EXPECT_TRUE(check("payload.missing", Op::exists, false));
  EXPECT_FALSE(check("namespace", Op::exists, false));
  EXPECT_TRUE(check("site_id", Op::exists, false));
  EXPECT_TRUE(check("payload.name", Op::contains, "ler Ro"));
  EXPECT_FALSE(check("payload.name", Op::contains, "boiler"));  // case-sensitive
  EXPECT_TRUE(check("payload.tags", Op::contains, "east"));
  EXPECT_FALSE(check("payload.tags", Op::contains, "eas"));  // element, not substring
  EXPECT_TRUE(check("payload.name", Op::prefix, "Boil"));
  EXPECT_TRUE(check("timestamp", Op::prefix, "2026-11-22T08"));
  EXPECT_FALSE(check("payload.temp", Op::prefix, "21"));
}

TEST(TimeBounds, CombinesLowerAndUpper) {
  const auto ts = *FieldPath::parse("timestamp");
  const auto bounds = timestamp_bounds({{ts, Op::gt, std::int64_t{100}},
                                        {ts, Op::lte, std::int64_t{200}},
                                        {ts, Op::gte, std::int64_t{50}}});
  EXPECT_TRUE(bounds.has_lower);
  EXPECT_TRUE(bounds.has_upper);
  EXPECT_EQ(bounds.lower, 101);
  EXPECT_EQ(bounds.upper, 200);
  EXPECT_TRUE(
      timestamp_bounds({{ts, Op::gt, std::int64_t{5}}, {ts, Op::lt, std::int64_t{6}}}).empty());
  EXPECT_FALSE(timestamp_bounds({}).has_lower);
}

}  // namespace
}  // namespace eventsvc::toolkit
