// Context Packs over HTTPS on scenario data with known ground truth (docs/context-pack.md):
// transitions, contradictions inside and outside the window, unverified and out-of-scope
// exclusions, collapsed repeats, stale subjects, readiness, proof, determinism across calls and
// restarts, token budgets, the documents mode and audit traces.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

constexpr std::int64_t kMinute = 60000;

std::string audited_config() {
  TestConfig config;
  config.plugins =
      default_plugins() +
      "  audit:\n    library: eventsvc-audit-jsonl\n    config:\n      sample_rate: 1\n";
  return config.yaml();
}

class ContextTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess(audited_config());
    server_->start();
    key_ = new std::string(server_->create_key("ctx", "test"));
    ApiClient api(server_->port(), *key_);
    now_ = now_ms();
    auto at = [&](std::int64_t minutes_ago) { return now_ - minutes_ago * kMinute; };
    // A pump whose state changes twice; temp is not asked about.
    api.ingest_verified(
        make_batch("pumps",
                   json::array{
                       make_event("pump-1", "state", at(10), {{"state", "idle"}, {"temp", 20}}),
                       make_event("pump-1", "state", at(8), {{"state", "running"}, {"temp", 30}}),
                       make_event("pump-1", "state", at(6), {{"state", "stopped"}, {"temp", 25}})}),
        "ctx-pump");
    // Sensors by room report its door, temperature and (the office only) humidity. Boiler
    // sensors disagree about the door 2 s apart (a contradiction; their temperatures differ too,
    // but changing readings are no contradiction); the office door opens then closes a minute
    // later (a transition) and repeats itself (collapsed); two lab sensors read different
    // temperatures at the same instant (a contradiction); the cellar last reported two hours ago.
    auto room = [](const char* name, const char* door, double temp) {
      return json::object{{"room", name}, {"door", door}, {"temp", temp}};
    };
    auto with_humidity = [](json::object payload, int humidity) {
      payload["humidity"] = humidity;
      return payload;
    };
    json::array rooms{
        make_event("s-boiler-a", "reading", at(5), room("boiler", "open", 70)),
        make_event("s-boiler-b", "reading", at(5) + 2000, room("boiler", "closed", 75)),
        make_event("s-office-a", "reading", at(4), with_humidity(room("office", "open", 22), 40)),
        make_event("s-office-b", "reading", at(3), with_humidity(room("office", "closed", 21), 40)),
        make_event("s-office-c", "reading", at(2), with_humidity(room("office", "closed", 21), 41)),
        make_event("s-cellar-a", "reading", at(120), room("cellar", "closed", 12)),
        make_event("s-lab-a", "reading", at(6), room("lab", "closed", 18)),
        make_event("s-lab-b", "reading", at(6), room("lab", "closed", 19))};
    api.ingest_verified(make_batch("rooms", rooms), "ctx-rooms");
    // An unverified record: its write also reuses a stored version with another payload.
    const auto conflicting = api.ingest(
        make_batch(
            "rooms",
            json::array{make_event("s-boiler-a", "reading", at(5), room("boiler", "open", 99)),
                        make_event("s-attic-a", "reading", at(1), room("attic", "open", 30))}),
        "ctx-conflict");
    EXPECT_EQ(
        api.wait_final(std::string(conflicting.json().at("receipt_id").as_string())).at("status"),
        "conflict");
  }
  static void TearDownTestSuite() {
    delete server_;
    delete key_;
  }

  static json::object pump_request() {
    return {{"where", json::object{{"id", "pump-1"},
                                   {"payload.state", json::object{{"exists", true}}},
                                   {"timestamp", json::object{{"gte", "now-1h"}}}}},
            {"context", json::object{{"mode", "decision"}}}};
  }
  // Names payload.door (where), payload.temp and payload.humidity (aggregations).
  static json::object rooms_request(json::object context = {{"mode", "decision"}}) {
    return {{"where", json::object{{"stream", "rooms"},
                                   {"payload.door", json::object{{"exists", true}}},
                                   {"timestamp", json::object{{"gte", "now-3h"}}}}},
            {"group_by", json::array{"payload.room"}},
            {"aggregations",
             json::object{{"t", json::object{{"op", "max"}, {"field", "payload.temp"}}},
                          {"h", json::object{{"op", "max"}, {"field", "payload.humidity"}}}}},
            {"context", std::move(context)}};
  }
  static json::object analyze(const json::object& body, int port = 0) {
    const auto response = ApiClient(port == 0 ? server_->port() : port, *key_).analyze(body);
    EXPECT_EQ(response.status, 200) << response.body;
    return response.status == 200 ? response.json().as_object() : json::object();
  }
  // The context exactly as the server wrote it (for byte comparisons and token counts).
  static std::string context_text(json::object body, int port = 0) {
    body["include_results"] = false;
    const auto response = ApiClient(port == 0 ? server_->port() : port, *key_).analyze(body);
    EXPECT_EQ(response.status, 200) << response.body;
    const std::string marker = "\"context\":";
    const auto at = response.body.find(marker);
    EXPECT_NE(at, std::string::npos) << response.body;
    if (at == std::string::npos) return {};
    return response.body.substr(at + marker.size(), response.body.size() - at - marker.size() - 1);
  }

  static ServerProcess* server_;
  static std::string* key_;
  static std::int64_t now_;
};

