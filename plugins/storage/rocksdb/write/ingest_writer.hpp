// Durable acceptance of writes (DESIGN §4) when no durable log plugin is loaded: idempotency,
// duplicate detection (toolkit::AppendGate) and one atomic, fsync'd RocksDB write holding the inbox
// entry, the idempotency record, the duplicate index and the receipt. Concurrent writers each wait
// for their own sync but share it: RocksDB commits a group of pending writes with one fsync.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/append_gate.hpp"
#include "eventsvc/toolkit/append_sequence.hpp"
#include "store/database.hpp"
#include "write/backlog.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class IngestWriter {
 public:
  // `admit` runs once a write is known to be new (not a replay, not in flight) and may throw to
  // refuse it; `accepted` runs after it is durable.
  IngestWriter(Database& database, toolkit::AppendSequence& sequence, Backlog& backlog,
               std::function<bool()> verification_available, std::function<void()> admit,
               std::function<void()> accepted);

  sdk::AcceptResult accept(const sdk::IncomingWrite& write, const sdk::ReceiptRenderer& render);
  // An erasure into the inbox among the writes, with its state and idempotency answer.
  sdk::AcceptResult accept_erasure(const sdk::ErasureRequest& request,
                                   const sdk::ErasureRenderer& render);

 private:
  // Durable, its pass released (so its sequence number is safe to project) when they return:
  // `accepted` runs after, or the projector it wakes could find nothing new yet and sleep.
  sdk::AcceptResult append_write(const sdk::IncomingWrite& write,
                                 const sdk::ReceiptRenderer& render);
  sdk::AcceptResult append_erasure(const sdk::ErasureRequest& request,
                                   const sdk::ErasureRenderer& render);

  Database& database_;
  toolkit::AppendGate gate_;
  Backlog& backlog_;
  std::function<bool()> verification_available_;
  std::function<void()> admit_;
  std::function<void()> accepted_;
};

// tenant|<id>|<digest>: the duplicate index key of an event.
std::string digest_key(std::string_view tenant, std::string_view id, std::string_view digest);
// The duplicate index key of each event of a write, in order. `tenant` is the tenant's key prefix.
std::vector<std::string> claims_of(std::string_view tenant, const sdk::IncomingWrite& write);

// The 202 stored here for a tenant's idempotency key (`tenant` prefix + key), while it is replayed
// for a write received at `now`.
std::optional<std::string> stored_answer(Database& database, const std::string& key,
                                         sdk::Millis now);

}  // namespace eventsvc::plugins::rocksdb_storage
