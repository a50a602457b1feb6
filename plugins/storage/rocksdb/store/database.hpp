// The RocksDB instance and its column families.
//
//   meta         projector cursor and format version
//   inbox        seq -> accepted write, until projected (the durable queue)
//   idempotency  tenant|key -> 202 body, 24 h
//   receipts     tenant|receipt_id -> receipt state and event digests, 24 h
//   verdicts     tenant|receipt_id -> final verification state, kept with the records
//   digests      tenant|id|digest -> "", every accepted (id, digest): duplicate detection
//   history      version key -> record, every version
//   current      version key -> "", the versions that are the latest of their id
//   current_ids  tenant|id -> instant of the current version, and its row (column_chunk.hpp)
//   indexes      the id index; in databases from before chunk indexes, also the field and text
//                indexes (see index_keys.hpp)
//   stats        counters for BM25, merged with uint64add
//   verify_queue seq -> receipts projected but not yet verified
//   vectors      version key -> embedding (model name + floats)
//   columns      history in column chunks, one per projection round (column_chunk.hpp), with
//                each chunk's word and value postings (chunk_postings.hpp) and term filter
//                (term_filter.hpp), and the catalogue of chunk headers
//   changes      the change feed: per tenant, the versions each projected write made searchable,
//                by log position (change_feed.hpp)
#pragma once

#include <rocksdb/db.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eventsvc/sdk/logger.hpp"
#include "eventsvc/toolkit/write_failure.hpp"
#include "store/erased_chunks.hpp"
#include "store/page_cache.hpp"
#include "store/row_set_cache.hpp"
#include "store/term_filter.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct DatabaseOptions {
  std::filesystem::path path;
  std::size_t block_cache_mb = 128;
  std::size_t filter_cache_mb = 64;  // the chunks' term filters read (term_filter.hpp)
  std::size_t value_cache_mb = 32;   // the rows of value postings decoded (row_set_cache.hpp)
  std::size_t page_cache_mb = 32;    // the pages of columns parsed (page_cache.hpp)
  std::size_t write_buffer_mb = 32;
  std::string compression = "lz4";
  // Column families an existing database must have (its catalogue's): one that is missing stops
  // the open instead of being created again empty. Others missing (an older database, a family a
  // newer version added) are created.
  std::vector<std::string> required_families;
  // For an existing database: called with the value of `precheck_key` in the default family, read
  // from the database opened read-only, before it is opened for writing (which would replay its
  // log into new files and delete the files its MANIFEST does not name). Throws to refuse the
  // open, leaving every file as it was.
  std::string precheck_key;
  std::function<void(const std::optional<std::string>&)> precheck;
  // Where RocksDB's warnings and errors are also written (its LOG file has every line); may be
  // null.
  std::shared_ptr<sdk::Logger> logger;
};