ServerProcess* ContextTest::server_ = nullptr;
std::string* ContextTest::key_ = nullptr;
std::int64_t ContextTest::now_ = 0;

std::string without_audit_id(std::string text) {
  auto context = json::parse(text).as_object();
  context.erase("audit_trace_id");
  return json::serialize(context);
}

TEST_F(ContextTest, StateChangingTwiceGivesTwoTransitionsAndIsReady) {
  const auto answer = analyze(pump_request());
  const auto& context = answer.at("context");
  EXPECT_EQ(context.at("schema_version"), "1.1");
  EXPECT_EQ(context.at("mode"), "decision");
  const auto& timeline = context.at("timeline").as_array();
  ASSERT_EQ(timeline.size(), 2U);
  EXPECT_EQ(timeline[0].at("from"), "idle");
  EXPECT_EQ(timeline[0].at("to"), "running");
  EXPECT_EQ(timeline[1].at("from"), "running");
  EXPECT_EQ(timeline[1].at("to"), "stopped");
  EXPECT_EQ(context.at("facts").as_array().size(), 1U);
  EXPECT_EQ(context.at("facts").at(0).at("value"), "stopped");
  EXPECT_EQ(context.at("exclusions").at("out_of_scope"), 3);  // payload.temp of each version
  EXPECT_EQ(context.at("decision_readiness"),
            (json::object{{"status", "ready"}, {"reasons", json::array{}}}));
  EXPECT_EQ(context.at("confidence").to_number<double>(), 1.0);
  EXPECT_EQ(context.at("proof").at("complete"), true);
  // The newest version is the latest state; the changes are transitions, each resting on the
  // value it replaced and the new one: all three versions.
  std::set<std::string> roles;
  int in_transitions = 0;
  for (const auto& result : answer.at("results").as_array()) {
    for (const auto& role : result.at("source_roles").as_array()) {
      roles.emplace(role.as_string());
      if (role == "transition") ++in_transitions;
    }
  }
  EXPECT_EQ(roles, (std::set<std::string>{"match", "fact_source", "latest_state", "transition"}));
  EXPECT_EQ(in_transitions, 3);
}

