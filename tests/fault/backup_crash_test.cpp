// A server killed with SIGKILL while it takes a backup loses nothing it acknowledged and starts
// again (the control socket it left behind is replaced), and the backup is either whole (it
// restores, and the restored server serves every write) or refused by restore as unfinished: never
// a backup that restores with acknowledged writes missing.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include "support/api_client.hpp"
#include "support/server_process.hpp"

namespace eventsvc::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kWrites = 20;
constexpr int kEventsPerWrite = 10;

struct Written {
  std::vector<std::string> receipts;
  std::set<std::string> ids;
};

Written write_all(ApiClient& api) {
  Written written;
  for (int w = 0; w < kWrites; ++w) {
    json::array events;
    for (int e = 0; e < kEventsPerWrite; ++e) {
      const std::string id = "w" + std::to_string(w) + "-" + std::to_string(e);
      events.push_back(make_event(id, "t", now_ms(), json::object{{"n", e}}));
      written.ids.insert(id);
    }
    const auto answer =
        api.ingest(make_batch("s", std::move(events)), "crash-backup-" + std::to_string(w));
    EXPECT_EQ(answer.status, 202) << answer.body;
    written.receipts.emplace_back(answer.json().at("receipt_id").as_string());
  }
  return written;
}

// Every write is verified and every event in history.
void expect_served(const ServerProcess& server, const std::string& key, const Written& written) {
  ApiClient api(server.port(), key);
  for (const auto& receipt : written.receipts)
    EXPECT_EQ(api.wait_final(receipt).at("status"), "verified") << receipt;
  const auto history = api.query(
      json::object{{"source", "history"},
                   {"where", json::object{{"timestamp", json::object{{"gte", "now-1h"}}}}},
                   {"limit", 1000}});
  ASSERT_EQ(history.status, 200) << history.body;
  const auto ids = ids_of(history.json());
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()), written.ids);
}

TEST(BackupCrash, AServerKilledDuringABackupLosesNothingAndTheBackupIsWholeOrRefused) {
  ServerProcess server(test_config());
  server.start();
  const std::string key = server.create_key("crash", "test");
  Written written;
  {
    ApiClient api(server.port(), key);
    written = write_all(api);
  }
  std::mt19937 random(20261126);
  int whole = 0;
  int refused = 0;
  for (int round = 0; round < 4; ++round) {
    const fs::path backup = server.dir() / ("backup-" + std::to_string(round));
    CommandResult taken;
    std::thread backing_up([&] { taken = server.cli({"backup", "--to", backup.string()}); });
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 30000));
    server.kill();
    backing_up.join();

    server.start();
    expect_served(server, key, written);

    ServerProcess restored(test_config());
    const auto restore = restored.cli({"restore", "--from", backup.string()});
    if (fs::exists(backup / "eventsvc-backup.json")) {
      ++whole;
      ASSERT_EQ(restore.exit_code, 0) << restore.err;
      restored.start();
      expect_served(restored, key, written);
    } else {
      ++refused;
      EXPECT_NE(restore.exit_code, 0);
      EXPECT_NE(restore.err.find("is not an eventsvc backup"), std::string::npos) << restore.err;
    }
  }
  std::printf("backups killed: %d whole, %d refused as unfinished\n", whole, refused);
}

}  // namespace
}  // namespace eventsvc::testing
