#include "decision_mode.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "eventsvc/toolkit/context_pack.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "support/context_testing.hpp"

namespace eventsvc::plugins::context {
namespace {

using testing::fields;
using testing::kT0;
using testing::RecordSet;
namespace json = sdk::json;

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

// Two sensors per room report its door and temperature: in the boiler room they disagree about
// the door within the window (their temperatures differ too, but readings that change are no
// contradiction); the office repeats itself; one office reading comes from an unverified write.
RecordSet rooms() {
  RecordSet set;
  set.add("sensor-a", kT0, json::object{{"room", "boiler"}, {"door", "open"}, {"temp", 70}});
  set.add("sensor-b", kT0 + 2 * kSecond,
          json::object{{"room", "boiler"}, {"door", "closed"}, {"temp", 75}});
  set.add("sensor-c", kT0 + 60 * kSecond,
          json::object{{"room", "office"}, {"door", "closed"}, {"temp", 21}});
  set.add("sensor-d", kT0 + 120 * kSecond,
          json::object{{"room", "office"}, {"door", "closed"}, {"temp", 21}});
  set.add("sensor-e", kT0 + 180 * kSecond,
          json::object{{"room", "office"}, {"door", "open"}, {"temp", 35}},
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
  input.subject_fields = fields({"payload.room"});  // only the subject: every other leaf in scope
  const auto output = DecisionMode{{}}.build(input);
  const auto& context = output.context;
  ASSERT_EQ(context.at("contradictions").as_array().size(), 1U);
  const auto& contradiction = context.at("contradictions").at(0);
  EXPECT_EQ(contradiction.at("subject"), "boiler");
  EXPECT_EQ(contradiction.at("attribute"), "payload.door");
  EXPECT_EQ(contradiction.at("gap_ms"), 2000);
  EXPECT_TRUE(context.at("timeline").as_array().empty());
  EXPECT_EQ(context.at("exclusions").at("unverified"), 1);
  EXPECT_EQ(context.at("exclusions").at("collapsed"), 2);  // the office said closed, 21 twice
  EXPECT_EQ(context.at("exclusions").at("out_of_scope"), 0);
  const auto& facts = context.at("facts").as_array();
  ASSERT_EQ(facts.size(), 4U);
  EXPECT_EQ(facts[0].at("subject"), "office");
  EXPECT_EQ(facts[0].at("attribute"), "payload.door");
  EXPECT_EQ(facts[0].at("observations"), 2);
  EXPECT_EQ(facts[0].at("event_ids"), (json::array{"sensor-c", "sensor-d"}));
  EXPECT_EQ(facts[3].at("attribute"), "payload.temp");  // boiler: 75, after 70
  EXPECT_EQ(facts[3].at("value"), 75);
  EXPECT_EQ(facts[3].at("range"), (json::object{{"min", 70}, {"max", 75}, {"readings", 2}}));
  EXPECT_EQ(context.at("decision_readiness").at("status"), "conflicting");
  // confidence = 4/5 verified × 1/2 agreement × 1 × 1 × 1
  EXPECT_EQ(context.at("confidence").to_number<double>(), 0.4);
  expect_golden(context, "sensor_contradiction");
}

TEST(DecisionMode, OutsideTheWindowADisagreementIsATransition) {
  const RecordSet set = rooms();
  auto input = set.input(decision(), kT0 + 200 * kSecond);
  input.subject_fields = fields({"payload.room"});
  input.request.contradiction_window_ms = 1000;
  const auto context = DecisionMode{{}}.build(input).context;
  EXPECT_TRUE(context.at("contradictions").as_array().empty());
  ASSERT_EQ(context.at("timeline").as_array().size(), 1U);  // the door; the temperature is read
  EXPECT_EQ(context.at("timeline").at(0), (json::object{{"at", "2026-11-22T08:30:02.000Z"},
                                                        {"subject", "boiler"},
                                                        {"attribute", "payload.door"},
                                                        {"from", "open"},
                                                        {"to", "closed"},
                                                        {"from_event_id", "sensor-a"},
                                                        {"event_id", "sensor-b"}}));
}

TEST(DecisionFacts, MeasurementsContradictOnlyAtTheSameInstant) {
  RecordSet set;
  // One probe whose readings change every minute: neither transitions nor contradictions.
  for (int minute = 0; minute < 5; ++minute) {
    set.add("probe-" + std::to_string(minute), kT0 + minute * 60 * kSecond,
            json::object{{"tank", "north"}, {"level", 40 + minute}});
  }
  // Two probes reading the south tank at the same instant, differently: a contradiction.
  set.add("probe-x", kT0, json::object{{"tank", "south"}, {"level", 12.5}});
  set.add("probe-y", kT0, json::object{{"tank", "south"}, {"level", 13}});
  set.add("probe-z", kT0 + 2 * kSecond, json::object{{"tank", "south"}, {"level", 14}});
  auto input = set.input(decision(), kT0 + 300 * kSecond);
  input.subject_fields = fields({"payload.tank"});
  const auto context = DecisionMode{{}}.build(input).context;
  EXPECT_TRUE(context.at("timeline").as_array().empty()) << context.at("timeline");
  ASSERT_EQ(context.at("contradictions").as_array().size(), 1U);
  EXPECT_EQ(
      context.at("contradictions").at(0),
      (json::object{{"subject", "south"},
                    {"attribute", "payload.level"},
                    {"observations", json::array{json::object{{"value", 12.5},
                                                              {"at", "2026-11-22T08:30:00.000Z"},
                                                              {"event_id", "probe-x"}},
                                                 json::object{{"value", 13},
                                                              {"at", "2026-11-22T08:30:00.000Z"},
                                                              {"event_id", "probe-y"}}}},
                    {"gap_ms", 0}}));
  const auto& facts = context.at("facts").as_array();
  ASSERT_EQ(facts.size(), 2U);
  EXPECT_EQ(facts[0].at("subject"), "north");
  EXPECT_EQ(facts[0].at("value"), 44);
  EXPECT_EQ(facts[0].at("range"), (json::object{{"min", 40}, {"max", 44}, {"readings", 5}}));
  EXPECT_EQ(facts[1].at("value"), 14);
  EXPECT_EQ(facts[1].at("range"), (json::object{{"min", 12.5}, {"max", 14}, {"readings", 3}}));
  EXPECT_EQ(context.at("decision_readiness").at("status"), "conflicting");
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
            "ctx_" + toolkit::sha256_hex(sdk::canonical_json(without)).substr(0, 32));
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
    EXPECT_EQ(tokens, toolkit::estimate_tokens(context)) << budget;
    EXPECT_LE(tokens, budget);
    const auto dropped = context.at("exclusions").at("over_budget").to_number<std::size_t>();
    if (budget == 100000) {
      EXPECT_EQ(dropped, 0U);
      EXPECT_EQ(context.at("proof").at("complete"), true);
      EXPECT_EQ(context.at("documents").as_array().size(), 60U);
    } else {
      EXPECT_GT(dropped, 0U);
      EXPECT_EQ(context.at("decision_readiness").at("status"), "incomplete");
      if (context.at("facts").as_array().size() < 60) {
        // Facts were found but did not all fit: said, with the budget that keeps them all.
        const auto& readiness = context.at("decision_readiness");
        EXPECT_EQ(readiness.at("reasons").at(0), "facts_over_budget") << readiness;
        EXPECT_GT(readiness.at("budget_needed").to_number<std::size_t>(), budget);
      }
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
  // One fact and one of the two state transitions are over the caps (temp is a measurement: its
  // change is a reading, not a transition).
  EXPECT_EQ(context.at("exclusions").at("over_limit"), 2);
}

TEST(DecisionMode, CitationsNameTheRolesOfRecords) {
  const RecordSet set = pump();
  auto input = set.input(decision(), kT0 + 150 * kSecond);
  input.attributes = fields({"payload.state"});
  const auto output = DecisionMode{{}}.build(input);
  std::vector<std::pair<std::size_t, std::string>> citations;
  for (const auto& c : output.citations)
    citations.emplace_back(c.record, c.role);
  // idle (0) -> running (1) -> idle (2): each transition cites the value it replaced and the new
  // one, and the record between them is named once.
  EXPECT_EQ(citations, (std::vector<std::pair<std::size_t, std::string>>{{0, "transition"},
                                                                         {1, "transition"},
                                                                         {2, "fact_source"},
                                                                         {2, "latest_state"},
                                                                         {2, "transition"}}));
}

// 5,000 readings of 20 sensors over 5 hours: half the sensors change state three times (30
// changes), every reading has its own event id. The headline case of the budget: an agent asks
// with the default budget and names only the subject field.
RecordSet sensor_history() {
  RecordSet set;
  for (int reading = 0; reading < 250; ++reading) {
    for (int sensor = 0; sensor < 20; ++sensor) {
      const bool changes = sensor < 10;
      const int phase = changes ? reading * 4 / 250 : 0;  // 0..3: three changes
      char name[16];
      std::snprintf(name, sizeof name, "s-%02d", sensor);
      set.add("r-" + std::to_string(sensor) + "-" + std::to_string(reading),
              kT0 + reading * 72 * kSecond + sensor,
              json::object{{"sensor", name}, {"state", phase % 2 == 0 ? "idle" : "running"}});
    }
  }
  return set;
}

json::object sensor_pack(const RecordSet& set, std::size_t budget) {
  auto input = set.input(decision(budget), kT0 + 250 * 72 * kSecond);
  input.subject_fields = fields({"payload.sensor"});
  input.attributes = fields({"payload.sensor"});
  return DecisionMode{{}}.build(input).context;
}

TEST(DecisionBudget, TheDefaultBudgetKeepsEveryFactOfALongHistory) {
  const RecordSet set = sensor_history();
  const auto context = sensor_pack(set, 4000);
  // Naming only the subject field leaves every other leaf in scope.
  EXPECT_EQ(context.at("exclusions").at("out_of_scope"), 0);
  ASSERT_EQ(context.at("facts").as_array().size(), 20U) << context;
  const auto& fact = context.at("facts").at(0).as_object();
  EXPECT_EQ(fact.at("event_count"), 250);  // a sensor that never changed: every reading
  EXPECT_EQ(fact.at("event_ids").as_array().size(), 4U);
  EXPECT_LE(context.at("compaction").at("packed_tokens").to_number<std::size_t>(), 4000U);
  EXPECT_EQ(context.at("decision_readiness").at("status"), "ready") << context;
  // The latest transitions stay too; what did not fit is counted.
  EXPECT_GT(context.at("timeline").as_array().size(), 0U);
  const auto dropped = context.at("exclusions").at("over_budget").to_number<std::size_t>();
  EXPECT_EQ(dropped + context.at("timeline").as_array().size(), 16U);  // max_timeline
  const double ratio = context.at("compaction").at("ratio").to_number<double>();
  EXPECT_LT(ratio, 0.02) << "packed / source";
}

TEST(DecisionBudget, FactsKeptNeverDecreaseAsTheBudgetGrows) {
  const RecordSet set = sensor_history();
  std::size_t previous = 0;
  for (const std::size_t budget : {256U, 512U, 1000U, 2000U, 3000U, 4000U, 8000U, 20000U}) {
    const auto context = sensor_pack(set, budget);
    const std::size_t facts = context.at("facts").as_array().size();
    EXPECT_GE(facts, previous) << budget;
    EXPECT_LE(context.at("compaction").at("packed_tokens").to_number<std::size_t>(), budget);
    if (facts < 20) {
      EXPECT_EQ(context.at("decision_readiness").at("status"), "incomplete");
      EXPECT_EQ(context.at("decision_readiness").at("reasons").at(0), "facts_over_budget");
    }
    previous = facts;
  }
  EXPECT_EQ(previous, 20U);
}

TEST(DecisionFacts, ValueSinceIsTheStartOfTheCurrentRun) {
  RecordSet set;
  for (const auto& [minute, state] : std::vector<std::pair<int, const char*>>{{0, "idle"},
                                                                              {1, "running"},
                                                                              {2, "running"},
                                                                              {3, "idle"},
                                                                              {4, "running"},
                                                                              {5, "running"}}) {
    set.add("e-" + std::to_string(minute), kT0 + minute * 60 * kSecond,
            json::object{{"pump", "p1"}, {"state", state}});
  }
  auto input = set.input(decision(), kT0 + 6 * 60 * kSecond);
  input.subject_fields = fields({"payload.pump"});
  const auto context = DecisionMode{{}}.build(input).context;
  const auto& fact = context.at("facts").at(0);
  EXPECT_EQ(fact.at("value"), "running");
  EXPECT_EQ(fact.at("first_seen"), "2026-11-22T08:31:00.000Z");
  EXPECT_EQ(fact.at("value_since"), "2026-11-22T08:34:00.000Z");
  EXPECT_EQ(fact.at("observations"), 4);
  // Each transition names the event of the value it replaced and of the new one.
  const auto& last = context.at("timeline").as_array().back();
  EXPECT_EQ(last.at("from_event_id"), "e-3");
  EXPECT_EQ(last.at("event_id"), "e-4");
}

TEST(DecisionReadiness, AnUnverifiedShareAboveAFifthIsNamed) {
  RecordSet set;
  set.add("a", kT0, json::object{{"state", "on"}});
  set.add("b", kT0 + kSecond, json::object{{"state", "on"}});
  set.add("c", kT0 + 2 * kSecond, json::object{{"state", "on"}});
  set.add("d", kT0 + 3 * kSecond, json::object{{"state", "off"}}, sdk::Verification::pending);
  auto input = set.input(decision(), kT0 + 4 * kSecond);
  // One of four unverified: a quarter, above the fifth.
  auto context = DecisionMode{{}}.build(input).context;
  EXPECT_EQ(context.at("decision_readiness").at("status"), "incomplete");
  EXPECT_EQ(context.at("decision_readiness").at("reasons"), json::array{"unverified_evidence"});
  set.add("e", kT0 + 3 * kSecond, json::object{{"state", "on"}});
  context = DecisionMode{{}}.build(set.input(decision(), kT0 + 4 * kSecond)).context;
  EXPECT_EQ(context.at("decision_readiness").at("status"), "ready");  // one of five: a fifth
}

TEST(DecisionFacts, NumericAttributesCarryTheRangeOfTheirReadings) {
  RecordSet set;
  set.add("thermostat", kT0, json::object{{"temp", 21.5}, {"mode", "auto"}});
  set.add("thermostat", kT0 + 60 * kSecond, json::object{{"temp", 19}, {"mode", 3}});
  set.add("thermostat", kT0 + 120 * kSecond, json::object{{"temp", 24.25}, {"mode", "auto"}});
  set.add("thermostat", kT0 + 180 * kSecond, json::object{{"temp", 22}, {"mode", "auto"}});
  auto input = set.input(decision(), kT0 + 200 * kSecond);
  input.attributes = fields({"payload.temp", "payload.mode"});
  const auto context = DecisionMode{{}}.build(input).context;
  json::object temp;
  json::object mode;
  for (const auto& fact : context.at("facts").as_array()) {
    (fact.at("attribute") == "payload.temp" ? temp : mode) = fact.as_object();
  }
  EXPECT_EQ(temp.at("value"), 22);
  EXPECT_EQ(temp.at("range"), (json::object{{"min", 19}, {"max", 24.25}, {"readings", 4}}));
  // A value that is not always a number has no range.
  EXPECT_FALSE(mode.contains("range")) << mode;
}

}  // namespace
}  // namespace eventsvc::plugins::context
