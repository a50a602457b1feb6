#include "merge/merge_thread.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "eventsvc/toolkit/time.hpp"
#include "merge/chunk_purge.hpp"

namespace eventsvc::plugins::rocksdb_storage {

MergeThread::MergeThread(Database& database, MergePolicy policy, sdk::Logger& logger,
                         std::mutex& rounds, std::function<void()> after_merges)
    : database_(database),
      merger_(database, policy, &logger),
      compact_([&database] {
        database.compact_everything();
        return true;
      }),
      logger_(logger),
      rounds_(rounds),
      after_merges_(std::move(after_merges)) {}

MergeThread::~MergeThread() {
  stop();
}

void MergeThread::start() {
  if (thread_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { run(); });
}

void MergeThread::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wakeup_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void MergeThread::request_purge() {
  {
    const std::lock_guard lock(mutex_);
    purge_due_ = true;
  }
  wake();
}

void MergeThread::wake() {
  {
    const std::lock_guard lock(mutex_);
    pending_ = true;
  }
  busy_ = true;
  wakeup_.notify_one();
}

bool MergeThread::merge_one() {
  const std::lock_guard merging(merging_);
  auto merge = preparing_.run([this] { return merger_.prepare(); });
  if (!merge) return false;
  const std::lock_guard round(rounds_);
  merger_.commit(*merge);
  ++merges_;
  return true;
}

bool MergeThread::purge_one() {
  const std::lock_guard merging(merging_);
  auto purge = preparing_.run([this] { return merger_.prepare_purge(); });
  if (!purge) return false;
  const std::lock_guard round(rounds_);
  merger_.commit(*purge);
  ++purges_;
  return true;
}

std::size_t MergeThread::purge_all() {
  // The erasures listed before the chunks are rebuilt: each had its rows masked by then.
  const auto pending = pending_purges(database_);
  if (pending.empty()) return 0;
  logger_.log(sdk::LogLevel::debug, "purging " + std::to_string(pending.size()) +
                                        (pending.size() == 1 ? " erasure" : " erasures"));
  while (purge_one()) {
    const std::lock_guard stopping(mutex_);
    if (stopping_) return 0;
  }
  if (!compact_()) return 0;
  mark_purged(database_, pending, toolkit::now_millis());
  logger_.info("purged " + std::to_string(pending.size()) +
               (pending.size() == 1 ? " erasure" : " erasures"));
  return pending.size();
}

std::size_t MergeThread::merge_all() {
  std::size_t merges = 0;
  while (merge_one())
    ++merges;
  return merges;
}

void MergeThread::run() {
  auto backoff = std::chrono::milliseconds(100);
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!pending_) {
      busy_ = false;
      if (purge_due_) {  // a purge that could not finish is tried again a minute later
        if (!wakeup_.wait_for(lock, std::chrono::minutes(1),
                              [&] { return pending_ || stopping_; })) {
          pending_ = true;
        }
      } else {
        wakeup_.wait(lock, [&] { return pending_ || stopping_; });
      }
      continue;
    }
    pending_ = false;
    const bool purge = std::exchange(purge_due_, false);
    busy_ = true;
    lock.unlock();
    try {
      std::size_t merged = 0;
      // Rounds keep writing chunks meanwhile; a wake() during the loop asks for one more look.
      while (merge_one()) {
        ++merged;
        const std::lock_guard stopping(mutex_);
        if (stopping_) break;
      }
      if (merged > 0 && after_merges_) after_merges_();
      if (purge) {
        purge_all();
        const bool left = !pending_purges(database_).empty();
        const std::lock_guard again(mutex_);
        purge_due_ = purge_due_ || left;
      }
      backoff = std::chrono::milliseconds(100);
      lock.lock();
    } catch (const std::exception& error) {
      ++failures_;
      logger_.error(std::string("merging column chunks failed, will retry: ") + error.what());
      lock.lock();
      pending_ = true;
      wakeup_.wait_for(lock, backoff, [&] { return stopping_; });
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
    }
  }
  busy_ = false;
}

}  // namespace eventsvc::plugins::rocksdb_storage
