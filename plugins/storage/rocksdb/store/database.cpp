#include "store/database.hpp"

#include <rocksdb/cache.h>
#include <rocksdb/compaction_filter.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/listener.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <chrono>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/time.hpp"
#include "eventsvc/toolkit/rocksdb_compaction.hpp"
#include "eventsvc/toolkit/rocksdb_empty_logs.hpp"
#include "eventsvc/toolkit/rocksdb_info_log.hpp"
#include "eventsvc/toolkit/status_words.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "store/stored_formats.hpp"
#include "store/thread_priority.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

// Written (empty) in the default family to learn whether writes succeed again after one failed.
constexpr const char* kWriteProbeKey = "write_probe";

// Drops values whose leading creation time is older than their lifetime: expired receipts and
// idempotency records disappear in compaction instead of growing without bound.
class ExpiryFilter final : public rocksdb::CompactionFilter {
 public:
  explicit ExpiryFilter(std::int64_t lifetime_ms) : lifetime_ms_(lifetime_ms) {}
  bool Filter(int, const rocksdb::Slice&, const rocksdb::Slice& value, std::string*,
              bool*) const override {
    if (value.size() < 8) return false;
    return created_at_of(std::string_view(value.data(), value.size())) + lifetime_ms_ <
           toolkit::now_millis();
  }
  const char* Name() const override { return "eventsvc.ExpiryFilter"; }

 private:
  std::int64_t lifetime_ms_;
};

rocksdb::CompressionType compression_of(const std::string& name) {
  if (name == "none") return rocksdb::kNoCompression;
  if (name == "snappy") return rocksdb::kSnappyCompression;
  if (name == "zstd") return rocksdb::kZSTD;
  return rocksdb::kLZ4Compression;
}

enum class FamilyKind : std::uint8_t {
  point,     // read by key: bloom filters
  ordered,   // read by prefix scans
  expiring,  // point reads, entries dropped by compaction after 24 h
  counters,  // uint64add merge operands
};

// RocksDB's default block size. A family read in long runs of neighbouring keys names a larger one:
// each block costs a read, a decompression and a cache entry whatever its size.
constexpr std::size_t kBlockSize = 4096;

// What a bulk read (Database::iterator without fill_cache) reads of a file at a time.
constexpr std::size_t kBulkReadahead = std::size_t{256} * 1024;

// Four shards: lock contention is no concern on the few cores a server has, large blocks are.
constexpr int kBlockCacheShardBits = 2;

struct Family {
  const char* name;
  FamilyKind kind;
  rocksdb::ColumnFamilyHandle* Database::*handle;
  std::size_t block_size = kBlockSize;
  bool readahead = true;    // RocksDB's own, once an iterator reads blocks one after the other
  bool key_filter = false;  // an ordered family also read by key: bloom filters on its files
};

// Every column family, in the order RocksDB opens them. What each holds: database.hpp.
const Family kFamilies[] = {
    {"default", FamilyKind::point, &Database::meta},
    {"inbox", FamilyKind::ordered, &Database::inbox},
    {"idempotency", FamilyKind::expiring, &Database::idempotency},
    {"receipts", FamilyKind::expiring, &Database::receipts},
    {"verdicts", FamilyKind::point, &Database::verdicts},
    {"digests", FamilyKind::point, &Database::digests},
    // Exports and time-bounded scans walk it in key order: blocks of 16 KiB took an export of
    // 100,000 records 12% less server time than blocks of 4 KiB.
    {"history", FamilyKind::point, &Database::history, 16384},
    {"current", FamilyKind::ordered, &Database::current},
    {"current_ids", FamilyKind::point, &Database::current_ids},
    {"indexes", FamilyKind::ordered, &Database::indexes},
    {"stats", FamilyKind::counters, &Database::stats},
    {"verify_queue", FamilyKind::ordered, &Database::verify_queue},
    {"vectors", FamilyKind::point, &Database::vectors},
    // A question reads the pages of a column one after the other, mostly from the block cache: a
    // readahead system call per page was 7% of such a question's time. It also reads a chunk's
    // replaced rows, term blocks and pages by key, two or three a chunk: without filters each
    // such read searched every file of level 0 and of each level whose key range held the key.
    {"columns", FamilyKind::ordered, &Database::columns, kBlockSize, false, true},
    {"changes", FamilyKind::ordered, &Database::changes},
};

