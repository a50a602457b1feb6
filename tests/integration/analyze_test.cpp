// POST /v1/analyze over HTTPS with exact expected values on a known data set: every aggregation
// op, integral gaps and units, groups, time buckets, relationships, temporal windows, semantic
// ranking, scan limits (aggregations exact beyond them), exclusions, execution modes, the exact
// response properties, and the 400/403 rules including disabled modules.
#include <gtest/gtest.h>

#include <set>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

constexpr std::int64_t kMinute = 60000;
constexpr std::int64_t kHour = 60 * kMinute;

// API-SPEC 2.7's, and next_cursor when more results follow (an added field, API-SPEC 9.3).
const std::set<std::string> kResponseProperties = {
    "success",          "execution_mode", "complete", "scanned",
    "elapsed_ms",       "source",         "filtered", "matched",
    "freshness",        "aggregations",   "groups",   "relationships",
    "temporal_windows", "context",        "results",  "next_cursor"};

class AnalyzeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess(test_config());
    server_->start();
    key_ = new std::string(server_->create_key("anl", "test"));
    base_ = (now_ms() - 3 * kHour) / kHour * kHour;  // an hour boundary, 2-3 hours ago
    auto reading = [&](const std::string& id, std::int64_t offset, json::object data) {
      return make_event(id, "reading", base_ + offset, std::move(data));
    };
    json::object p1 = reading("p1", 0, {{"kw", 2}, {"site", "a"}, {"pump", "p1"}, {"state", "on"}});
    p1["metrics"] = json::object{{"temp", 40}};
    json::object p2 =
        reading("p2", 30 * kMinute, {{"kw", 4}, {"site", "a"}, {"pump", "p2"}, {"state", "on"}});
    p2["metrics"] = json::object{{"temp", 50}};
    const json::array events{
        p1,
        p2,
        reading("p3", 45 * kMinute, {{"kw", 6}, {"site", "b"}, {"pump", "p1"}, {"state", "off"}}),
        reading("p4", 60 * kMinute, {{"kw", "n/a"}, {"site", "b"}, {"pump", "p1"}}),
        make_event("p5", "alert", base_ + 70 * kMinute,
                   {{"message", "pump pressure low on p1"}, {"site", "b"}, {"pump", "p1"}}),
        reading("p6", 90 * kMinute, {{"kw", 8}, {"site", "a"}, {"pump", "p2"}, {"state", "on"}})};
    ApiClient(server_->port(), *key_).ingest_verified(make_batch("plant", events), "analyze-data");
  }
  static void TearDownTestSuite() {
    delete server_;
    delete key_;
  }

  static json::object window() {
    return {{"timestamp", json::object{{"gte", iso(base_ - kMinute)}}}};
  }
  static json::object analyze(json::object body) {
    if (!body.contains("where")) body["where"] = window();
    const auto response = ApiClient(server_->port(), *key_).analyze(body);
    EXPECT_EQ(response.status, 200) << response.body;
    const auto answer = response.status == 200 ? response.json().as_object() : json::object();
    for (const auto& member : answer) {
      EXPECT_TRUE(kResponseProperties.contains(member.key())) << "extra property " << member.key();
    }
    return answer;
  }
  static HttpResponse raw(json::object body) {
    return ApiClient(server_->port(), *key_).analyze(body);
  }

  static ServerProcess* server_;
  static std::string* key_;
  static std::int64_t base_;
};

ServerProcess* AnalyzeTest::server_ = nullptr;
std::string* AnalyzeTest::key_ = nullptr;
std::int64_t AnalyzeTest::base_ = 0;

json::object op(const char* name, const char* field = nullptr) {
  json::object spec{{"op", name}};
  if (field != nullptr) spec["field"] = field;
  return spec;
}

json::object result(const char* op_name, json::value field, json::value value, int count,
                    int skipped) {
  return {{"op", op_name},
          {"field", std::move(field)},
          {"value", std::move(value)},
          {"count", count},
          {"skipped", skipped}};
}

