// Durable acceptance of writes (DESIGN §4): idempotency, duplicate detection and one atomic,
// fsync'd RocksDB write holding the inbox entry, the idempotency record, the duplicate index and
// the receipt. Concurrent writers each wait for their own sync but share it: RocksDB commits a
// group of pending writes with one fsync.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <unordered_set>

#include "write/backlog.hpp"
#include "store/database.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "write/inbox_sequence.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class IngestWriter {
 public:
  // `admit` runs once a write is known to be new (not a replay, not in flight) and may throw to
  // refuse it; `accepted` runs after it is durable.
  IngestWriter(Database& database, InboxSequence& sequence, Backlog& backlog,
               std::function<bool()> verification_available, std::function<void()> admit,
               std::function<void()> accepted);

  sdk::AcceptResult accept(const sdk::IncomingWrite& write, const sdk::ReceiptRenderer& render);

 private:
  Database& database_;
  InboxSequence& sequence_;
  Backlog& backlog_;
  std::function<bool()> verification_available_;
  std::function<void()> admit_;
  std::function<void()> accepted_;

  // Keys and (id, digest) pairs of writes between their check and their commit; guarded by
  // mutex_. A second request for an in-flight key gets 409; a second write of an in-flight
  // (id, digest) counts it as a duplicate.
  std::mutex mutex_;
  std::unordered_set<std::string> pending_keys_;
  std::unordered_set<std::string> pending_digests_;
};

// tenant|<id>|<digest>: the duplicate index key of an event.
std::string digest_key(std::string_view tenant, std::string_view id, std::string_view digest);

}  // namespace eventsvc::plugins::rocksdb_storage