// Every expectation below is worked out by hand from the readings above (docs/context-pack.md).
TEST_F(ContextTest, SensorsScenario) {
  const auto answer = analyze(rooms_request());
  const auto& context = answer.at("context");
  auto obs = [](const json::value& value, std::int64_t at, const char* event) {
    return json::object{{"value", value}, {"at", iso(at)}, {"event_id", event}};
  };
  // Newest first: the boiler door 2 s apart; the lab temperatures at the same instant.
  EXPECT_EQ(context.at("contradictions"),
            (json::array{
                json::object{{"subject", "boiler"},
                             {"attribute", "payload.door"},
                             {"observations",
                              json::array{obs("open", now_ - 5 * kMinute, "s-boiler-a"),
                                          obs("closed", now_ - 5 * kMinute + 2000, "s-boiler-b")}},
                             {"gap_ms", 2000}},
                json::object{{"subject", "lab"},
                             {"attribute", "payload.temp"},
                             {"observations", json::array{obs(18, now_ - 6 * kMinute, "s-lab-a"),
                                                          obs(19, now_ - 6 * kMinute, "s-lab-b")}},
                             {"gap_ms", 0}}}));
  // The office door a minute apart: a transition citing both events. Temperatures and humidity
  // changed too: readings, neither transitions nor contradictions.
  EXPECT_EQ(context.at("timeline"), (json::array{json::object{{"at", iso(now_ - 3 * kMinute)},
                                                              {"subject", "office"},
                                                              {"attribute", "payload.door"},
                                                              {"from", "open"},
                                                              {"to", "closed"},
                                                              {"from_event_id", "s-office-a"},
                                                              {"event_id", "s-office-b"}}}));
  // Facts: the latest value per (room, attribute), newest first, then room, then attribute.
  std::vector<std::string> order;
  std::map<std::string, json::object> facts;
  for (const auto& fact : context.at("facts").as_array()) {
    const std::string key = std::string(fact.at("subject").as_string()) + " " +
                            std::string(fact.at("attribute").as_string());
    order.push_back(key);
    facts[key] = fact.as_object();
  }
  EXPECT_EQ(order, (std::vector<std::string>{
                       "office payload.door", "office payload.humidity", "office payload.temp",
                       "boiler payload.door", "boiler payload.temp", "lab payload.door",
                       "lab payload.temp", "cellar payload.door", "cellar payload.temp"}));
  const auto& door = facts["office payload.door"];
  EXPECT_EQ(door.at("value"), "closed");
  EXPECT_EQ(door.at("observations"), 2);
  EXPECT_EQ(door.at("first_seen").as_string(), iso(now_ - 3 * kMinute));
  EXPECT_EQ(door.at("value_since").as_string(), iso(now_ - 3 * kMinute));
  EXPECT_EQ(door.at("last_seen").as_string(), iso(now_ - 2 * kMinute));
  EXPECT_EQ(door.at("event_ids"), (json::array{"s-office-b", "s-office-c"}));
  EXPECT_FALSE(door.contains("range"));
  EXPECT_EQ(facts["office payload.temp"].at("value"), 21);
  EXPECT_EQ(facts["office payload.temp"].at("range"),
            (json::object{{"min", 21}, {"max", 22}, {"readings", 3}}));
  EXPECT_EQ(facts["office payload.humidity"].at("range"),
            (json::object{{"min", 40}, {"max", 41}, {"readings", 3}}));
  EXPECT_EQ(facts["boiler payload.temp"].at("value"), 75);
  EXPECT_EQ(facts["boiler payload.temp"].at("range"),
            (json::object{{"min", 70}, {"max", 75}, {"readings", 2}}));
  EXPECT_EQ(facts["lab payload.temp"].at("value"), 19);  // s-lab-b sorts after s-lab-a
  EXPECT_EQ(facts["lab payload.door"].at("event_ids"), (json::array{"s-lab-a", "s-lab-b"}));
  // Humidity was named but only the office reports it; the cellar last reported two hours ago.
  auto never = [](const char* subject) {
    return json::object{
        {"subject", subject}, {"attribute", "payload.humidity"}, {"reason", "never_observed"}};
  };
  EXPECT_EQ(context.at("missing_evidence"),
            (json::array{never("boiler"), never("cellar"),
                         json::object{{"subject", "cellar"},
                                      {"reason", "stale"},
                                      {"last_seen", iso(now_ - 120 * kMinute)}},
                         never("lab")}));
  // The attic record came with a conflicting write: unverified, excluded, counted. Collapsed: the
  // office door, temperature and humidity and the lab door each repeated a value once.
  EXPECT_EQ(context.at("exclusions"), (json::object{{"unverified", 1},
                                                    {"out_of_scope", 0},
                                                    {"collapsed", 4},
                                                    {"excluded_by_request", 0},
                                                    {"over_limit", 0},
                                                    {"over_budget", 0}}));
  EXPECT_EQ(context.at("decision_readiness"),
            (json::object{
                {"status", "conflicting"},
                {"reasons", json::array{"contradictions", "stale_evidence", "missing_evidence"}}}));
  // 8/9 verified × 1/(1 + 2 contradictions) × 9 of 12 pairs observed × (1 − 0.5 × 1/4 stale)
  EXPECT_EQ(context.at("confidence").to_number<double>(), 0.194);
  EXPECT_EQ(context.at("proof").at("complete"), true);
  EXPECT_EQ(context.at("proof").at("event_count"), 8);  // every admitted reading is cited
}

TEST_F(ContextTest, FreshnessOfTheMatchedRecordsIsTheSameInTheAnswerAndThePack) {
  const auto answer = analyze(rooms_request());
  const auto& matched = answer.at("freshness").at("matched");
  EXPECT_EQ(matched, answer.at("context").at("freshness"));
  // The newest matched reading is the attic's, a minute old (its write is unverified: freshness is
  // about the data matched, verification about what the facts may rest on).
  EXPECT_EQ(matched.at("stale"), false);
  EXPECT_EQ(matched.at("newest_timestamp").as_string(), iso(now_ - kMinute));
  // The workspace's own freshness is about its newest record, whatever was matched.
  EXPECT_TRUE(answer.at("freshness").as_object().contains("projection_backlog"));
  // The cellar has not reported for two hours: stale in the pack's missing evidence.
  bool cellar_stale = false;
  for (const auto& missing : answer.at("context").at("missing_evidence").as_array())
    cellar_stale =
        cellar_stale || (missing.at("subject") == "cellar" && missing.at("reason") == "stale");
  EXPECT_TRUE(cellar_stale);
  // Only the cellar, two hours quiet: the pack (and `matched`) are stale while the workspace, with
  // readings a minute old, is not; each field says which records it is about (docs/api.md).
  auto cellar = rooms_request();
  cellar["where"].as_object()["payload.room"] = "cellar";
  const auto quiet = analyze(cellar);
  EXPECT_EQ(quiet.at("context").at("freshness").at("stale"), true) << quiet;
  EXPECT_EQ(quiet.at("freshness").at("matched").at("stale"), true);
  EXPECT_EQ(quiet.at("freshness").at("stale"), false);
  // An answer of aggregations alone reads no records and says nothing of them.
  const auto totals = analyze(json::object{
      {"where", json::object{{"stream", "rooms"}, {"timestamp", json::object{{"gte", "now-3h"}}}}},
      {"aggregations", json::object{{"n", json::object{{"op", "count"}}}}},
      {"include_results", false}});
  EXPECT_FALSE(totals.at("freshness").as_object().contains("matched")) << totals;
}

