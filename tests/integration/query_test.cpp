// POST /v1/query over HTTPS on a known data set: every operator on payload.*, metrics.* and
// canonical fields, current vs history, fields, order, limits, and every 400/403 rule.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

using Ids = std::vector<std::string>;

class QueryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess(test_config());
    server_->start();
    key_ = new std::string(server_->create_key("qry", "test"));
    ApiClient api(server_->port(), *key_);
    const auto now = now_ms();
    base_ = now;
    auto reading = [&](const std::string& id, int minutes_ago, json::object data, double cpu) {
      json::object event = make_event(id, "reading", now - minutes_ago * 60000LL, std::move(data));
      event["metrics"] = json::object{{"cpu", cpu}};
      return event;
    };
    json::object sensors_a =
        make_batch("sensors", json::array{reading("r1", 50,
                                                  {{"temp", 21.5},
                                                   {"room", "Boiler Room"},
                                                   {"status", "ok"},
                                                   {"tags", json::array{"hot", "east"}},
                                                   {"level", 3}},
                                                  0.75),
                                          reading("r2", 40,
                                                  {{"temp", 18},
                                                   {"room", "Office"},
                                                   {"status", "OK"},
                                                   {"tags", json::array{"cold"}},
                                                   {"level", 1}},
                                                  0.25)});
    sensors_a["namespace"] = "plant-a";
    json::object sensors_b = make_batch(
        "sensors",
        json::array{reading(
            "r3", 30, {{"temp", 30.5}, {"room", "Server Room"}, {"status", "alarm"}, {"level", 5}},
            0.95)});
    sensors_b["namespace"] = "plant-b";
    json::object alerts_b = make_batch(
        "alerts",
        json::array{make_event("a1", "alert", now - 20 * 60000LL,
                               {{"message", "disk full on server"}, {"severity", "high"}})});
    alerts_b["namespace"] = "plant-b";
    json::object alerts = make_batch(
        "alerts", json::array{make_event(
                      "a2", "alert", now - 10 * 60000LL,
                      {{"message", "disk almost full"}, {"severity", "low"}, {"note", nullptr}})});
    // A newer version of r1.
    json::object r1_v2 = make_batch("sensors", json::array{reading("r1", 5,
                                                                   {{"temp", 22.0},
                                                                    {"room", "Boiler Room"},
                                                                    {"status", "ok"},
                                                                    {"tags", json::array{"hot"}},
                                                                    {"level", 3}},
                                                                   0.5)});
    r1_v2["namespace"] = "plant-a";
    int n = 0;
    for (const auto& batch : {sensors_a, sensors_b, alerts_b, alerts, r1_v2}) {
      api.ingest_verified(batch, "query-data-" + std::to_string(n++));
    }
    // The same ids in another workspace and in the live environment must never show up.
    for (const auto& [workspace, env] :
         {std::pair{"qry-other", "test"}, std::pair{"qry", "live"}}) {
      ApiClient other(server_->port(), server_->create_key(workspace, env));
      other.ingest_verified(
          make_batch("sensors", json::array{make_event("r1", "reading", now - 60000,
                                                       {{"temp", 99}, {"room", "Office"}})}),
          "query-other");
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    delete key_;
  }

  static Ids ids(const json::value& where, json::object extra = {}) {
    ApiClient api(server_->port(), *key_);
    extra["where"] = where;
    const auto response = api.query(extra);
    EXPECT_EQ(response.status, 200) << response.body;
    if (response.status != 200) return {};
    const auto answer = response.json();
    EXPECT_EQ(answer.at("count").as_int64(), static_cast<std::int64_t>(ids_of(answer).size()));
    return ids_of(answer);
  }
  static HttpResponse raw(const json::value& body) {
    ApiClient api(server_->port(), *key_);
    return api.query(body);
  }

  static ServerProcess* server_;
  static std::string* key_;
  static std::int64_t base_;
};

ServerProcess* QueryTest::server_ = nullptr;
std::string* QueryTest::key_ = nullptr;
std::int64_t QueryTest::base_ = 0;

