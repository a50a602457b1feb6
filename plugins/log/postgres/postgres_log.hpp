// The durable log of a cluster of eventsvc servers, kept in PostgreSQL: the source of truth that
// every server's storage engine is a projection of (sdk/durable_log.hpp says what a log
// guarantees).
//
// An append is one transaction: a transaction-scoped advisory lock on its idempotency key (held
// by another server: 409), the key's completed answer (replayed), the claims of its events
// (duplicates), the log entry and the answer. It returns only after the COMMIT returned, which
// with synchronous replication means a standby has it too.
//
// Log order: entries are read in (transaction id, position) order, only below the oldest
// transaction still running (pg_snapshot_xmin of the current snapshot). No entry can appear later
// below that horizon, so a reader that has seen everything up to a position never misses one that
// commits after it, whatever order concurrent transactions commit in. A position is the entry's
// (xid, position) as two big-endian 64-bit numbers.
//
// Each server records how far it has verified (eventsvc_hosts); a position is held back while a
// server seen within host_timeout_s has not verified past it.
//
// Trimming: at most every minute, a server's publish deletes the entries every server seen within
// host_timeout_s has verified that are older than keep_entries_s, oldest first in batches, one
// server at a time, and records the newest deleted (eventsvc_log_trimmed). A reader whose position
// is before it is refused with Error 500 instead of being handed the entries after the gap: such a
// server starts from a backup of another.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "eventsvc/sdk/durable_log.hpp"
#include "pg_session.hpp"

namespace eventsvc::plugins::log {

class PostgresLog final : public sdk::DurableLog {
 public:
  static constexpr std::string_view kName = "postgres";
  static const sdk::PluginInfo kInfo;  // with its config table, in postgres_log.cpp
  explicit PostgresLog(const sdk::PluginContext& context);
  ~PostgresLog() override;

  std::size_t position_size() const override { return 16; }
  sdk::AcceptResult append(const sdk::LogAppend& append) override;
  std::vector<sdk::LogEntry> read_after(const sdk::LogPosition& after, std::size_t limit) override;
  bool wait_for_appends(int timeout_ms) override;
  std::optional<sdk::LogEntry> find_receipt(std::string_view tenant,
                                            std::string_view receipt_id) override;
  void publish(const sdk::LogPosition& verified) override;
  bool held_back(const sdk::LogPosition& position) override;
  void expire_answers(sdk::Millis before) override;
  void release_claims(const std::vector<std::string>& claims) override;
  void scrub_entries(std::string_view tenant, const std::vector<std::string>& receipt_ids,
                     const EntryScrub& scrub) override;
  // VACUUM (or VACUUM FULL, with vacuum_full) of the tables an erasure rewrote or deleted from.
  bool purge_deleted() override;
  // Entries this server trimmed.
  void report_metrics(sdk::MetricsSink& sink) override;

 private:
  // Creates the tables when they do not exist (several servers may start at once), once per
  // process: every other call does it first. Throws PgError.
  void ensure_schema();
  std::unique_ptr<PgSession> borrow();
  void give_back(std::unique_ptr<PgSession> session);
  // Runs `use(session)` on a pooled session and returns what it returns; a session that failed
  // is dropped, not pooled. A PgError becomes Error 503.
  template <class Use>
  auto with_session(Use&& use);
  sdk::AcceptResult append_in(PgSession& session, const sdk::LogAppend& append);
  // Trims what every live server has verified and keep_entries_s has passed, when it is time.
  void trim();

  std::string conninfo_;
  std::string host_id_;                // this server's name among the servers of the log
  std::chrono::seconds host_timeout_;  // a server not seen for this long holds nothing back
  std::chrono::seconds keep_entries_;  // verified entries are trimmed once this old
  bool vacuum_full_;                   // an erasure's purge rewrites the tables
  std::chrono::steady_clock::time_point next_trim_{};  // the follower's thread only
  std::atomic<std::uint64_t> trimmed_{0};
  std::shared_ptr<sdk::Logger> logger_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<PgSession>> idle_;
  std::unique_ptr<PgSession> listener_;  // the follower's, LISTENing
  std::atomic<bool> schema_ready_{false};
};

}  // namespace eventsvc::plugins::log