TEST_F(ContextTest, ProofIdsAreAllInTheData) {
  for (const auto& body : {pump_request(), rooms_request()}) {
    const auto answer = analyze(body);
    const auto& context = answer.at("context");
    const auto& ids = context.at("proof").at("event_ids").as_array();
    ASSERT_FALSE(ids.empty());
    json::array list(ids.begin(), ids.end());
    const auto found =
        ApiClient(server_->port(), *key_)
            .query(json::object{{"where", json::object{{"id", json::object{{"in", list}}}}},
                                {"limit", 1000}})
            .json();
    std::set<std::string> present;
    for (const auto& id : ids_of(found))
      present.insert(id);
    for (const auto& id : ids)
      EXPECT_TRUE(present.contains(std::string(id.as_string()))) << id;
  }
}

TEST_F(ContextTest, IdenticalAcrossCallsAndRestarts) {
  const std::string first = context_text(rooms_request());
  const std::string second = context_text(rooms_request());
  const auto a = json::parse(first);
  const auto b = json::parse(second);
  EXPECT_TRUE(a.at("context_id").as_string().starts_with("ctx_"));
  EXPECT_EQ(a.at("context_id").as_string().size(), 36U);
  EXPECT_EQ(a.at("context_id"), b.at("context_id"));
  EXPECT_EQ(without_audit_id(first), without_audit_id(second));
  EXPECT_NE(a.at("audit_trace_id"), b.at("audit_trace_id"));  // every request sampled here

  // Byte-identical apart from audit_trace_id, whose member sits at the end.
  auto strip = [](const std::string& text) {
    return text.substr(0, text.find(",\"audit_trace_id\""));
  };
  EXPECT_EQ(strip(first), strip(second));

  ASSERT_EQ(server_->stop(), 0);
  server_->start();
  const std::string after = context_text(rooms_request());
  EXPECT_EQ(strip(after), strip(first));
}

TEST_F(ContextTest, BudgetsAreRespected) {
  for (const int budget : {256, 100000}) {
    json::object options{
        {"mode", "decision"}, {"token_budget", budget}, {"include_documents", true}};
    const std::string text = context_text(rooms_request(options));
    const auto context = json::parse(text);
    // The estimate is ceil(bytes / 4) of the compact JSON; audit_trace_id is added afterwards.
    const std::string counted = text.substr(0, text.find(",\"audit_trace_id\"")) + "}";
    EXPECT_LE(counted.size(), static_cast<std::size_t>(budget) * 4) << budget;
    const auto packed = context.at("compaction").at("packed_tokens").to_number<std::size_t>();
    EXPECT_EQ(packed, (counted.size() + 3) / 4);
    EXPECT_LE(packed, static_cast<std::size_t>(budget));
    if (budget == 256) {
      EXPECT_GT(context.at("exclusions").at("over_budget").to_number<int>(), 0);
      // What was left out is counted; what was kept still cites its sources.
      EXPECT_EQ(context.at("proof").at("complete"), true);
    } else {
      EXPECT_EQ(context.at("exclusions").at("over_budget"), 0);
      EXPECT_FALSE(context.at("documents").as_array().empty());
    }
  }
}

TEST_F(ContextTest, DocumentsMode) {
  json::object body = rooms_request({{"mode", "documents"}, {"token_budget", 350}});
  body["limit"] = 5;
  body["order"] = "asc";
  const auto answer = analyze(body);
  const auto& context = answer.at("context");
  EXPECT_EQ(context.at("mode"), "documents");
  EXPECT_EQ(context.at("token_budget"), 350);
  const auto& documents = context.at("documents").as_array();
  ASSERT_FALSE(documents.empty());
  EXPECT_LT(documents.size(), 5U);
  const auto results = ids_of(answer);
  for (std::size_t i = 0; i < documents.size(); ++i)
    EXPECT_EQ(documents[i].at("id").as_string(), results[i]);
  EXPECT_EQ(context.at("omitted").to_number<std::size_t>(), 5 - documents.size());
  EXPECT_LE(context.at("tokens_used").to_number<int>(), 350);
  EXPECT_EQ(context.at("proof").at("complete"), false);
}

