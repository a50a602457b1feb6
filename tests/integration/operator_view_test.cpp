// The admin listener as an operator and a monitoring system meet it: /healthz, /readyz with its
// reasons, and /metrics read by the Prometheus project's own parser, with the exact counts of what
// the test did through the API.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/api_client.hpp"
#include "support/raw_connection.hpp"
#include "support/server_process.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::testing {
namespace {

HttpResponse admin_get(const ServerProcess& server, const std::string& path,
                       const std::string& method = "GET") {
  HttpsClient admin(server.admin_port(), false);
  return admin.request(method, path);
}

// The samples of a metrics page by "name{label=value,...}", as the reference parser reads them;
// fails the test when it rejects the page.
std::map<std::string, double> scrape(const ServerProcess& server) {
  const HttpResponse page = admin_get(server, "/metrics");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const auto file = server.dir() / "metrics.txt";
  std::ofstream(file) << page.body;
  const std::string command =
      std::string("/usr/bin/python3 ") + EVENTSVC_READ_METRICS + " " + file.string() + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    out.append(buffer, got);
  const int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << out;
  std::map<std::string, double> samples;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find('\t');
    const auto second = line.find('\t', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    samples[line.substr(0, first) + "{" + line.substr(first + 1, second - first - 1) + "}"] =
        std::stod(line.substr(second + 1));
  }
  return samples;
}

double sample(const std::map<std::string, double>& samples, const std::string& series) {
  const auto it = samples.find(series);
  EXPECT_NE(it, samples.end()) << "no series " << series;
  return it == samples.end() ? -1 : it->second;
}

TEST(OperatorView, HealthAndReadinessAnswerWithoutAKey) {
  ServerProcess server(TestConfig{}.yaml());
  server.start();
  ASSERT_GT(server.admin_port(), 0);

  const auto health = admin_get(server, "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"status":"ok"})");
  EXPECT_EQ(health.header("Cache-Control"), "no-store");

  // A server with a log plugin is ready once its copy has caught up (its first round).
  auto ready = admin_get(server, "/readyz");
  for (int i = 0; i < 500 && ready.status != 200 && log_plugin_mode(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ready = admin_get(server, "/readyz");
  }
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(
      ready.body,
      std::string(R"({"status":"ready","checks":{"accepting":{"ok":true},"storage":{"ok":true},)"
                  R"("projector":{"ok":true},)") +
          (log_plugin_mode() ? R"("log":{"ok":true},)" : "") +
          R"("backlog":{"writes":0,"max":10000,"ok":true}}})");

  const auto head = admin_get(server, "/healthz", "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
}

TEST(OperatorView, WrongPagesMethodsAndBytesGetTheJsonErrorBody) {
  ServerProcess server(TestConfig{}.yaml());
  server.start();

  const auto missing = admin_get(server, "/v1/events");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.json().at("statusCode"), 404);
  EXPECT_NE(missing.body.find("/healthz, /readyz, /metrics, /admin/keys and /console/"),
            std::string::npos)
      << missing.body;

  const auto post = admin_get(server, "/metrics", "POST");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("Allow"), "GET, HEAD");
  EXPECT_EQ(post.json().at("statusCode"), 405);

  RawConnection garbage(server.admin_port());
  ASSERT_TRUE(garbage.send("\x16\x03\x01 not http at all\r\n\r\n"));
  const std::string answer = garbage.read_until_closed(std::chrono::seconds(5));
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << answer;
  EXPECT_NE(answer.find("\"statusCode\":400"), std::string::npos) << answer;
}

TEST(OperatorView, KeysAreManagedWithTheAdminToken) {
  ServerProcess server(TestConfig{}.yaml());
  server.start();
  const auto token_file = server.data_dir() / "admin.token";
  ASSERT_TRUE(std::filesystem::exists(token_file));
  EXPECT_EQ(std::filesystem::status(token_file).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::string token;
  std::ifstream(token_file) >> token;
  ASSERT_EQ(token.size(), 64U);
  auto admin = [&](const std::string& method, const std::string& path, const std::string& bearer,
                   const std::string& body = "") {
    HttpsClient client(server.admin_port(), false);
    Headers headers;
    if (!bearer.empty()) headers.emplace_back("Authorization", "Bearer " + bearer);
    if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
    return client.request(method, path, body, headers);
  };

  for (const std::string& bearer : {std::string(), std::string(64, '0'), token + "0"}) {
    const auto refused = admin("GET", "/admin/keys", bearer);
    EXPECT_EQ(refused.status, 401) << refused.body;
    EXPECT_NE(refused.body.find(token_file.string()), std::string::npos) << refused.body;
  }

  const auto created = admin("POST", "/admin/keys", token,
                             R"({"workspace": "ops", "env": "test", "scopes": ["events:read"],
                                 "label": "dashboard"})");
  ASSERT_EQ(created.status, 201) << created.body;
  const auto answer = created.json();
  const std::string secret(answer.at("secret").as_string());
  const std::string id(answer.at("key").at("id").as_string());
  EXPECT_EQ(answer.at("key").at("workspace"), "ops");
  EXPECT_EQ(answer.at("key").at("env"), "test");
  EXPECT_EQ(answer.at("key").at("plan"), "default");
  EXPECT_EQ(answer.at("key").at("label"), "dashboard");
  EXPECT_TRUE(answer.at("key").at("revoked_at").is_null());

  // The key works over the API at once, for what its scopes allow.
  ApiClient api(server.port(), secret);
  EXPECT_EQ(api.http().get("/v1/fields", secret).status, 200);
  EXPECT_EQ(
      api.ingest(make_batch("s", json::array{make_event("e1", "t", now_ms(), {})}), "admin-keys-1")
          .status,
      403);

  const auto listed = admin("GET", "/admin/keys", token);
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.body.find(secret), std::string::npos);
  bool found = false;
  const auto keys = listed.json();
  for (const auto& key : keys.at("keys").as_array())
    found = found || key.at("id").as_string() == id;
  EXPECT_TRUE(found) << listed.body;

