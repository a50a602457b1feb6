// Merges column chunks (chunk_merger.hpp) on a thread of its own, so that projection rounds do not
// wait for merges: under sustained ingest a merge of large chunks used to hold the projector for
// seconds while the writes behind it waited. Each merge is read and built without holding
// anything, on a thread of lower priority (background_thread.hpp); only its commit, made here at
// normal priority, waits for the projection round in progress to end (`rounds`, the mutex a round
// holds), since both read and rewrite replaced rows (and a purge, current_ids).
//
// After the merges it purges what erasures hid (chunk_purge.hpp): it rebuilds every chunk with
// erased rows, then compacts (`compact`: every table file and write-ahead log written again
// without what was deleted) and marks the erasures waiting since before it started purged.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "eventsvc/sdk/logger.hpp"
#include "merge/background_thread.hpp"
#include "merge/chunk_merger.hpp"
#include "store/database.hpp"
#include "store/thread_priority.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class MergeThread {
 public:
  // `after_merges`: called on the thread after it merged something and found nothing left.
  MergeThread(Database& database, MergePolicy policy, sdk::Logger& logger, std::mutex& rounds,
              std::function<void()> after_merges);
  ~MergeThread();
  MergeThread(const MergeThread&) = delete;
  MergeThread& operator=(const MergeThread&) = delete;

  void start();
  void stop();
  // New chunks were written: there may be a run to merge.
  void wake();
  // Merging, or woken to look for a run.
  bool busy() const { return busy_.load(); }
  // Merges committed, and attempts that failed (each logged, then retried), since start.
  std::uint64_t merges() const { return merges_.load(); }
  std::uint64_t failures() const { return failures_.load(); }

  // Merges on the caller's thread until no run is left; returns how many merges it made. For
  // tests, and safe beside the thread.
  std::size_t merge_all();
  // An erasure was hidden: purge it after the next merges.
  void request_purge();
  // Purges every erasure waiting for it, on the caller's thread (the thread does this after its
  // merges when one was requested, and at start); returns how many erasures it marked purged. For
  // tests, and safe beside the thread.
  std::size_t purge_all();
  // What makes deleted bytes leave the files: the database's compaction by default; the storage
  // adds its durable log's. False when they cannot leave yet: the purge is tried again a minute
  // later. Set before start().
  void use_compaction(std::function<bool()> compact) { compact_ = std::move(compact); }
  std::uint64_t purges() const { return purges_.load(); }

 private:
  void run();
  bool merge_one();
  bool purge_one();

  Database& database_;
  ChunkMerger merger_;
  std::function<bool()> compact_;
  sdk::Logger& logger_;
  std::mutex& rounds_;
  std::function<void()> after_merges_;
  std::mutex merging_;  // one merge at a time, from prepare to commit
  // Where merges and purges are prepared: below the priority of projection, ingest and reads.
  BackgroundThread preparing_{kBackgroundNice};
  std::mutex mutex_;
  std::condition_variable wakeup_;
  bool pending_ = true;    // guarded by mutex_; a restart may have left chunks to merge
  bool purge_due_ = true;  // guarded by mutex_; a restart may have left erasures to purge
  bool stopping_ = false;  // guarded by mutex_
  std::atomic<bool> busy_{false};
  std::atomic<std::uint64_t> merges_{0};
  std::atomic<std::uint64_t> failures_{0};
  std::atomic<std::uint64_t> purges_{0};  // chunks rebuilt without their erased rows
  std::thread thread_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