// Where memtable inserts resume: keys of one tenant (<len:1><workspace><env:1>), and of one
// chunk of it (<tenant> 'H' <chunk:u64>), mostly arrive in key order within a projection batch
// or a merge, so RocksDB starts each insert from where the last one of that prefix went instead
// of from the top of the skip list (the search was most of a batch's memtable time).
class InsertHintPrefix final : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "eventsvc.InsertHintPrefix"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override {
    return {key.data(), prefix_size(key)};
  }
  bool InDomain(const rocksdb::Slice& key) const override { return prefix_size(key) > 0; }

 private:
  static std::size_t prefix_size(const rocksdb::Slice& key) {
    if (key.empty()) return 0;
    const std::size_t tenant = 1 + static_cast<unsigned char>(key[0]) + 1;
    if (key.size() < tenant) return 0;
    const std::size_t chunk = tenant + 1 + 8;
    return key.size() > chunk && key[tenant] == 'H' ? chunk : tenant;
  }
};

}  // namespace

void check(const rocksdb::Status& status, const char* operation) {
  if (status.ok()) return;
  throw sdk::Error::unavailable(
      std::string("storage is unavailable (") + operation + "): " + toolkit::status_words(status),
      5);
}

namespace {

// Compactions run on RocksDB's own threads, at the priority of the threads that answer requests
// unless lowered: right after a load of 1,000,000 events one compacted for over a second beside
// the first questions, on a core they wanted. RocksDB calls this on the thread about to compact
// (flushes, which writes wait for, keep their priority), as merges lower theirs (merge/).
class BackgroundCompactions final : public rocksdb::EventListener {
 public:
  const char* Name() const override { return "eventsvc.BackgroundCompactions"; }
  void OnCompactionBegin(rocksdb::DB* /*db*/, const rocksdb::CompactionJobInfo& /*info*/) override {
    thread_local bool lowered = false;
    if (lowered) return;
    lowered = true;
    lower_thread_priority(kBackgroundNice);
  }
};

// A table file that reaches the last level by a move, not a rewrite (history's keys arrive in
// order, so its flushed files move down whole), keeps its sequence numbers, and RocksDB rewrites
// it to zero them only when it sees, as a snapshot is released, that no snapshot needs them. Only
// questions take snapshots: after a load with none, the first question set off a rewrite of all
// history loaded (18 files, 234 MB at 1,000,000 events) beside the questions, each file's cached
// blocks dead once rewritten, and a rare word's p99 was 4.4× its median instead of 1.5×. A
// snapshot released after each flush and compaction has moved files rewritten as they arrive, as
// a steady flow of questions would; a file holding the newest write waits for the next one, as
// RocksDB rewrites only files older than the oldest snapshot.
class RewriteMovedFilesPromptly final : public rocksdb::EventListener {
 public:
  const char* Name() const override { return "eventsvc.RewriteMovedFilesPromptly"; }
  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& /*info*/) override {
    release_a_snapshot(*db);
  }
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& /*info*/) override {
    release_a_snapshot(*db);
  }

 private:
  static void release_a_snapshot(rocksdb::DB& db) {
    if (const rocksdb::Snapshot* snapshot = db.GetSnapshot()) db.ReleaseSnapshot(snapshot);
  }
};

rocksdb::DBOptions db_options_of(const DatabaseOptions& options) {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  db_options.bytes_per_sync = 1 << 20;
  db_options.wal_bytes_per_sync = 1 << 20;
  db_options.keep_log_file_num = 4;
  db_options.max_total_wal_size = 256ULL << 20;
  db_options.avoid_unnecessary_blocking_io = true;
  db_options.paranoid_checks = true;
  db_options.info_log = std::make_shared<toolkit::RocksdbInfoLog>(options.path, options.logger);
  // A record cut off at the end of the log is what a crash leaves: dropped. Anything damaged
  // before the end stops the open, where the default would drop every record after it unsaid.
  db_options.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  // Memtable inserts one batch at a time: only then does RocksDB use the insert hints below.
  db_options.allow_concurrent_memtable_write = false;
  db_options.listeners.push_back(std::make_shared<BackgroundCompactions>());
  db_options.listeners.push_back(std::make_shared<RewriteMovedFilesPromptly>());
  return db_options;
}