// Current state in the default order (timestamp descending): r1(v2, -5m) a2(-10m) a1(-20m)
// r3(-30m) r2(-40m).

TEST_F(QueryTest, EqualityAndScalarShorthand) {
  EXPECT_EQ(ids(json::object{{"payload.room", json::object{{"eq", "Office"}}}}), Ids{"r2"});
  EXPECT_EQ(ids(json::object{{"payload.level", 5}}), Ids{"r3"});
  EXPECT_EQ(ids(json::object{{"payload.temp", 18.0}}), Ids{"r2"});  // 18 == 18.0
  EXPECT_EQ(ids(json::object{{"payload.note", nullptr}}), Ids{"a2"});
  EXPECT_EQ(ids(json::object{{"type", "alert"}}), (Ids{"a2", "a1"}));
  EXPECT_EQ(ids(json::object{{"id", "r3"}}), Ids{"r3"});
  EXPECT_EQ(ids(json::object{{"payload.tags.0", "hot"}}), Ids{"r1"});
}

TEST_F(QueryTest, CaseInsensitiveAndNegations) {
  EXPECT_EQ(ids(json::object{{"payload.status", json::object{{"ieq", "ok"}}}}), (Ids{"r1", "r2"}));
  EXPECT_EQ(ids(json::object{{"type", json::object{{"neq", "reading"}}}}), (Ids{"a2", "a1"}));
  EXPECT_EQ(ids(json::object{{"payload.severity", json::object{{"not_in", json::array{"high"}}}}}),
            (Ids{"r1", "a2", "r3", "r2"}));
  EXPECT_EQ(ids(json::object{{"payload.level", json::object{{"in", json::array{1, 5}}}}}),
            (Ids{"r3", "r2"}));
}

TEST_F(QueryTest, Ranges) {
  EXPECT_EQ(ids(json::object{{"payload.temp", json::object{{"gt", 21.5}}}}), (Ids{"r1", "r3"}));
  EXPECT_EQ(ids(json::object{{"payload.temp", json::object{{"gte", 22}}}}), (Ids{"r1", "r3"}));
  EXPECT_EQ(ids(json::object{{"payload.temp", json::object{{"lt", 20}}}}), Ids{"r2"});
  EXPECT_EQ(ids(json::object{{"payload.temp", json::object{{"lte", 18}}}}), Ids{"r2"});
  EXPECT_EQ(ids(json::object{{"payload.temp", json::object{{"gt", 18}, {"lt", 30}}}}), Ids{"r1"});
  EXPECT_EQ(ids(json::object{{"metrics.cpu", json::object{{"gte", 0.5}}}}), (Ids{"r1", "r3"}));
  EXPECT_EQ(ids(json::object{{"payload.room", json::object{{"gt", "P"}}}}), Ids{"r3"});
  // Strings and numbers never compare.
  EXPECT_EQ(ids(json::object{{"payload.temp", json::object{{"gt", "1"}}}}), Ids{});
}

TEST_F(QueryTest, ExistsContainsPrefix) {
  EXPECT_EQ(ids(json::object{{"payload.note", json::object{{"exists", true}}}}), Ids{"a2"});
  EXPECT_EQ(ids(json::object{{"payload.severity", json::object{{"exists", false}}}}),
            (Ids{"r1", "r3", "r2"}));
  EXPECT_EQ(ids(json::object{{"payload.tags", json::object{{"exists", true}}}}), (Ids{"r1", "r2"}));
  EXPECT_EQ(ids(json::object{{"payload.tags", json::object{{"contains", "cold"}}}}), Ids{"r2"});
  EXPECT_EQ(ids(json::object{{"payload.message", json::object{{"contains", "almost"}}}}),
            Ids{"a2"});
  EXPECT_EQ(ids(json::object{{"payload.room", json::object{{"prefix", "Serv"}}}}), Ids{"r3"});
  EXPECT_EQ(ids(json::object{{"id", json::object{{"prefix", "a"}}}}), (Ids{"a2", "a1"}));
  EXPECT_EQ(ids(json::object{{"namespace", json::object{{"exists", false}}}}), Ids{"a2"});
}