TEST_F(AnalyzeTest, EveryOperatorWithExactValues) {
  const auto answer =
      analyze({{"aggregations", json::object{{"records", op("count")},
                                             {"with_kw", op("count", "payload.kw")},
                                             {"sites", op("distinct", "payload.site")},
                                             {"total", op("sum", "payload.kw")},
                                             {"mean", op("avg", "payload.kw")},
                                             {"low", op("min", "payload.kw")},
                                             {"high", op("max", "payload.kw")},
                                             {"hottest", op("max", "metrics.temp")}}}});
  const auto& aggregations = answer.at("aggregations").as_object();
  EXPECT_EQ(aggregations.at("records"), result("count", nullptr, 6, 6, 0));
  EXPECT_EQ(aggregations.at("with_kw"), result("count", "payload.kw", 5, 5, 0));
  EXPECT_EQ(aggregations.at("sites"), result("distinct", "payload.site", 2, 6, 0));
  EXPECT_EQ(aggregations.at("total").at("value").to_number<double>(), 20.0);
  EXPECT_EQ(aggregations.at("total").at("count"), 5);
  EXPECT_EQ(aggregations.at("total").at("skipped"), 1);
  EXPECT_EQ(aggregations.at("mean").at("value").to_number<double>(), 5.0);
  EXPECT_EQ(aggregations.at("low").at("value").to_number<double>(), 2.0);
  EXPECT_EQ(aggregations.at("high").at("value").to_number<double>(), 8.0);
  EXPECT_EQ(aggregations.at("hottest"), result("max", "metrics.temp", 50, 2, 0));
  EXPECT_EQ(answer.at("matched"), 6);
  EXPECT_EQ(answer.at("success"), true);
}

TEST_F(AnalyzeTest, IntegralGapsAndUnits) {
  // kW samples at 0, 30, 45 and 90 minutes (p4's "n/a" is skipped): 2×30 + 4×15 + 6×45 = 390
  // kW·min; with the default 5-minute cap, 2×5 + 4×5 + 6×5 = 60 kW·min.
  auto integral = [&](const char* unit, std::optional<std::int64_t> max_gap) {
    json::object spec = op("integral", "payload.kw");
    if (unit != nullptr) spec["unit"] = unit;
    if (max_gap) spec["max_gap_ms"] = *max_gap;
    const auto answer = analyze({{"aggregations", json::object{{"energy", spec}}}});
    return answer.at("aggregations").at("energy");
  };
  EXPECT_EQ(integral(nullptr, kHour).at("value").to_number<double>(), 6.5);
  EXPECT_EQ(integral("m", kHour).at("value").to_number<double>(), 390.0);
  EXPECT_EQ(integral("s", kHour).at("value").to_number<double>(), 23400.0);
  EXPECT_EQ(integral("ms", kHour).at("value").to_number<double>(), 23400000.0);
  EXPECT_EQ(integral(nullptr, std::nullopt).at("value").to_number<double>(), 1.0);
  EXPECT_EQ(integral("m", 20 * kMinute).at("value").to_number<double>(),
            2 * 20 + 4 * 15 + 6 * 20.0);
  EXPECT_EQ(integral(nullptr, kHour).at("skipped"), 1);
}

TEST_F(AnalyzeTest, GroupsWithCountsAndAggregations) {
  const auto answer = analyze({{"group_by", json::array{"payload.site"}},
                               {"aggregations", json::object{{"kw", op("sum", "payload.kw")}}}});
  const auto& groups = answer.at("groups").as_array();
  ASSERT_EQ(groups.size(), 2U);
  EXPECT_EQ(groups[0].at("key"), (json::object{{"payload.site", "a"}}));
  EXPECT_EQ(groups[0].at("count"), 3);
  EXPECT_EQ(groups[0].at("aggregations").at("kw").at("value").to_number<double>(), 14.0);
  EXPECT_EQ(groups[1].at("key"), (json::object{{"payload.site", "b"}}));
  EXPECT_EQ(groups[1].at("aggregations").at("kw").at("value").to_number<double>(), 6.0);
  // Largest first, and group_limit caps.
  const auto by_pump =
      analyze({{"group_by", json::array{"payload.pump", "type"}}, {"group_limit", 1}});
  ASSERT_EQ(by_pump.at("groups").as_array().size(), 1U);
  EXPECT_EQ(by_pump.at("groups").at(0).at("key"),
            (json::object{{"payload.pump", "p1"}, {"type", "reading"}}));
  EXPECT_EQ(by_pump.at("groups").at(0).at("count"), 3);
}

