// Table files that reach the last level by a move are rewritten with their sequence numbers zeroed
// as they arrive, not when a question next releases a snapshot (store/database.cpp).
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/write_batch.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "store/database.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

std::string key_of(int n) {
  char key[16];
  std::snprintf(key, sizeof key, "k%08d", n);
  return key;
}

bool compactions_idle(Database& database) {
  return database.int_property(database.history, "rocksdb.compaction-pending") == 0 &&
         database.int_property("rocksdb.num-running-compactions") == 0;
}

// Waits until no compaction runs or is wanted, seen on several looks in a row; false if that
// never happens (a bound against hanging, not a measurement).
bool wait_for_compactions(Database& database) {
  int idle_looks = 0;
  for (int look = 0; look < 6000 && idle_looks < 5; ++look) {
    idle_looks = compactions_idle(database) ? idle_looks + 1 : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return idle_looks >= 5;
}

TEST(MovedTableFiles, AreRewrittenWithoutWaitingForASnapshot) {
  testing::TempDir dir;
  DatabaseOptions options;
  options.path = dir.path() / "db";
  Database database(options);
  // Keys in order, each batch flushed to a file of its own: the files do not overlap one another
  // or anything below, so the compaction that takes level 0 down moves them without a rewrite.
  constexpr int kFiles = 8;
  constexpr int kKeysPerFile = 100;
  for (int file = 0; file < kFiles; ++file) {
    rocksdb::WriteBatch batch;
    for (int k = 0; k < kKeysPerFile; ++k)
      batch.Put(database.history, key_of(file * kKeysPerFile + k), "a record");
    database.write(batch, false);
    ASSERT_TRUE(database.db().Flush(rocksdb::FlushOptions(), database.history).ok());
  }
  ASSERT_TRUE(wait_for_compactions(database));

  rocksdb::ColumnFamilyMetaData history;
  database.db().GetColumnFamilyMetaData(database.history, &history);
  int last_level = -1;
  for (const auto& level : history.levels)
    if (!level.files.empty()) last_level = level.level;
  ASSERT_GT(last_level, 0) << "the flushed files never left level 0";
  for (const auto& file : history.levels[static_cast<std::size_t>(last_level)].files)
    EXPECT_EQ(file.largest_seqno, 0u) << file.name << " still carries sequence numbers";
  std::uint64_t keys = 0;
  for (const auto& level : history.levels)
    for (const auto& file : level.files)
      keys += file.num_entries;
  EXPECT_EQ(keys, std::uint64_t{kFiles} * kKeysPerFile);
  EXPECT_EQ(database.get(database.history, key_of(kFiles * kKeysPerFile - 1)), "a record");
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