TEST_F(ContextTest, AuditTracesArePrivateFiles) {
  const std::string text = context_text(pump_request());
  const std::string id(json::parse(text).at("audit_trace_id").as_string());
  EXPECT_TRUE(id.starts_with("trc_"));
  bool found = false;
  for (const auto& entry :
       std::filesystem::directory_iterator(server_->data_dir() / "audit" / "traces")) {
    std::ifstream in(entry.path());
    std::stringstream content;
    content << in.rdbuf();
    found = found || content.str().find("\"trace_id\":\"" + id + "\"") != std::string::npos;
  }
  EXPECT_TRUE(found);
  // Nothing serves them.
  EXPECT_EQ(ApiClient(server_->port(), *key_).http().get("/v1/traces/" + id, *key_).status, 404);
}

// A pump reports its mode as a number (1 → 3, 3 again, → 2) beside a temperature. Read as
// readings, the mode is a measurement: a range, no transitions. Named as a category (in
// relationship_fields, an `eq`/`in` condition or a `distinct` aggregation), it is a state: its
// changes are the timeline and its fact has no range.
TEST(ContextStates, NumericCodesNamedAsCategoriesAreStates) {
  ServerProcess server(test_config());
  server.start();
  ApiClient api(server.port(), server.create_key("modes", "test"));
  const std::int64_t now = now_ms();
  auto reading = [&](const char* id, int minutes_ago, int mode, double temp) {
    return make_event(id, "reading", now - minutes_ago * kMinute,
                      {{"pump", "p7"}, {"mode", mode}, {"temp", temp}});
  };
  api.ingest_verified(
      make_batch("modes", json::array{reading("m1", 10, 1, 20.5), reading("m2", 8, 3, 21.0),
                                      reading("m3", 6, 3, 21.5), reading("m4", 4, 2, 22.0)}),
      "modes-key-1");
  auto pack = [&](json::object naming) {
    json::object body{{"where", json::object{{"stream", "modes"},
                                             {"timestamp", json::object{{"gte", "now-1h"}}}}},
                      {"group_by", json::array{"payload.pump"}},
                      {"context", json::object{{"mode", "decision"}}}};
    for (auto& [key, value] : naming)
      body[key] = value;
    const auto answer = api.analyze(body);
    EXPECT_EQ(answer.status, 200) << answer.body;
    return answer.json().at("context").as_object();
  };
  const auto mode_fact = [](const json::object& context) {
    for (const auto& fact : context.at("facts").as_array()) {
      if (fact.at("attribute") == "payload.mode") return fact.as_object();
    }
    return json::object{};
  };

  const auto as_readings =
      pack({{"aggregations",
             json::object{{"top", json::object{{"op", "max"}, {"field", "payload.mode"}}}}}});
  EXPECT_TRUE(as_readings.at("timeline").as_array().empty()) << as_readings;
  EXPECT_EQ(mode_fact(as_readings).at("range"),
            (json::object{{"min", 1}, {"max", 3}, {"readings", 4}}));

  for (const auto& naming :
       {json::object{{"relationship_fields", json::array{"payload.mode"}}},
        json::object{
            {"aggregations", json::object{{"modes", json::object{{"op", "distinct"},
                                                                 {"field", "payload.mode"}}}}}}}) {
    const auto as_states = pack(naming);
    const auto& timeline = as_states.at("timeline").as_array();
    ASSERT_EQ(timeline.size(), 2U) << as_states;
    EXPECT_EQ(timeline[0].at("from"), 1);
    EXPECT_EQ(timeline[0].at("to"), 3);
    EXPECT_EQ(timeline[0].at("event_id"), "m2");
    EXPECT_EQ(timeline[1].at("from"), 3);
    EXPECT_EQ(timeline[1].at("to"), 2);
    EXPECT_EQ(timeline[1].at("from_event_id"), "m3");
    const auto fact = mode_fact(as_states);
    EXPECT_EQ(fact.at("value"), 2);
    EXPECT_FALSE(fact.contains("range")) << fact;
  }
}