TEST_F(AnalyzeTest, TimeBucketsAlignToTheInterval) {
  const auto answer = analyze({{"time_bucket", json::object{{"interval", "1h"}}},
                               {"aggregations", json::object{{"kw", op("max", "payload.kw")}}}});
  const auto& groups = answer.at("groups").as_array();
  ASSERT_EQ(groups.size(), 2U);
  EXPECT_EQ(groups[0].at("key"),
            (json::object{{"bucket", iso(base_ + kHour)}}));  // desc by default
  EXPECT_EQ(groups[0].at("count"), 3);
  EXPECT_EQ(groups[0].at("aggregations").at("kw").at("value").to_number<double>(), 8.0);
  EXPECT_EQ(groups[1].at("key"), (json::object{{"bucket", iso(base_)}}));
  EXPECT_EQ(groups[1].at("aggregations").at("kw").at("value").to_number<double>(), 6.0);
  const auto asc = analyze({{"time_bucket", json::object{{"interval", "30m"}}}, {"order", "asc"}});
  std::vector<std::string> buckets;
  for (const auto& group : asc.at("groups").as_array())
    buckets.emplace_back(group.at("key").at("bucket").as_string());
  EXPECT_EQ(buckets,
            (std::vector<std::string>{iso(base_), iso(base_ + 30 * kMinute),
                                      iso(base_ + 60 * kMinute), iso(base_ + 90 * kMinute)}));
  const auto with_site = analyze({{"time_bucket", json::object{{"interval", "1h"}}},
                                  {"group_by", json::array{"payload.site"}}});
  EXPECT_EQ(with_site.at("groups").at(0).at("key"),
            (json::object{{"payload.site", "b"}, {"bucket", iso(base_ + kHour)}}));
  EXPECT_EQ(with_site.at("groups").at(0).at("count"), 2);
}

TEST_F(AnalyzeTest, RelationshipsOfCoOccurringValues) {
  const auto answer =
      analyze({{"relationship_fields", json::array{"payload.site", "payload.pump"}}});
  const auto& relationships = answer.at("relationships").as_array();
  ASSERT_EQ(relationships.size(), 3U);
  EXPECT_EQ(relationships[0], (json::object{{"fields", json::array{"payload.site", "payload.pump"}},
                                            {"values", json::array{"b", "p1"}},
                                            {"count", 3},
                                            {"first_seen", iso(base_ + 45 * kMinute)},
                                            {"last_seen", iso(base_ + 70 * kMinute)},
                                            {"event_ids", json::array{"p3", "p4", "p5"}}}));
  EXPECT_EQ(relationships[1].at("values"), (json::array{"a", "p2"}));
  EXPECT_EQ(relationships[1].at("count"), 2);
  EXPECT_EQ(relationships[2].at("values"), (json::array{"a", "p1"}));
  EXPECT_EQ(analyze({{"relationship_fields", json::array{"payload.site", "payload.pump"}},
                     {"relationship_limit", 1}})
                .at("relationships")
                .as_array()
                .size(),
            1U);
}

