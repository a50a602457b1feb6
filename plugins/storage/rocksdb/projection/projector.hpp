// The projector turns accepted writes into searchable records, asynchronously (DESIGN §4):
//
//  1. One batch per round of inbox entries, in sequence order: every new version into history
//     with its indexes (the round's column chunks built on a second thread, round_chunks.hpp),
//     the latest version per id into current (replacing the older one's entries), the receipt to
//     `projecting`, the inbox entries deleted, the receipts queued for verification, the cursor
//     advanced. A version already in history is never overwritten: a different digest is a
//     conflict and the first version stays.
//  2. Verification reads every submitted (id, occurred_at) back from history and compares
//     digests: `verified` or `conflict` (with both digests), recorded in the receipt and in the
//     permanent verdict that the write's records carry.
//  3. An erasure in the inbox is a round of its own, once the writes before it are verified
//     (erasure_round.hpp); the merge thread then purges it (chunk_purge.hpp).
//
// The column chunks are merged into fewer, larger ones on a thread of their own, beside the rounds
// (merge_thread.hpp); a merge's commit waits for the round in progress.
//
// Crash-safe: each step is one atomic RocksDB batch, the inbox is deleted in the same batch that
// projects it, and the verification queue survives restarts. After a crash the projector resumes
// from its cursor.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "eventsvc/sdk/embedder.hpp"
#include "eventsvc/sdk/logger.hpp"
#include "eventsvc/sdk/metrics.hpp"
#include "eventsvc/toolkit/append_sequence.hpp"
#include "feed/change_feed.hpp"
#include "merge/chunk_merger.hpp"
#include "merge/merge_thread.hpp"
#include "projection/erasure_round.hpp"
#include "projection/record_indexer.hpp"
#include "store/database.hpp"
#include "store/erasure_formats.hpp"
#include "store/stored_formats.hpp"
#include "write/backlog.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct ProjectorOptions {
  bool enabled = true;
  std::size_t batch_writes = 128;   // accepted writes per round
  std::size_t batch_events = 4096;  // events per round
  // A key per (value, version) in history and per (token, version) in both scopes besides the
  // chunk indexes: for a database whose history predates chunk indexes, whose reads use them.
  bool version_indexes = false;
  MergePolicy merge;  // of the column chunks
};

// What the projector has done since start, for the operator's metrics.
struct ProjectorStats {
  std::atomic<std::uint64_t> rounds{0};
  std::atomic<std::uint64_t> writes{0};
  std::atomic<std::uint64_t> events{0};
  std::atomic<std::uint64_t> failed_rounds{0};
  std::atomic<std::uint64_t> verified{0};   // receipts that ended `verified`
  std::atomic<std::uint64_t> conflicts{0};  // receipts that ended `conflict`
  std::atomic<std::uint64_t> erasures{0};   // erasures carried out (or failed)
  // How many writes a second the projector takes while it has any to take: a moving average over
  // its recent rounds (0 before the first).
  std::atomic<double> writes_per_second{0};
  // From a write's acceptance to its receipt's verdict.
  sdk::Histogram verification_lag{sdk::Histogram::latency_bounds()};
};

class Projector {
 public:
  Projector(Database& database, toolkit::AppendSequence& sequence, Backlog& backlog,
            std::shared_ptr<sdk::Logger> logger, ProjectorOptions options);
  ~Projector();

  void use_embedder(const sdk::Embedder* embedder) { embedder_ = embedder; }
  // How an erasure's condition finds its versions (erasure_round.hpp); set before start().
  void use_version_finder(VersionFinder find) { find_versions_ = std::move(find); }
  // What else an erasure reaches (a durable log plugin's claims and entries), called before its
  // batch is written (were it lost, the erasure is carried out and this called again); set before
  // start().
  void on_erased(std::function<void(const std::string& tenant, const ErasedVersions&)> erased) {
    on_erased_ = std::move(erased);
  }
  // Where each round records the versions it made searchable, and whom it tells after writing
  // them (a hint, called without locks held); set before start().
  void use_feed(ChangeFeed* feed, std::function<void()> changed) {
    feed_ = feed;
    changed_ = std::move(changed);
  }
  // Called on the projector's thread at most every kCheckpointEvery, after it projected
  // something: the storage records its catalogue then.
  void on_checkpoint(std::function<void()> checkpoint) { checkpoint_ = std::move(checkpoint); }
  void start();
  void stop();
  void wake();

