// Retention that frees disk, through the real binary
// (docs/operations.md#retention-that-frees-disk): an operator shortens a plan's retention and gives
// a stream a shorter one; the dry run says what would go, the sweep removes exactly that (a
// stream's shorter retention too, an id falling back to its surviving version), a byte search of
// the data directory no longer finds it once purged, what retention keeps and other workspaces
// stay; ingest refuses what a stream's retention lets go; and the server sweeps by itself.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include "support/api_client.hpp"
#include "support/files_holding.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

constexpr std::int64_t kHour = 3600000;
constexpr std::int64_t kDay = 24 * kHour;
constexpr const char* kScopes = "events:read,events:write,events:erase";
constexpr const char* kExpiredMarker = "zqxexpiredmarker";
constexpr const char* kKeptMarker = "zqxretainedmarker";

// The plugins of a test's server, kept across its restarts (with the shared log, each call of
// default_plugins() names a database of its own). Table files uncompressed, so that the byte search
// sees every copy.
std::string plugins() {
  return with_storage_config(default_plugins(), "      compression: none\n");
}

// Two plans; `shortened` gives the default plan 5 days and its stream `debug` 1 day, as an
// operator's edit of the config would.
std::string config(const std::string& plugins, bool shortened, bool remove_expired,
                   const std::string& sweep_every) {
  TestConfig config;
  config.plans =
      "  default:\n"
      "    requests_per_minute: {ingest: 100000, receipts: 100000, search: 100000, query: 100000, "
      "analyze: 100000, erasures: 100000}\n"
      "    concurrency: 64\n" +
      std::string(shortened ? "    retention_days: 5\n    retention_streams: {debug: 1}\n"
                            : "    retention_days: 30\n") +
      "  long:\n"
      "    retention_days: 30\n";
  config.plugins = plugins;
  config.other = "retention:\n  remove_expired: " + std::string(remove_expired ? "true" : "false") +
                 "\n  sweep_every: " + sweep_every + "\n";
  return config.yaml();
}

void reconfigure(ServerProcess& server, const std::string& yaml) {
  ASSERT_EQ(server.stop(), 0);
  std::ofstream(server.config_path()) << yaml;
  server.start();
}

json::object note(const std::string& id, std::int64_t at, const std::string& text) {
  return make_event(id, "note", at, json::object{{"text", text}});
}

std::set<std::string> history_ids(ApiClient& api, const std::string& since) {
  const auto response =
      api.query(json::object{{"source", "history"},
                             {"where", json::object{{"timestamp", json::object{{"gte", since}}}}},
                             {"limit", 1000}});
  EXPECT_EQ(response.status, 200) << response.body;
  if (response.status != 200) return {};
  const auto ids = ids_of(response.json());
  return {ids.begin(), ids.end()};
}

json::object sweep(const ServerProcess& server, bool dry_run) {
  std::vector<std::string> args{"retention", "--json"};
  if (dry_run) args.emplace_back("--dry-run");
  const auto result = server.cli(args);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return json::parse(result.out).as_object();
}

// {"<workspace>/<stream or *>": versions} of a sweep's rules.
std::map<std::string, std::int64_t> versions_by_rule(const json::object& sweep) {
  std::map<std::string, std::int64_t> versions;
  for (const auto& item : sweep.at("rules").as_array()) {
    const auto& rule = item.as_object();
    const std::string stream =
        rule.at("stream").is_null() ? "*" : std::string(rule.at("stream").as_string());
    versions[std::string(rule.at("workspace").as_string()) + "/" + stream] =
        rule.at("versions").as_int64();
  }
  return versions;
}

