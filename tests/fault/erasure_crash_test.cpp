// Erasures survive SIGKILL: a server killed right after an erasure's 202 (before or while the
// projector carries it out) and one killed inside its purge (once the purge has begun, before it is
// done) finish the erasure after the restart. Afterwards every acknowledged event that was not
// erased is served, none that was, the erasure says `purged` with the versions it erased, and no
// file of the data directory holds a byte of the erased payloads. (Also run with the local log.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "support/api_client.hpp"
#include "support/files_holding.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

constexpr int kWrites = 40;
constexpr int kEventsPerWrite = 5;

// The purge's start is logged at debug level; table files are uncompressed, so that the byte
// search sees every copy.
std::string debug_config() {
  TestConfig config;
  config.server += "  log_level: debug\n";
  config.plugins = with_storage_config(default_plugins(), "      compression: none\n");
  return config.yaml();
}

std::set<std::string> history_ids(ApiClient& api) {
  std::set<std::string> ids;
  const auto answer = api.query(
      json::object{{"source", "history"},
                   {"where", json::object{{"timestamp", json::object{{"gte", "now-2h"}}}}},
                   {"limit", 1000}});
  EXPECT_EQ(answer.status, 200) << answer.body;
  if (answer.status != 200) return ids;
  for (auto& id : ids_of(answer.json()))
    ids.insert(std::move(id));
  return ids;
}

// Polls until the erasure is purged (a minute at most).
json::object wait_purged(ApiClient& api, const std::string& id) {
  json::object erasure;
  for (int attempt = 0; attempt < 600; ++attempt) {
    const auto response = api.erasure(id);
    if (response.status == 200) {
      erasure = response.json().as_object();
      if (erasure.at("status") == "purged") break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return erasure;
}

TEST(ErasureCrash, KilledDuringAnErasureAndInsideItsPurgeItFinishesAfterTheRestart) {
  if (shared_log_mode()) GTEST_SKIP() << "erasures stop at hidden on the shared log";
  ServerProcess server(debug_config());
  server.start();
  const std::string key =
      server.create_key("crash", "test", "events:read,events:write,events:erase");
  ApiClient writer(server.port(), key);

  // Every fifth event is a secret of its own: s-<n>, its payload marked.
  const std::int64_t start = now_ms() - 3600000;
  std::set<std::string> kept;
  std::vector<std::string> secrets;
  std::string last_receipt;
  for (int w = 0; w < kWrites; ++w) {
    json::array events;
    for (int e = 0; e < kEventsPerWrite; ++e) {
      const int n = w * kEventsPerWrite + e;
      const bool secret = e == 0;
      const std::string id = (secret ? "s-" : "k-") + std::to_string(n);
      (secret ? secrets.push_back(id) : static_cast<void>(kept.insert(id)));
      events.push_back(make_event(
          id, "t", start + n,
          json::object{{"text", secret ? "qzvcrashmarker " + id : "plain " + id}, {"n", n}}));
    }
    const auto response =
        writer.ingest(make_batch("crash", events), "crash-write-" + std::to_string(w));
    ASSERT_EQ(response.status, 202) << response.body;
    last_receipt = std::string(response.json().at("receipt_id").as_string());
  }
  EXPECT_EQ(writer.wait_final(last_receipt, std::chrono::seconds(60)).at("status"), "verified");
  // Four erasures of a quarter of the secrets each.
  std::vector<json::array> groups(4);
  for (std::size_t i = 0; i < secrets.size(); ++i)
    groups[i % groups.size()].emplace_back(secrets[i]);
  std::vector<std::string> erasure_ids;
  auto erase = [&](ApiClient& api, std::size_t group) {
    const auto accepted =
        api.erase(json::object{{"ids", groups[group]}}, "crash-erasure-" + std::to_string(group));
    EXPECT_EQ(accepted.status, 202) << accepted.body;
    erasure_ids.emplace_back(accepted.json().at("erasure_id").as_string());
  };

  // Killed right after the 202 of the first.
  erase(writer, 0);
  server.kill();

  // Killed inside the purge of the next ones, once it has begun and before it is done; a kill
  // that lands after it does not count.
  int inside = 0;
  for (std::size_t group = 1; group < groups.size(); ++group) {
    server.start();
    ApiClient api(server.port(), key);
    EXPECT_EQ(wait_purged(api, erasure_ids.back()).at("status"), "purged") << server.log();
    const std::size_t from = server.log_size();
    erase(api, group);
    ASSERT_TRUE(server.await_log("\"purging 1 erasure\"", from, std::chrono::milliseconds(30000)))
        << server.log();
    server.kill();
    if (server.log().substr(from).find("\"purged 1 erasure\"") == std::string::npos) ++inside;
  }
  EXPECT_GE(inside, 1) << "every kill came after the purge was done";

  server.start();
  ApiClient restarted(server.port(), key);
  for (std::size_t group = 0; group < groups.size(); ++group) {
    const auto erasure = wait_purged(restarted, erasure_ids[group]);
    EXPECT_EQ(erasure.at("status"), "purged") << group;
    EXPECT_EQ(erasure.at("erased_versions"), static_cast<std::int64_t>(groups[group].size()));
  }
  EXPECT_EQ(history_ids(restarted), kept);
  EXPECT_EQ(files_holding(server.data_dir(), "qzvcrashmarker"), std::vector<std::string>{});
}

}  // namespace
}  // namespace eventsvc::testing