  // Verification can happen: the projector is enabled and its last round succeeded.
  bool available() const { return options_.enabled && healthy_.load(); }
  const ProjectorStats& stats() const { return stats_; }

  // One round; returns the writes projected. Public for tests that drive it by hand.
  std::size_t project_once();
  // Merges column chunks on the caller's thread until none are left to merge; returns how many
  // merges it made. The merge thread does this beside the rounds. Public for tests.
  std::size_t merge_chunks() { return merges_.merge_all(); }
  // Purges the erasures waiting for it on the caller's thread; returns how many it marked purged.
  // The merge thread does this after its merges. Public for tests.
  std::size_t purge_erasures() { return merges_.purge_all(); }
  // What a purge compacts besides the database (merge_thread.hpp); set before start().
  void use_purge_compaction(std::function<bool()> compact) {
    merges_.use_compaction(std::move(compact));
  }
  const MergeThread& merges() const { return merges_; }
  // Verifies up to 1,024 queued receipts; returns how many it took from the queue.
  std::size_t verify_queued();

  static std::uint64_t stored_cursor(Database& database);
  // The key of the cursor in the meta family, and its value decoded (0 when absent).
  static const std::string& cursor_key();
  static std::uint64_t decode_cursor(const std::optional<std::string>& value);

 private:
  struct Overlay;
  // An accepted write as the inbox holds it.
  struct InboxEntry {
    std::uint64_t sequence;
    std::string tenant;
    AcceptedWrite write;
    std::optional<ErasureOrder> erasure;  // set: the entry is an erasure, not a write
  };
  void run();
  // A busy round (verification and projection) took `took` for `writes`: the moving average of
  // ProjectorStats::writes_per_second takes it in.
  void note_pace(std::size_t writes, std::chrono::steady_clock::duration took);
  // The inbox's writes after the cursor and below `upper`, up to a round's batch limits; `events`
  // counts their events.
  std::vector<InboxEntry> read_inbox(std::uint64_t upper, std::size_t& events) const;
  // The receipt says projecting; the write waits in the verification queue, out of the inbox.
  void queue_for_verification(rocksdb::WriteBatch& batch, const InboxEntry& entry,
                              sdk::Millis now) const;
  // The rows the round replaced, marked in their chunks' bitmaps.
  void mark_replaced_rows(rocksdb::WriteBatch& batch, const Overlay& overlay) const;
  // Returns the versions the write stored (not those history had already).
  std::vector<std::shared_ptr<const sdk::Record>> project_write(OrderedBatch& batch,
                                                                Overlay& overlay,
                                                                const std::string& tenant,
                                                                std::uint64_t sequence,
                                                                const AcceptedWrite& write);
  // A round of one erasure (erasure_round.hpp): hidden, or failed with the reason.
  std::size_t erase_once(const InboxEntry& entry);

  Database& database_;
  toolkit::AppendSequence& sequence_;
  Backlog& backlog_;
  std::shared_ptr<sdk::Logger> logger_;
  ProjectorOptions options_;
  RecordIndexer indexer_;
  std::mutex rounds_;  // held by a round, and by a merge's commit (merge_thread.hpp)
  MergeThread merges_;
  bool written_since_flush_ = false;  // rounds wrote since the last flush_read
  std::atomic<bool> idle_{false};     // caught up, waiting for writes
  // Smaller memtables are left to fill: a flush per trickle of writes would only make small files.
  static constexpr std::uint64_t kFlushBytes = 4U << 20U;
  const sdk::Embedder* embedder_ = nullptr;
  VersionFinder find_versions_;
  std::function<void(const std::string& tenant, const ErasedVersions&)> on_erased_;
  std::function<void()> checkpoint_;
  ChangeFeed* feed_ = nullptr;
  std::function<void()> changed_;
  static constexpr std::chrono::seconds kCheckpointEvery{10};
  std::chrono::steady_clock::time_point last_checkpoint_ = std::chrono::steady_clock::now();
  bool projected_since_checkpoint_ = false;

  std::uint64_t cursor_ = 0;
  std::string verify_from_;  // the verification queue's key to read on from (empty: the first)
  std::atomic<bool> healthy_{true};
  ProjectorStats stats_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wakeup_;
  bool pending_wake_ = false;
  std::thread thread_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
