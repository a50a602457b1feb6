// The local durable log plugin through the real binary: a data directory that accepted writes in
// the storage's own inbox keeps its idempotency answers and duplicates once the log is loaded, and
// the log lets go of what the server has verified. (Every integration suite and the SIGKILL test
// also run with the local log: the `_on_local_log` tests.)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

std::string without_log_plugin() {
  TestConfig config;
  config.plugins = "  apikey:\n  rocksdb:\n";
  return config.yaml();
}

std::string with_local_log() {
  TestConfig config;
  config.plugins = std::string("  apikey:\n  rocksdb:\n") + kLocalLogPlugin;
  return config.yaml();
}

// The ids of history in the last hour, sorted.
std::vector<std::string> history_ids(ApiClient& api) {
  const auto history = api.query(
      json::object{{"source", "history"},
                   {"where", json::object{{"timestamp", json::object{{"gte", "now-1h"}}}}}});
  EXPECT_EQ(history.status, 200) << history.body;
  if (history.status != 200) return {};
  auto ids = ids_of(history.json());
  std::sort(ids.begin(), ids.end());
  return ids;
}

json::array events_of(const std::vector<std::string>& ids, std::int64_t at) {
  json::array events;
  for (const auto& id : ids)
    events.push_back(make_event(id, "t", at, json::object{{"word", "migrated"}}));
  return events;
}

TEST(LocalLog, ADatabaseThatAcceptedWritesWithoutALogKeepsItsAnswersAndDuplicates) {
  ServerProcess server(without_log_plugin());
  server.start();
  const std::string key = server.create_key("migrate", "test");
  const auto at = now_ms();
  std::string first_body;
  {
    ApiClient api(server.port(), key);
    const auto first = api.ingest(make_batch("s", events_of({"a", "b"}, at)), "before-log-1");
    ASSERT_EQ(first.status, 202) << first.body;
    first_body = first.body;
    api.wait_final(std::string(json::parse(first.body).at("receipt_id").as_string()));
  }
  ASSERT_EQ(server.stop(), 0);

  // The same data directory, now with the local log.
  std::ofstream(server.config_path()) << with_local_log();
  server.start();
  ApiClient api(server.port(), key);
  const auto replayed = api.ingest(make_batch("s", events_of({"x"}, at)), "before-log-1");
  EXPECT_EQ(replayed.status, 202) << replayed.body;
  EXPECT_EQ(replayed.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(replayed.body, first_body);

  const auto again = api.ingest(make_batch("s", events_of({"a", "b", "c"}, at)), "after-log-1");
  ASSERT_EQ(again.status, 202) << again.body;
  const auto answer = json::parse(again.body);
  EXPECT_EQ(answer.at("accepted"), 1);
  EXPECT_EQ(answer.at("duplicates"), 2);
  EXPECT_EQ(api.wait_final(std::string(answer.at("receipt_id").as_string())).at("status"),
            "verified");

  EXPECT_EQ(history_ids(api), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(LocalLog, LetsGoOfWhatTheServerHasVerified) {
  ServerProcess server(with_local_log());
  server.start();
  ApiClient api(server.port(), server.create_key("trim", "test"));
  for (int i = 0; i < 3; ++i) {
    api.ingest_verified(make_batch("s", events_of({"t" + std::to_string(i)}, now_ms())),
                        "trim-key-" + std::to_string(i));
  }
  // Verified entries are trimmed at the server's next report to the log (every 100 ms).
  std::string metrics;
  for (int i = 0; i < 600; ++i) {
    metrics = HttpsClient(server.admin_port(), false).request("GET", "/metrics").body;
    if (metrics.find("eventsvc_log_trimmed_total{plugin=\"log\"} 3\n") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(metrics.find("eventsvc_log_appends_total{plugin=\"log\"} 3\n"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("eventsvc_log_trimmed_total{plugin=\"log\"} 3\n"), std::string::npos)
      << metrics;

  // Receipts still answer from the storage's copy, and a restart reads no trimmed entry again.
  ASSERT_EQ(server.stop(), 0);
  server.start();
  ApiClient after(server.port(), api.key());
  const auto receipt_of_first =
      after.ingest(make_batch("s", events_of({"t0"}, now_ms())), "trim-key-0");
  EXPECT_EQ(receipt_of_first.status, 202) << receipt_of_first.body;
  EXPECT_EQ(receipt_of_first.header("Idempotent-Replayed"), "true");
  // A replay appends nothing.
  const auto counted = HttpsClient(server.admin_port(), false).request("GET", "/metrics").body;
  EXPECT_NE(counted.find("eventsvc_log_appends_total{plugin=\"log\"} 0\n"), std::string::npos)
      << counted;
  const auto receipt =
      after.receipt(std::string(json::parse(receipt_of_first.body).at("receipt_id").as_string()));
  EXPECT_EQ(receipt.status, 200) << receipt.body;
  EXPECT_EQ(receipt.json().at("status"), "verified");
  EXPECT_EQ(history_ids(after), (std::vector<std::string>{"t0", "t1", "t2"}));
}

TEST(LocalLog, AReplacedLogDirectoryIsRefusedNotSkipped) {
  ServerProcess server(with_local_log());
  server.start();
  ApiClient api(server.port(), server.create_key("replaced", "test"));
  api.ingest_verified(make_batch("s", events_of({"r0", "r1"}, now_ms())), "replaced-0001");
  ASSERT_EQ(server.stop(), 0);

  // The log's directory emptied: the storage holds a position the new log never issued.
  std::filesystem::remove_all(server.data_dir() / "log" / "db");
  const std::size_t from = server.log_size();
  server.start();
  EXPECT_TRUE(
      server.await_log("a position this local log never issued", from, std::chrono::seconds(30)))
      << server.log();
  const auto ready = HttpsClient(server.admin_port(), false).request("GET", "/readyz");
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_EQ(ready.json().at("checks").at("log").at("ok"), false) << ready.body;
}

}  // namespace
}  // namespace eventsvc::testing