TEST_F(QueryTest, CanonicalFieldsAndTimeBounds) {
  EXPECT_EQ(ids(json::object{{"stream", "alerts"}}), (Ids{"a2", "a1"}));
  EXPECT_EQ(ids(json::object{{"namespace", "plant-b"}}), (Ids{"a1", "r3"}));
  EXPECT_EQ(ids(json::object{{"timestamp", json::object{{"gte", "now-25m"}}}}),
            (Ids{"r1", "a2", "a1"}));
  EXPECT_EQ(ids(json::object{{"timestamp", json::object{{"gte", "now-45m"}, {"lte", "now-15m"}}}}),
            (Ids{"a1", "r3", "r2"}));
  EXPECT_EQ(ids(json::object{{"timestamp", json::object{{"lt", iso(base_ - 35 * 60000LL)}}}}),
            Ids{"r2"});
  EXPECT_EQ(ids(json::object{{"timestamp", json::object{{"lt", base_ - 35 * 60000LL}}}}),
            Ids{"r2"});
  EXPECT_EQ(ids(json::object{{"ingested_at", json::object{{"gt", "now-1h"}}}, {"type", "alert"}}),
            (Ids{"a2", "a1"}));
  EXPECT_EQ(ids(json::object{{"type", "reading"}, {"namespace", "plant-a"}, {"payload.level", 3}}),
            Ids{"r1"});
}

TEST_F(QueryTest, CurrentHoldsTheLatestVersionHistoryHoldsEvery) {
  const auto current = raw(json::object{{"where", json::object{{"id", "r1"}}}}).json();
  ASSERT_EQ(current.at("count"), 1);
  EXPECT_EQ(current.at("results").at(0).at("payload").at("temp").to_number<double>(), 22.0);
  EXPECT_EQ(current.at("source"), "current");
  const auto history =
      raw(json::object{{"source", "history"},
                       {"where", json::object{{"id", "r1"},
                                              {"timestamp", json::object{{"gte", "now-2h"}}}}}})
          .json();
  EXPECT_EQ(history.at("count"), 2);
  EXPECT_EQ(history.at("source"), "history");
  // The old version still answers history conditions, not current ones.
  EXPECT_EQ(ids(json::object{{"payload.temp", 21.5}}), Ids{});
  EXPECT_EQ(ids(json::object{{"payload.temp", 21.5}, {"timestamp", json::object{{"gt", "now-1d"}}}},
                {{"source", "history"}}),
            Ids{"r1"});
}

TEST_F(QueryTest, OrderLimitAndFields) {
  EXPECT_EQ(ids(json::object{}, {{"order", "asc"}}), (Ids{"r2", "r3", "a1", "a2", "r1"}));
  EXPECT_EQ(ids(json::object{}, {{"limit", 2}}), (Ids{"r1", "a2"}));
  const auto trimmed =
      raw(json::object{
              {"where", json::object{{"id", "r3"}}},
              {"fields", json::array{"payload.temp", "metrics.cpu", "timestamp", "payload.tags"}}})
          .json();
  const auto& record = trimmed.at("results").at(0).as_object();
  EXPECT_EQ(record, (json::object{{"id", "r3"},
                                  {"payload", json::object{{"temp", 30.5}}},
                                  {"metrics", json::object{{"cpu", 0.95}}},
                                  {"timestamp", iso(base_ - 30 * 60000LL)}}));
  // Conditions the engine's indexes answer and fields naming no payload: the same trimmed
  // records, the canonical members exact (the engine need not decode payloads for them).
  const auto canonical =
      raw(json::object{{"where", json::object{{"payload.status", "alarm"}, {"stream", "sensors"}}},
                       {"fields", json::array{"stream", "namespace", "type", "timestamp"}}})
          .json();
  EXPECT_EQ(canonical.at("results").as_array(),
            (json::array{json::object{{"id", "r3"},
                                      {"stream", "sensors"},
                                      {"namespace", "plant-b"},
                                      {"type", "reading"},
                                      {"timestamp", iso(base_ - 30 * 60000LL)}}}));
  const auto metrics_only =
      raw(json::object{{"where", json::object{{"payload.room", "Boiler Room"}}},
                       {"fields", json::array{"metrics.cpu"}}})
          .json();
  EXPECT_EQ(metrics_only.at("results").as_array(),
            (json::array{json::object{{"id", "r1"}, {"metrics", json::object{{"cpu", 0.5}}}}}));
  const auto answer = raw(json::object{{"limit", 1}}).json();
  for (const char* field : {"results", "count", "source", "complete", "scanned", "elapsed_ms"}) {
    EXPECT_TRUE(answer.as_object().contains(field)) << field;
  }
  EXPECT_EQ(answer.at("complete"), true);
}

