// The durable log of a cluster of eventsvc servers, kept in PostgreSQL: the source of truth that
// every server's local engine is a projection of.
//
// A write is accepted in one transaction: a transaction-scoped advisory lock on its idempotency
// key (held by another server: 409), the key's completed answer (replayed), the claims of its
// (id, digest) pairs (duplicates), the log entry and the answer. The 202 is sent only after the
// COMMIT returned, which with synchronous replication means a standby has it too.
//
// Log order: entries are read in (transaction id, position) order, only below the oldest
// transaction still running (pg_snapshot_xmin of the current snapshot). No entry can appear later
// below that horizon, so a reader that has seen everything up to a cursor never misses one that
// commits after it, whatever order concurrent transactions commit in.
//
// Each server records how far it has projected and verified (eventsvc_hosts); a receipt is
// verified only when every server seen recently has verified past its entry.
#pragma once

#include <atomic>
#include <chrono>
#include <compare>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "eventsvc/sdk/logger.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "log/pg_session.hpp"
#include "write/prepared_write.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// A place in the log: after every entry at or before it.
struct LogCursor {
  std::uint64_t xid = 0;
  std::int64_t position = 0;
  auto operator<=>(const LogCursor&) const = default;
};

std::string encode_log_cursor(const LogCursor& cursor);
LogCursor decode_log_cursor(std::string_view bytes);  // the zero cursor when empty
inline constexpr std::size_t kCursorBytes = 16;       // of an encoded cursor

struct LogEntry {
  LogCursor cursor;
  std::string tenant;  // the tenant's key prefix
  std::string receipt_id;
  std::string write;    // encoded AcceptedWrite
  std::string receipt;  // encoded StoredReceipt (state accepted)
};

struct PostgresLogOptions {
  std::string conninfo;
  std::string host_id;                    // this server's name among the servers of the log
  std::chrono::seconds host_timeout{10};  // a server not seen for this long holds nothing back
};

class PostgresLog {
 public:
  PostgresLog(PostgresLogOptions options, std::shared_ptr<sdk::Logger> logger);
  ~PostgresLog();

  // Creates the tables when they do not exist (several servers may start at once), once per
  // process: every other call does it first. Throws PgError.
  void ensure_schema();

  // The write made durable in the log, or the key's original answer. Throws sdk::Error: 409 while
  // another request holds the key, 503 when PostgreSQL cannot take it (nothing acknowledged).
  // `verification_available`: this server's projector runs (the 202 says `pending`, else
  // `unavailable`).
  sdk::AcceptResult accept(const sdk::IncomingWrite& write, const sdk::ReceiptRenderer& render,
                           bool verification_available);

  // Entries after `after`, in log order, at most `limit`. Throws PgError.
  std::vector<LogEntry> read_after(const LogCursor& after, std::size_t limit);
  // Waits up to `timeout_ms` for news of an accepted write (LISTEN). Throws PgError.
  bool wait_for_writes(int timeout_ms);

  // The log entry of a receipt (without its write), or nullopt. Throws PgError.
  std::optional<LogEntry> find_receipt(std::string_view tenant, std::string_view receipt_id);
  // This server has verified everything up to `verified`; it is alive. Throws PgError.
  void publish(const LogCursor& verified);
  // Whether some server seen within host_timeout has not verified up to `cursor`. Throws PgError.
  bool held_back(const LogCursor& cursor);
  // Drops idempotency answers older than `before_ms`. Throws PgError.
  void expire_answers(sdk::Millis before_ms);

  const std::string& host_id() const { return options_.host_id; }

 private:
  std::unique_ptr<PgSession> borrow();
  void give_back(std::unique_ptr<PgSession> session);
  // Runs `use(session)` on a pooled session and returns what it returns; a session that failed
  // is dropped, not pooled.
  template <class Use>
  auto with_session(Use&& use);
  sdk::AcceptResult accept_in(PgSession& session, const sdk::IncomingWrite& write,
                              const sdk::ReceiptRenderer& render, bool verification_available);

  PostgresLogOptions options_;
  std::shared_ptr<sdk::Logger> logger_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<PgSession>> idle_;
  std::unique_ptr<PgSession> listener_;  // the follower's, LISTENing
  std::atomic<bool> schema_ready_{false};
};

}  // namespace eventsvc::plugins::rocksdb_storage