class Database {
 public:
  explicit Database(const DatabaseOptions& options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  rocksdb::DB& db() { return *db_; }
  // The name of every column family this version keeps.
  static std::vector<std::string> family_names();
  // Makes everything written so far durable (fsync of the write-ahead log).
  void sync();

  rocksdb::ColumnFamilyHandle* meta = nullptr;
  rocksdb::ColumnFamilyHandle* inbox = nullptr;
  rocksdb::ColumnFamilyHandle* idempotency = nullptr;
  rocksdb::ColumnFamilyHandle* receipts = nullptr;
  rocksdb::ColumnFamilyHandle* verdicts = nullptr;
  rocksdb::ColumnFamilyHandle* digests = nullptr;
  rocksdb::ColumnFamilyHandle* history = nullptr;
  rocksdb::ColumnFamilyHandle* current = nullptr;
  rocksdb::ColumnFamilyHandle* current_ids = nullptr;
  rocksdb::ColumnFamilyHandle* indexes = nullptr;
  rocksdb::ColumnFamilyHandle* stats = nullptr;
  rocksdb::ColumnFamilyHandle* verify_queue = nullptr;
  rocksdb::ColumnFamilyHandle* vectors = nullptr;
  rocksdb::ColumnFamilyHandle* columns = nullptr;
  rocksdb::ColumnFamilyHandle* changes = nullptr;

  // Writes atomically. `durable`: fsync'd before returning (concurrent durable writes share one
  // sync). Throws sdk::Error 503 when the write fails.
  void write(rocksdb::WriteBatch& batch, bool durable);
  // A snapshot of the database now, and how many writes to the columns family it shows: nullopt
  // when one was under way as it was taken. Two snapshots with the same count show the same
  // columns family, whatever else was written between them: what a reader lists from that family
  // (the chunk catalogue) can be kept under the count and used again.
  const rocksdb::Snapshot* snapshot(std::optional<std::uint64_t>& columns_writes);
  // Why the last write failed (the 503's message), while no later write has succeeded; empty
  // otherwise. A failure older than a few seconds is checked again with a small durable write
  // first, so that the answer recovers when the disk does, without traffic.
  std::string write_problem();
  std::uint64_t write_failures() const { return write_failures_.load(); }

  // RocksDB's integer property `name` summed over every column family, or of one family.
  std::uint64_t int_property(const std::string& name);
  std::uint64_t int_property(rocksdb::ColumnFamilyHandle* family, const std::string& name);
  // The name of each open column family with its handle.
  const std::vector<rocksdb::ColumnFamilyHandle*>& families() const { return handles_; }

  // Starts flushing the memtables of the families that reads search (indexes, current, history,
  // columns) that hold at least `min_bytes` and have none being flushed already, without waiting. A
  // memtable steps backwards (newest first, the usual order) by a search from its head for every
  // step, and finds a key by a search through all it holds; a table file does both within a block
  // its index points to.
  void flush_read(std::uint64_t min_bytes);

  // Flushes every memtable and compacts every column family down to its last level, waiting for
  // it: no table file or write-ahead log keeps what was deleted or overwritten before (but what a
  // snapshot still sees). Throws sdk::Error 503 when it fails.
  void compact_everything();

  // Throws sdk::Error 503 on I/O errors. With a snapshot, reads the database as it was then.
  std::optional<std::string> get(rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key,
                                 const rocksdb::Snapshot* snapshot = nullptr);
  // The same, the value left in the block cache (pinned) instead of copied: for large values read
  // in place (columns).
  std::unique_ptr<rocksdb::PinnableSlice> get_pinned(rocksdb::ColumnFamilyHandle* family,
                                                     const rocksdb::Slice& key,
                                                     const rocksdb::Snapshot* snapshot = nullptr);
  // Several keys in one batched read; `values[i]` is empty (and `found[i]` false) for a key that
  // is absent. Throws sdk::Error 503 on I/O errors.
  void get_many(rocksdb::ColumnFamilyHandle* family, const std::vector<std::string>& keys,
                std::vector<rocksdb::PinnableSlice>& values, std::vector<bool>& found,
                const rocksdb::Snapshot* snapshot = nullptr);
  bool exists(rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key);

  // The column chunks' term filters read so far, beside RocksDB's block cache.
  TermFilterCache& term_filters() { return term_filters_; }
  // The rows of the value postings that questions decoded, kept for the next ones.
  RowSetCache& value_rows() { return value_rows_; }
  // The pages of chunks' columns that questions parsed, kept for the next ones.
  PageCache& pages() { return pages_; }
  // The column chunks with erased rows (erased_chunks.hpp).
  ErasedChunks& erased_chunks() { return erased_chunks_; }

  // An iterator whose keys and values stay where they are until it is deleted (blocks it read
  // stay pinned): values are read in place after it moves on.
  std::unique_ptr<rocksdb::Iterator> pinning_iterator(rocksdb::ColumnFamilyHandle* family,
                                                      const rocksdb::Slice* upper_bound,
                                                      const rocksdb::Slice* lower_bound,
                                                      const rocksdb::Snapshot* snapshot);
  // `fill_cache` false: blocks the iterator reads are not kept in the block cache (those already
  // there are still used), so a bulk read neither evicts what other reads use nor pays for
  // inserting and evicting blocks it reads once; it reads its files in large pieces instead.
  std::unique_ptr<rocksdb::Iterator> iterator(rocksdb::ColumnFamilyHandle* family,
                                              const rocksdb::Slice* upper_bound = nullptr,
                                              const rocksdb::Slice* lower_bound = nullptr,
                                              const rocksdb::Snapshot* snapshot = nullptr,
                                              bool fill_cache = true);

 private:
  // An iterator of `options` (its own settings) over `family` within the bounds, at `snapshot`.
  std::unique_ptr<rocksdb::Iterator> new_iterator(rocksdb::ColumnFamilyHandle* family,
                                                  rocksdb::ReadOptions options,
                                                  const rocksdb::Slice* upper_bound,
                                                  const rocksdb::Slice* lower_bound,
                                                  const rocksdb::Snapshot* snapshot);

  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  TermFilterCache term_filters_;
  RowSetCache value_rows_;
  PageCache pages_;
  ErasedChunks erased_chunks_;
  std::atomic<std::uint64_t> write_failures_{0};
  toolkit::WriteFailure failure_;
  // Writes that touch the columns family, counted before and after each (snapshot() above).
  std::atomic<std::uint64_t> columns_writes_started_{0};
  std::atomic<std::uint64_t> columns_writes_finished_{0};
};

// A consistent view of the database for as long as it lives: reads that span several keys (a
// chunk's columns) see none of a concurrent merge or all of it.
class Snapshot {
 public:
  explicit Snapshot(Database& database)
      : db_(database.db()), snapshot_(database.snapshot(columns_writes_)) {}
  ~Snapshot() { db_.ReleaseSnapshot(snapshot_); }
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  const rocksdb::Snapshot* get() const { return snapshot_; }
  // The writes to the columns family it shows (Database::snapshot).
  std::optional<std::uint64_t> columns_writes() const { return columns_writes_; }

 private:
  rocksdb::DB& db_;
  std::optional<std::uint64_t> columns_writes_;
  const rocksdb::Snapshot* snapshot_;
};

// Throws sdk::Error 503 (Retry-After 5) when `status` is not ok, saying what kind of failure it
// was and never a path on the server.
void check(const rocksdb::Status& status, const char* operation);

// How long receipts and idempotency records live.
inline constexpr std::int64_t kReceiptLifetimeMs = 24LL * 3600 * 1000;

}  // namespace eventsvc::plugins::rocksdb_storage