TEST_F(QueryTest, NothingCrossesWorkspaceOrEnvironment) {
  EXPECT_EQ(ids(json::object{{"payload.temp", 99}}), Ids{});
  EXPECT_EQ(ids(json::object{{"id", "r1"}}), Ids{"r1"});
  EXPECT_EQ(raw(json::object{{"where", json::object{{"id", "r1"}}}})
                .json()
                .at("results")
                .at(0)
                .at("payload")
                .at("temp")
                .to_number<double>(),
            22.0);
}

void expect_400(const HttpResponse& response, const std::string& path) {
  EXPECT_EQ(response.status, 400) << response.body;
  if (response.status != 400) return;
  const auto body = response.json();
  EXPECT_EQ(body.at("statusCode"), 400);
  bool found = false;
  for (const auto& error : body.at("data").at("errors").as_array()) {
    found = found || error.at("path").as_string() == path;
  }
  EXPECT_TRUE(found) << path << ": " << response.body;
}

TEST_F(QueryTest, InvalidRequestsAreExplained) {
  expect_400(
      raw(json::object{{"where", json::object{{"payload.temp", json::object{{"between", 1}}}}}}),
      "/where/payload.temp/between");
  expect_400(raw(json::object{
                 {"where", json::object{{"payload.temp", json::object{{"gt", json::array{1}}}}}}}),
             "/where/payload.temp/gt");
  expect_400(raw(json::object{
                 {"where", json::object{{"payload.temp", json::object{{"gt", 1}, {"eq", 2}}}}}}),
             "/where/payload.temp");
  expect_400(raw(json::object{{"where", json::object{{"payload.temp", json::object{}}}}}),
             "/where/payload.temp");
  expect_400(raw(json::object{{"where", json::object{{"payload.x", json::array{1}}}}}),
             "/where/payload.x");
  expect_400(raw(json::object{{"where", json::object{{"data.x", 1}}}}), "/where/data.x");
  expect_400(
      raw(json::object{{"where", json::object{{"type", json::object{{"in", json::array{}}}}}}}),
      "/where/type/in");
  expect_400(raw(json::object{{"where", json::object{{"type", json::object{{"exists", "yes"}}}}}}),
             "/where/type/exists");
  expect_400(raw(json::object{{"where", json::object{{"type", json::object{{"prefix", 5}}}}}}),
             "/where/type/prefix");
  expect_400(
      raw(json::object{{"where", json::object{{"timestamp", json::object{{"gte", "last week"}}}}}}),
      "/where/timestamp/gte");
  json::object many;
  for (int i = 0; i < 33; ++i)
    many["payload.f" + std::to_string(i)] = i;
  expect_400(raw(json::object{{"where", many}}), "/where");
  expect_400(raw(json::object{{"where", 5}}), "/where");
  expect_400(raw(json::object{{"fields", json::array{"bogus"}}}), "/fields/0");
  expect_400(raw(json::object{{"fields", json::array{}}}), "/fields");
  expect_400(raw(json::object{{"fields", json::array{std::string(257, 'f')}}}), "/fields/0");
  expect_400(raw(json::object{{"limit", 0}}), "/limit");
  expect_400(raw(json::object{{"limit", 1001}}), "/limit");
  expect_400(raw(json::object{{"limit", 2.5}}), "/limit");
  expect_400(raw(json::object{{"order", "up"}}), "/order");
  expect_400(raw(json::object{{"source", "archive"}}), "/source");
  expect_400(raw(json::object{{"sort", "x"}}), "/sort");
  // 32 properties are fine.
  json::object allowed;
  for (int i = 0; i < 32; ++i)
    allowed["payload.f" + std::to_string(i)] = i;
  EXPECT_EQ(raw(json::object{{"where", allowed}}).status, 200);
}

