// POST /v1/search over HTTPS: syntax, BM25 ranking, time windows, namespace filter, isolation,
// the answer's shape and every 400/403 rule.
#include <gtest/gtest.h>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

using Ids = std::vector<std::string>;

class SearchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess(test_config());
    server_->start();
    key_ = new std::string(server_->create_key("srch", "test"));
    ApiClient api(server_->port(), *key_);
    const auto now = now_ms();
    auto text = [&](const std::string& id, std::int64_t ago_ms, const std::string& body) {
      return make_event(id, "log", now - ago_ms, json::object{{"text", body}});
    };
    api.ingest_verified(
        make_batch("logs",
                   json::array{text("s1", 60000, "Kernel panic on node alpha"),
                               text("s2", 30 * 60000, "kernel update scheduled for tonight"),
                               text("s4", 3LL * 86400000, "kernel panic long ago"),
                               text("g1", 180000, "process crashed with sigsegv"),
                               text("g2", 190000, "signal received by worker"),
                               text("g3", 200000, "signal received by scheduler"),
                               text("g4", 210000, "signal handler installed"),
                               text("g5", 220000, "signal mask changed")}),
        "search-data-1");
    json::object namespaced =
        make_batch("logs", json::array{text("s3", 30000, "disk quota exceeded on vol7")});
    namespaced["namespace"] = "ns-b";
    api.ingest_verified(namespaced, "search-data-2");
    ApiClient other(server_->port(), server_->create_key("srch-other", "test"));
    other.ingest_verified(
        make_batch("logs", json::array{text("x1", 1000, "kernel panic elsewhere")}),
        "search-other");
  }
  static void TearDownTestSuite() {
    delete server_;
    delete key_;
  }

  static HttpResponse search(json::object body) {
    ApiClient api(server_->port(), *key_);
    return api.search(body);
  }
  static Ids found(json::object body) {
    const auto response = search(std::move(body));
    EXPECT_EQ(response.status, 200) << response.body;
    return response.status == 200 ? ids_of(response.json()) : Ids{};
  }

  static ServerProcess* server_;
  static std::string* key_;
};

ServerProcess* SearchTest::server_ = nullptr;
std::string* SearchTest::key_ = nullptr;

TEST_F(SearchTest, WordsAreAndedCaseInsensitively) {
  EXPECT_EQ(found({{"query", "KERNEL panic"}}), Ids{"s1"});
  EXPECT_EQ(found({{"query", "signal received"}}).size(), 2U);
  EXPECT_EQ(found({{"query", "nothing-like-this"}}), Ids{});
}

TEST_F(SearchTest, PhraseExclusionAndPrefix) {
  EXPECT_EQ(found({{"query", "\"panic on node\""}}), Ids{"s1"});
  EXPECT_EQ(found({{"query", "\"node on panic\""}}), Ids{});
  EXPECT_EQ(found({{"query", "kernel -panic"}}), Ids{"s2"});
  auto kern = found({{"query", "kern*"}});
  std::sort(kern.begin(), kern.end());
  EXPECT_EQ(kern, (Ids{"s1", "s2"}));
}

TEST_F(SearchTest, TheRarerMatchingWordRanksFirst) {
  // sig* matches "sigsegv" (one document) and "signal" (four): the rarer completion wins.
  const auto ids = found({{"query", "sig*"}});
  ASSERT_EQ(ids.size(), 5U);
  EXPECT_EQ(ids.front(), "g1");
  const auto answer = search({{"query", "sig*"}}).json();
  const double first = answer.at("results").at(0).at("score").to_number<double>();
  const double second = answer.at("results").at(1).at("score").to_number<double>();
  EXPECT_GT(first, second);
}

TEST_F(SearchTest, FromAndToBoundTheWindow) {
  EXPECT_EQ(found({{"query", "long ago"}}), Ids{});  // 3 days old: outside now-24h..now
  EXPECT_EQ(found({{"query", "long ago"}, {"from", "now-4d"}}), Ids{"s4"});
  EXPECT_EQ(found({{"query", "kernel"}, {"from", "now-15m"}}), Ids{"s1"});
  EXPECT_EQ(found({{"query", "kernel"}, {"from", "now-4d"}, {"to", "now-1d"}}), Ids{"s4"});
  EXPECT_EQ(found({{"query", "kernel"}, {"to", iso(now_ms() - 15 * 60000)}}), Ids{"s2"});
}

TEST_F(SearchTest, NamespaceFiltersAndWorkspacesIsolate) {
  EXPECT_EQ(found({{"query", "quota"}, {"namespace", "ns-b"}}), Ids{"s3"});
  EXPECT_EQ(found({{"query", "quota"}, {"namespace", "ns-c"}}), Ids{});
  EXPECT_EQ(found({{"query", "elsewhere"}}), Ids{});
}

TEST_F(SearchTest, AnswerShapeAndHighlights) {
  const auto answer = search({{"query", "quota"}, {"limit", 1}}).json();
  EXPECT_EQ(answer.at("count"), 1);
  EXPECT_EQ(answer.at("complete"), true);
  EXPECT_TRUE(answer.at("elapsed_ms").is_number());
  const auto& hit = answer.at("results").at(0).as_object();
  EXPECT_EQ(hit.at("id"), "s3");
  EXPECT_EQ(hit.at("stream"), "logs");
  EXPECT_EQ(hit.at("type"), "log");
  EXPECT_EQ(hit.at("namespace"), "ns-b");
  EXPECT_TRUE(hit.at("timestamp").is_string());
  EXPECT_GT(hit.at("score").to_number<double>(), 0);
  EXPECT_EQ(
      hit.at("highlights"),
      json::parse(
          R"([{"field":"payload.text","fragment":"disk quota exceeded on vol7","terms":["quota"]}])"));
  EXPECT_EQ(hit.at("record").at("payload").at("text"), "disk quota exceeded on vol7");
  EXPECT_EQ(found({{"query", "signal"}, {"limit", 1}}).size(), 1U);
}

TEST_F(SearchTest, InvalidRequestsAreExplained) {
  auto expect_400 = [](const HttpResponse& response, const char* path) {
    EXPECT_EQ(response.status, 400) << response.body;
    EXPECT_NE(response.body.find(std::string("\"path\":\"") + path + "\""), std::string::npos)
        << response.body;
  };
  expect_400(search({}), "/query");
  expect_400(search({{"query", ""}}), "/query");
  expect_400(search({{"query", std::string(501, 'a')}}), "/query");
  EXPECT_EQ(search({{"query", std::string(500, 'a')}}).status, 200);
  expect_400(search({{"query", "x"}, {"limit", 0}}), "/limit");
  expect_400(search({{"query", "x"}, {"limit", 101}}), "/limit");
  expect_400(search({{"query", "x"}, {"from", "yesterday"}}), "/from");
  expect_400(search({{"query", "x"}, {"to", 5}}), "/to");
  expect_400(search({{"query", "x"}, {"from", "now"}, {"to", "now-1h"}}), "/from");
  expect_400(search({{"query", "x"}, {"where", json::object{}}}), "/where");
  const auto only_excluded = search({{"query", "-debug"}});
  EXPECT_EQ(only_excluded.status, 400);
  const auto beyond = search({{"query", "x"}, {"from", "now-60d"}});
  EXPECT_EQ(beyond.status, 403);
}

}  // namespace
}  // namespace eventsvc::testing
