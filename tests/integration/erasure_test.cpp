// Erasure through the real binary (docs/api.md#erasure): by condition and by ids, hidden from
// search, query (current and history), analyze and Context Packs; current state falling back to
// the newest surviving version; other workspaces untouched; the same key replaying its answer; an
// erased event stored again when sent again; the audit trail; and every bad request a clear 4xx.
// (Also run with the local durable log: erasure_integration_test_on_local_log.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "support/api_client.hpp"
#include "support/files_holding.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

constexpr std::int64_t kMinute = 60000;
constexpr const char* kScopes = "events:read,events:write,events:erase";

// Table files uncompressed, so that the byte search of the purge proof sees every copy.
std::string audited_config() {
  TestConfig config;
  config.plugins =
      with_storage_config(default_plugins(), "      compression: none\n") +
      "  audit:\n    library: eventsvc-audit-jsonl\n    config:\n      sample_rate: 0\n";
  return config.yaml();
}

json::object person_event(const std::string& id, std::int64_t at, const std::string& user,
                          const std::string& note) {
  return make_event(id, "seen", at,
                    json::object{{"user", json::object{{"id", user}}}, {"note", note}});
}

class ErasureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess(audited_config());
    server_->start();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  // u-42 is seen in e-1, e-2 and p-1's newer version; u-7 in p-1's older one, e-3 and e-4.
  static std::vector<json::object> people(std::int64_t now) {
    return {person_event("e-1", now - 5 * kMinute, "u-42", "zebra stripes"),
            person_event("e-2", now - 4 * kMinute, "u-42", "zebra crossing"),
            person_event("p-1", now - 3 * kMinute, "u-7", "yak wool"),
            person_event("p-1", now - 2 * kMinute, "u-42", "zebra hat"),
            person_event("e-3", now - kMinute, "u-7", "yak milk"),
            person_event("e-4", now - kMinute, "u-7", "yak fur")};
  }

  static void write_people(ApiClient& api, std::int64_t now, const std::string& key) {
    json::array events;
    for (auto& event : people(now))
      events.emplace_back(std::move(event));
    api.ingest_verified(make_batch("people", std::move(events)), key);
  }

  static std::set<std::string> ids(const json::value& answer) {
    const auto list = ids_of(answer);
    return {list.begin(), list.end()};
  }

  static json::value query(ApiClient& api, json::object body) {
    const auto response = api.query(body);
    EXPECT_EQ(response.status, 200) << response.body;
    return response.status == 200 ? response.json() : json::value();
  }

  static json::object history(json::object where = {}) {
    where["timestamp"] = json::object{{"gte", "now-1h"}};
    return {{"source", "history"}, {"where", std::move(where)}, {"limit", 1000}};
  }

  static ServerProcess* server_;
};

ServerProcess* ErasureTest::server_ = nullptr;