TEST_F(AnalyzeTest, TemporalWindowsAroundTheLeadingResults) {
  const auto answer =
      analyze({{"temporal", json::object{{"before", 1}, {"after", 1}}}, {"limit", 3}});
  EXPECT_EQ(ids_of(answer), (std::vector<std::string>{"p6", "p5", "p4"}));
  EXPECT_EQ(answer.at("temporal_windows"),
            json::parse(R"([{"anchor_id":"p6","before":["p5"],"after":[]},
                            {"anchor_id":"p5","before":["p4"],"after":["p6"]},
                            {"anchor_id":"p4","before":["p3"],"after":["p5"]}])"));
  const auto wide =
      analyze({{"temporal", json::object{{"before", 3}, {"after", 0}}}, {"limit", 1}});
  EXPECT_EQ(wide.at("temporal_windows").at(0).at("before"), (json::array{"p3", "p4", "p5"}));
  const auto& roles = answer.at("results").at(1).at("source_roles").as_array();
  EXPECT_EQ(roles, (json::array{"anchor", "match", "temporal_neighbor"}));
}

TEST_F(AnalyzeTest, SemanticRankingPutsTheClosestTextFirst) {
  const auto answer =
      analyze({{"vector", json::object{{"text", "low pressure at the pump"}}}, {"limit", 2}});
  EXPECT_EQ(answer.at("execution_mode"), "semantic");
  EXPECT_EQ(ids_of(answer).at(0), "p5");
  const auto& first = answer.at("results").at(0);
  const auto& second = answer.at("results").at(1);
  EXPECT_GT(first.at("relevance").at("score").to_number<double>(),
            second.at("relevance").at("score").to_number<double>());
  EXPECT_EQ(first.at("evidence_rank"), 1);
}

TEST_F(AnalyzeTest, ExecutionModesScanLimitsAndCompleteness) {
  const auto indexed = analyze(
      {{"where", json::object{{"payload.site", "a"}, {"timestamp", window().at("timestamp")}}}});
  EXPECT_EQ(indexed.at("execution_mode"), "optimized");
  EXPECT_EQ(indexed.at("matched"), 3);
  const auto bounded = analyze({});
  EXPECT_EQ(bounded.at("execution_mode"), "bounded");
  EXPECT_EQ(bounded.at("complete"), true);
  EXPECT_EQ(bounded.at("scanned"), 6);
  const auto cut = analyze({{"scan_limit", 2}});
  EXPECT_EQ(cut.at("complete"), false);
  EXPECT_EQ(cut.at("scanned"), 2);
  const auto filtered =
      analyze({{"where", json::object{{"payload.state", json::object{{"neq", "on"}}},
                                      {"timestamp", window().at("timestamp")}}}});
  EXPECT_EQ(filtered.at("scanned"), 6);
  EXPECT_EQ(filtered.at("matched"), 3);
  EXPECT_EQ(filtered.at("filtered"), 3);
  const auto text = analyze({{"text", "pressure"}});
  EXPECT_EQ(text.at("execution_mode"), "optimized");
  EXPECT_EQ(ids_of(text), std::vector<std::string>{"p5"});
  EXPECT_TRUE(text.at("results").at(0).at("relevance").at("score").to_number<double>() > 0);
}

TEST_F(AnalyzeTest, AggregationsAreExactBeyondScanLimit) {
  // scan_limit bounds only what is materialised: aggregations, groups and buckets count all six.
  const auto answer = analyze(
      {{"scan_limit", 2},
       {"limit", 2},
       {"group_by", json::array{"payload.site"}},
       {"aggregations", json::object{{"n", op("count")}, {"kw", op("sum", "payload.kw")}}}});
  EXPECT_EQ(answer.at("aggregations").at("n").at("value"), 6);
  EXPECT_EQ(answer.at("aggregations").at("kw").at("value").to_number<double>(), 20.0);
  EXPECT_EQ(answer.at("groups").at(0).at("count"), 3);
  EXPECT_EQ(answer.at("groups").at(1).at("count"), 3);
  EXPECT_EQ(answer.at("matched"), 6);
  EXPECT_EQ(answer.at("scanned"), 6);
  EXPECT_EQ(ids_of(answer), (std::vector<std::string>{"p6", "p5"}));
  EXPECT_EQ(answer.at("complete"), true);  // the two newest results are all it had to read

  const auto buckets = analyze({{"scan_limit", 1},
                                {"include_results", false},
                                {"time_bucket", json::object{{"interval", "1h"}}}});
  EXPECT_EQ(buckets.at("groups").at(0).at("count"), 3);
  EXPECT_EQ(buckets.at("groups").at(1).at("count"), 3);
  EXPECT_EQ(buckets.at("complete"), true);

  // Relationships and context read matches one by one: they are cut, and say so.
  const auto cut = analyze({{"scan_limit", 2},
                            {"relationship_fields", json::array{"payload.site"}},
                            {"aggregations", json::object{{"n", op("count")}}}});
  EXPECT_EQ(cut.at("aggregations").at("n").at("value"), 6);
  EXPECT_EQ(cut.at("complete"), false);
  std::uint64_t related = 0;
  for (const auto& relationship : cut.at("relationships").as_array())
    related += relationship.at("count").to_number<std::uint64_t>();
  EXPECT_EQ(related, 2U);
}

