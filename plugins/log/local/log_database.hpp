// The local log's RocksDB database (log_entries.hpp says what it holds): opened with a column
// family per kind of data, written in atomic batches, each read or write failure an sdk::Error 503
// whose message a client may read.
#pragma once

#include <rocksdb/compaction_filter.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eventsvc/sdk/logger.hpp"
#include "eventsvc/sdk/time.hpp"
#include "eventsvc/toolkit/write_failure.hpp"

namespace eventsvc::plugins::log {

// Drops idempotency answers created before `before` when compaction meets them. An answer written
// since has a newer creation time, so an expiry never races an append of the same key.
class AnswerExpiry final : public rocksdb::CompactionFilter {
 public:
  bool Filter(int level, const rocksdb::Slice& key, const rocksdb::Slice& value,
              std::string* new_value, bool* value_changed) const override;
  const char* Name() const override { return "eventsvc.log.AnswerExpiry"; }

  std::atomic<sdk::Millis> before{0};
};

class LogDatabase {
 public:
  // RocksDB's warnings and errors also go to `logger` (may be null).
  LogDatabase(const std::filesystem::path& path, std::shared_ptr<sdk::Logger> logger);
  ~LogDatabase();
  LogDatabase(const LogDatabase&) = delete;
  LogDatabase& operator=(const LogDatabase&) = delete;

  rocksdb::DB& db() { return *db_; }
  std::optional<std::string> get(rocksdb::ColumnFamilyHandle* family, const std::string& key);
  bool exists(rocksdb::ColumnFamilyHandle* family, const std::string& key);
  // `durable`: returns once the batch is on disk (fsync of the write-ahead log).
  void write(rocksdb::WriteBatch& batch, bool durable, const char* what);
  // Every family flushed and compacted to its last level: nothing deleted stays in its files.
  void compact_everything();
  // Why the last write failed, while no write has succeeded since; empty otherwise. (After a
  // failed write RocksDB takes none until it is opened again.)
  std::string write_problem() const;
  std::unique_ptr<rocksdb::Iterator> iterator(rocksdb::ColumnFamilyHandle* family,
                                              const rocksdb::Slice* upper = nullptr);

  rocksdb::ColumnFamilyHandle* meta = nullptr;
  rocksdb::ColumnFamilyHandle* entries = nullptr;
  rocksdb::ColumnFamilyHandle* answers = nullptr;
  rocksdb::ColumnFamilyHandle* claims = nullptr;
  rocksdb::ColumnFamilyHandle* receipts = nullptr;
  AnswerExpiry answer_expiry;  // of `answers`

 private:
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  toolkit::WriteFailure failure_;
};

// Throws sdk::Error 503 naming `what` when `status` is not ok.
void check(const rocksdb::Status& status, const char* what);

}  // namespace eventsvc::plugins::log