// Readings that name their unit, in each of the three shapes: a sibling `unit`, `<name>_unit`, a
// `units` object keyed by name. The fact carries the unit and its range spans that unit's
// readings; sensor d switches from Celsius to Fahrenheit, which is a contradiction, not a range
// of 20 to 69.8. The unit fields are part of the readings, never facts of their own.
TEST(ContextUnits, ReadingsCarryTheirUnitAndTwoUnitsContradict) {
  ServerProcess server(test_config());
  server.start();
  ApiClient api(server.port(), server.create_key("units", "test"));
  const std::int64_t now = now_ms();
  auto event = [&](const char* id, int minutes_ago, json::object payload) {
    return make_event(id, "reading", now - minutes_ago * kMinute, std::move(payload));
  };
  api.ingest_verified(
      make_batch(
          "units",
          json::array{
              event("a1", 10, {{"sensor", "a"}, {"temp", 20.5}, {"unit", "C"}}),
              event("a2", 8, {{"sensor", "a"}, {"temp", 21.0}, {"unit", "C"}}),
              event("a3", 6, {{"sensor", "a"}, {"temp", 21.5}, {"unit", "C"}}),
              event("b1", 6, {{"sensor", "b"}, {"humidity", 40}, {"humidity_unit", "%"}}),
              event("c1", 6,
                    {{"sensor", "c"}, {"temp", 290.1}, {"units", json::object{{"temp", "K"}}}}),
              event("d1", 10, {{"sensor", "d"}, {"temp", 20}, {"unit", "C"}}),
              event("d2", 6, {{"sensor", "d"}, {"temp", 69.8}, {"unit", "F"}})}),
      "units-key-1");
  json::object request{
      {"where", json::object{{"stream", "units"}, {"timestamp", json::object{{"gte", "now-1h"}}}}},
      {"group_by", json::array{"payload.sensor"}},
      {"context", json::object{{"mode", "decision"}}}};
  const auto answer = api.analyze(request);
  ASSERT_EQ(answer.status, 200) << answer.body;
  const auto context = answer.json().at("context").as_object();
  // Read from the records instead of the columns (a relationship of a canonical field): the same.
  request["relationship_fields"] = json::array{"stream"};
  const auto by_records = api.analyze(request);
  ASSERT_EQ(by_records.status, 200) << by_records.body;
  EXPECT_EQ(by_records.json().at("context"), context);
  std::map<std::string, json::object> facts;
  for (const auto& fact : context.at("facts").as_array()) {
    const std::string key = std::string(fact.at("subject").as_string()) + " " +
                            std::string(fact.at("attribute").as_string());
    facts[key] = fact.as_object();
  }
  ASSERT_EQ(facts.size(), 4U) << context;  // no fact of a unit field
  EXPECT_EQ(facts["a payload.temp"].at("value"), 21.5);
  EXPECT_EQ(facts["a payload.temp"].at("unit"), "C");
  EXPECT_EQ(facts["a payload.temp"].at("range"),
            (json::object{{"min", 20.5}, {"max", 21.5}, {"readings", 3}}));
  EXPECT_EQ(facts["b payload.humidity"].at("unit"), "%");
  EXPECT_EQ(facts["c payload.temp"].at("unit"), "K");
  EXPECT_EQ(facts["d payload.temp"].at("value"), 69.8);
  EXPECT_EQ(facts["d payload.temp"].at("unit"), "F");
  EXPECT_EQ(facts["d payload.temp"].at("range"),
            (json::object{{"min", 69.8}, {"max", 69.8}, {"readings", 1}}));
  const auto& contradictions = context.at("contradictions").as_array();
  ASSERT_EQ(contradictions.size(), 1U) << context;
  EXPECT_EQ(contradictions[0].at("subject"), "d");
  EXPECT_EQ(
      contradictions[0].at("observations"),
      (json::array{
          json::object{
              {"value", 20}, {"at", iso(now - 10 * kMinute)}, {"event_id", "d1"}, {"unit", "C"}},
          json::object{{"value", 69.8},
                       {"at", iso(now - 6 * kMinute)},
                       {"event_id", "d2"},
                       {"unit", "F"}}}));
  EXPECT_EQ(contradictions[0].at("gap_ms"), 4 * kMinute);
  EXPECT_EQ(context.at("decision_readiness").at("status"), "conflicting");
  EXPECT_EQ(context.at("exclusions").at("out_of_scope"), 0);
}

TEST(ContextWithoutAudit, NoAuditTraceId) {
  ServerProcess server(test_config());
  server.start();
  ApiClient api(server.port(), server.create_key("plain", "test"));
  api.ingest_verified(make_batch("s", json::array{make_event("x", "t", now_ms(), {{"v", 1}})}),
                      "plain-key-1");
  const auto answer = api.analyze(
      json::object{{"where", json::object{{"timestamp", json::object{{"gte", "now-1h"}}}}},
                   {"context", json::object{{"mode", "decision"}}}});
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_FALSE(answer.json().at("context").as_object().contains("audit_trace_id"));
}

}  // namespace
}  // namespace eventsvc::testing

