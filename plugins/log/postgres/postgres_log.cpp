#include "postgres_log.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_set>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/metrics.hpp"
#include "eventsvc/toolkit/big_endian.hpp"
#include "eventsvc/toolkit/hex.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::plugins::log {

namespace {

constexpr std::string_view kSchema[] = {
    R"sql(CREATE TABLE IF NOT EXISTS eventsvc_log (
  position bigserial PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  tenant bytea NOT NULL,
  receipt_id bytea NOT NULL,
  created_at bigint NOT NULL,
  write bytea NOT NULL,
  receipt bytea NOT NULL))sql",
    "CREATE INDEX IF NOT EXISTS eventsvc_log_order ON eventsvc_log (xid, position)",
    "CREATE UNIQUE INDEX IF NOT EXISTS eventsvc_log_receipt ON eventsvc_log (tenant, receipt_id)",
    // Trimming finds the oldest entries without reading a day of younger ones.
    "CREATE INDEX IF NOT EXISTS eventsvc_log_created ON eventsvc_log (created_at)",
    R"sql(CREATE TABLE IF NOT EXISTS eventsvc_answers (
  tenant bytea NOT NULL,
  idempotency_key bytea NOT NULL,
  created_at bigint NOT NULL,
  body bytea NOT NULL,
  PRIMARY KEY (tenant, idempotency_key)))sql",
    "CREATE TABLE IF NOT EXISTS eventsvc_digests (key bytea PRIMARY KEY)",
    R"sql(CREATE TABLE IF NOT EXISTS eventsvc_hosts (
  host text PRIMARY KEY,
  verified_xid xid8 NOT NULL,
  verified_position bigint NOT NULL,
  seen_at timestamptz NOT NULL))sql",
    // The newest entry trimmed: a server whose copy ends before it cannot catch up from the log.
    R"sql(CREATE TABLE IF NOT EXISTS eventsvc_log_trimmed (
  id int PRIMARY KEY CHECK (id = 1),
  xid xid8 NOT NULL,
  position bigint NOT NULL))sql",
};

// Entries every live server has verified, older than the keep window, go (the oldest first, at most
// kTrimBatch a statement); the newest of them is remembered.
constexpr const char* kTrim = R"sql(WITH horizon AS (
  SELECT verified_xid, verified_position FROM eventsvc_hosts
  WHERE seen_at > now() - make_interval(secs => $1)
  ORDER BY verified_xid, verified_position LIMIT 1),
doomed AS (
  SELECT l.ctid FROM eventsvc_log l, horizon h
  WHERE l.created_at < $2 AND (l.xid, l.position) <= (h.verified_xid, h.verified_position)
  ORDER BY l.created_at LIMIT $3),
gone AS (
  DELETE FROM eventsvc_log WHERE ctid IN (SELECT ctid FROM doomed) RETURNING xid, position),
newest AS (SELECT xid, position FROM gone ORDER BY xid DESC, position DESC LIMIT 1),
noted AS (
  INSERT INTO eventsvc_log_trimmed (id, xid, position) SELECT 1, xid, position FROM newest
  ON CONFLICT (id) DO UPDATE SET xid = EXCLUDED.xid, position = EXCLUDED.position
  WHERE (eventsvc_log_trimmed.xid, eventsvc_log_trimmed.position) < (EXCLUDED.xid, EXCLUDED.position))
SELECT count(*) FROM gone)sql";

// Any numbers, as long as every server takes the same ones: to create the tables, and to trim
// (one server at a time: the others skip their turn rather than wait on its row locks).
constexpr std::int64_t kSchemaLock = 0x6576656e74737663;  // "eventsvc"
constexpr std::int64_t kTrimLock = 0x6576656e7474726d;    // "eventtrm"
constexpr std::int64_t kTrimBatch = 10000;
constexpr int kTrimBatchesAtMost = 100;  // a turn; the next one goes on

// The advisory lock of an idempotency key: 64 bits of its SHA-256. Two keys that share them only
// wait for each other, which is harmless.
std::int64_t lock_of(std::string_view tenant, std::string_view key) {
  std::string text(tenant);
  text.push_back('\0');
  text += key;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::int64_t lock = 0;
  std::memcpy(&lock, digest, sizeof(lock));
  return lock;
}

// A bytea[] literal for a text parameter: {"\\x00ff",...}.
std::string bytea_array(const std::vector<std::string>& values) {
  std::string text = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += i == 0 ? "\"\\\\x" : ",\"\\\\x";
    text += toolkit::hex_of(values[i]);
    text.push_back('"');
  }
  text.push_back('}');
  return text;
}