// Every column family of kFamilies with the options of its kind, sharing one block cache.
std::vector<rocksdb::ColumnFamilyDescriptor> family_descriptors(const DatabaseOptions& options) {
  static const ExpiryFilter expiry_filter(kReceiptLifetimeMs);
  const auto insert_hints = std::make_shared<InsertHintPrefix>();
  // A column of a chunk is one value, and so one block, of up to a page of it (a few hundred KiB
  // for 8,192 unique ids) or, in chunks written before pages, the whole column. RocksDB's default
  // of 64 shards gives a 128 MiB cache 2 MiB shards, where each such block evicts the rest of its
  // shard and the next one evicts it: four shards hold them.
  auto cache = rocksdb::NewLRUCache(options.block_cache_mb << 20, kBlockCacheShardBits);
  auto family_options = [&](bool point_lookups, std::size_t block_size = kBlockSize,
                            bool readahead = true, bool key_filter = false) {
    rocksdb::ColumnFamilyOptions cf;
    cf.write_buffer_size = options.write_buffer_mb << 20;
    cf.compression = compression_of(options.compression);
    cf.level_compaction_dynamic_level_bytes = true;
    cf.memtable_insert_with_hint_prefix_extractor = insert_hints;
    rocksdb::BlockBasedTableOptions table;
    table.block_cache = cache;
    table.format_version = 5;
    table.block_size = block_size;
    if (!readahead) table.max_auto_readahead_size = 0;
    table.cache_index_and_filter_blocks = true;
    table.pin_l0_filter_and_index_blocks_in_cache = true;
    if (key_filter) {
      // A question reads a few keys of this family for each chunk it looks at, each read first
      // looking its file's index and filter up in the cache: held by each open file instead
      // (still charged to the cache; the family has a few keys a chunk, so they are small), a
      // read took a quarter fewer instructions.
      table.metadata_cache_options.unpartitioned_pinning = rocksdb::PinningTier::kAll;
    }
    if (point_lookups || key_filter)
      table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10, false));
    if (point_lookups) {
      // Most point reads of a projection round miss (a new id, a new version): a bloom filter
      // of the memtable's keys answers those without searching its skip list.
      cf.memtable_whole_key_filtering = true;
      cf.memtable_prefix_bloom_size_ratio = 0.02;
    }
    cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    return cf;
  };
  auto expiring = [&]() {
    auto cf = family_options(true);
    cf.compaction_filter = &expiry_filter;
    // Files are recompacted at least this often, so expired entries really go.
    cf.periodic_compaction_seconds = std::uint64_t{6} * 3600;
    return cf;
  };
  auto counters = [&]() {
    auto cf = family_options(true);
    std::shared_ptr<rocksdb::MergeOperator> add;
    check(rocksdb::MergeOperator::CreateFromString(rocksdb::ConfigOptions(), "uint64add", &add),
          "merge operator");
    cf.merge_operator = add;
    return cf;
  };
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& family : kFamilies) {
    const auto cf = family.kind == FamilyKind::expiring ? expiring()
                    : family.kind == FamilyKind::counters
                        ? counters()
                        : family_options(family.kind == FamilyKind::point, family.block_size,
                                         family.readahead, family.key_filter);
    families.emplace_back(family.name, cf);
  }
  return families;
}

sdk::Error damaged(const DatabaseOptions& options, const std::string& why) {
  return sdk::Error::internal("the database at " + options.path.string() +
                              " is damaged and was not opened: " + why);
}

