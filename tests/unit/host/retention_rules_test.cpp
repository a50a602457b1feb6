// What retention lets go: every plan of a tenant's keys must have let a version go; a stream's
// shorter retention only where no plan keeps the stream longer; a tenant a key of an unknown plan
// reads is left alone; each rule's erasure body covers exactly its versions.
#include "retention/retention_rules.hpp"

#include <gtest/gtest.h>

namespace eventsvc::host {
namespace {

constexpr sdk::Millis kDay = 86400000;
constexpr sdk::Millis kNow = 1795336200000;  // 2026-11-22T08:30:00Z

HostConfig config_with_plans() {
  HostConfig config;
  Plan short_plan;
  short_plan.name = "short";
  short_plan.retention_days = 7;
  short_plan.stream_retention_days = {{"debug", 1}, {"trace", 2}};
  Plan long_plan;
  long_plan.name = "long";
  long_plan.retention_days = 30;
  long_plan.stream_retention_days = {{"debug", 3}};
  config.plans.emplace("short", short_plan);
  config.plans.emplace("long", long_plan);
  return config;
}

sdk::KeyInfo key(const std::string& workspace, const std::string& plan, bool revoked = false) {
  sdk::KeyInfo info;
  info.id = workspace + "-" + plan;
  info.tenant = {workspace, sdk::Environment::live};
  info.plan = plan;
  if (revoked) info.revoked_at = kNow - kDay;
  return info;
}

TEST(RetentionRules, EveryPlanOfATenantsKeysMustHaveLetAVersionGo) {
  const auto rules = retention_rules(
      config_with_plans(), {key("a", "short"), key("b", "short"), key("b", "long", true)}, kNow);
  ASSERT_TRUE(rules.left_alone.empty());
  ASSERT_EQ(rules.rules.size(), 5u);
  // a: short only.
  EXPECT_EQ(rules.rules[0].tenant.workspace, "a");
  EXPECT_EQ(rules.rules[0].stream, "");
  EXPECT_EQ(rules.rules[0].days, 7);
  EXPECT_EQ(rules.rules[0].cutoff, kNow - 7 * kDay);
  EXPECT_EQ(rules.rules[1].stream, "debug");
  EXPECT_EQ(rules.rules[1].days, 1);
  EXPECT_EQ(rules.rules[1].from, kNow - 7 * kDay);
  EXPECT_EQ(rules.rules[2].stream, "trace");
  EXPECT_EQ(rules.rules[2].days, 2);
  // b: a revoked key of the long plan still keeps its 30 days; debug the longer of 1 and 3;
  // trace, which the long plan keeps for all 30, has no rule of its own.
  EXPECT_EQ(rules.rules[3].tenant.workspace, "b");
  EXPECT_EQ(rules.rules[3].days, 30);
  EXPECT_EQ(rules.rules[4].stream, "debug");
  EXPECT_EQ(rules.rules[4].days, 3);
  EXPECT_EQ(rules.rules[4].cutoff, kNow - 3 * kDay);
  EXPECT_EQ(rules.rules[4].from, kNow - 30 * kDay);
}

TEST(RetentionRules, ATenantAKeyOfAnUnknownPlanReadsIsLeftAlone) {
  const auto rules =
      retention_rules(config_with_plans(), {key("a", "short"), key("a", "gone")}, kNow);
  EXPECT_TRUE(rules.rules.empty());
  ASSERT_EQ(rules.left_alone.size(), 1u);
  EXPECT_EQ(rules.left_alone[0].tenant.workspace, "a");
  EXPECT_EQ(rules.left_alone[0].reason,
            "a key names the plan 'gone', which the config does not define: its retention is "
            "unknown");
  EXPECT_TRUE(retention_rules(config_with_plans(), {}, kNow).rules.empty());
}

TEST(RetentionRules, EachRulesErasureCoversExactlyItsVersions) {
  const auto rules = retention_rules(config_with_plans(), {key("a", "short")}, kNow);
  ASSERT_EQ(rules.rules.size(), 3u);
  EXPECT_EQ(sdk::json::value(rules.rules[0].erasure_body()),
            sdk::parse_json(R"({"where": {"timestamp": {"lt": "2026-11-15T08:30:00.000Z"}},
                                 "source": "history"})"));
  // A stream's rule leaves what the tenant's rule erases to it.
  EXPECT_EQ(sdk::json::value(rules.rules[1].erasure_body()),
            sdk::parse_json(R"({"where": {"stream": "debug",
                                           "timestamp": {"lt": "2026-11-21T08:30:00.000Z",
                                                         "gte": "2026-11-15T08:30:00.000Z"}},
                                 "source": "history"})"));
  EXPECT_EQ(sdk::json::value(rules.rules[1].to_json()),
            sdk::parse_json(R"({"workspace": "a", "environment": "live", "stream": "debug",
                                 "days": 1, "before": "2026-11-21T08:30:00.000Z"})"));
}

}  // namespace
}  // namespace eventsvc::host