namespace eventsvc::testing {
namespace {

// 10,000 readings of 20 sensors over the last 5 hours, each its own event: sensors s-00..s-09 go
// A pack in time order reads its matches as cells from storage's columns; asking for
// relationships of a canonical field too (which names no attribute) makes the server read the
// records instead. Same pack, with and without excluded records.
TEST_F(ContextTest, ColumnsAndRecordsGiveTheSamePack) {
  auto strip = [](const std::string& text) {
    return text.substr(0, text.find(",\"audit_trace_id\""));
  };
  json::object excluding = rooms_request();
  excluding["excluded_document_ids"] = json::array{"s-office-b", "s-lab-a", "no-such-event"};
  for (json::object body : {rooms_request(), pump_request(), excluding}) {
    body["context"].as_object()["include_documents"] = true;
    json::object by_records = body;
    by_records["relationship_fields"] = json::array{"stream"};
    const std::string from_columns = context_text(body);
    ASSERT_NE(from_columns.find("\"facts\":[{"), std::string::npos) << from_columns;
    EXPECT_EQ(strip(from_columns), strip(context_text(by_records)));

    body["include_results"] = true;
    by_records["include_results"] = true;
    const auto a = analyze(body);
    const auto b = analyze(by_records);
    EXPECT_EQ(a.at("results"), b.at("results"));
    EXPECT_EQ(a.at("context").at("exclusions").at("excluded_by_request"),
              body.contains("excluded_document_ids") ? 2 : 0);
    EXPECT_EQ(a.at("matched"), b.at("matched"));
    EXPECT_EQ(a.at("freshness").at("matched"), b.at("freshness").at("matched"));
  }
}

// idle → running → idle → running (three changes each, 30 in all), s-10..s-19 stay idle. What
// an agent asks first: group by the sensor, default budget.
class LongHistory : public ::testing::Test {
 protected:
  static constexpr int kReadings = 500;  // per sensor
  static void SetUpTestSuite() {
    server_ = new ServerProcess(test_config());
    server_->start();
    key_ = new std::string(server_->create_key("history", "test"));
    ApiClient api(server_->port(), *key_);
    const std::int64_t start = now_ms() - 5 * 3600 * 1000;
    json::array batch;
    int batches = 0;
    for (int reading = 0; reading < kReadings; ++reading) {
      for (int sensor = 0; sensor < 20; ++sensor) {
        const int phase = sensor < 10 ? reading * 4 / kReadings : 0;
        char name[16];
        std::snprintf(name, sizeof name, "s-%02d", sensor);
        batch.push_back(
            make_event("r-" + std::to_string(sensor) + "-" + std::to_string(reading), "reading",
                       start + reading * 36000 + sensor,
                       {{"sensor", name}, {"state", phase % 2 == 0 ? "idle" : "running"}}));
        if (batch.size() == 100) {
          api.ingest_verified(make_batch("plant", std::move(batch)),
                              "history-" + std::to_string(batches++));
          batch = json::array();
        }
      }
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    delete key_;
  }
  // `by_records`: asking for relationships of a canonical field (no attribute), so that the
  // server reads records.
  static json::object pack(std::size_t budget, bool by_records = false) {
    return json::parse(pack_text(budget, by_records)).as_object();
  }
  // The pack as the answer's bytes carry it.
  static std::string pack_text(std::size_t budget, bool by_records = false) {
    json::object body{{"where", json::object{{"stream", "plant"},
                                             {"timestamp", json::object{{"gte", "now-6h"}}}}},
                      {"group_by", json::array{"payload.sensor"}},
                      {"include_results", false},
                      {"context", json::object{{"mode", "decision"}, {"token_budget", budget}}}};
    if (by_records) body["relationship_fields"] = json::array{"stream"};
    const auto response = ApiClient(server_->port(), *key_).analyze(body);
    EXPECT_EQ(response.status, 200) << response.body;
    const std::string marker = "\"context\":";
    const auto at = response.body.find(marker);
    if (at == std::string::npos) return "{}";
    // The context is the answer's last member.
    return response.body.substr(at + marker.size(), response.body.size() - at - marker.size() - 1);
  }

  static ServerProcess* server_;
  static std::string* key_;
};

ServerProcess* LongHistory::server_ = nullptr;
std::string* LongHistory::key_ = nullptr;

TEST_F(LongHistory, TheDefaultBudgetKeepsEveryFactAndTheNewestTransitions) {
  const auto context = pack(4000);
  EXPECT_EQ(context.at("decision_readiness"),
            (json::object{{"status", "ready"}, {"reasons", json::array{}}}));
  const auto& facts = context.at("facts").as_array();
  ASSERT_EQ(facts.size(), 20U);
  std::size_t running = 0;
  for (const auto& fact : facts) {
    const bool changes = fact.at("subject").as_string() < "s-10";
    EXPECT_EQ(fact.at("value"), changes ? "running" : "idle") << fact;
    // Running in two runs of 125 readings (125-249, 375-499); idle in all 500.
    EXPECT_EQ(fact.at("event_count"), changes ? 250 : 500) << fact;
    EXPECT_EQ(fact.at("event_ids").as_array().size(), 4U);
    running += changes ? 1 : 0;
  }
  EXPECT_EQ(running, 10U);
  // The newest 16 of the 30 changes (max_timeline), each citing both of its events.
  const auto& timeline = context.at("timeline").as_array();
  ASSERT_EQ(timeline.size(), 16U);
  EXPECT_EQ(timeline.back().at("to"), "running");
  EXPECT_FALSE(timeline.back().at("from_event_id").as_string().empty());
  EXPECT_EQ(context.at("exclusions").at("over_limit"), 14);
  EXPECT_EQ(context.at("exclusions").at("out_of_scope"), 0);
  EXPECT_EQ(context.at("proof").at("complete"), true);
  const auto packed = context.at("compaction").at("packed_tokens").to_number<std::size_t>();
  const auto source = context.at("compaction").at("source_tokens").to_number<std::size_t>();
  EXPECT_LE(packed, 4000U);
  EXPECT_GE(source / packed, 100U) << "compaction " << source << " / " << packed;
  std::printf(
      "10,000 readings, budget 4000: %zu facts, %zu transitions, %zu tokens of %zu (%.0fx)\n",
      facts.size(), timeline.size(), packed, source,
      static_cast<double>(source) / static_cast<double>(packed));
}

TEST_F(LongHistory, ColumnsAndRecordsGiveTheSamePack) {
  for (const std::size_t budget : {1000U, 4000U, 20000U}) {
    const auto from_columns = pack(budget);
    EXPECT_EQ(from_columns, pack(budget, true)) << budget;
    EXPECT_EQ(from_columns.at("compaction").at("source_records"), 10000) << budget;
  }
}

TEST_F(LongHistory, FactsKeptGrowWithTheBudgetAndAreNeverReadAsNoEvidence) {
  std::size_t previous = 0;
  for (const std::size_t budget : {256U, 500U, 1000U, 2000U, 4000U, 10000U, 20000U}) {
    const auto context = pack(budget);
    const std::size_t facts = context.at("facts").as_array().size();
    const auto packed = context.at("compaction").at("packed_tokens").to_number<std::size_t>();
    EXPECT_LE(packed, budget);
    EXPECT_GE(facts, previous) << budget;
    const auto& readiness = context.at("decision_readiness").as_object();
    if (facts < 20) {
      EXPECT_EQ(readiness.at("status"), "incomplete") << budget;
      EXPECT_EQ(readiness.at("reasons").at(0), "facts_over_budget") << budget;
      // Asking again with the budget it names keeps every fact.
      const auto needed = readiness.at("budget_needed").to_number<std::size_t>();
      EXPECT_EQ(pack(needed).at("facts").as_array().size(), 20U) << needed;
    }
    std::printf("budget %zu: %zu facts, %zu transitions, %zu tokens, proof lists %zu of %s ids\n",
                budget, facts, context.at("timeline").as_array().size(), packed,
                context.at("proof").at("event_ids").as_array().size(),
                json::serialize(context.at("proof").at("event_count")).c_str());
    previous = facts;
  }
  EXPECT_EQ(previous, 20U);
}

// Over HTTPS, at budgets from the smallest to far past the largest pack: packed_tokens is exactly
// ceil(bytes / 4) of the context the answer carries (audit_trace_id aside), never over the budget;
// confidence falls with the share of the 20 facts the pack keeps (every other factor is 1 here:
// all verified, no contradiction, nothing missing or stale, complete); and a larger budget makes
// a larger pack only by the items it keeps: two budgets that keep as many items give the same pack.
TEST_F(LongHistory, TokenCountIsExactConfidenceCountsTheFactsKeptAndTheBudgetIsACeiling) {
  std::vector<std::size_t> budgets;
  for (std::size_t budget = 256; budget <= 6000; budget += 97)
    budgets.push_back(budget);
  for (const std::size_t budget : {8000U, 11942U, 20000U, 100000U})
    budgets.push_back(budget);
  std::string previous_text;
  std::uint64_t previous_dropped = UINT64_MAX;
  for (const std::size_t budget : budgets) {
    const std::string text = pack_text(budget);  // no audit plugin: every byte is counted
    const auto context = json::parse(text).as_object();
    const auto packed = context.at("compaction").at("packed_tokens").to_number<std::size_t>();
    EXPECT_EQ(packed, (text.size() + 3) / 4) << budget;
    EXPECT_LE(packed, budget);
    const auto facts = static_cast<double>(context.at("facts").as_array().size());
    EXPECT_DOUBLE_EQ(context.at("confidence").to_number<double>(),
                     std::round(facts / 20.0 * 1000.0) / 1000.0)
        << budget << " " << facts;
    const auto dropped = context.at("exclusions").at("over_budget").to_number<std::uint64_t>();
    if (dropped == previous_dropped) {
      EXPECT_EQ(text, previous_text) << budget;
    }
    previous_dropped = dropped;
    previous_text = text;
  }
  EXPECT_EQ(previous_dropped, 0U);
}

}  // namespace
}  // namespace eventsvc::testing