constexpr sdk::ConfigKey kConfig[] = {
    sdk::ConfigKey::string("conninfo", "libpq connection string of the shared log").mandatory(),
    sdk::ConfigKey::string("host_id", "This server's name among the servers of the shared log")
        .mandatory(),
    sdk::ConfigKey::integer("host_timeout_s",
                            "A server not heard from for this long no longer holds receipts back")
        .defaults_to("10")
        .at_least(1)
        .at_most(3600),
    sdk::ConfigKey::integer("keep_entries_s",
                            "Entries every live server has verified are trimmed once this old; a "
                            "server restored from a backup older than this cannot catch up")
        .defaults_to("86400")
        .at_least(1)
        .at_most(315360000),
    sdk::ConfigKey::boolean("vacuum_full",
                            "An erasure's purge rewrites the log's tables (VACUUM FULL: appends "
                            "wait meanwhile) instead of vacuuming them, so that no table file "
                            "keeps the bytes of what it erased in freed space")
        .defaults_to("false"),
};

// How often a server trims: every minute, or as often as entries may go.
constexpr std::chrono::seconds kTrimAtMostEvery{60};

// A place in the log: after every entry at or before it.
struct Cursor {
  std::uint64_t xid = 0;
  std::int64_t position = 0;
};

sdk::LogPosition position_of(std::uint64_t xid, std::int64_t position) {
  std::string bytes;
  toolkit::append_big_endian(bytes, xid);
  toolkit::append_big_endian(bytes, static_cast<std::uint64_t>(position));
  return bytes;
}

// The zero cursor (before every entry) for the empty position.
Cursor cursor_of(std::string_view position) {
  if (position.size() < 16) return {};
  return {toolkit::read_big_endian(position),
          static_cast<std::int64_t>(toolkit::read_big_endian(position.substr(8)))};
}

PgParam xid_param(std::uint64_t xid) {
  return PgParam::text(std::to_string(xid));
}

// Throws Error 500 when entries after `from` were trimmed: the reader would miss them.
void refuse_trimmed(PgSession& session, const Cursor& from) {
  const auto trimmed = session.exec(
      "SELECT count(*) FROM eventsvc_log_trimmed WHERE (xid, position) > ($1::text::xid8, $2)",
      {xid_param(from.xid), PgParam::int8(from.position)});
  if (trimmed.int8(0, 0) == 0) return;
  throw sdk::Error::internal(
      "this server's copy ends before entries trimmed from the shared log (every live server had "
      "them, and they were older than keep_entries_s): restore it from a backup of a server of "
      "the cluster taken within keep_entries_s (eventsvc backup / eventsvc restore)");
}

[[noreturn]] void unavailable(const PgError& error, std::shared_ptr<sdk::Logger>& logger) {
  logger->warning("the durable log refused a write: " + std::string(error.what()));
  if (error.connection_lost()) {
    throw sdk::Error::unavailable(
        "the durable log cannot be reached; retry with the same Idempotency-Key", 1);
  }
  throw sdk::Error::unavailable(
      "the durable log could not take the write; retry with the same Idempotency-Key", 1);
}

// Any call but an append that PostgreSQL could not answer.
[[noreturn]] void unreachable(const PgError& error) {
  throw sdk::Error::unavailable("the durable log cannot be reached: " + std::string(error.what()),
                                1);
}

// Rolls back what is under way; the session is dropped when even that fails.
void roll_back(std::unique_ptr<PgSession>& session) {
  try {
    session->exec("ROLLBACK");
  } catch (const PgError&) {
    session.reset();
  }
}

}  // namespace

const sdk::PluginInfo PostgresLog::kInfo{
    "1.0.0", "The durable log of a cluster in PostgreSQL, shared by every server", kConfig};

PostgresLog::PostgresLog(const sdk::PluginContext& context)
    : conninfo_(context.config.get_string("conninfo")),
      host_id_(context.config.get_string("host_id")),
      host_timeout_(context.config.get_int("host_timeout_s")),
      keep_entries_(context.config.get_int("keep_entries_s")),
      vacuum_full_(context.config.get_bool("vacuum_full")),
      logger_(context.logger) {
  if (conninfo_.empty()) {
    context.config.fail("conninfo",
                        "name the PostgreSQL database of the shared log, e.g. "
                        "\"host=10.0.0.5 dbname=eventsvc user=eventsvc\"");
  }
  if (host_id_.empty()) {
    context.config.fail("host_id", "name this server among the servers of the shared log");
  }
}