TEST_F(ErasureTest, ByConditionAndByIdsNoReadReturnsOrCountsAnErasedVersion) {
  ApiClient api(server_->port(), server_->create_key("erase", "test", kScopes));
  ApiClient other(server_->port(), server_->create_key("keep", "test", kScopes));
  const std::int64_t now = now_ms();
  write_people(api, now, "people-1");
  write_people(other, now, "people-1");

  const json::object body{{"where", json::object{{"payload.user.id", "u-42"}}}};
  const auto accepted = api.erase(body, "erase-u42");
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  const auto receipt = accepted.json().as_object();
  const std::string erasure_id(receipt.at("erasure_id").as_string());
  EXPECT_TRUE(std::regex_match(erasure_id, std::regex("^era_[0-9a-f]{16}$"))) << erasure_id;
  EXPECT_EQ(receipt.at("status"), "accepted");
  EXPECT_NE(receipt.at("status_url").as_string().find("/v1/erasures/" + erasure_id),
            std::string::npos);

  const auto erased = api.wait_erased(erasure_id);
  EXPECT_EQ(erased.at("status"), "hidden");
  EXPECT_EQ(erased.at("erased_versions"), 3);  // e-1, e-2 and p-1's newer version
  EXPECT_EQ(erased.at("request"), body);
  EXPECT_FALSE(erased.at("hidden_at").is_null());
  EXPECT_TRUE(erased.at("purged_at").is_null());

  // Search, query over history and current state, analyze and a Context Pack: u-42 is gone.
  const auto search = api.search(json::object{{"query", "zebra"}});
  ASSERT_EQ(search.status, 200) << search.body;
  EXPECT_EQ(search.json().at("count"), 0);
  EXPECT_EQ(ids(query(api, history())), (std::set<std::string>{"p-1", "e-3", "e-4"}));
  EXPECT_EQ(query(api, history({{"payload.user.id", "u-42"}})).at("count"), 0);
  EXPECT_EQ(query(api, {{"where", json::object{{"payload.user.id", "u-42"}}}}).at("count"), 0);
  // p-1's current version is its surviving older one.
  const auto p1 = query(api, {{"where", json::object{{"id", "p-1"}}}});
  ASSERT_EQ(p1.at("count"), 1);
  EXPECT_EQ(p1.at("results").at(0).at("payload").at("user").at("id"), "u-7");
  const auto analyzed = api.analyze(json::object{
      {"source", "history"},
      {"where", json::object{{"timestamp", json::object{{"gte", "now-1h"}}}}},
      {"aggregations",
       json::object{{"versions", json::object{{"op", "count"}}},
                    {"users", json::object{{"op", "distinct"}, {"field", "payload.user.id"}}}}},
      {"context", json::object{{"mode", "documents"}}}});
  ASSERT_EQ(analyzed.status, 200) << analyzed.body;
  const auto& analysis = analyzed.json();
  EXPECT_EQ(analysis.at("aggregations").at("versions").at("value"), 3);
  EXPECT_EQ(analysis.at("aggregations").at("users").at("value"), 1);
  std::set<std::string> cited;
  for (const auto& id : analysis.at("context").at("proof").at("event_ids").as_array())
    cited.emplace(id.as_string());
  EXPECT_EQ(cited, (std::set<std::string>{"p-1", "e-3", "e-4"}));

  // Another workspace keeps what it was sent.
  EXPECT_EQ(query(other, history({{"payload.user.id", "u-42"}})).at("count"), 3);

  // The same key answers the first 202 again, erasing nothing new.
  const auto replayed = api.erase(body, "erase-u42");
  EXPECT_EQ(replayed.status, 202);
  EXPECT_EQ(replayed.body, accepted.body);
  EXPECT_EQ(replayed.header("idempotent-replayed"), "true");

  // By ids: e-3 goes; sent again, it is stored again (erasure is not suppression).
  const auto by_ids =
      api.erase(json::object{{"ids", json::array{"e-3", "never-seen"}}}, "erase-e3");
  ASSERT_EQ(by_ids.status, 202) << by_ids.body;
  const auto e3 = api.wait_erased(std::string(by_ids.json().at("erasure_id").as_string()));
  EXPECT_EQ(e3.at("erased_versions"), 1);
  EXPECT_EQ(query(api, {{"where", json::object{{"id", "e-3"}}}}).at("count"), 0);
  const auto again = api.ingest(
      make_batch("people", json::array{person_event("e-3", now - kMinute, "u-7", "yak milk")}),
      "people-e3-again");
  ASSERT_EQ(again.status, 202) << again.body;
  EXPECT_EQ(again.json().at("accepted"), 1);
  api.wait_final(std::string(again.json().at("receipt_id").as_string()));
  EXPECT_EQ(query(api, {{"where", json::object{{"id", "e-3"}}}}).at("count"), 1);

  // Every erasure is in the audit trail, whatever the sample rate: the key, the condition.
  std::string trail;
  for (const auto& file :
       std::filesystem::directory_iterator(server_->data_dir() / "audit" / "traces")) {
    std::ifstream in(file.path());
    trail.append(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_NE(trail.find("\"operation\":\"erasure\""), std::string::npos) << trail;
  EXPECT_NE(trail.find(erasure_id), std::string::npos) << trail;
  EXPECT_NE(trail.find("\"payload.user.id\":\"u-42\""), std::string::npos) << trail;
}

// Purged: no file of the data directory holds a byte of the erased payloads any more, not the
// column chunks nor the records, the inbox, the write-ahead logs or the local durable log; with the
// shared PostgreSQL log, no entry of its table either.
TEST_F(ErasureTest, PurgedLeavesNoFileHoldingTheErasedPayloads) {
  ApiClient api(server_->port(), server_->create_key("purge", "test", kScopes));
  const std::string marker = "zqxpurgemarker";
  const std::int64_t now = now_ms();
  api.ingest_verified(
      make_batch("secrets", json::array{make_event("s-1", "note", now - 3 * kMinute,
                                                   json::object{{"text", marker + " first"}}),
                                        make_event("s-1", "note", now - 2 * kMinute,
                                                   json::object{{"text", marker + " second"}}),
                                        make_event("s-2", "note", now - kMinute,
                                                   json::object{{"text", marker + " third"}}),
                                        make_event("kept", "note", now - kMinute,
                                                   json::object{{"text", "nothing secret"}})}),
      "secrets-1");
  EXPECT_FALSE(files_holding(server_->data_dir(), marker).empty());  // the search can find it
  const std::string in_shared_log =
      "SELECT count(*) FROM eventsvc_log WHERE position('" + marker + "'::bytea in write) > 0";
  if (shared_log_mode()) {
    EXPECT_EQ(shared_log_sql(*server_, in_shared_log), "1");
  }

  const auto accepted =
      api.erase(json::object{{"ids", json::array{"s-1", "s-2"}}}, "purge-secrets");
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  const std::string id(accepted.json().at("erasure_id").as_string());
  json::object erasure;
  for (int attempt = 0; attempt < 600; ++attempt) {  // a minute at most
    erasure = api.erasure(id).json().as_object();
    if (erasure.at("status") == "purged") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(erasure.at("status"), "purged") << json::serialize(erasure);
  EXPECT_EQ(erasure.at("erased_versions"), 3);
  EXPECT_FALSE(erasure.at("hidden_at").is_null());
  EXPECT_FALSE(erasure.at("purged_at").is_null());
  EXPECT_EQ(files_holding(server_->data_dir(), marker), std::vector<std::string>{});
  if (shared_log_mode()) {
    EXPECT_EQ(shared_log_sql(*server_, in_shared_log), "0");
    // The write keeps the event that was not erased.
    EXPECT_EQ(shared_log_sql(*server_,
                             "SELECT count(*) FROM eventsvc_log WHERE "
                             "position('nothing secret'::bytea in write) > 0"),
              "1");
  }
  // What was not erased is still served.
  EXPECT_EQ(ids(query(api, history())), (std::set<std::string>{"kept"}));
  const auto search = api.search(json::object{{"query", "secret"}});
  ASSERT_EQ(search.status, 200) << search.body;
  EXPECT_EQ(search.json().at("count"), 1);
}

TEST_F(ErasureTest, BadRequestsAreClear4xxAnswers) {
  ApiClient api(server_->port(), server_->create_key("erase-bad", "test", kScopes));
  auto expect_error = [&](const HttpResponse& response, int status, const std::string& says) {
    EXPECT_EQ(response.status, status) << response.body;
    if (response.status != status) return;
    EXPECT_NE(response.json().at("message").as_string().find(says), std::string::npos)
        << response.body;
  };
  expect_error(api.erase(json::object{}, "bad-erasure-1"), 400, "needs `ids`");
  json::array too_many;
  for (int i = 0; i < 10001; ++i)
    too_many.emplace_back("id-" + std::to_string(i));
  expect_error(api.erase(json::object{{"ids", too_many}}, "bad-erasure-2"), 400, "/ids");
  expect_error(api.erase(json::object{{"where", json::object{}}}, "bad-erasure-3"), 400,
               "names no condition");
  expect_error(
      api.erase(json::object{{"ids", json::array{"a"}}, {"source", "current"}}, "bad-erasure-4"),
      400, "there is no `where`");
  expect_error(
      api.erase(json::object{{"ids", json::array{"a"}}, {"everything", true}}, "bad-erasure-5"),
      400, "everything");
  expect_error(
      api.erase(json::object{{"where", json::object{{"payload.x", json::object{{"near", 1}}}}}},
                "bad-erasure-6"),
      400, "/where");
  expect_error(api.http().post("/v1/erasures", api.key(), json::object{{"ids", json::array{"a"}}}),
               400, "Idempotency-Key");
  expect_error(api.erasure("era_0123456789abcdef"), 404, "no erasure era_0123456789abcdef");
  expect_error(api.erasure("req_0123456789abcdef"), 400, "invalid erasure id");

  // Writing is not erasing: events:erase is a scope of its own, for the erasure and its state.
  ApiClient writer(server_->port(), server_->create_key("erase-bad", "test"));
  expect_error(writer.erase(json::object{{"ids", json::array{"a"}}}, "bad-erasure-7"), 403,
               "events:erase");
  expect_error(writer.erasure("era_0123456789abcdef"), 403, "events:erase");
}

}  // namespace
}  // namespace eventsvc::testing
