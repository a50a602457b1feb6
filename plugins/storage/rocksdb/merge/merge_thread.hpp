// Merges column chunks (chunk_merger.hpp) on a thread of its own, so that projection rounds do not
// wait for merges: under sustained ingest a merge of large chunks used to hold the projector for
// seconds while the writes behind it waited. Each merge is read and built without holding
// anything; only its commit waits for the projection round in progress to end (`rounds`, the
// mutex a round holds), since both read and rewrite replaced rows and current_ids.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "merge/chunk_merger.hpp"
#include "store/database.hpp"
#include "eventsvc/sdk/logger.hpp"

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

 private:
  void run();
  bool merge_one();

  ChunkMerger merger_;
  sdk::Logger& logger_;
  std::mutex& rounds_;
  std::function<void()> after_merges_;
  std::mutex merging_;  // one merge at a time, from prepare to commit
  std::mutex mutex_;
  std::condition_variable wakeup_;
  bool pending_ = true;    // guarded by mutex_; a restart may have left chunks to merge
  bool stopping_ = false;  // guarded by mutex_
  std::atomic<bool> busy_{false};
  std::atomic<std::uint64_t> merges_{0};
  std::atomic<std::uint64_t> failures_{0};
  std::thread thread_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
