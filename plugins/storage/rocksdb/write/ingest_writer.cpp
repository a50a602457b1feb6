#include "write/ingest_writer.hpp"

#include <rocksdb/write_batch.h>

#include "eventsvc/sdk/error.hpp"
#include "store/key_codec.hpp"
#include "write/prepared_write.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::string digest_key(std::string_view tenant, std::string_view id, std::string_view digest) {
  std::string key(tenant);
  append_string(key, id);
  key += digest;
  return key;
}

IngestWriter::IngestWriter(Database& database, InboxSequence& sequence, Backlog& backlog,
                           std::function<bool()> verification_available,
                           std::function<void()> admit, std::function<void()> accepted)
    : database_(database),
      sequence_(sequence),
      backlog_(backlog),
      verification_available_(std::move(verification_available)),
      admit_(std::move(admit)),
      accepted_(std::move(accepted)) {}

sdk::AcceptResult IngestWriter::accept(const sdk::IncomingWrite& write,
                                       const sdk::ReceiptRenderer& render) {
  const std::string tenant = tenant_prefix(write.tenant);
  const std::string idempotency_key = tenant + write.idempotency_key;
  const sdk::Millis now = write.received_at;

  std::vector<std::string> claimed_digests;
  std::vector<bool> duplicate(write.events.size(), false);
  std::uint64_t sequence = 0;
  {
    const std::lock_guard lock(mutex_);
    if (pending_keys_.contains(idempotency_key)) {
      throw sdk::Error::conflict(
          "a write with this Idempotency-Key is still being processed; retry after Retry-After "
          "seconds",
          1);
    }
    if (const auto stored = database_.get(database_.idempotency, idempotency_key)) {
      if (created_at_of(*stored) + kReceiptLifetimeMs > now) {
        return {stored->substr(8), true};
      }
    }
    admit_();
    std::unordered_set<std::string> in_write;
    for (std::size_t i = 0; i < write.events.size(); ++i) {
      const auto& version = write.events[i].version;
      std::string key = digest_key(tenant, version.id, version.digest);
      duplicate[i] = !in_write.insert(key).second || pending_digests_.contains(key) ||
                     database_.exists(database_.digests, key);
      if (!duplicate[i]) claimed_digests.push_back(std::move(key));
    }
    pending_keys_.insert(idempotency_key);
    for (const auto& key : claimed_digests)
      pending_digests_.insert(key);
    sequence = sequence_.begin();
  }
  // Whatever happens from here, release the claims and the sequence number.
  struct Release {
    IngestWriter& self;
    const std::string& key;
    const std::vector<std::string>& digests;
    std::uint64_t sequence;
    ~Release() {
      {
        const std::lock_guard lock(self.mutex_);
        self.pending_keys_.erase(key);
        for (const auto& digest : digests)
          self.pending_digests_.erase(digest);
      }
      self.sequence_.end(sequence);
    }
  } release{*this, idempotency_key, claimed_digests, sequence};

  const PreparedWrite prepared = prepare_write(write, duplicate, verification_available_(), render);
  rocksdb::WriteBatch batch;
  put_in_inbox(batch, database_, sequence, tenant, write.receipt_id,
               encode_accepted_write(prepared.accepted), encode_receipt(prepared.receipt));
  batch.Put(database_.idempotency, idempotency_key, encode_idempotency(now, prepared.body));
  for (const auto& key : claimed_digests)
    batch.Put(database_.digests, key, rocksdb::Slice());
  database_.write(batch, true);

  backlog_.accepted(tenant, sequence);
  accepted_();
  return {prepared.body, false};
}

}  // namespace eventsvc::plugins::rocksdb_storage
