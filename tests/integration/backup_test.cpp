// Backups through the real binary: `eventsvc backup` while a server takes writes (over its control
// socket) or while none runs, `eventsvc restore` into a new data directory, and a server started on
// it serving every write acknowledged before the backup, with verified receipts and the same keys.
// (Also run with the local durable log: backup_integration_test_on_local_log.)
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "eventsvc/toolkit/files.hpp"
#include "support/api_client.hpp"
#include "support/server_process.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::testing {
namespace {

namespace fs = std::filesystem;

struct Acknowledged {
  std::string receipt_id;
  std::vector<std::string> ids;
};

json::object ten_events(const std::string& prefix, std::int64_t at) {
  json::array events;
  for (int i = 0; i < 10; ++i) {
    events.push_back(make_event(prefix + "-" + std::to_string(i), "t", at,
                                json::object{{"word", "kept"}, {"n", i}}));
  }
  return make_batch("backup", std::move(events));
}

Acknowledged write_ten(ApiClient& api, const std::string& prefix) {
  const auto answer = api.ingest(ten_events(prefix, now_ms()), "backup-" + prefix);
  EXPECT_EQ(answer.status, 202) << answer.body;
  Acknowledged written{std::string(json::parse(answer.body).at("receipt_id").as_string()), {}};
  for (int i = 0; i < 10; ++i)
    written.ids.push_back(prefix + "-" + std::to_string(i));
  return written;
}

std::set<std::string> history_ids(ApiClient& api) {
  const auto history = api.query(
      json::object{{"source", "history"},
                   {"where", json::object{{"timestamp", json::object{{"gte", "now-1h"}}}}},
                   {"limit", 1000}});
  EXPECT_EQ(history.status, 200) << history.body;
  if (history.status != 200) return {};
  const auto ids = ids_of(history.json());
  return {ids.begin(), ids.end()};
}

// A server on the restored data directory serves every write of `written`, verified, to `key`.
void expect_served(ServerProcess& restored, const std::string& key,
                   const std::vector<Acknowledged>& written) {
  restored.start();
  ApiClient api(restored.port(), key);
  for (const auto& write : written) {
    EXPECT_EQ(api.wait_final(write.receipt_id).at("status"), "verified") << write.receipt_id;
  }
  const auto served = history_ids(api);
  for (const auto& write : written) {
    for (const auto& id : write.ids)
      EXPECT_TRUE(served.contains(id)) << id << " is missing after the restore";
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A new file, so that a file the backup shares with the data directory by a hard link is not
// changed in both.
void rewrite_file(const fs::path& path, const std::string& bytes) {
  fs::remove(path);
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(Backup, TakenWhileWritesGoOnRestoresEveryWriteAcknowledgedBeforeIt) {
  ServerProcess server(test_config());
  server.start();
  const std::string key = server.create_key("backup", "test");

  std::mutex mutex;
  std::vector<Acknowledged> acknowledged;
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    ApiClient api(server.port(), key);
    for (int n = 0; n < 80 && !stop; ++n) {
      auto written = write_ten(api, "w" + std::to_string(n));
      const std::lock_guard lock(mutex);
      acknowledged.push_back(std::move(written));
    }
  });
  auto count = [&] {
    const std::lock_guard lock(mutex);
    return acknowledged.size();
  };
  while (count() < 5)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<Acknowledged> before;
  {
    const std::lock_guard lock(mutex);
    before = acknowledged;
  }
  const fs::path backup = server.dir() / "backup";
  const auto taken = server.cli({"backup", "--to", backup.string()});
  stop = true;
  writer.join();
  ASSERT_EQ(taken.exit_code, 0) << taken.err;
  EXPECT_NE(taken.out.find("(the running server)"), std::string::npos) << taken.out;
  EXPECT_TRUE(fs::exists(backup / "eventsvc-backup.json"));

  // The server goes on taking writes once the backup is taken.
  ApiClient api(server.port(), key);
  write_ten(api, "after");

  ServerProcess restored(test_config());
  const auto restore = restored.cli({"restore", "--from", backup.string()});
  ASSERT_EQ(restore.exit_code, 0) << restore.err;
  EXPECT_NE(restore.out.find("restored the backup"), std::string::npos) << restore.out;
  expect_served(restored, key, before);
}

TEST(Backup, OfAStoppedServerIsTakenByTheCommandItself) {
  ServerProcess server(test_config());
  server.start();
  const std::string key = server.create_key("backup", "test");
  std::vector<Acknowledged> written;
  {
    ApiClient api(server.port(), key);
    written.push_back(write_ten(api, "stopped"));
    api.wait_final(written.back().receipt_id);
  }
  ASSERT_EQ(server.stop(), 0);

  const fs::path backup = server.dir() / "backup";
  const auto taken = server.cli({"backup", "--to", backup.string()});
  ASSERT_EQ(taken.exit_code, 0) << taken.err;
  EXPECT_NE(taken.out.find("(no server was running)"), std::string::npos) << taken.out;

  ServerProcess restored(test_config());
  ASSERT_EQ(restored.cli({"restore", "--from", backup.string()}).exit_code, 0);
  expect_served(restored, key, written);
}

// Erasures outlive backups: an erasure made after the backup is carried out again by the restore
// (from the erasure ledger), one made before it is not (what was sent again after it stays).
TEST(Backup, ARestoreCarriesOutAgainTheErasuresMadeAfterTheBackup) {
  ServerProcess server(test_config());
  server.start();
  const std::string key =
      server.create_key("backup", "test", "events:read,events:write,events:erase");
  ApiClient api(server.port(), key);
  const auto person = [&](const std::string& id) {
    return make_batch("people", json::array{make_event(id, "seen", now_ms() - 60000,
                                                       json::object{{"user", "u-42"}})});
  };
  api.ingest_verified(person("before"), "erasure-backup-1");
  api.ingest_verified(person("after"), "erasure-backup-2");
  std::vector<Acknowledged> kept{write_ten(api, "kept")};
  api.wait_final(kept.back().receipt_id);
  auto erase = [&](const std::string& id) {
    const auto accepted = api.erase(json::object{{"ids", json::array{json::value(id)}}},
                                    "erasure-backup-erase-" + id);
    EXPECT_EQ(accepted.status, 202) << accepted.body;
    return std::string(accepted.json().at("erasure_id").as_string());
  };
  // Erased before the backup, then sent again: the backup holds it again.
  api.wait_erased(erase("before"));
  api.ingest_verified(person("before"), "erasure-backup-3");
  const fs::path backup = server.dir() / "backup";
  ASSERT_EQ(server.cli({"backup", "--to", backup.string()}).exit_code, 0);
  // Erased after the backup.
  const std::string later = erase("after");
  api.wait_erased(later);

  ServerProcess restored(test_config());
  const auto restore = restored.cli({"restore", "--from", backup.string(), "--erasure-ledger",
                                     (server.data_dir() / "erasure-ledger.jsonl").string()});
  ASSERT_EQ(restore.exit_code, 0) << restore.err;
  EXPECT_NE(restore.out.find("2 erasures, 1 of them made after the backup and carried out again"),
            std::string::npos)
      << restore.out;
  expect_served(restored, key, kept);
  ApiClient again(restored.port(), key);
  const auto served = history_ids(again);
  EXPECT_TRUE(served.contains("before"));
  EXPECT_FALSE(served.contains("after"));
  const auto erasure = again.erasure(later);
  ASSERT_EQ(erasure.status, 200) << erasure.body;
  EXPECT_NE(erasure.json().at("status"), "accepted");
  // The restored server keeps the ledger for the next restore.
  EXPECT_TRUE(fs::exists(restored.data_dir() / "erasure-ledger.jsonl"));
}

TEST(Backup, RefusesADirectoryThatIsNotEmptyOrInsideTheDataDirectory) {
  ServerProcess server(test_config());
  server.start();
  const fs::path full = server.dir() / "full";
  fs::create_directories(full);
  std::ofstream(full / "something") << "x";
  const auto into_full = server.cli({"backup", "--to", full.string()});
  EXPECT_NE(into_full.exit_code, 0);
  EXPECT_NE(into_full.err.find("is not empty: a backup goes into a new or empty directory"),
            std::string::npos)
      << into_full.err;

  const auto inside = server.cli({"backup", "--to", (server.data_dir() / "copy").string()});
  EXPECT_NE(inside.exit_code, 0);
  EXPECT_NE(inside.err.find("is inside the data directory"), std::string::npos) << inside.err;
  EXPECT_FALSE(fs::exists(server.data_dir() / "copy"));

  // An empty directory is taken.
  const fs::path empty = server.dir() / "empty";
  fs::create_directories(empty);
  EXPECT_EQ(server.cli({"backup", "--to", empty.string()}).exit_code, 0);
}

TEST(Restore, RefusesADamagedBackupOneOfANewerFormatAndADataDirectoryThatIsNotEmpty) {
  ServerProcess server(test_config());
  server.start();
  server.create_key("backup", "test");
  const fs::path backup = server.dir() / "backup";
  ASSERT_EQ(server.cli({"backup", "--to", backup.string()}).exit_code, 0);

  const auto over = server.cli({"restore", "--from", backup.string()});
  EXPECT_NE(over.exit_code, 0);
  EXPECT_NE(over.err.find("is not empty: a backup is restored as a new data directory"),
            std::string::npos)
      << over.err;

  ServerProcess target(test_config());
  auto restore_from = [&](const fs::path& from) {
    const auto result = target.cli({"restore", "--from", from.string()});
    EXPECT_NE(result.exit_code, 0);
    EXPECT_FALSE(fs::exists(target.data_dir()) && !fs::is_empty(target.data_dir()))
        << "a refused restore wrote " << target.data_dir();
    return result.err;
  };
  auto copy_of_backup = [&](const std::string& name) {
    fs::path copy = server.dir() / name;
    fs::copy(backup, copy, fs::copy_options::recursive);
    return copy;
  };

  const fs::path changed = copy_of_backup("changed");
  std::string keys = read_file(changed / "apikey" / "keys.json");
  keys[keys.size() / 2] ^= 1;
  rewrite_file(changed / "apikey" / "keys.json", keys);
  EXPECT_NE(restore_from(changed).find("is damaged: apikey/keys.json does not match its sha256"),
            std::string::npos);

  const fs::path missing = copy_of_backup("missing");
  fs::path table;
  for (const auto& entry : fs::recursive_directory_iterator(missing)) {
    if (entry.path().extension() == ".sst") table = entry.path();
  }
  ASSERT_FALSE(table.empty());
  fs::remove(table);
  EXPECT_NE(restore_from(missing).find(table.lexically_relative(missing).string() + " is missing"),
            std::string::npos);

  const fs::path newer = copy_of_backup("newer");
  // A well-sealed manifest of a format this build does not know.
  auto manifest = toolkit::read_sealed_json(newer / "eventsvc-backup.json");
  ASSERT_EQ(manifest.state, toolkit::SealedJson::State::whole);
  manifest.object["format"] = 2;
  toolkit::write_sealed_json(newer / "eventsvc-backup.json", std::move(manifest.object));
  EXPECT_NE(restore_from(newer).find("was made by a newer eventsvc (backup format 2)"),
            std::string::npos);

  const fs::path linked = copy_of_backup("linked");
  fs::remove(linked / "apikey" / "keys.json");
  fs::create_symlink(backup / "apikey" / "keys.json", linked / "apikey" / "keys.json");
  EXPECT_NE(restore_from(linked).find("apikey/keys.json is not a regular file"), std::string::npos);

  const fs::path unfinished = copy_of_backup("unfinished");
  fs::remove(unfinished / "eventsvc-backup.json");
  EXPECT_NE(restore_from(unfinished).find("is not an eventsvc backup"), std::string::npos);
}

TEST(Restore, IntoAnEmptyDirectoryNamedWithATrailingSlash) {
  ServerProcess server(test_config());
  server.start();
  const std::string key = server.create_key("backup", "test");
  std::vector<Acknowledged> written;
  {
    ApiClient api(server.port(), key);
    written.push_back(write_ten(api, "slash"));
  }
  const fs::path backup = server.dir() / "backup";
  ASSERT_EQ(server.cli({"backup", "--to", backup.string()}).exit_code, 0);

  // An empty directory that cannot be replaced (a mount point) is filled in place.
  ServerProcess restored(test_config());
  fs::create_directories(restored.data_dir());
  const auto restore = run_eventsvc({"restore", "--from", backup.string(), "--config",
                                     restored.config_path().string(), "--data-dir",
                                     restored.data_dir().string() + "/"});
  ASSERT_EQ(restore.exit_code, 0) << restore.err;
  EXPECT_FALSE(fs::exists(restored.data_dir() / ".restoring"));
  expect_served(restored, key, written);
}

TEST(Backup, RefusesADatabaseOutsideTheDataDirectoryNamingItsKey) {
  TempDir elsewhere;
  TestConfig config;
  config.plugins =
      "  apikey:\n  rocksdb:\n    config:\n      path: " + (elsewhere.path() / "db").string() +
      "\n";
  ServerProcess server(config.yaml());
  server.start();
  const auto taken = server.cli({"backup", "--to", (server.dir() / "backup").string()});
  EXPECT_NE(taken.exit_code, 0);
  EXPECT_NE(taken.err.find("plugins.rocksdb.config.path (" + (elsewhere.path() / "db").string() +
                           ") is outside the data directory"),
            std::string::npos)
      << taken.err;
  EXPECT_FALSE(fs::exists(server.dir() / "backup"));
}

}  // namespace
}  // namespace eventsvc::testing