TEST_F(AnalyzeTest, ResultsExclusionsAndFreshness) {
  const auto answer = analyze({{"excluded_document_ids", json::array{"p6", "zz"}},
                               {"aggregations", json::object{{"n", op("count")}}},
                               {"order", "asc"}});
  EXPECT_EQ(ids_of(answer), (std::vector<std::string>{"p1", "p2", "p3", "p4", "p5"}));
  EXPECT_EQ(answer.at("aggregations").at("n").at("value"), 6);  // still counted
  const auto& first = answer.at("results").at(0).as_object();
  EXPECT_EQ(first.at("evidence_rank"), 1);
  EXPECT_EQ(first.at("source_roles"), (json::array{"match"}));
  EXPECT_EQ(first.at("proof_digest").as_string().size(), 64U);
  EXPECT_FALSE(first.contains("relevance"));  // not ranked
  EXPECT_EQ(first.at("timestamp").as_string(), iso(base_));
  const auto& freshness = answer.at("freshness").as_object();
  EXPECT_EQ(freshness.at("newest_timestamp").as_string(), iso(base_ + 90 * kMinute));
  EXPECT_EQ(freshness.at("projection_backlog"), 0);
  EXPECT_EQ(freshness.at("stale"), true);  // newest is over an hour old, expected 15 minutes
  EXPECT_GE(freshness.at("lag_ms").as_int64(), 60 * kMinute);
  const auto without =
      analyze({{"include_results", false}, {"aggregations", json::object{{"n", op("count")}}}});
  EXPECT_FALSE(without.contains("results"));
  EXPECT_EQ(analyze({{"limit", 2}}).at("results").as_array().size(), 2U);
}