TEST(Retention, RemovesWhatNoPlanKeepsAndTheDataDirectoryForgetsIt) {
  const std::string plugins_of_server = plugins();
  ServerProcess server(config(plugins_of_server, false, false, "24h"));
  server.start();
  const std::string key = server.create_key("ret", "test", kScopes);
  const std::string other_key = server.create_key("other", "test", kScopes, "long");
  auto api = std::make_unique<ApiClient>(server.port(), key);
  auto other = std::make_unique<ApiClient>(server.port(), other_key);
  const std::int64_t now = now_ms();
  const std::string expired = std::string(kExpiredMarker) + " expired";
  api->ingest_verified(make_batch("main", json::array{note("m-old", now - 10 * kDay, expired),
                                                      note("v-1", now - 10 * kDay, expired),
                                                      note("v-1", now - kDay, "v-1 survives"),
                                                      note("m-new", now - 3 * kDay, "kept")}),
                       "retention-main-1");
  api->ingest_verified(make_batch("debug", json::array{note("d-old", now - 2 * kDay, expired),
                                                       note("d-new", now - 12 * kHour, "kept")}),
                       "retention-debug-1");
  other->ingest_verified(
      make_batch("main", json::array{note("o-old", now - 10 * kDay, kKeptMarker)}),
      "retention-other-1");

  // The operator shortens retention; the server only hides for now (remove_expired: false).
  reconfigure(server, config(plugins_of_server, true, false, "24h"));
  api = std::make_unique<ApiClient>(server.port(), key);
  const auto dry = sweep(server, true);
  EXPECT_EQ(dry.at("dry_run"), true);
  EXPECT_EQ(dry.at("versions"), 3) << json::serialize(dry);
  EXPECT_EQ(versions_by_rule(dry),
            (std::map<std::string, std::int64_t>{{"ret/*", 2}, {"ret/debug", 1}, {"other/*", 0}}));
  EXPECT_FALSE(files_holding(server.data_dir(), kExpiredMarker).empty());  // nothing went

  // Ingest refuses what the stream's retention lets go.
  const auto refused = api->ingest_once(
      make_batch("debug", json::array{note("late", now - 2 * kDay, "late")}), "debug-late");
  ASSERT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("stream 'debug', 1 days"), std::string::npos) << refused.body;

  reconfigure(server, config(plugins_of_server, true, true, "24h"));
  api = std::make_unique<ApiClient>(server.port(), key);
  other = std::make_unique<ApiClient>(server.port(), other_key);
  const auto swept = sweep(server, false);
  EXPECT_EQ(swept.at("dry_run"), false);
  EXPECT_EQ(swept.at("versions"), 3) << json::serialize(swept);
  std::vector<std::string> erasures;
  for (const auto& rule : swept.at("rules").as_array()) {
    if (const auto* id = rule.as_object().if_contains("erasure_id")) {
      erasures.emplace_back(id->as_string());
    }
  }
  ASSERT_EQ(erasures.size(), 2u) << json::serialize(swept);
  for (const auto& id : erasures) {
    json::object erasure;
    for (int attempt = 0; attempt < 600; ++attempt) {  // a minute at most
      erasure = api->erasure(id).json().as_object();
      if (erasure.at("status") == "purged") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_EQ(erasure.at("status"), "purged") << json::serialize(erasure);
    EXPECT_EQ(erasure.at("key_id"), "retention");
  }
  EXPECT_EQ(history_ids(*api, "now-5d"), (std::set<std::string>{"v-1", "m-new", "d-new"}));
  const auto v1 = api->query(json::object{{"where", json::object{{"id", "v-1"}}}});
  ASSERT_EQ(v1.status, 200) << v1.body;
  ASSERT_EQ(v1.json().at("count"), 1);
  EXPECT_EQ(v1.json().at("results").at(0).at("payload").at("text"), "v-1 survives");
  EXPECT_EQ(files_holding(server.data_dir(), kExpiredMarker), std::vector<std::string>{});
  if (shared_log_mode()) {  // nor does any entry of the shared log
    const auto entries_holding = [&](const std::string& marker) {
      return shared_log_sql(server, "SELECT count(*) FROM eventsvc_log WHERE position('" + marker +
                                        "'::bytea in write) > 0");
    };
    EXPECT_EQ(entries_holding(kExpiredMarker), "0");
    EXPECT_EQ(entries_holding(kKeptMarker), "1");
  }
  // The workspace whose plan keeps 30 days keeps its event.
  EXPECT_EQ(history_ids(*other, "now-30d"), (std::set<std::string>{"o-old"}));
  EXPECT_FALSE(files_holding(server.data_dir(), kKeptMarker).empty());
  EXPECT_EQ(sweep(server, true).at("versions"), 0);
}

TEST(Retention, TheServerSweepsByItself) {
  const std::string plugins_of_server = plugins();
  ServerProcess server(config(plugins_of_server, false, true, "1s"));
  server.start();
  const std::string key = server.create_key("auto", "test", kScopes);
  auto api = std::make_unique<ApiClient>(server.port(), key);
  const std::int64_t now = now_ms();
  api->ingest_verified(make_batch("main", json::array{note("old", now - 10 * kDay, "old"),
                                                      note("new", now - kDay, "new")}),
                       "retention-auto-1");
  EXPECT_EQ(sweep(server, true).at("versions"), 0);

  reconfigure(server, config(plugins_of_server, true, true, "1s"));
  api = std::make_unique<ApiClient>(server.port(), key);
  std::int64_t left = -1;
  for (int attempt = 0; attempt < 600 && left != 0; ++attempt) {  // a minute at most
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = sweep(server, true).at("versions").as_int64();
  }
  EXPECT_EQ(left, 0);
  EXPECT_EQ(history_ids(*api, "now-5d"), (std::set<std::string>{"new"}));
  EXPECT_TRUE(server.log().find("retention: erasing") != std::string::npos);
}

}  // namespace
}  // namespace eventsvc::testing
