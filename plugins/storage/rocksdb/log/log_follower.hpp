// Keeps this server's local engine a copy of a durable log plugin's log (sdk/durable_log.hpp):
// reads the entries after its position, in log order, and puts each into the local inbox with its
// receipt (the projector takes it from there), the cursor advanced in the same RocksDB batch, so a
// crash resumes exactly where the copy ended. Each entry leaves a marker until its receipt is final
// here; the cursor below every marker is what this server has verified, published to the log for
// receipts across servers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "eventsvc/sdk/durable_log.hpp"
#include "eventsvc/sdk/logger.hpp"
#include "eventsvc/toolkit/append_sequence.hpp"
#include "store/database.hpp"
#include "write/backlog.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class LogFollower {
 public:
  // `projecting()`: this server's projector runs. While it does not, the server stops reporting
  // itself to the log, so that after host_timeout it no longer holds receipts back.
  LogFollower(sdk::DurableLog& log, Database& database, toolkit::AppendSequence& sequence,
              Backlog& backlog, std::function<void()> wake_projector,
              std::function<bool()> projecting, std::shared_ptr<sdk::Logger> logger,
              std::size_t batch);
  ~LogFollower();

  void start();
  void stop();

  // Whether this database has copied entries of a durable log plugin.
  static bool followed_a_log(Database& database);
  // The log position of the entry copied into the inbox as `sequence`, while its receipt is not
  // final here; nullopt for a write this server's own inbox accepted.
  static std::optional<sdk::LogPosition> position_of(Database& database, std::uint64_t sequence,
                                                     std::string_view tenant,
                                                     std::string_view receipt_id);

  // The copy has reached the end of the log at least once since start.
  bool caught_up() const { return caught_up_.load(); }
  // Why the log cannot be followed now; empty while it can.
  std::string problem() const;
  // The problem will not go away by itself: the log refused this copy (trimmed past it).
  bool problem_lasts() const { return lasting_.load(); }
  sdk::LogPosition applied() const;
  // Waits up to `timeout` until the log has been told that every entry copied so far is verified
  // here (so that a log that forgets verified entries has forgotten them); false when it has not,
  // at once once the follower stops.
  bool await_published(std::chrono::milliseconds timeout) const;
  // Entries copied since the start.
  std::uint64_t copied() const { return copied_.load(); }

  // One batch of entries copied; returns how many. Public for tests. Throws sdk::Error (503).
  std::size_t follow_once();
  // Drops the markers of entries whose receipts are final and publishes the verified cursor.
  // Public for tests. Throws sdk::Error (503).
  void publish_progress();

 private:
  void run();
  void set_problem(const std::string& problem);

  sdk::DurableLog& log_;
  Database& database_;
  toolkit::AppendSequence& sequence_;
  Backlog& backlog_;
  std::function<void()> wake_projector_;
  std::function<bool()> projecting_;
  std::shared_ptr<sdk::Logger> logger_;
  const std::size_t batch_;

  mutable std::mutex mutex_;
  sdk::LogPosition applied_;    // guarded by mutex_
  sdk::LogPosition verified_;   // every entry up to it is final here; the follower's thread only
  sdk::LogPosition published_;  // the last position published, made durable here first; ditto
  sdk::LogPosition handed_;     // the last position the log took from publish(); guarded by mutex_
  std::string problem_;
  std::atomic<bool> caught_up_{false};
  std::atomic<std::uint64_t> copied_{0};
  std::atomic<bool> lasting_{false};
  std::atomic<bool> stopping_{false};
  std::condition_variable wakeup_;
  mutable std::condition_variable handed_over_;  // handed_ moved on
  std::thread thread_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