  // Requests that cannot make a key say which member is wrong.
  const std::pair<std::string, std::string> wrong[] = {
      {R"({"env": "test", "scopes": []})", "/workspace"},
      {R"({"workspace": "ops", "env": "prod", "scopes": []})", "/env"},
      {R"({"workspace": "ops", "env": "test", "scopes": ["events:all"]})", "/scopes"},
      {R"({"workspace": "ops", "env": "test", "scopes": "events:read"})", "/scopes"},
      {R"({"workspace": "ops", "env": "test", "scopes": [], "plan": "gold"})", "/plan"},
      {R"({"workspace": "o p s", "env": "test", "scopes": []})", "/workspace"},
      {R"({"workspace": "ops", "env": "test", "scopes": [], "owner": "me"})", "/owner"},
  };
  for (const auto& [body, path] : wrong) {
    const auto refused = admin("POST", "/admin/keys", token, body);
    EXPECT_EQ(refused.status, 400) << body << ": " << refused.body;
    EXPECT_EQ(std::string(refused.json().at("data").at("errors").at(0).at("path").as_string()),
              path)
        << refused.body;
  }
  EXPECT_EQ(admin("POST", "/admin/keys", token, "{not json").status, 400);
  const auto put = admin("PUT", "/admin/keys", token);
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.header("Allow"), "GET, POST");

  const auto revoked = admin("DELETE", "/admin/keys/" + id, token);
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_TRUE(revoked.json().at("key").at("revoked_at").is_string());
  EXPECT_EQ(api.http().get("/v1/fields", secret).status, 401);
  EXPECT_EQ(admin("DELETE", "/admin/keys/" + id, token).status, 200);
  EXPECT_EQ(admin("DELETE", "/admin/keys/nosuchkey", token).status, 404);
}

