// A snapshot says how many writes to the columns family it shows (store/database.hpp), so that
// what a reader listed from that family at one snapshot is used again at another showing the same.
#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include <optional>

#include "store/database.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

std::optional<std::uint64_t> columns_writes_now(Database& database) {
  const Snapshot snapshot(database);
  return snapshot.columns_writes();
}

TEST(SnapshotColumnsWrites, CountOnlyWritesThatTouchTheColumnsFamily) {
  testing::TempDir dir;
  DatabaseOptions options;
  options.path = dir.path() / "db";
  Database database(options);

  const auto before = columns_writes_now(database);
  ASSERT_TRUE(before.has_value());

  rocksdb::WriteBatch elsewhere;
  elsewhere.Put(database.history, "h1", "v");
  elsewhere.Delete(database.current, "c1");
  database.write(elsewhere, false);
  EXPECT_EQ(columns_writes_now(database), before) << "no write to the columns family";

  rocksdb::WriteBatch chunk;
  chunk.Put(database.history, "h2", "v");
  chunk.Put(database.columns, "header", "v");
  database.write(chunk, false);
  EXPECT_EQ(columns_writes_now(database), *before + 1);

  rocksdb::WriteBatch merge;
  merge.Delete(database.columns, "header");
  merge.DeleteRange(database.columns, "a", "b");
  database.write(merge, true);
  EXPECT_EQ(columns_writes_now(database), *before + 2);

  // What a snapshot shows does not move when later writes come.
  const Snapshot held(database);
  rocksdb::WriteBatch later;
  later.Put(database.columns, "header", "v2");
  database.write(later, false);
  EXPECT_EQ(held.columns_writes(), *before + 2);
  EXPECT_EQ(columns_writes_now(database), *before + 3);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