PostgresLog::~PostgresLog() = default;

void PostgresLog::ensure_schema() {
  if (schema_ready_.load()) return;
  PgSession session(conninfo_);
  session.exec("BEGIN");
  session.exec("SELECT pg_advisory_xact_lock($1)", {PgParam::int8(kSchemaLock)});
  for (const auto statement : kSchema)
    session.exec(statement);
  session.exec("COMMIT");
  schema_ready_ = true;
}

std::unique_ptr<PgSession> PostgresLog::borrow() {
  {
    const std::lock_guard lock(mutex_);
    while (!idle_.empty()) {
      auto session = std::move(idle_.back());
      idle_.pop_back();
      if (session->good()) return session;
    }
  }
  return std::make_unique<PgSession>(conninfo_);
}

void PostgresLog::give_back(std::unique_ptr<PgSession> session) {
  if (!session || !session->good()) return;
  const std::lock_guard lock(mutex_);
  if (idle_.size() < 16) idle_.push_back(std::move(session));
}

sdk::AcceptResult PostgresLog::append(const sdk::LogAppend& append) {
  std::unique_ptr<PgSession> session;
  try {
    ensure_schema();
    session = borrow();
  } catch (const PgError& error) {
    unavailable(error, logger_);
  }
  try {
    auto result = append_in(*session, append);
    give_back(std::move(session));
    return result;
  } catch (const sdk::Error&) {
    roll_back(session);
    give_back(std::move(session));
    throw;
  } catch (const PgError& error) {
    // A COMMIT whose answer was lost may have committed: the client's retry with the same key
    // finds out (its answer is replayed, or the write is made then).
    if (!error.connection_lost()) roll_back(session);
    give_back(std::move(session));
    unavailable(error, logger_);
  }
}

sdk::AcceptResult PostgresLog::append_in(PgSession& session, const sdk::LogAppend& append) {
  const auto tenant = PgParam::bytes(append.tenant);
  const auto key = PgParam::bytes(append.idempotency_key);
  session.exec("BEGIN");
  const auto locked = session.exec("SELECT pg_try_advisory_xact_lock($1)",
                                   {PgParam::int8(lock_of(append.tenant, append.idempotency_key))});
  if (!locked.boolean(0, 0)) {
    throw sdk::Error::conflict(
        "a write with this Idempotency-Key is still being processed; retry after Retry-After "
        "seconds",
        1);
  }
  // Read after the lock is held: a write of this key that committed meanwhile is seen.
  const auto answer = session.exec(
      "SELECT created_at, body FROM eventsvc_answers "
      "WHERE tenant = $1 AND idempotency_key = $2",
      {tenant, key});
  if (answer.rows() == 1 && answer.int8(0, 0) > append.replay_after) {
    session.exec("ROLLBACK");
    return {std::string(answer.bytes(0, 1)), true};
  }

  // Claims: a key already in the log, or earlier in this append, is a duplicate. They are claimed
  // in one order by every server, so two appends that share events wait for each other instead of
  // deadlocking.
  std::vector<std::string> claims = append.claims;
  std::sort(claims.begin(), claims.end());
  claims.erase(std::unique(claims.begin(), claims.end()), claims.end());
  const auto claimed = session.exec(
      "INSERT INTO eventsvc_digests (key) SELECT unnest($1::text::bytea[]) "
      "ON CONFLICT DO NOTHING RETURNING key",
      {PgParam::text(bytea_array(claims))});
  std::unordered_set<std::string_view> fresh;
  for (int row = 0; row < claimed.rows(); ++row)
    fresh.insert(claimed.bytes(row, 0));
  std::vector<bool> duplicate(append.claims.size());
  std::unordered_set<std::string_view> earlier;
  for (std::size_t i = 0; i < append.claims.size(); ++i) {
    duplicate[i] = !earlier.insert(append.claims[i]).second || !fresh.contains(append.claims[i]);
  }

  const sdk::LogRecord record = append.record(duplicate);
  session.exec(
      "INSERT INTO eventsvc_log (tenant, receipt_id, created_at, write, receipt) "
      "VALUES ($1, $2, $3, $4, $5)",
      {tenant, PgParam::bytes(append.receipt_id), PgParam::int8(append.received_at),
       PgParam::bytes(record.write), PgParam::bytes(record.receipt)});
  session.exec(
      "INSERT INTO eventsvc_answers (tenant, idempotency_key, created_at, body) "
      "VALUES ($1, $2, $3, $4) ON CONFLICT (tenant, idempotency_key) "
      "DO UPDATE SET created_at = EXCLUDED.created_at, body = EXCLUDED.body",
      {tenant, key, PgParam::int8(append.received_at), PgParam::bytes(record.body)});
  session.exec("COMMIT");
  // After the commit, and for nothing more than waking the followers sooner (they also look every
  // 100 ms): a NOTIFY inside the transaction would make every commit of the cluster wait for the
  // one before it (PostgreSQL orders notifying commits under one lock).
  try {
    session.exec("SELECT pg_notify('eventsvc_log', '')");
  } catch (const PgError&) {
    // The write is committed; a follower finds it at its next look.
  }
  return {record.body, false};
}

