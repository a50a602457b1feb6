// Durable log plugins: where a write is made durable before its 202 when several servers share
// one log (scale-out, docs/scale-out.md). At most one is loaded; without one, the storage engine
// makes writes durable in its own inbox. The storage plugin hands each write to the log and reads
// the log back, in log order, into its own engine: the log is the source of truth every server's
// engine is a projection of. A log stores bytes the storage plugin made and never reads them.
//
// What a log guarantees (a third log, on another engine, must give the same):
//   durable   append() returns only once the entry and its answer survive the loss of this
//             process and of the log's own machine as the log defines it (PostgreSQL: COMMIT,
//             with synchronous replication a standby has it too). Nothing acknowledged is lost.
//   atomic    an append's idempotency answer, its claims and its entry are made durable together
//             or not at all; a failed append leaves the key unused.
//   once      an idempotency key (per tenant) completed within the replay window answers its
//             first body again, writing nothing; while another append holds the key, 409.
//   claims    a claim key is taken by one append only, ever: an event claimed before, or earlier
//             in the same append, is a duplicate.
//   order     read_after() delivers every entry exactly once in one order that every reader
//             sees, and never later delivers an entry that sorts before a position it already
//             delivered (entries appear in order of their positions, whatever order concurrent
//             appends finish in).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/plugin.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::sdk {

// A place in a log: the bytes of an entry's position, which sort bytewise in log order. Every
// position of one log has the same length (DurableLog::position_size()); the empty position is
// before the first entry.
using LogPosition = std::string;

// One entry, as appended: `write` and `receipt` are the storage plugin's bytes.
struct LogEntry {
  LogPosition position;
  std::string tenant;  // the storage plugin's key of the tenant
  std::string receipt_id;
  std::string write;    // empty in find_receipt() answers
  std::string receipt;  // the receipt as accepted
};

// What an append stores, made by the storage plugin once the log knows the duplicates.
struct LogRecord {
  std::string write;
  std::string receipt;
  std::string body;  // the 202, replayed byte for byte for the same idempotency key
};

// One write handed to the log.
struct LogAppend {
  std::string tenant;  // the storage plugin's key of the tenant
  std::string idempotency_key;
  std::string receipt_id;
  Millis received_at = 0;
  // An answer to the same key created after this instant is replayed (received_at minus the
  // replay window, 24 hours).
  Millis replay_after = 0;
  // Per event, in order: the key its (id, digest) is claimed under.
  std::vector<std::string> claims;
  // Given which events are duplicates (claimed before, or earlier in this append): what to store.
  std::function<LogRecord(const std::vector<bool>& duplicate)> record;
};

class DurableLog : public Plugin {
 public:
  static constexpr PluginKind kKind = PluginKind::log;

  ~DurableLog() override;

  // Bytes in every position of this log.
  virtual std::size_t position_size() const = 0;

  // Makes the append durable and returns its body, or the key's first answer (replayed). Throws
  // Error 409 while another append holds the key, 503 when the log cannot take it (nothing was
  // acknowledged; the client retries with the same key).
  virtual AcceptResult append(const LogAppend& append) = 0;

  // Every call below throws Error 503 while the log cannot be reached.

  // The entries after `after`, in log order, at most `limit`.
  virtual std::vector<LogEntry> read_after(const LogPosition& after, std::size_t limit) = 0;
  // Waits up to `timeout_ms` for news of an append; false when none came.
  virtual bool wait_for_appends(int timeout_ms) = 0;
  // The entry of a receipt (without its write); nullopt when the log has none.
  virtual std::optional<LogEntry> find_receipt(std::string_view tenant,
                                               std::string_view receipt_id) = 0;

  // This server has verified every entry up to `verified`, and is alive.
  virtual void publish(const LogPosition& verified) = 0;
  // Whether a server seen recently has not verified up to `position`: a receipt is verified only
  // once every live server has it.
  virtual bool held_back(const LogPosition& position) = 0;
  // Forgets idempotency answers created before `before`.
  virtual void expire_answers(Millis before) = 0;
  // Forgets claims, durably: an erasure removed their events, and an event claimed under one of
  // them is accepted again, not counted a duplicate (erasure is not suppression). Every server
  // that carries out the erasure calls it; a claim that is gone already is no error. Throws 503
  // while the log cannot be reached (the erasure is then tried again).
  virtual void release_claims(const std::vector<std::string>& claims) = 0;
  // Rewrites the entries an erasure removed events from, so that the log no longer holds them:
  // for each of the tenant's `receipt_ids` whose entry the log still holds, `scrub` is given the
  // entry's write and receipt and returns what they become (the storage plugin's bytes, as
  // append() stored them), so that a server copying the entry later sees neither the erased
  // events nor a receipt that still lists them. Every server that carries out the erasure calls
  // it, and erasures may scrub one entry concurrently: a rewrite must not undo another's. An entry
  // trimmed already is skipped. Throws 503 while the log cannot be reached (the erasure is then
  // tried again). The default rewrites nothing: a log whose entries keep erased events until it
  // trims them, whose erasures purge_deleted() then leaves `hidden`.
  struct ScrubbedEntry {
    std::string write;
    std::string receipt;
  };
  using EntryScrub = std::function<ScrubbedEntry(std::string_view receipt_id,
                                                 std::string_view write, std::string_view receipt)>;
  virtual void scrub_entries(std::string_view tenant, const std::vector<std::string>& receipt_ids,
                             const EntryScrub& scrub) {
    (void)tenant;
    (void)receipt_ids;
    (void)scrub;
  }
  // Makes what the log deleted or scrubbed before this call (entries trimmed, claims released,
  // entries rewritten) leave its tables as the log documents it, for an erasure's purge: true once
  // no file of the log holds those bytes any more; false when the log cannot yet (the erasures then
  // stay `hidden` and this is asked again later). Throws Error 503 while the log cannot be reached.
  virtual bool purge_deleted() { return false; }

  // Why this server cannot make writes durable in the log now (its disk is full or failing), or
  // empty: storage reports it to /readyz, which then takes the server out of rotation. A shared
  // log that every server has lost alike says nothing here (the servers' reads go on).
  virtual std::string problem() { return {}; }
};

}  // namespace eventsvc::sdk
