#include "log/log_append.hpp"

#include "store/database.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"
#include "write/ingest_writer.hpp"
#include "write/prepared_write.hpp"

namespace eventsvc::plugins::rocksdb_storage {

sdk::LogAppend log_append_of(const sdk::IncomingWrite& write, bool verification_available,
                             const sdk::ReceiptRenderer& render) {
  sdk::LogAppend append;
  append.tenant = tenant_prefix(write.tenant);
  append.idempotency_key = write.idempotency_key;
  append.receipt_id = write.receipt_id;
  append.received_at = write.received_at;
  append.replay_after = write.received_at - kReceiptLifetimeMs;
  append.claims.reserve(write.events.size());
  for (const auto& event : write.events)
    append.claims.push_back(digest_key(append.tenant, event.version.id, event.version.digest));
  append.record = [&write, verification_available, &render](const std::vector<bool>& duplicate) {
    const PreparedWrite prepared = prepare_write(write, duplicate, verification_available, render);
    return sdk::LogRecord{encode_accepted_write(prepared.accepted),
                          encode_receipt(prepared.receipt), prepared.body};
  };
  return append;
}

}  // namespace eventsvc::plugins::rocksdb_storage