// An existing database must have the families its catalogue listed and pass the precheck, read
// from a read-only open that replays the log in memory and writes nothing, deletes nothing.
void check_before_opening(const DatabaseOptions& options, const rocksdb::DBOptions& db_options,
                          const rocksdb::ColumnFamilyOptions& default_family) {
  if (!std::filesystem::exists(options.path / "CURRENT")) return;
  std::vector<std::string> present;
  const auto listed = rocksdb::DB::ListColumnFamilies(db_options, options.path.string(), &present);
  if (!listed.ok()) throw damaged(options, listed.ToString());
  for (const auto& name : options.required_families) {
    if (std::find(present.begin(), present.end(), name) == present.end()) {
      throw damaged(options, "column family '" + name + "' is missing from its MANIFEST");
    }
  }
  if (!options.precheck) return;
  std::vector<rocksdb::ColumnFamilyDescriptor> meta_only{
      {rocksdb::kDefaultColumnFamilyName, default_family}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* reader = nullptr;
  const auto opened =
      rocksdb::DB::OpenForReadOnly(db_options, options.path.string(), meta_only, &handles, &reader);
  if (!opened.ok()) throw damaged(options, opened.ToString());
  const std::unique_ptr<rocksdb::DB> read_only(reader);
  std::string value;
  const auto got =
      reader->Get(rocksdb::ReadOptions(), handles.front(), options.precheck_key, &value);
  for (auto* handle : handles)
    reader->DestroyColumnFamilyHandle(handle);
  if (!got.ok() && !got.IsNotFound()) throw damaged(options, got.ToString());
  options.precheck(got.ok() ? std::optional<std::string>(value) : std::nullopt);
}

}  // namespace

Database::Database(const DatabaseOptions& options)
    : term_filters_(options.filter_cache_mb << 20),
      value_rows_(options.value_cache_mb << 20),
      pages_(options.page_cache_mb << 20) {
  const rocksdb::DBOptions db_options = db_options_of(options);
  const std::vector<rocksdb::ColumnFamilyDescriptor> families = family_descriptors(options);
  std::filesystem::create_directories(options.path);
  toolkit::remove_empty_rocksdb_logs(options.path);
  check_before_opening(options, db_options, families.front().options);
  rocksdb::DB* raw = nullptr;
  const auto status =
      rocksdb::DB::Open(db_options, options.path.string(), families, &handles_, &raw);
  if (status.IsCorruption()) throw damaged(options, status.ToString());
  if (!status.ok()) {
    throw sdk::Error::internal("cannot open the database at " + options.path.string() + ": " +
                               status.ToString());
  }
  db_.reset(raw);
  for (std::size_t i = 0; i < std::size(kFamilies); ++i)
    this->*kFamilies[i].handle = handles_[i];
}

std::vector<std::string> Database::family_names() {
  std::vector<std::string> names;
  for (const auto& family : kFamilies)
    names.emplace_back(family.name);
  return names;
}

void Database::sync() {
  // After a failed write RocksDB's log writer must not be touched again (RocksDB 7.8 asserts on
  // it) until a write succeeds once more; until then there is nothing new to sync.
  if (failure_.failing()) {
    throw sdk::Error::unavailable("storage is unavailable (log sync): a write failed before", 5);
  }
  check(db_->FlushWAL(true), "log sync");
}

Database::~Database() {
  if (!db_) return;
  if (!failure_.failing()) db_->FlushWAL(true);  // see sync()
  for (auto* handle : handles_)
    db_->DestroyColumnFamilyHandle(handle);
  db_->Close();
}

namespace {

// Whether a batch writes to one column family: read up to its first entry there.
class FamilyWrites final : public rocksdb::WriteBatch::Handler {
 public:
  explicit FamilyWrites(std::uint32_t family) : family_(family) {}
  bool found() const { return found_; }

  rocksdb::Status PutCF(std::uint32_t family, const rocksdb::Slice& /*key*/,
                        const rocksdb::Slice& /*value*/) override {
    return seen(family);
  }
  rocksdb::Status DeleteCF(std::uint32_t family, const rocksdb::Slice& /*key*/) override {
    return seen(family);
  }
  rocksdb::Status SingleDeleteCF(std::uint32_t family, const rocksdb::Slice& /*key*/) override {
    return seen(family);
  }
  rocksdb::Status DeleteRangeCF(std::uint32_t family, const rocksdb::Slice& /*begin*/,
                                const rocksdb::Slice& /*end*/) override {
    return seen(family);
  }
  rocksdb::Status MergeCF(std::uint32_t family, const rocksdb::Slice& /*key*/,
                          const rocksdb::Slice& /*value*/) override {
    return seen(family);
  }
  bool Continue() override { return !found_; }