TEST(OperatorView, NotReadyNamesEveryReason) {
  TestConfig config;
  config.plugins =
      "  apikey:\n    library: eventsvc-auth-apikey\n"
      "  rocksdb:\n    library: eventsvc-storage-rocksdb\n    config:\n"
      "      projector:\n        enabled: false\n";
  config.other = "admin:\n  ready_max_backlog: 1\n";
  ServerProcess server(config.yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("ops", "test"));
  for (const char* id : {"w1", "w2"}) {
    ASSERT_EQ(api.ingest(make_batch("s", json::array{make_event(id, "t", now_ms(), 1)}),
                         std::string("not-ready-") + id)
                  .status,
              202);
  }
  const auto ready = admin_get(server, "/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.body,
            R"({"status":"not_ready","checks":{"accepting":{"ok":true},"storage":{"ok":true},)"
            R"("projector":{"ok":false},"backlog":{"writes":2,"max":1,"ok":false}},)"
            R"("reasons":["the projector is not running or its last round failed",)"
            R"j("2 accepted writes wait to be projected (admin.ready_max_backlog is 1)"]})j");
  const auto samples = scrape(server);
  EXPECT_EQ(sample(samples, "eventsvc_ready{}"), 0);
  EXPECT_EQ(sample(samples, "eventsvc_storage_projection_backlog_writes{plugin=rocksdb}"), 2);
  EXPECT_EQ(sample(samples, "eventsvc_storage_projector_up{plugin=rocksdb}"), 0);
}

