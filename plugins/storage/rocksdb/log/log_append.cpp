#include "log/log_append.hpp"

#include "store/database.hpp"
#include "store/erasure_formats.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"
#include "write/ingest_writer.hpp"
#include "write/prepared_write.hpp"

namespace eventsvc::plugins::rocksdb_storage {

sdk::LogAppend log_append_of(const sdk::IncomingWrite& write, bool verification_available,
                             const sdk::ReceiptRenderer& render,
                             std::function<bool(const std::string&)> claimed_here) {
  sdk::LogAppend append;
  append.tenant = tenant_prefix(write.tenant);
  append.idempotency_key = write.idempotency_key;
  append.receipt_id = write.receipt_id;
  append.received_at = write.received_at;
  append.replay_after = write.received_at - kReceiptLifetimeMs;
  append.claims = claims_of(append.tenant, write);
  std::vector<std::string> claims = claimed_here ? append.claims : std::vector<std::string>{};
  append.record = [&write, verification_available, &render, claims = std::move(claims),
                   claimed_here = std::move(claimed_here)](std::vector<bool> duplicate) {
    if (claimed_here) {
      for (std::size_t i = 0; i < duplicate.size(); ++i)
        duplicate[i] = duplicate[i] || claimed_here(claims[i]);
    }
    const PreparedWrite prepared = prepare_write(write, duplicate, verification_available, render);
    return sdk::LogRecord{encode_accepted_write(prepared.accepted),
                          encode_receipt(prepared.receipt), prepared.body};
  };
  return append;
}

sdk::LogAppend log_append_of_erasure(const sdk::ErasureRequest& request,
                                     const sdk::ErasureRenderer& render) {
  sdk::LogAppend append;
  append.tenant = tenant_prefix(request.tenant);
  append.idempotency_key = erasure_idempotency_key(request.idempotency_key);
  append.receipt_id = request.erasure_id;
  append.received_at = request.received_at;
  append.replay_after = request.received_at - kReceiptLifetimeMs;
  append.record = [&request, &render](const std::vector<bool>&) {
    PreparedErasure prepared = prepare_erasure(request, render);
    return sdk::LogRecord{std::move(prepared.order), std::move(prepared.status),
                          std::move(prepared.body)};
  };
  return append;
}

}  // namespace eventsvc::plugins::rocksdb_storage