 private:
  rocksdb::Status seen(std::uint32_t family) {
    found_ = found_ || family == family_;
    return rocksdb::Status::OK();
  }

  std::uint32_t family_;
  bool found_ = false;
};

// Counts a write in `started` before it and in `finished` after it, if it touches `family`.
class CountedWrite {
 public:
  CountedWrite(rocksdb::WriteBatch& batch, rocksdb::ColumnFamilyHandle* family,
               std::atomic<std::uint64_t>& started, std::atomic<std::uint64_t>& finished)
      : finished_(touches(batch, family) ? &finished : nullptr) {
    if (finished_ != nullptr) started.fetch_add(1);
  }
  ~CountedWrite() {
    if (finished_ != nullptr) finished_->fetch_add(1);
  }
  CountedWrite(const CountedWrite&) = delete;
  CountedWrite& operator=(const CountedWrite&) = delete;

 private:
  // An entry the handler cannot read counts as a write there: a reader then lists again.
  static bool touches(rocksdb::WriteBatch& batch, rocksdb::ColumnFamilyHandle* family) {
    if (family == nullptr) return false;
    FamilyWrites writes(family->GetID());
    return !batch.Iterate(&writes).ok() || writes.found();
  }

  std::atomic<std::uint64_t>* finished_;
};

}  // namespace

const rocksdb::Snapshot* Database::snapshot(std::optional<std::uint64_t>& columns_writes) {
  // Finished read before started: equal, every write begun by then had ended, and the snapshot
  // shows them all; started unchanged after it, none begun since shows in it.
  const std::uint64_t finished = columns_writes_finished_.load();
  const std::uint64_t started = columns_writes_started_.load();
  const rocksdb::Snapshot* taken = db_->GetSnapshot();
  columns_writes.reset();
  if (finished == started && columns_writes_started_.load() == started) columns_writes = started;
  return taken;
}

void Database::write(rocksdb::WriteBatch& batch, bool durable) {
  rocksdb::WriteOptions options;
  options.sync = durable;
  const CountedWrite counted(batch, columns, columns_writes_started_, columns_writes_finished_);
  const rocksdb::Status status = db_->Write(options, &batch);
  if (status.ok()) {
    failure_.succeeded();
    return;
  }
  ++write_failures_;
  try {
    check(status, "write");
  } catch (const sdk::Error& error) {
    failure_.failed(error.message());
    throw;
  }
}

std::string Database::write_problem() {
  constexpr auto kRecheckAfter = std::chrono::seconds(5);
  if (!failure_.failing() || failure_.age() < kRecheckAfter) return failure_.message();
  try {
    rocksdb::WriteBatch probe;
    probe.Put(meta, kWriteProbeKey, "");
    write(probe, true);
  } catch (const sdk::Error&) {
  }
  return failure_.message();
}

std::uint64_t Database::int_property(const std::string& name) {
  std::uint64_t value = 0;
  return db_->GetAggregatedIntProperty(name, &value) ? value : 0;
}

std::uint64_t Database::int_property(rocksdb::ColumnFamilyHandle* family, const std::string& name) {
  std::uint64_t value = 0;
  return db_->GetIntProperty(family, name, &value) ? value : 0;
}

void Database::compact_everything() {
  toolkit::compact_rocksdb_fully(*db_, handles_, "the storage database");
}