TEST_F(AnalyzeTest, InvalidRequestsAreExplained) {
  auto expect_400 = [&](json::object body, const char* path) {
    if (!body.contains("where")) body["where"] = window();
    const auto response = raw(body);
    EXPECT_EQ(response.status, 400) << response.body;
    EXPECT_NE(response.body.find(std::string("\"path\":\"") + path + "\""), std::string::npos)
        << response.body;
  };
  expect_400({{"sort", 1}}, "/sort");
  expect_400({{"aggregations", json::object{{"x", op("median", "payload.kw")}}}},
             "/aggregations/x/op");
  expect_400({{"aggregations", json::object{{"x", json::object{{"field", "payload.kw"}}}}}},
             "/aggregations/x/op");
  expect_400({{"aggregations", json::object{{"x", op("sum")}}}}, "/aggregations/x/field");
  expect_400(
      {{"aggregations",
        json::object{{"x", json::object{{"op", "sum"}, {"field", "payload.kw"}, {"unit", "d"}}}}}},
      "/aggregations/x/unit");
  expect_400(
      {{"aggregations",
        json::object{
            {"x", json::object{{"op", "integral"}, {"field", "payload.kw"}, {"max_gap_ms", 0}}}}}},
      "/aggregations/x/max_gap_ms");
  expect_400({{"aggregations", json::object{{"x", json::object{{"op", "count"}, {"bogus", 1}}}}}},
             "/aggregations/x/bogus");
  expect_400({{"aggregations", json::object{{"x", op("sum", "data.kw")}}}},
             "/aggregations/x/field");
  expect_400({{"time_bucket", json::object{{"interval", "5 minutes"}}}}, "/time_bucket/interval");
  expect_400({{"time_bucket", json::object{}}}, "/time_bucket/interval");
  expect_400({{"group_by", json::array{"a", "b", "c", "d", "e", "f", "g", "h", "i"}}}, "/group_by");
  expect_400({{"group_by", json::array{"nope"}}}, "/group_by/0");
  expect_400({{"group_limit", 1001}}, "/group_limit");
  expect_400({{"scan_limit", 50001}}, "/scan_limit");
  expect_400({{"limit", 0}}, "/limit");
  expect_400({{"temporal", json::object{{"before", 51}}}}, "/temporal/before");
  expect_400({{"vector", json::object{{"text", std::string(32769, 'v')}}}}, "/vector/text");
  expect_400({{"text", std::string(501, 't')}}, "/text");
  expect_400({{"relationship_fields", json::array(17, json::value("payload.site"))}},
             "/relationship_fields");
  expect_400({{"excluded_document_ids", json::array{""}}}, "/excluded_document_ids/0");
  expect_400({{"context", json::object{{"token_budget", 100}}}}, "/context/token_budget");
  expect_400({{"context", json::object{{"mode", "summary"}}}}, "/context/mode");
  expect_400({{"include_results", "no"}}, "/include_results");
  // History (the default source) needs a lower time bound within retention.
  const auto unbounded = raw({{"where", json::object{}}});
  EXPECT_EQ(unbounded.status, 400);
  const auto beyond =
      raw({{"where", json::object{{"timestamp", json::object{{"gt", "now-31d"}}}}}});
  EXPECT_EQ(beyond.status, 403);
  EXPECT_EQ(raw({{"source", "current"}}).status, 200);
}

TEST_F(AnalyzeTest, EveryIntegerOutOfItsBoundsIsA400NamingIt) {
  // (path, the body holding `value` at that path)
  const auto body_with = [&](const std::string& path, const json::value& value) {
    json::object body{{"where", window()}};
    if (path.starts_with("/temporal/")) {
      body["temporal"] = json::object{{path.substr(10), value}};
    } else if (path.starts_with("/context/")) {
      body["context"] = json::object{{path.substr(9), value}};
    } else if (path == "/aggregations/x/max_gap_ms") {
      body["aggregations"] = json::object{
          {"x", json::object{{"op", "integral"}, {"field", "payload.kw"}, {"max_gap_ms", value}}}};
    } else {
      body[path.substr(1)] = value;
    }
    return body;
  };
  for (const char* path :
       {"/group_limit", "/relationship_limit", "/limit", "/scan_limit", "/temporal/before",
        "/temporal/after", "/context/token_budget", "/context/max_facts", "/context/max_timeline",
        "/context/max_contradictions", "/context/contradiction_window_ms",
        "/context/expected_freshness_ms", "/aggregations/x/max_gap_ms"}) {
    for (const json::value& value : {json::value(-1), json::value(-5000000000LL), json::value(1.5),
                                     json::value(1e20), json::value("7"), json::value(nullptr)}) {
      const auto response = raw(body_with(path, value));
      EXPECT_EQ(response.status, 400)
          << path << " = " << json::serialize(value) << ": " << response.body;
      EXPECT_NE(response.body.find(std::string("\"path\":\"") + path + "\""), std::string::npos)
          << path << " = " << json::serialize(value) << ": " << response.body;
    }
  }
}

