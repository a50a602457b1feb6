// Paging by cursor through the real binary (docs/api.md#paging): search, query and analyze page
// through 10,000 matches in pages of 100, each match exactly once, while events are ingested, the
// column chunks merge, events are erased and the server restarts between pages; a cursor belongs
// to its workspace and environment, its endpoint and its request body, cannot be edited, and
// expires. (Also run with the local durable log: paging_integration_test_on_local_log.)
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <thread>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

constexpr int kMatches = 10000;
constexpr int kPage = 100;
constexpr const char* kScopes = "events:read,events:write,events:erase";

// Small column chunks merge often while the pages are read.
std::string merging_config(const std::string& cursors = "") {
  TestConfig config;
  config.plugins = with_storage_config(
      default_plugins(), "      projector: {merge_small_rows: 512, merge_fanout: 2}\n");
  config.other = cursors;
  return config.yaml();
}

// m-<i>: "needle" once to three times among a varying number of other words, so that BM25 scores
// spread; three events share each timestamp, so that ties are broken by id.
json::object match_event(int i, std::int64_t base) {
  std::string message;
  for (int n = 0; n <= i % 3; ++n)
    message += "needle ";
  for (int n = 0; n < i % 7; ++n)
    message += "hay" + std::to_string(n) + " ";
  return make_event("m-" + std::to_string(i), "item", base - (i / 3) * 1000LL,
                    json::object{{"kind", "match"}, {"message", message}});
}

struct Paged {
  std::vector<std::string> ids;  // in delivery order, over every page
  std::size_t pages = 0;
  json::value first;  // the first page's answer
};

class PagingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess(merging_config());
    server_->start();
    key_ = new std::string(server_->create_key("pg", "test", kScopes));
    base_ = now_ms() - 60000;
    ApiClient api(server_->port(), *key_);
    std::vector<std::string> receipts;
    for (int first = 0; first < kMatches; first += 100) {
      json::array events;
      for (int i = first; i < first + 100; ++i)
        events.emplace_back(match_event(i, base_));
      const auto response = api.ingest(make_batch("items", std::move(events)),
                                       "paging-data-" + std::to_string(first));
      ASSERT_EQ(response.status, 202) << response.body;
      receipts.emplace_back(response.json().at("receipt_id").as_string());
    }
    for (const auto& receipt : receipts)
      ASSERT_EQ(api.wait_final(receipt).at("status"), "verified");
    json::array others;
    for (int i = 0; i < 100; ++i) {
      others.emplace_back(make_event("o-" + std::to_string(i), "item", base_ - i * 1000LL,
                                     json::object{{"kind", "other"}, {"message", "hay only"}}));
    }
    api.ingest_verified(make_batch("items", std::move(others)), "paging-others");
  }
  static void TearDownTestSuite() {
    delete server_;
    delete key_;
  }

  // Every page of `body` at /v1/<read>, the first without a cursor, each next one with the cursor
  // the previous answer gave (checked against its Link header); `between(page)` runs after each.
  static Paged page_all(const std::string& read, const json::object& body,
                        const std::function<void(std::size_t)>& between = {}) {
    Paged paged;
    std::string cursor;
    while (paged.pages < 1000) {
      ApiClient api(server_->port(), *key_);
      const std::string path = "/v1/" + read + (cursor.empty() ? "" : "?cursor=" + cursor);
      const auto response = api.http().post(path, *key_, json::value(body));
      EXPECT_EQ(response.status, 200) << response.body;
      if (response.status != 200) break;
      const auto answer = response.json();
      if (paged.pages == 0) paged.first = answer;
      ++paged.pages;
      for (auto& id : ids_of(answer))
        paged.ids.push_back(std::move(id));
      const auto* next = answer.as_object().if_contains("next_cursor");
      if (next == nullptr) {
        EXPECT_EQ(response.headers.count("link"), 0U);
        break;
      }
      EXPECT_EQ(ids_of(answer).size(), static_cast<std::size_t>(kPage));
      cursor = std::string(next->as_string());
      EXPECT_EQ(response.headers.at("link"),
                "</v1/" + read + "?cursor=" + cursor + ">; rel=\"next\"");
      if (between) between(paged.pages);
    }
    return paged;
  }

  // What goes on between pages: new matching events with timestamps among the old ones every 10
  // pages, three of the oldest matches erased after page 30, a restart after page 50.
  struct Meanwhile {
    explicit Meanwhile(std::string name) : name(std::move(name)) {}

    std::string name;
    std::set<std::string> written;
    std::set<std::string> erased;
    int writes = 0;

    void operator()(std::size_t page) {
      ApiClient api(server_->port(), *key_);
      if (page % 10 == 0) {
        json::array events;
        for (int n = 0; n < 20; ++n) {
          const std::string id =
              "x-" + name + "-" + std::to_string(writes) + "-" + std::to_string(n);
          written.insert(id);
          events.emplace_back(
              make_event(id, "item", base_ - (writes * 97 + n * 131) % 3000 * 1000LL,
                         json::object{{"kind", "match"}, {"message", "needle needle late hay"}}));
        }
        api.ingest_verified(make_batch("items", std::move(events)),
                            "paging-meanwhile-" + name + "-" + std::to_string(writes++));
      }
      if (page == 30) {
        json::array ids;
        for (int i = kMatches - 3; i < kMatches; ++i) {
          ids.emplace_back("m-" + std::to_string(i));
          erased.insert("m-" + std::to_string(i));
        }
        const auto response = api.erase(json::object{{"ids", ids}}, "paging-erase-" + name);
        ASSERT_EQ(response.status, 202) << response.body;
        api.wait_erased(std::string(response.json().at("erasure_id").as_string()));
      }
      if (page == 50) {
        ASSERT_EQ(server_->stop(), 0);
        server_->start();
      }
    }
  };

  // Every match that was there before the first page and is not erased came exactly once; nothing
  // else came but events written meanwhile.
  static void expect_exact(const Paged& paged, const Meanwhile& meanwhile) {
    std::map<std::string, int> seen;
    for (const auto& id : paged.ids)
      ++seen[id];
    for (const auto& [id, times] : seen) {
      EXPECT_EQ(times, 1) << id << " came " << times << " times";
      // Events written meanwhile by this test or an earlier one of the suite.
      EXPECT_TRUE(id.starts_with("m-") || id.starts_with("x-")) << id;
    }
    int missing = 0;
    for (int i = 0; i < kMatches; ++i) {
      const std::string id = "m-" + std::to_string(i);
      if (!seen.contains(id) && !meanwhile.erased.contains(id)) ++missing;
    }
    EXPECT_EQ(missing, 0);
  }

  static ServerProcess* server_;
  static std::string* key_;
  static std::int64_t base_;
};