TEST_F(QueryTest, HistoryNeedsALowerBoundWithinRetention) {
  const auto unbounded = raw(json::object{{"source", "history"}});
  EXPECT_EQ(unbounded.status, 400);
  EXPECT_NE(unbounded.json().at("message").as_string().find("where.timestamp.gte"),
            std::string::npos);
  EXPECT_EQ(raw(json::object{{"source", "history"},
                             {"where", json::object{{"timestamp", json::object{{"lte", "now"}}}}}})
                .status,
            400);
  const auto beyond =
      raw(json::object{{"source", "history"},
                       {"where", json::object{{"timestamp", json::object{{"gte", "now-40d"}}}}}});
  EXPECT_EQ(beyond.status, 403);
  EXPECT_EQ(beyond.json().at("statusCode"), 403);
  EXPECT_EQ(beyond.json().at("data").at("retention_days"), 30);
  // Every read reaching past retention says it in one sentence, naming what reached.
  const std::string sentence = " is beyond the plan's retention of 30 days (earliest: ";
  EXPECT_TRUE(
      beyond.json().at("message").as_string().starts_with("where.timestamp lower bound 20"));
  EXPECT_NE(beyond.body.find(sentence), std::string::npos) << beyond.body;
  ApiClient api(server_->port(), *key_);
  const auto search = api.search(json::object{{"query", "anything"}, {"from", "now-40d"}});
  EXPECT_EQ(search.status, 403);
  EXPECT_TRUE(search.json().at("message").as_string().starts_with("from 20")) << search.body;
  EXPECT_NE(search.body.find(sentence), std::string::npos) << search.body;
  EXPECT_EQ(search.json().at("data").at("retention_days"), 30);
  EXPECT_EQ(
      raw(json::object{{"source", "history"},
                       {"where", json::object{{"timestamp", json::object{{"gt", "now-29d"}}}}}})
          .status,
      200);
}

// GET /v1/fields on the same data: "field count type..." per field, most common first.
std::vector<std::string> field_lines(const HttpResponse& response) {
  EXPECT_EQ(response.status, 200) << response.body;
  std::vector<std::string> lines;
  if (response.status != 200) return lines;
  const auto answer = response.json();
  for (const auto& entry : answer.at("fields").as_array()) {
    const auto& field = entry.as_object();
    std::string line = std::string(field.at("field").as_string()) + " " +
                       std::to_string(field.at("count").as_int64());
    for (const auto& [type, count] : field.at("types").as_object())
      line += " " + std::string(type) + ":" + std::to_string(count.as_int64());
    lines.push_back(std::move(line));
  }
  return lines;
}

