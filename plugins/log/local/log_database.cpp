#include "log_database.hpp"

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/rocksdb_compaction.hpp"
#include "eventsvc/toolkit/rocksdb_empty_logs.hpp"
#include "eventsvc/toolkit/rocksdb_info_log.hpp"
#include "eventsvc/toolkit/status_words.hpp"
#include "log_entries.hpp"

namespace eventsvc::plugins::log {

void check(const rocksdb::Status& status, const char* what) {
  if (status.ok()) return;
  throw sdk::Error::unavailable(std::string("the durable log is unavailable (") + what +
                                    "): " + toolkit::status_words(status),
                                5);
}

bool AnswerExpiry::Filter(int /*level*/, const rocksdb::Slice& /*key*/, const rocksdb::Slice& value,
                          std::string* /*new_value*/, bool* /*value_changed*/) const {
  return created_at_of_answer({value.data(), value.size()}) < before.load();
}

namespace {

rocksdb::DBOptions db_options(const std::filesystem::path& path,
                              std::shared_ptr<sdk::Logger> logger) {
  rocksdb::DBOptions options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.max_background_jobs = 2;
  options.keep_log_file_num = 4;
  options.max_total_wal_size = 64ULL << 20;
  options.paranoid_checks = true;
  // RocksDB's own LOG writer aborts the process on its next line after a failed write (a full
  // disk): this one drops the line.
  options.info_log = std::make_shared<toolkit::RocksdbInfoLog>(path, std::move(logger));
  // A record cut off at the end of the log is what a crash leaves: dropped. Anything damaged
  // before the end stops the open.
  options.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  return options;
}

rocksdb::ColumnFamilyOptions family_options(bool point_lookups) {
  rocksdb::ColumnFamilyOptions options;
  options.write_buffer_size = 16ULL << 20;
  options.compression = rocksdb::kLZ4Compression;
  options.level_compaction_dynamic_level_bytes = true;
  if (point_lookups) {
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10, false));
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  }
  return options;
}

}  // namespace

LogDatabase::LogDatabase(const std::filesystem::path& path, std::shared_ptr<sdk::Logger> logger) {
  std::filesystem::create_directories(path);
  toolkit::remove_empty_rocksdb_logs(path);
  auto answers_options = family_options(true);
  answers_options.compaction_filter = &answer_expiry;
  // Files are compacted at least this often, so expired answers really go.
  answers_options.periodic_compaction_seconds = std::uint64_t{6} * 3600;
  const std::vector<rocksdb::ColumnFamilyDescriptor> families{
      {rocksdb::kDefaultColumnFamilyName, family_options(false)},
      {"entries", family_options(false)},
      {"answers", answers_options},
      {"claims", family_options(true)},
      {"receipts", family_options(true)},
  };
  rocksdb::DB* raw = nullptr;
  const auto status = rocksdb::DB::Open(db_options(path, std::move(logger)), path.string(),
                                        families, &handles_, &raw);
  if (!status.ok()) {
    throw sdk::Error::internal("cannot open the durable log at " + path.string() + ": " +
                               status.ToString());
  }
  db_.reset(raw);
  meta = handles_[0];
  entries = handles_[1];
  answers = handles_[2];
  claims = handles_[3];
  receipts = handles_[4];
}

LogDatabase::~LogDatabase() {
  for (auto* handle : handles_)
    db_->DestroyColumnFamilyHandle(handle);
  db_->Close();
}

std::optional<std::string> LogDatabase::get(rocksdb::ColumnFamilyHandle* family,
                                            const std::string& key) {
  std::string value;
  const auto status = db_->Get(rocksdb::ReadOptions(), family, key, &value);
  if (status.IsNotFound()) return std::nullopt;
  check(status, "read");
  return value;
}

bool LogDatabase::exists(rocksdb::ColumnFamilyHandle* family, const std::string& key) {
  rocksdb::PinnableSlice value;
  const auto status = db_->Get(rocksdb::ReadOptions(), family, key, &value);
  if (status.IsNotFound()) return false;
  check(status, "read");
  return true;
}

void LogDatabase::write(rocksdb::WriteBatch& batch, bool durable, const char* what) {
  rocksdb::WriteOptions options;
  options.sync = durable;
  const rocksdb::Status status = db_->Write(options, &batch);
  if (status.ok()) {
    failure_.succeeded();
    return;
  }
  try {
    check(status, what);
  } catch (const sdk::Error& error) {
    failure_.failed(error.message());
    throw;
  }
}

std::string LogDatabase::write_problem() const {
  return failure_.message();
}

std::unique_ptr<rocksdb::Iterator> LogDatabase::iterator(rocksdb::ColumnFamilyHandle* family,
                                                         const rocksdb::Slice* upper) {
  rocksdb::ReadOptions options;
  options.iterate_upper_bound = upper;
  return std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(options, family));
}

void LogDatabase::compact_everything() {
  toolkit::compact_rocksdb_fully(*db_, handles_, "the local log");
}

}  // namespace eventsvc::plugins::log