ServerProcess* PagingTest::server_ = nullptr;
std::string* PagingTest::key_ = nullptr;
std::int64_t PagingTest::base_ = 0;

TEST_F(PagingTest, QueryPagesThroughEveryMatchOnceWhileIngestErasuresAndARestartGoOn) {
  Meanwhile meanwhile("query");
  const json::object body{{"where", json::object{{"payload.kind", "match"}}}, {"limit", kPage}};
  const Paged paged = page_all("query", body, std::ref(meanwhile));
  expect_exact(paged, meanwhile);
  EXPECT_GE(paged.pages, static_cast<std::size_t>(kMatches / kPage));
  // Newest first: the three erased were the oldest, read after their erasure: none came.
  for (const auto& id : meanwhile.erased)
    EXPECT_EQ(std::count(paged.ids.begin(), paged.ids.end(), id), 0) << id;
  // The first page is the answer of the request without paging.
  EXPECT_EQ(ids_of(paged.first).front(), "m-2");  // base, ties by id descending
}

TEST_F(PagingTest, SearchPagesInTheFirstPagesRankingWhileTheCollectionChanges) {
  Meanwhile meanwhile("search");
  const json::object body{{"query", "needle"}, {"limit", kPage}};
  const Paged paged = page_all("search", body, std::ref(meanwhile));
  expect_exact(paged, meanwhile);
  // Best first: three needles in the shortest messages lead.
  EXPECT_EQ(paged.first.at("results").as_array().front().at("record").at("payload").at("message"),
            "needle needle needle ");
}

TEST_F(PagingTest, AnalyzePagesItsResultsAndCountsEveryMatchOnEachPage) {
  Meanwhile meanwhile("analyze");
  const json::object body{{"source", "current"},
                          {"where", json::object{{"payload.kind", "match"}}},
                          {"aggregations", json::object{{"n", json::object{{"op", "count"}}}}},
                          {"order", "asc"},
                          {"limit", kPage}};
  ApiClient api(server_->port(), *key_);
  json::object count_only = body;
  count_only["include_results"] = false;
  const auto counted = api.analyze(count_only);
  ASSERT_EQ(counted.status, 200) << counted.body;
  const Paged paged = page_all("analyze", body, std::ref(meanwhile));
  expect_exact(paged, meanwhile);
  // Every match is counted, not the page's.
  EXPECT_EQ(paged.first.at("aggregations").at("n").at("value"),
            counted.json().at("aggregations").at("n").at("value"));
}

TEST_F(PagingTest, ARankedAnalyzePagesLikeSearch) {
  Meanwhile meanwhile("ranked");
  const json::object body{{"source", "current"}, {"text", "needle"}, {"limit", kPage}};
  const Paged paged = page_all("analyze", body, std::ref(meanwhile));
  expect_exact(paged, meanwhile);
}

class CursorRulesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess(merging_config("cursors:\n  lifetime: 2s\n"));
    server_->start();
    key_ = new std::string(server_->create_key("cr", "test"));
    ApiClient api(server_->port(), *key_);
    json::array events;
    for (int i = 0; i < 30; ++i)
      events.emplace_back(match_event(i, now_ms() - 60000));
    api.ingest_verified(make_batch("items", std::move(events)), "cursor-rules");
  }
  static void TearDownTestSuite() {
    delete server_;
    delete key_;
  }

  static json::object body() {
    return {{"where", json::object{{"payload.kind", "match"}}}, {"limit", 10}};
  }
  static std::string first_cursor(const std::string& read, const json::object& request) {
    ApiClient api(server_->port(), *key_);
    const auto response = api.http().post("/v1/" + read, *key_, json::value(request));
    EXPECT_EQ(response.status, 200) << response.body;
    return std::string(response.json().at("next_cursor").as_string());
  }
  static HttpResponse with(const std::string& read, const std::string& query,
                           const json::object& request, const std::string& key = "") {
    ApiClient api(server_->port(), key.empty() ? *key_ : key);
    return api.http().post("/v1/" + read + query, key.empty() ? *key_ : key, json::value(request));
  }
  static std::string message(const HttpResponse& response) {
    return std::string(response.json().at("message").as_string());
  }

  static ServerProcess* server_;
  static std::string* key_;
};

ServerProcess* CursorRulesTest::server_ = nullptr;
std::string* CursorRulesTest::key_ = nullptr;

TEST_F(CursorRulesTest, AnEditedOrForgedCursorIsA400) {
  const std::string cursor = first_cursor("query", body());
  ASSERT_EQ(with("query", "?cursor=" + cursor, body()).status, 200);
  std::string edited = cursor;
  edited[10] = edited[10] == 'A' ? 'B' : 'A';
  const auto tampered = with("query", "?cursor=" + edited, body());
  EXPECT_EQ(tampered.status, 400);
  EXPECT_NE(message(tampered).find("altered"), std::string::npos) << tampered.body;
  EXPECT_EQ(tampered.json().at("statusMessage"), "Bad Request");
  EXPECT_EQ(with("query", "?cursor=not-a-cursor", body()).status, 400);
  EXPECT_EQ(with("query", "?cursor=", body()).status, 400);
  EXPECT_EQ(with("query", "?cursor=c1.%zz", body()).status, 400);
}

TEST_F(CursorRulesTest, ACursorBelongsToItsWorkspaceEndpointAndRequest) {
  const std::string cursor = first_cursor("query", body());
  const std::string other_key = server_->create_key("cr-other", "test");
  const auto foreign = with("query", "?cursor=" + cursor, body(), other_key);
  EXPECT_EQ(foreign.status, 400);
  EXPECT_NE(message(foreign).find("another workspace"), std::string::npos) << foreign.body;
  const std::string live_key = server_->create_key("cr", "live");
  EXPECT_EQ(with("query", "?cursor=" + cursor, body(), live_key).status, 400);

  json::object changed = body();
  changed["limit"] = 11;
  const auto other_request = with("query", "?cursor=" + cursor, changed);
  EXPECT_EQ(other_request.status, 400);
  EXPECT_NE(message(other_request).find("different request body"), std::string::npos);

  const auto other_endpoint = with("analyze", "?cursor=" + cursor, body());
  EXPECT_EQ(other_endpoint.status, 400);
  EXPECT_NE(message(other_endpoint).find("/v1/query"), std::string::npos) << other_endpoint.body;

  const auto unknown = with("query", "?page=2", body());
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(message(unknown).find("page"), std::string::npos);
}

TEST_F(CursorRulesTest, AContextPackIsNotPaged) {
  json::object request = body();
  request["source"] = "current";
  const std::string cursor = first_cursor("analyze", request);
  request["context"] = json::object{{"mode", "documents"}};
  // The body differs from the cursor's: refused for that first.
  EXPECT_EQ(with("analyze", "?cursor=" + cursor, request).status, 400);
  ApiClient api(server_->port(), *key_);
  const auto packed = api.analyze(request);
  ASSERT_EQ(packed.status, 200) << packed.body;
  EXPECT_FALSE(packed.json().as_object().contains("next_cursor"));
}

TEST_F(CursorRulesTest, AnExpiredCursorIsA410) {
  const std::string cursor = first_cursor("query", body());
  // The cursor lives two seconds (cursors.lifetime); wait until it has surely expired.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  const auto expired = with("query", "?cursor=" + cursor, body());
  EXPECT_EQ(expired.status, 410) << expired.body;
  EXPECT_EQ(expired.json().at("statusMessage"), "Gone");
  EXPECT_NE(message(expired).find("expired"), std::string::npos);
}

TEST_F(CursorRulesTest, TheLastPageHasNoCursor) {
  const json::object request{{"where", json::object{{"payload.kind", "match"}}}, {"limit", 30}};
  ApiClient api(server_->port(), *key_);
  const auto response = api.query(request);
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(ids_of(response.json()).size(), 30U);
  EXPECT_FALSE(response.json().as_object().contains("next_cursor"));
  EXPECT_EQ(response.headers.count("link"), 0U);
}

}  // namespace
}  // namespace eventsvc::testing