TEST_F(QueryTest, FieldsListEveryFieldOfTheWorkspaceWithCountsAndTypes) {
  ApiClient api(server_->port(), *key_);
  // History: r1 twice, r2, r3, a1, a2; never the other workspace's or environment's r1.
  const auto history = api.http().get("/v1/fields", *key_);
  EXPECT_EQ(
      field_lines(history),
      (std::vector<std::string>{
          "id 6 string:6", "ingested_at 6 string:6", "receipt_id 6 string:6", "stream 6 string:6",
          "timestamp 6 string:6", "type 6 string:6", "namespace 5 string:5",
          "metrics.cpu 4 number:4", "payload.level 4 number:4", "payload.room 4 string:4",
          "payload.status 4 string:4", "payload.temp 4 number:4", "payload.tags 3 container:3",
          "payload.tags.0 3 string:3", "payload.message 2 string:2", "payload.severity 2 string:2",
          "payload.note 1 null:1", "payload.tags.1 1 string:1"}));
  const auto answer = history.json();
  EXPECT_EQ(answer.at("events"), 6);
  EXPECT_EQ(answer.at("complete"), true);
  EXPECT_EQ(answer.at("unlisted"), 0);
  EXPECT_EQ(answer.at("source"), "history");

  // Current state: r1's newer version only.
  EXPECT_EQ(
      field_lines(api.http().get("/v1/fields?source=current", *key_)),
      (std::vector<std::string>{
          "id 5 string:5", "ingested_at 5 string:5", "receipt_id 5 string:5", "stream 5 string:5",
          "timestamp 5 string:5", "type 5 string:5", "namespace 4 string:4",
          "metrics.cpu 3 number:3", "payload.level 3 number:3", "payload.room 3 string:3",
          "payload.status 3 string:3", "payload.temp 3 number:3", "payload.message 2 string:2",
          "payload.severity 2 string:2", "payload.tags 2 container:2", "payload.tags.0 2 string:2",
          "payload.note 1 null:1"}));

  // A filter, and a sample of the newest events.
  EXPECT_EQ(
      field_lines(api.http().get(
          "/v1/fields?stream=alerts&from=now-2h&where=%7B%22namespace%22%3A%22plant-b%22%7D",
          *key_)),
      (std::vector<std::string>{"id 1 string:1", "ingested_at 1 string:1", "namespace 1 string:1",
                                "payload.message 1 string:1", "payload.severity 1 string:1",
                                "receipt_id 1 string:1", "stream 1 string:1",
                                "timestamp 1 string:1", "type 1 string:1"}));
  const auto sampled = api.http().get("/v1/fields?sample=2", *key_);
  ASSERT_EQ(sampled.status, 200) << sampled.body;
  EXPECT_EQ(sampled.json().at("events"), 2);
  EXPECT_EQ(sampled.json().at("complete"), false);
  // The two newest: r1 (-5 min) and a2 (-10 min).
  EXPECT_EQ(field_lines(sampled).front(), "id 2 string:2");
}

TEST_F(QueryTest, FieldsParametersAreChecked) {
  ApiClient api(server_->port(), *key_);
  auto expect = [&](const std::string& query, int status, const std::string& names) {
    const auto response = api.http().get("/v1/fields?" + query, *key_);
    EXPECT_EQ(response.status, status) << query << ": " << response.body;
    if (response.status < 400) return;
    EXPECT_NE(response.json().at("message").as_string().find(names), std::string::npos)
        << query << ": " << response.body;
  };
  expect("limit=5", 400, "the limit parameter is not one of");
  expect("sample=0", 400, "the sample parameter");
  expect("sample=100001", 400, "the sample parameter");
  expect("sample=ten", 400, "the sample parameter");
  expect("source=everything", 400, "the source parameter");
  expect("from=yesterday", 400, "the from parameter");
  expect("from=now&to=now-1h", 400, "the from parameter is after to");
  expect("from=now-400d", 403, "beyond the plan's retention");
  expect("where=%7Bnot%20json", 400, "the where parameter is not JSON");
  expect("where=%5B%5D", 400, "the where parameter must be a JSON object");
  expect("where=%7B%22timestamp%22%3A%7B%22gte%22%3A%22now-1h%22%7D%7D", 400,
         "the where parameter bounds timestamp");
  expect("stream=a&stream=b", 400, "the stream parameter is given more than once");
  expect("where=%7B%22payload.level%22%3A%7B%22between%22%3A1%7D%7D", 400, "between");
}

}  // namespace
}  // namespace eventsvc::testing
