// Table files that reach the last level by a move are rewritten with their sequence numbers zeroed
// as flushes and compactions complete, not when a question next releases a snapshot
// (store/database.cpp). RocksDB zeroes a file's numbers only once a later write exists (a file is
// rewritten when its largest number is below the oldest snapshot's), so the file holding the
// newest write waits for the next flush, as it would under a steady flow of writes.
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

// History's files below level 0 that still carry sequence numbers, by name (files left on level 0,
// fewer than a compaction takes, keep theirs until one does).
std::vector<std::string> files_carrying_numbers(Database& database) {
  rocksdb::ColumnFamilyMetaData history;
  database.db().GetColumnFamilyMetaData(database.history, &history);
  std::vector<std::string> names;
  for (const auto& level : history.levels)
    for (const auto& file : level.files)
      if (level.level > 0 && file.largest_seqno != 0) names.push_back(file.name);
  return names;
}

// Waits until no compaction runs or is wanted and no file carries sequence numbers, seen on
// several looks in a row (a listener runs after the flush it follows has returned); gives up after
// two minutes, a bound against hanging, not a measurement.
void wait_for_rewrites(Database& database) {
  int settled_looks = 0;
  for (int look = 0; look < 6000 && settled_looks < 5; ++look) {
    const bool settled = compactions_idle(database) && files_carrying_numbers(database).empty();
    settled_looks = settled ? settled_looks + 1 : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
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
  // The next flush, of a write to another family: every moved file is now older than a snapshot.
  rocksdb::WriteBatch later;
  later.Put(database.meta, "a later key", "a later value");
  database.write(later, false);
  ASSERT_TRUE(database.db().Flush(rocksdb::FlushOptions(), database.meta).ok());
  wait_for_rewrites(database);

  for (const auto& name : files_carrying_numbers(database))
    ADD_FAILURE() << name << " still carries sequence numbers";
  rocksdb::ColumnFamilyMetaData history;
  database.db().GetColumnFamilyMetaData(database.history, &history);
  std::uint64_t keys = 0;
  std::uint64_t keys_moved_down = 0;
  for (const auto& level : history.levels)
    for (const auto& file : level.files) {
      keys += file.num_entries;
      if (level.level > 0) keys_moved_down += file.num_entries;
    }
  EXPECT_EQ(keys, std::uint64_t{kFiles} * kKeysPerFile);
  EXPECT_GT(keys_moved_down, 0u) << "the flushed files never left level 0";
  EXPECT_EQ(database.get(database.history, key_of(kFiles * kKeysPerFile - 1)), "a record");
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
