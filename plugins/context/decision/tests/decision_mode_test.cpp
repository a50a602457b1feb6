#include "decision_mode.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/context_testing.hpp"

namespace eventsvc::plugins::context {
namespace {

using testing::fields;
using testing::RecordSet;
namespace json = sdk::json;

constexpr sdk::Millis kT0 = 1795336200000;  // 2026-11-22T08:30:00Z
constexpr sdk::Millis kSecond = 1000;

sdk::ContextRequest decision(std::size_t budget = 4000) {
  sdk::ContextRequest request;
  request.mode = "decision";
  request.token_budget = budget;
  return request;
}

// Compares with golden/<name>.json; EVENTSVC_UPDATE_GOLDEN=1 rewrites the file instead.
void expect_golden(const json::object& context, const std::string& name) {
  const std::string path = std::string(GOLDEN_DIR) + "/" + name + ".json";
  std::string text = sdk::to_json(context);
  if (std::getenv("EVENTSVC_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << text << "\n";
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing golden file " << path;
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(text + "\n", golden.str()) << name;
}

// A pump whose state changes twice; temperature is out of scope.
RecordSet pump() {
  RecordSet set;
  set.add("pump-1", kT0, json::object{{"state", "idle"}, {"temp", 20}});
  set.add("pump-1", kT0 + 60 * kSecond, json::object{{"state", "running"}, {"temp", 20}});
  set.add("pump-1", kT0 + 120 * kSecond, json::object{{"state", "stopped"}, {"temp", 21}});
  return set;
}

// Two sensors per room: they disagree within the window in the boiler room; the office repeats
// itself; one office reading comes from an unverified write.
RecordSet rooms() {
  RecordSet set;
  set.add("sensor-a", kT0, json::object{{"room", "boiler"}, {"temp", 70}});
  set.add("sensor-b", kT0 + 2 * kSecond, json::object{{"room", "boiler"}, {"temp", 75}});
  set.add("sensor-c", kT0 + 60 * kSecond, json::object{{"room", "office"}, {"temp", 21}});
  set.add("sensor-d", kT0 + 120 * kSecond, json::object{{"room", "office"}, {"temp", 21}});
  set.add("sensor-e", kT0 + 180 * kSecond, json::object{{"room", "office"}, {"temp", 35}},
          sdk::Verification::conflict);
  return set;
}

TEST(DecisionMode, StateChangesBecomeTransitionsGolden) {
  const RecordSet set = pump();
  auto input = set.input(decision(), kT0 + 150 * kSecond);
  input.attributes = fields({"payload.state"});
  const auto output = DecisionMode{{}}.build(input);
  const auto& context = output.context;
  ASSERT_EQ(context.at("timeline").as_array().size(), 2U);
  EXPECT_EQ(context.at("timeline").at(0).at("from"), "idle");
  EXPECT_EQ(context.at("timeline").at(0).at("to"), "running");
  EXPECT_EQ(context.at("timeline").at(1).at("to"), "stopped");
  EXPECT_EQ(context.at("facts").at(0).at("value"), "stopped");
  EXPECT_EQ(context.at("exclusions").at("out_of_scope"), 3);  // temp, once per record
  EXPECT_EQ(context.at("decision_readiness").at("status"), "ready");
  EXPECT_EQ(context.at("confidence").to_number<double>(), 1.0);
  expect_golden(context, "pump_state_changes");
}

TEST(DecisionMode, DisagreeingSensorsAreAContradictionGolden) {
  const RecordSet set = rooms();
  auto input = set.input(decision(), kT0 + 200 * kSecond);
  input.subject_fields = fields({"payload.room"});
  input.attributes = fields({"payload.temp"});
  const auto output = DecisionMode{{}}.build(input);
  const auto& context = output.context;
  ASSERT_EQ(context.at("contradictions").as_array().size(), 1U);
  const auto& contradiction = context.at("contradictions").at(0);
  EXPECT_EQ(contradiction.at("subject"), "boiler");
  EXPECT_EQ(contradiction.at("gap_ms"), 2000);
  EXPECT_TRUE(context.at("timeline").as_array().empty());
  EXPECT_EQ(context.at("exclusions").at("unverified"), 1);
  EXPECT_EQ(context.at("exclusions").at("collapsed"), 1);  // the office said 21 twice
  const auto& facts = context.at("facts").as_array();
  ASSERT_EQ(facts.size(), 2U);
  EXPECT_EQ(facts[0].at("subject"), "office");
  EXPECT_EQ(facts[0].at("observations"), 2);
  EXPECT_EQ(facts[0].at("event_ids"), (json::array{"sensor-c", "sensor-d"}));
  EXPECT_EQ(context.at("decision_readiness").at("status"), "conflicting");
  // confidence = 4/5 verified × 1/2 agreement × 1 × 1 × 1
  EXPECT_EQ(context.at("confidence").to_number<double>(), 0.4);
  expect_golden(context, "sensor_contradiction");
}

TEST(DecisionMode, OutsideTheWindowADisagreementIsATransition) {
  const RecordSet set = rooms();
  auto input = set.input(decision(), kT0 + 200 * kSecond);
  input.subject_fields = fields({"payload.room"});
  input.attributes = fields({"payload.temp"});
  input.request.contradiction_window_ms = 1000;
  const auto context = DecisionMode{{}}.build(input).context;
  EXPECT_TRUE(context.at("contradictions").as_array().empty());
  ASSERT_EQ(context.at("timeline").as_array().size(), 1U);
  EXPECT_EQ(context.at("timeline").at(0).at("subject"), "boiler");
  EXPECT_EQ(context.at("timeline").at(0).at("event_id"), "sensor-b");
}

TEST(DecisionMode, StaleAndNeverObservedAreMissingEvidence) {
  const RecordSet set = pump();
  auto input = set.input(decision(), kT0 + 3600 * kSecond);  // an hour later, 15 minutes expected
  input.attributes = fields({"payload.state", "payload.pressure"});
  const auto context = DecisionMode{{}}.build(input).context;
  EXPECT_EQ(context.at("missing_evidence"),
            sdk::parse_json(
                R"([{"subject":"pump-1","attribute":"payload.pressure","reason":"never_observed"},
                            {"subject":"pump-1","reason":"stale","last_seen":"2026-11-22T08:32:00.000Z"}])"));
  EXPECT_EQ(context.at("decision_readiness").at("status"), "stale");
  EXPECT_EQ(context.at("decision_readiness").at("reasons"),
            (json::array{"stale_evidence", "missing_evidence"}));
  // 1 observed pair of 2 in scope, the one subject stale: 1 × 1 × 1/2 × 1/2 × 1
  EXPECT_EQ(context.at("confidence").to_number<double>(), 0.25);
}

TEST(DecisionMode, NoVerifiedEvidenceIsInsufficient) {
  RecordSet set;
  set.add("x", kT0, json::object{{"v", 1}}, sdk::Verification::pending);
  const auto context = DecisionMode{{}}.build(set.input(decision(), kT0)).context;
  EXPECT_EQ(context.at("decision_readiness").at("status"), "insufficient_evidence");
  EXPECT_EQ(context.at("confidence").to_number<double>(), 0.0);
  EXPECT_EQ(context.at("exclusions").at("unverified"), 1);
}

TEST(DecisionMode, DeterministicWithASelfExcludingId) {
  const RecordSet set = rooms();
  auto input = set.input(decision(), kT0 + 200 * kSecond);
  input.subject_fields = fields({"payload.room"});
  const auto first = DecisionMode{{}}.build(input).context;
  const auto second = DecisionMode{{}}.build(input).context;
  EXPECT_EQ(sdk::to_json(first), sdk::to_json(second));
  json::object without = first;
  without.erase("context_id");
  EXPECT_EQ(first.at("context_id").as_string(),
            "ctx_" + sdk::sha256_hex(sdk::canonical_json(without)).substr(0, 32));
}

TEST(DecisionMode, BudgetIsRespectedAndDropsAreCounted) {
  RecordSet set;
  for (int i = 0; i < 60; ++i) {
    set.add("device-" + std::to_string(i), kT0 + i * kSecond,
            json::object{{"state", i % 2 == 0 ? "on" : "off"}, {"reason", std::string(40, 'r')}});
  }
  for (const std::size_t budget : {256U, 1000U, 100000U}) {
    auto input = set.input(decision(budget), kT0 + 60 * kSecond);
    input.attributes = fields({"payload.state"});
    input.request.max_facts = 100;
    input.request.include_documents = true;
    const auto context = DecisionMode{{}}.build(input).context;
    const auto tokens = context.at("compaction").at("packed_tokens").to_number<std::size_t>();
    EXPECT_EQ(tokens, sdk::estimate_tokens(context)) << budget;
    EXPECT_LE(tokens, budget);
    const auto dropped = context.at("exclusions").at("over_budget").to_number<std::size_t>();
    if (budget == 100000) {
      EXPECT_EQ(dropped, 0U);
      EXPECT_EQ(context.at("proof").at("complete"), true);
      EXPECT_EQ(context.at("documents").as_array().size(), 60U);
    } else {
      EXPECT_GT(dropped, 0U);
      EXPECT_EQ(context.at("proof").at("complete"), false);
      EXPECT_EQ(context.at("decision_readiness").at("status"), "incomplete");
    }
  }
}

TEST(DecisionMode, CapsAreCountedAsOverLimit) {
  const RecordSet set = pump();
  auto input = set.input(decision(), kT0 + 150 * kSecond);
  input.attributes = fields({"payload.state", "payload.temp"});
  input.request.max_facts = 1;
  input.request.max_timeline = 1;
  const auto context = DecisionMode{{}}.build(input).context;
  ASSERT_EQ(context.at("facts").as_array().size(), 1U);
  EXPECT_EQ(context.at("facts").at(0).at("attribute"), "payload.state");  // ties: by attribute
  EXPECT_EQ(context.at("timeline").as_array().size(), 1U);
  EXPECT_EQ(context.at("timeline").at(0).at("at"), "2026-11-22T08:32:00.000Z");  // the newest
  // One fact and two of the three transitions (state twice, temp once) are over the caps.
  EXPECT_EQ(context.at("exclusions").at("over_limit"), 3);
}

TEST(DecisionMode, CitationsNameTheRolesOfRecords) {
  const RecordSet set = pump();
  auto input = set.input(decision(), kT0 + 150 * kSecond);
  input.attributes = fields({"payload.state"});
  const auto output = DecisionMode{{}}.build(input);
  std::vector<std::pair<std::size_t, std::string>> citations;
  for (const auto& c : output.citations)
    citations.emplace_back(c.record, c.role);
  std::sort(citations.begin(), citations.end());
  EXPECT_EQ(citations,
            (std::vector<std::pair<std::size_t, std::string>>{
                {1, "transition"}, {2, "fact_source"}, {2, "latest_state"}, {2, "transition"}}));
}

}  // namespace
}  // namespace eventsvc::plugins::context