void Database::flush_read(std::uint64_t min_bytes) {
  rocksdb::FlushOptions options;
  options.wait = false;
  options.allow_write_stall = true;
  for (auto* family : {indexes, current, history, columns}) {
    // A family whose last memtable is still being flushed is left alone: a second one waiting
    // would reach max_write_buffer_number, and RocksDB stops every write until the first is out.
    std::uint64_t bytes = 0;
    std::uint64_t flushing = 0;
    if (db_->GetIntProperty(family, "rocksdb.num-immutable-mem-table", &flushing) &&
        flushing == 0 && db_->GetIntProperty(family, "rocksdb.cur-size-active-mem-table", &bytes) &&
        bytes >= min_bytes) {
      check(db_->Flush(options, family), "flush");
    }
  }
}

std::optional<std::string> Database::get(rocksdb::ColumnFamilyHandle* family,
                                         const rocksdb::Slice& key,
                                         const rocksdb::Snapshot* snapshot) {
  std::string value;
  rocksdb::ReadOptions options;
  options.snapshot = snapshot;
  const auto status = db_->Get(options, family, key, &value);
  if (status.IsNotFound()) return std::nullopt;
  check(status, "read");
  return value;
}

std::unique_ptr<rocksdb::PinnableSlice> Database::get_pinned(rocksdb::ColumnFamilyHandle* family,
                                                             const rocksdb::Slice& key,
                                                             const rocksdb::Snapshot* snapshot) {
  auto value = std::make_unique<rocksdb::PinnableSlice>();
  rocksdb::ReadOptions options;
  options.snapshot = snapshot;
  const auto status = db_->Get(options, family, key, value.get());
  if (status.IsNotFound()) return nullptr;
  check(status, "read");
  return value;
}

void Database::get_many(rocksdb::ColumnFamilyHandle* family, const std::vector<std::string>& keys,
                        std::vector<rocksdb::PinnableSlice>& values, std::vector<bool>& found,
                        const rocksdb::Snapshot* snapshot) {
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::Status> statuses(keys.size());
  values = std::vector<rocksdb::PinnableSlice>(keys.size());
  found.assign(keys.size(), false);
  rocksdb::ReadOptions options;
  options.snapshot = snapshot;
  db_->MultiGet(options, family, keys.size(), slices.data(), values.data(), statuses.data());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    check(statuses[i], "read");
    found[i] = true;
  }
}

bool Database::exists(rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key) {
  rocksdb::PinnableSlice value;
  const auto status = db_->Get(rocksdb::ReadOptions(), family, key, &value);
  if (status.IsNotFound()) return false;
  check(status, "read");
  return true;
}

std::unique_ptr<rocksdb::Iterator> Database::pinning_iterator(rocksdb::ColumnFamilyHandle* family,
                                                              const rocksdb::Slice* upper_bound,
                                                              const rocksdb::Slice* lower_bound,
                                                              const rocksdb::Snapshot* snapshot) {
  rocksdb::ReadOptions options;
  options.pin_data = true;
  return new_iterator(family, options, upper_bound, lower_bound, snapshot);
}

std::unique_ptr<rocksdb::Iterator> Database::iterator(rocksdb::ColumnFamilyHandle* family,
                                                      const rocksdb::Slice* upper_bound,
                                                      const rocksdb::Slice* lower_bound,
                                                      const rocksdb::Snapshot* snapshot,
                                                      bool fill_cache) {
  rocksdb::ReadOptions options;
  options.fill_cache = fill_cache;
  // A bulk read goes front to back through the files: it reads them 256 KiB at a time into a
  // buffer of its own, where RocksDB's own readahead cost a readahead call and a read per block.
  // (2 MiB per file read more than an export's page used: the merge opens every file at once.)
  if (!fill_cache) options.readahead_size = kBulkReadahead;
  return new_iterator(family, options, upper_bound, lower_bound, snapshot);
}

std::unique_ptr<rocksdb::Iterator> Database::new_iterator(rocksdb::ColumnFamilyHandle* family,
                                                          rocksdb::ReadOptions options,
                                                          const rocksdb::Slice* upper_bound,
                                                          const rocksdb::Slice* lower_bound,
                                                          const rocksdb::Snapshot* snapshot) {
  options.snapshot = snapshot;
  options.iterate_upper_bound = upper_bound;
  options.iterate_lower_bound = lower_bound;
  return std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(options, family));
}

}  // namespace eventsvc::plugins::rocksdb_storage