template <class Use>
auto PostgresLog::with_session(Use&& use) {
  try {
    ensure_schema();
    auto session = borrow();
    auto result = use(*session);
    give_back(std::move(session));
    return result;
  } catch (const PgError& error) {
    unreachable(error);
  }
}

std::vector<sdk::LogEntry> PostgresLog::read_after(const sdk::LogPosition& after,
                                                   std::size_t limit) {
  const Cursor from = cursor_of(after);
  const auto rows = with_session([&](PgSession& session) {
    // Nothing is delivered past entries trimmed after `after`: the reader would miss them.
    auto found = session.exec(
        "SELECT xid, position, tenant, receipt_id, write, receipt FROM eventsvc_log "
        "WHERE (xid, position) > ($1::text::xid8, $2) "
        "AND xid < pg_snapshot_xmin(pg_current_snapshot()) "
        "AND NOT EXISTS (SELECT 1 FROM eventsvc_log_trimmed t "
        "WHERE (t.xid, t.position) > ($1::text::xid8, $2)) "
        "ORDER BY xid, position LIMIT $3",
        {xid_param(from.xid), PgParam::int8(from.position),
         PgParam::int8(static_cast<std::int64_t>(limit))});
    if (found.rows() == 0) refuse_trimmed(session, from);
    return found;
  });
  std::vector<sdk::LogEntry> entries;
  entries.reserve(static_cast<std::size_t>(rows.rows()));
  for (int row = 0; row < rows.rows(); ++row) {
    sdk::LogEntry entry;
    entry.position = position_of(static_cast<std::uint64_t>(rows.int8(row, 0)), rows.int8(row, 1));
    entry.tenant = rows.bytes(row, 2);
    entry.receipt_id = rows.bytes(row, 3);
    entry.write = rows.bytes(row, 4);
    entry.receipt = rows.bytes(row, 5);
    entries.push_back(std::move(entry));
  }
  return entries;
}

bool PostgresLog::wait_for_appends(int timeout_ms) {
  try {
    if (!listener_ || !listener_->good()) {
      listener_.reset();
      listener_ = std::make_unique<PgSession>(conninfo_);
      listener_->exec("LISTEN eventsvc_log");
    }
    return listener_->wait_for_notification(timeout_ms);
  } catch (const PgError& error) {
    listener_.reset();
    unreachable(error);
  }
}

std::optional<sdk::LogEntry> PostgresLog::find_receipt(std::string_view tenant,
                                                       std::string_view receipt_id) {
  const auto rows = with_session([&](PgSession& session) {
    return session.exec(
        "SELECT xid, position, receipt FROM eventsvc_log WHERE tenant = $1 AND receipt_id = $2",
        {PgParam::bytes(tenant), PgParam::bytes(receipt_id)});
  });
  if (rows.rows() != 1) return std::nullopt;
  sdk::LogEntry entry;
  entry.position = position_of(static_cast<std::uint64_t>(rows.int8(0, 0)), rows.int8(0, 1));
  entry.tenant = tenant;
  entry.receipt_id = receipt_id;
  entry.receipt = rows.bytes(0, 2);
  return entry;
}

void PostgresLog::publish(const sdk::LogPosition& verified) {
  const Cursor cursor = cursor_of(verified);
  with_session([&](PgSession& session) {
    return session.exec(
        "INSERT INTO eventsvc_hosts (host, verified_xid, verified_position, seen_at) "
        "VALUES ($1, $2::text::xid8, $3, now()) ON CONFLICT (host) DO UPDATE SET "
        "verified_xid = EXCLUDED.verified_xid, verified_position = EXCLUDED.verified_position, "
        "seen_at = EXCLUDED.seen_at",
        {PgParam::text(host_id_), xid_param(cursor.xid), PgParam::int8(cursor.position)});
  });
  trim();
}

