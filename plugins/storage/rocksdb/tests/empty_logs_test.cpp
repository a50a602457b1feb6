// Opening the database again and again without writes in between leaves one log, not one per open
// (toolkit/rocksdb_empty_logs.hpp), and what was written before survives the opens.
#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include <filesystem>
#include <string>

#include "store/database.hpp"
#include "support/temp_dir.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

int logs_in(const std::filesystem::path& path) {
  int logs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(path))
    if (entry.path().extension() == ".log") ++logs;
  return logs;
}

TEST(EmptyLogs, DoNotGatherOnePerOpen) {
  testing::TempDir dir;
  DatabaseOptions options;
  options.path = dir.path() / "db";
  {
    Database database(options);
    rocksdb::WriteBatch batch;
    batch.Put(database.history, "h1", "kept");
    database.write(batch, true);
  }
  for (int open = 0; open < 8; ++open) {
    const Database database(options);
  }
  // The log holding the write (until a flush) and the one the last open started, at most.
  EXPECT_LE(logs_in(options.path), 2);

  Database database(options);
  EXPECT_EQ(database.get(database.history, "h1"), std::optional<std::string>("kept"));
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