// Writes projected one round each leave small column chunks, which the merge thread joins; the
// merges are counted, and none failed.
TEST(OperatorView, MergesOfColumnChunksAreCounted) {
  ServerProcess server(TestConfig{}.yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("ops", "test"));
  for (const char* id : {"m1", "m2", "m3"}) {
    api.ingest_verified(make_batch("s", json::array{make_event(id, "t", now_ms(), 1)}),
                        std::string("merge-") + id);
  }
  std::map<std::string, double> samples;
  for (int poll = 0; poll < 200; ++poll) {
    samples = scrape(server);
    if (sample(samples, "eventsvc_storage_chunk_merges_total{plugin=rocksdb}") >= 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GE(sample(samples, "eventsvc_storage_chunk_merges_total{plugin=rocksdb}"), 1);
  EXPECT_EQ(sample(samples, "eventsvc_storage_chunk_merge_failures_total{plugin=rocksdb}"), 0);
}

// A word no chunk holds is answered by the chunks' term filters alone: every lookup is a skip and
// none reads a chunk; a word one event holds is found, through a filter that let it pass.
TEST(OperatorView, TermFiltersAnswerForWordsNoChunkHolds) {
  ServerProcess server(TestConfig{}.yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("ops", "test"));
  for (const char* id : {"f1", "f2", "f3"}) {
    api.ingest_verified(
        make_batch("s", json::array{make_event(id, "t", now_ms(),
                                               json::object{{"text", std::string("note ") + id}})}),
        std::string("filter-") + id);
  }
  const auto skips = "eventsvc_storage_term_filter_skips_total{plugin=rocksdb}";
  const auto passes = "eventsvc_storage_term_filter_passes_total{plugin=rocksdb}";
  const auto before = scrape(server);
  const auto absent = api.search(json::object{{"query", "zebra"}});
  ASSERT_EQ(absent.status, 200) << absent.body;
  EXPECT_TRUE(absent.json().at("results").as_array().empty()) << absent.body;
  const auto after_absent = scrape(server);
  EXPECT_GE(sample(after_absent, skips), sample(before, skips) + 1);
  EXPECT_EQ(sample(after_absent, passes), sample(before, passes));

  const auto found = api.search(json::object{{"query", "f2"}});
  ASSERT_EQ(found.status, 200) << found.body;
  const auto answer = found.json();
  const auto& results = answer.at("results").as_array();
  ASSERT_EQ(results.size(), 1U) << found.body;
  EXPECT_EQ(results[0].at("id").as_string(), "f2");
  EXPECT_GE(sample(scrape(server), passes), sample(after_absent, passes) + 1);
  EXPECT_GT(sample(scrape(server), "eventsvc_storage_term_filter_cache_bytes{plugin=rocksdb}"), 0);
}

// A question asked again is answered from what the first one decoded: the rows of its values from
// the chunk's value postings, and the pages of its columns (kept on their second load). The same
// answer each time, and the third reads neither postings nor pages.
TEST(OperatorView, AQuestionAskedAgainIsAnsweredFromRowsAndPagesKeptDecoded) {
  TestConfig config;
  config.plugins =
      with_storage_config(default_plugins(), "      projector:\n        column_page_rows: 64\n");
  ServerProcess server(config.yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("ops", "test"));
  json::array events;
  std::vector<std::string> expected;
  const std::int64_t at = now_ms();
  // One chunk in two pages; 70 rows of one site: sets of fewer than 64 rows are not kept.
  for (int n = 0; n < 100; ++n) {
    const std::string id = "reading-" + std::to_string(1000 + n);
    const bool krk = n % 10 < 7;
    events.push_back(
        make_event(id, "reading", at - n, json::object{{"site", krk ? "krk-1" : "waw-2"}}));
    if (krk) expected.push_back(id);
  }
  api.ingest_verified(make_batch("sensors", std::move(events)), "values-1");
  const json::object question{
      {"source", "current"},
      {"limit", 1000},
      {"fields", json::array{"id"}},
      {"where", json::object{{"payload.site", "krk-1"}, {"stream", "sensors"}}}};
  const auto ids = [&] {
    const auto answer = api.query(question);
    EXPECT_EQ(answer.status, 200) << answer.body;
    auto found = ids_of(answer.json());
    std::sort(found.begin(), found.end());
    return found;
  };
  const auto hits = "eventsvc_storage_value_rows_cache_hits_total{plugin=rocksdb}";
  const auto misses = "eventsvc_storage_value_rows_cache_misses_total{plugin=rocksdb}";
  const auto page_hits = "eventsvc_storage_page_cache_hits_total{plugin=rocksdb}";
  const auto page_misses = "eventsvc_storage_page_cache_misses_total{plugin=rocksdb}";
  const auto before = scrape(server);
  EXPECT_EQ(ids(), expected);
  const auto first = scrape(server);
  EXPECT_GE(sample(first, misses), sample(before, misses) + 2) << "the site and the stream";
  EXPECT_GE(sample(first, page_misses), sample(before, page_misses) + 2) << "ids and timestamps";
  EXPECT_EQ(ids(), expected);
  const auto second = scrape(server);
  EXPECT_EQ(sample(second, misses), sample(first, misses));
  EXPECT_GE(sample(second, hits), sample(first, hits) + 2);
  EXPECT_GT(sample(second, "eventsvc_storage_value_rows_cache_bytes{plugin=rocksdb}"), 0);
  EXPECT_GT(sample(second, "eventsvc_storage_page_cache_bytes{plugin=rocksdb}"), 0);
  EXPECT_EQ(ids(), expected);
  const auto third = scrape(server);
  EXPECT_EQ(sample(third, page_misses), sample(second, page_misses));
  EXPECT_GE(sample(third, page_hits), sample(second, page_hits) + 2);
}

// The gate file of the gated test embedder, closed: projection waits in the embedder until the
// file is removed.
class ClosedGate {
 public:
  ClosedGate() { std::ofstream(path()) << "closed"; }
  std::filesystem::path path() const { return dir_.path() / "gate"; }

 private:
  TempDir dir_;
};

// A server whose projection the gated embedder holds at `gate`, with these projector settings
// (YAML lines under `projector:`).
TestConfig held_projection_config(const std::filesystem::path& gate, const std::string& projector) {
  TestConfig config;
  config.plugins =
      "  apikey:\n    library: eventsvc-auth-apikey\n"
      "  rocksdb:\n    library: eventsvc-storage-rocksdb\n    config:\n"
      "      projector:\n" +
      projector +
      "  gated:\n    library: " EVENTSVC_TEST_PLUGIN_DIR
      "/libeventsvc-embedder-gated.so\n    config:\n      gate: " +
      gate.string() + "\n";
  return config;
}

// Projection held still by the gated test embedder: once the oldest write not yet searchable has
// waited past projector.max_lag_ms, writes are refused with 503 and Retry-After (nothing of them
// stored), the server stays ready, and writes are accepted again once search has caught up.
TEST(OperatorView, WritesAreRefusedWhileSearchTrailsPastTheBound) {
  const ClosedGate gate;
  ServerProcess server(held_projection_config(gate.path(), "        max_lag_ms: 300\n").yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("ops", "test"));
  const auto write = [&](int n, const std::string& key) {
    return api.ingest_once(
        make_batch("s", json::array{make_event("lag-" + std::to_string(n), "t", now_ms(), n)}),
        key);
  };

  // The first write waits in the projector's embedder; the lag grows until a write is refused.
  std::vector<std::string> accepted;
  HttpResponse refused;
  int refusals = 0;
  std::string refused_key;
  for (int n = 0; n < 400 && refusals == 0; ++n) {
    const std::string key = "lag-write-" + std::to_string(n);
    auto answer = write(n, key);
    if (answer.status == 202) {
      accepted.emplace_back(answer.json().at("receipt_id").as_string());
    } else {
      ASSERT_EQ(answer.status, 503) << answer.body;
      refused = std::move(answer);
      refused_key = key;
      ++refusals;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(refusals, 1) << "no write was refused while projection was held";
  ASSERT_FALSE(accepted.empty());
  EXPECT_EQ(refused.header("Retry-After"), "1");
  const auto body = refused.json().as_object();
  EXPECT_EQ(body.at("statusCode"), 503);
  EXPECT_EQ(body.at("data").at("max_lag_ms"), 300);
  EXPECT_GT(body.at("data").at("lag_ms").as_int64(), 300);
  EXPECT_NE(std::string(body.at("message").as_string()).find("projector.max_lag_ms"),
            std::string::npos)
      << refused.body;

  const auto held = scrape(server);
  EXPECT_EQ(
      sample(held, "eventsvc_storage_ingest_refused_total{plugin=rocksdb,reason=projection_lag}"),
      1);
  EXPECT_GT(sample(held, "eventsvc_storage_projection_lag_seconds{plugin=rocksdb}"), 0.3);
  EXPECT_EQ(sample(held, "eventsvc_storage_projection_max_lag_seconds{plugin=rocksdb}"), 0.3);
  EXPECT_EQ(sample(held, "eventsvc_http_requests_total{operation=ingest,status=503}"), 1);
  // Refusing writes is what keeps the server in its load balancer.
  EXPECT_EQ(admin_get(server, "/readyz").status, 200);

  std::filesystem::remove(gate.path());
  for (const auto& receipt : accepted)
    EXPECT_EQ(api.wait_final(receipt).at("status"), "verified");
  // Caught up: the refused write, sent again with its key, is a new write.
  const auto retried = write(1000, refused_key);
  ASSERT_EQ(retried.status, 202) << retried.body;
  EXPECT_FALSE(retried.has_header("Idempotent-Replayed"));
  EXPECT_EQ(api.wait_final(std::string(retried.json().at("receipt_id").as_string())).at("status"),
            "verified");
  const auto after = scrape(server);
  EXPECT_EQ(sample(after, "eventsvc_storage_projection_lag_seconds{plugin=rocksdb}"), 0);
}

// One request at a time is answered on the I/O thread that read it where there are several I/O
// threads; with one, every request goes to an endpoint thread. One client's requests follow each
// other, so each finds the place free.
TEST(OperatorView, RequestsAnsweredOnTheirIoThreadAreCounted) {
  for (const int io_threads : {2, 1}) {
    TestConfig config;
    config.server += "  io_threads: " + std::to_string(io_threads) + "\n";
    ServerProcess server(config.yaml());
    server.start();
    HttpsClient client(server.port());
    for (int n = 0; n < 5; ++n)
      EXPECT_EQ(client.request("GET", "/nowhere").status, 404);
    const auto samples = scrape(server);
    EXPECT_EQ(sample(samples, "eventsvc_http_requests_answered_inline_total{}"),
              io_threads == 2 ? 5 : 0)
        << io_threads << " I/O threads";
    EXPECT_EQ(sample(samples, "eventsvc_http_requests_total{operation=none,status=404}"), 5);
  }
}

// Projection held still again, with a pacing mark and no bound: once the oldest write not yet
// searchable has waited past projector.pace_from_ms, each 202 is held before it is sent (the
// writer slows down) and none is refused; every held write is verified once search catches up.
TEST(OperatorView, WritesAreSlowedDownBeforeAnyIsRefused) {
  const ClosedGate gate;
  ServerProcess server(
      held_projection_config(gate.path(), "        pace_from_ms: 100\n        max_lag_ms: 0\n")
          .yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("ops", "test"));

  // The first write waits in the projector's embedder; the writes after it find search trailing.
  std::vector<std::string> accepted;
  for (int n = 0; n < 6; ++n) {
    const auto answer = api.ingest_once(
        make_batch("s", json::array{make_event("pace-" + std::to_string(n), "t", now_ms(), n)}),
        "pace-write-" + std::to_string(n));
    ASSERT_EQ(answer.status, 202) << answer.body;
    accepted.emplace_back(answer.json().at("receipt_id").as_string());
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  const auto held = scrape(server);
  const double storage_held = sample(held, "eventsvc_storage_ingest_held_total{plugin=rocksdb}");
  EXPECT_GE(storage_held, 1);
  // Every 202 the engine asked to hold, the server held.
  EXPECT_EQ(sample(held, "eventsvc_http_answers_held_total{}"), storage_held);
  EXPECT_GT(sample(held, "eventsvc_http_answer_hold_seconds_total{}"), 0);
  EXPECT_GT(sample(held, "eventsvc_storage_ingest_held_seconds_total{plugin=rocksdb}"), 0);
  EXPECT_EQ(
      sample(held, "eventsvc_storage_ingest_refused_total{plugin=rocksdb,reason=projection_lag}"),
      0);
  EXPECT_EQ(sample(held, "eventsvc_http_requests_total{operation=ingest,status=202}"), 6);

  std::filesystem::remove(gate.path());
  for (const auto& receipt : accepted)
    EXPECT_EQ(api.wait_final(receipt).at("status"), "verified");
}

TEST(OperatorView, MetricsCountWhatClientsDid) {
  TestConfig config;
  config.plans += "  tight:\n    requests_per_minute: {ingest: 2}\n";
  ServerProcess server(config.yaml());
  server.start();
  ApiClient api(server.port(), server.create_key("ops", "test"));
  ApiClient tight(server.port(),
                  server.create_key("ops", "test", "events:read,events:write", "tight"));

  // Two writes of 3 events, one of them repeated in the second: 5 stored, 1 duplicate.
  const auto t = now_ms();
  const json::array first{make_event("a", "t", t, 1), make_event("b", "t", t, 2),
                          make_event("c", "t", t, 3)};
  const json::array second{make_event("c", "t", t, 3), make_event("d", "t", t, 4),
                           make_event("e", "t", t, 5)};
  const std::string r1 = api.ingest_verified(make_batch("s", first), "metrics-write-1");
  const std::string r2 = api.ingest_verified(make_batch("s", second), "metrics-write-2");
  // A retry with the same key: the original 202, replayed.
  EXPECT_EQ(api.ingest(make_batch("s", first), "metrics-write-1").header("Idempotent-Replayed"),
            "true");
  EXPECT_EQ(api.query(json::object{{"where", json::object{{"type", "t"}}}}).status, 200);
  // Refused: no key, an unknown route, the tight plan's third ingest in a minute.
  EXPECT_EQ(api.http().request("POST", "/v1/query", "{}").status, 401);
  EXPECT_EQ(api.http().get("/v1/nowhere", api.key()).status, 404);
  std::vector<std::string> tight_receipts;
  for (int i = 0; i < 3; ++i) {
    const auto answer = tight.ingest(make_batch("s", json::array{make_event("x", "t", t, 1)}),
                                     "tight-write-" + std::to_string(i));
    if (answer.status == 202)
      tight_receipts.emplace_back(answer.json().at("receipt_id").as_string());
  }
  ASSERT_EQ(tight_receipts.size(), 2U);

  const auto samples = scrape(server);
  // 2 ingested, 1 replayed, 2 tight ones accepted (the first stored x, the second a duplicate),
  // 1 tight refused.
  EXPECT_EQ(sample(samples, "eventsvc_http_requests_total{operation=ingest,status=202}"), 5);
  EXPECT_EQ(sample(samples, "eventsvc_http_requests_total{operation=ingest,status=429}"), 1);
  EXPECT_EQ(sample(samples, "eventsvc_http_requests_total{operation=query,status=200}"), 1);
  EXPECT_EQ(sample(samples, "eventsvc_http_requests_total{operation=query,status=401}"), 1);
  EXPECT_EQ(sample(samples, "eventsvc_http_requests_total{operation=none,status=404}"), 1);
  EXPECT_GE(sample(samples, "eventsvc_http_requests_total{operation=receipts,status=200}"), 2);
  EXPECT_EQ(sample(samples, "eventsvc_http_request_duration_seconds_count{operation=ingest}"), 6);
  EXPECT_EQ(sample(samples, "eventsvc_http_refusals_total{reason=rate_limit}"), 1);
  EXPECT_EQ(sample(samples, "eventsvc_http_refusals_total{reason=anonymous_rate_limit}"), 0);
  EXPECT_EQ(sample(samples, "eventsvc_ingest_writes_total{}"), 4);
  EXPECT_EQ(sample(samples, "eventsvc_ingest_replays_total{}"), 1);
  EXPECT_EQ(sample(samples, "eventsvc_ingest_events_total{}"), 6);
  EXPECT_EQ(sample(samples, "eventsvc_ingest_duplicate_events_total{}"), 2);

  // The projector's side: every receipt ends verified (the two waited for, and the tight ones
  // once projected).
  for (const auto& receipt : {r1, r2, tight_receipts[0], tight_receipts[1]})
    tight.wait_final(receipt);
  const auto later = scrape(server);
  EXPECT_EQ(sample(later, "eventsvc_storage_projected_writes_total{plugin=rocksdb}"), 4);
  EXPECT_EQ(sample(later, "eventsvc_storage_projection_backlog_writes{plugin=rocksdb}"), 0);
  EXPECT_EQ(sample(later, "eventsvc_storage_receipts_final_total{plugin=rocksdb,state=verified}"),
            4);
  EXPECT_EQ(sample(later, "eventsvc_storage_receipts_final_total{plugin=rocksdb,state=conflict}"),
            0);
  EXPECT_EQ(sample(later, "eventsvc_storage_verification_lag_seconds_count{plugin=rocksdb}"), 4);
  EXPECT_GT(sample(later, "eventsvc_rocksdb_block_cache_capacity_bytes{plugin=rocksdb}"), 0);
  EXPECT_GE(sample(later, "eventsvc_rocksdb_sst_files_bytes{family=history,plugin=rocksdb}"), 0);
  EXPECT_GE(sample(later, "eventsvc_connections_open{}"), 1);
  EXPECT_GE(sample(later, "eventsvc_connections_accepted_total{}"), 2);
  EXPECT_EQ(sample(later, "eventsvc_ready{}"), 1);
  EXPECT_GT(sample(later, "process_open_fds{}"), 0);
  EXPECT_GT(sample(later, "process_resident_memory_bytes{}"), 0);
  const auto build = later.lower_bound("eventsvc_build_info{version=");
  ASSERT_NE(build, later.end());
  EXPECT_TRUE(build->first.starts_with("eventsvc_build_info{version=")) << build->first;
  EXPECT_EQ(build->second, 1);
}

TEST(OperatorView, TheListenerCanBeTurnedOffAndItsAddressIsChecked) {
  ServerProcess off(TestConfig{}.yaml());
  off.start({"--admin-listen", ""});
  EXPECT_EQ(off.admin_port(), 0);
  EXPECT_EQ(off.log().find("eventsvc admin:"), std::string::npos);

  ServerProcess refused(TestConfig{}.yaml());
  EXPECT_THROW(refused.start({"--admin-listen", "nowhere"}), std::runtime_error);
  EXPECT_NE(refused.log().find("admin.listen"), std::string::npos) << refused.log();
}

// The console's files on both listeners: the page (gzip when asked, HEAD without a body), the
// redirect to its directory, 404 and 405 with the error body; console.enabled false: the API alone.
TEST(OperatorView, ConsoleIsServedOnBothListenersAndSwitchesOff) {
  ServerProcess server(TestConfig{}.yaml());
  server.start();
  HttpsClient api(server.port());

  const auto page = api.request("GET", "/console/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page.header("Content-Security-Policy").find("script-src 'self';"), std::string::npos);
  EXPECT_EQ(page.header("Cache-Control"), "no-cache");
  EXPECT_NE(page.body.find(R"(<meta name="eventsvc-listener" content="api" />)"), std::string::npos)
      << page.body;
  const auto script_at = page.body.find("/console/assets/");
  ASSERT_NE(script_at, std::string::npos);
  const std::string script =
      page.body.substr(script_at, page.body.find('"', script_at) - script_at);
  const auto asset = api.request("GET", script);
  EXPECT_EQ(asset.status, 200);
  EXPECT_EQ(asset.header("Cache-Control"), "public, max-age=31536000, immutable");
  const auto gzipped = api.request("GET", script, "", {{"Accept-Encoding", "gzip"}});
  EXPECT_EQ(gzipped.header("Content-Encoding"), "gzip");
  EXPECT_LT(gzipped.body.size(), asset.body.size());

  const auto head = api.request("HEAD", "/console/");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  const auto bare = api.request("GET", "/console");
  EXPECT_EQ(bare.status, 308);
  EXPECT_EQ(bare.header("Location"), "/console/");
  const auto missing = api.request("GET", "/console/assets/nothing.js");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.json().at("message"),
            "no such console file: /console/assets/nothing.js; the console is at /console/");
  const auto post = api.request("POST", "/console/", "{}");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("Allow"), "GET, HEAD");
  // Not a prefix match: /consoles is no endpoint of the API.
  EXPECT_EQ(api.request("GET", "/consoles").json().at("message"),
            "no such endpoint: GET /consoles");

  const auto admin_page = admin_get(server, "/console/");
  EXPECT_EQ(admin_page.status, 200);
  EXPECT_NE(admin_page.body.find(R"(<meta name="eventsvc-listener" content="admin" />)"),
            std::string::npos);

  TestConfig off;
  off.other = "console:\n  enabled: false\n";
  ServerProcess without(off.yaml());
  without.start();
  EXPECT_EQ(HttpsClient(without.port()).request("GET", "/console/").json().at("message"),
            "no such endpoint: GET /console/");
  const auto admin_missing = admin_get(without, "/console/");
  EXPECT_EQ(admin_missing.status, 404);
  EXPECT_NE(admin_missing.body.find("/healthz, /readyz, /metrics and /admin/keys"),
            std::string::npos)
      << admin_missing.body;
}

}  // namespace
}  // namespace eventsvc::testing