void PostgresLog::trim() {
  const auto now = std::chrono::steady_clock::now();
  if (now < next_trim_) return;
  next_trim_ = now + std::min<std::chrono::seconds>(kTrimAtMostEvery, keep_entries_);
  const sdk::Millis before = toolkit::now_millis() - keep_entries_.count() * 1000;
  for (int batch = 0; batch < kTrimBatchesAtMost; ++batch) {
    const std::int64_t deleted = with_session([&](PgSession& session) -> std::int64_t {
      session.exec("BEGIN");
      if (!session.exec("SELECT pg_try_advisory_xact_lock($1)", {PgParam::int8(kTrimLock)})
               .boolean(0, 0)) {
        session.exec("ROLLBACK");
        return 0;  // another server is trimming
      }
      const auto rows = session.exec(kTrim, {PgParam::int8(host_timeout_.count()),
                                             PgParam::int8(before), PgParam::int8(kTrimBatch)});
      session.exec("COMMIT");
      return rows.int8(0, 0);
    });
    trimmed_ += static_cast<std::uint64_t>(deleted);
    if (deleted < kTrimBatch) break;
  }
}

void PostgresLog::report_metrics(sdk::MetricsSink& sink) {
  sink.counter("log_trimmed_total",
               "Entries of the shared log this server trimmed since the start, once every live "
               "server had verified them and they were older than keep_entries_s",
               static_cast<double>(trimmed_.load()));
}

bool PostgresLog::held_back(const sdk::LogPosition& position) {
  const Cursor cursor = cursor_of(position);
  const auto rows = with_session([&](PgSession& session) {
    return session.exec(
        "SELECT count(*) FROM eventsvc_hosts "
        "WHERE seen_at > now() - make_interval(secs => $3) "
        "AND (verified_xid, verified_position) < ($1::text::xid8, $2)",
        {xid_param(cursor.xid), PgParam::int8(cursor.position),
         PgParam::int8(host_timeout_.count())});
  });
  return rows.int8(0, 0) > 0;
}

void PostgresLog::expire_answers(sdk::Millis before) {
  with_session([&](PgSession& session) {
    return session.exec("DELETE FROM eventsvc_answers WHERE created_at < $1",
                        {PgParam::int8(before)});
  });
}

void PostgresLog::release_claims(const std::vector<std::string>& claims) {
  if (claims.empty()) return;
  with_session([&](PgSession& session) {
    return session.exec("DELETE FROM eventsvc_digests WHERE key = ANY($1::text::bytea[])",
                        {PgParam::text(bytea_array(claims))});
  });
}

void PostgresLog::scrub_entries(std::string_view tenant,
                                const std::vector<std::string>& receipt_ids,
                                const EntryScrub& scrub) {
  if (receipt_ids.empty()) return;
  with_session([&](PgSession& session) {
    for (const auto& receipt_id : receipt_ids) {
      const std::vector<PgParam> entry{PgParam::bytes(tenant), PgParam::bytes(receipt_id)};
      // Another server may scrub the entry for another erasure meanwhile: the rewrite applies
      // only to the bytes it was made from, and is made again from theirs otherwise.
      while (true) {
        const auto found = session.exec(
            "SELECT write, receipt FROM eventsvc_log WHERE tenant = $1 AND receipt_id = $2", entry);
        if (found.rows() == 0) break;  // trimmed
        const std::string_view write = found.bytes(0, 0);
        const std::string_view receipt = found.bytes(0, 1);
        const ScrubbedEntry scrubbed = scrub(receipt_id, write, receipt);
        if (scrubbed.write == write && scrubbed.receipt == receipt) break;
        const auto updated = session.exec(
            "UPDATE eventsvc_log SET write = $5, receipt = $6 "
            "WHERE tenant = $1 AND receipt_id = $2 AND write = $3 AND receipt = $4",
            {entry[0], entry[1], PgParam::bytes(write), PgParam::bytes(receipt),
             PgParam::bytes(scrubbed.write), PgParam::bytes(scrubbed.receipt)});
        if (updated.affected() == 1) break;
      }
    }
    return 0;
  });
}

bool PostgresLog::purge_deleted() {
  with_session([&](PgSession& session) {
    return session.exec(vacuum_full_ ? "VACUUM FULL eventsvc_log, eventsvc_digests"
                                     : "VACUUM eventsvc_log, eventsvc_digests");
  });
  return true;
}

}  // namespace eventsvc::plugins::log