TEST(AnalyzeModules, DisabledModulesAnswer400NamingThem) {
  TestConfig config;
  config.plugins =
      "  apikey:\n    library: eventsvc-auth-apikey\n"
      "  rocksdb:\n    library: eventsvc-storage-rocksdb\n"
      "  sum:\n    library: eventsvc-aggregation-sum\n"
      "  integral:\n    library: eventsvc-aggregation-integral\n    enabled: false\n";
  ServerProcess server(config.yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("mods", "test"));
  const json::object where{{"timestamp", json::object{{"gte", "now-1h"}}}};
  const auto disabled = api.analyze(json::object{
      {"where", where}, {"aggregations", json::object{{"e", op("integral", "payload.kw")}}}});
  EXPECT_EQ(disabled.status, 400);
  EXPECT_EQ(disabled.json().at("message"),
            "/aggregations/e/op: aggregation op 'integral' is not enabled");
  EXPECT_EQ(
      api.analyze(json::object{{"where", where},
                               {"aggregations", json::object{{"s", op("sum", "payload.kw")}}}})
          .status,
      200);
  const auto semantic =
      api.analyze(json::object{{"where", where}, {"vector", json::object{{"text", "x"}}}});
  EXPECT_EQ(semantic.status, 400);
  EXPECT_NE(semantic.json().at("message").as_string().find("needs an embedder plugin"),
            std::string::npos);
  const auto context =
      api.analyze(json::object{{"where", where}, {"context", json::object{{"mode", "decision"}}}});
  EXPECT_EQ(context.status, 400);
  EXPECT_EQ(context.json().at("message"), "/context/mode: context mode 'decision' is not enabled");
  const auto unknown = api.analyze(json::object{
      {"where", where}, {"aggregations", json::object{{"m", op("median", "payload.kw")}}}});
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.json().at("message"),
            "/aggregations/m/op: aggregation op 'median' is not enabled");
  const auto empty = api.analyze(
      json::object{{"where", where}, {"aggregations", json::object{{"m", op("", "payload.kw")}}}});
  EXPECT_EQ(empty.status, 400);
  EXPECT_TRUE(empty.json().at("message").as_string().starts_with("/aggregations/m/op: "))
      << empty.body;
}

// An operator the server does not ship, from a plugin of its own, is asked for like any other.
TEST(AnalyzeModules, AnOperatorFromAnotherPluginIsUsable) {
  TestConfig config;
  config.plugins = default_plugins() + "  range:\n    library: " EVENTSVC_TEST_PLUGIN_DIR
                                       "/libeventsvc-aggregation-range.so\n";
  ServerProcess server(config.yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("range", "test"));
  api.ingest_verified(make_batch("m", json::array{make_event("a", "t", now_ms(), {{"kw", 3}}),
                                                  make_event("b", "t", now_ms(), {{"kw", 11.5}})}),
                      "range-write-1");
  const auto answer = api.analyze(
      json::object{{"where", json::object{{"timestamp", json::object{{"gte", "now-1h"}}}}},
                   {"aggregations", json::object{{"spread", op("range", "payload.kw")}}},
                   {"include_results", false}});
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.json().at("aggregations").at("spread").at("value"), 8.5) << answer.body;
}

TEST(AnalyzeRetention, ARecordPastTheKeysRetentionIsNobodysNeighbour) {
  TestConfig config;
  config.plans += "  day:\n    retention_days: 1\n";
  ServerProcess server(config.yaml());
  server.start();
  const std::string month = server.create_key("ret", "test");  // the default plan: 30 days
  const std::string day = server.create_key("ret", "test", "events:read", "day");
  const auto now = now_ms();
  ApiClient(server.port(), month)
      .ingest_verified(
          make_batch(
              "line",
              json::array{make_event("old", "r", now - 3 * 24 * kHour, json::object{{"n", 1}}),
                          make_event("recent", "r", now - kHour, json::object{{"n", 2}})}),
          "retention-neighbours");
  const json::object body{
      {"where", json::object{{"id", "recent"}, {"timestamp", json::object{{"gte", "now-20h"}}}}},
      {"temporal", json::object{{"before", 5}, {"after", 0}}}};
  auto before_of = [&](const std::string& key) {
    const auto answer = ApiClient(server.port(), key).analyze(body);
    EXPECT_EQ(answer.status, 200) << answer.body;
    return answer.json().at("temporal_windows").at(0).at("before");
  };
  EXPECT_EQ(before_of(month), (json::array{"old"}));
  EXPECT_EQ(before_of(day), json::array{});
}

}  // namespace
}  // namespace eventsvc::testing
