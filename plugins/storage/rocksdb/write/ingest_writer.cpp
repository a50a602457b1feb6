#include "write/ingest_writer.hpp"

#include <rocksdb/write_batch.h>

#include "store/erasure_formats.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"
#include "write/prepared_write.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::string digest_key(std::string_view tenant, std::string_view id, std::string_view digest) {
  std::string key(tenant);
  append_string(key, id);
  key += digest;
  return key;
}

std::vector<std::string> claims_of(std::string_view tenant, const sdk::IncomingWrite& write) {
  std::vector<std::string> claims;
  claims.reserve(write.events.size());
  for (const auto& event : write.events)
    claims.push_back(digest_key(tenant, event.version.id, event.version.digest));
  return claims;
}

std::optional<std::string> stored_answer(Database& database, const std::string& key,
                                         sdk::Millis now) {
  const auto stored = database.get(database.idempotency, key);
  if (!stored || created_at_of(*stored) + kReceiptLifetimeMs <= now) return std::nullopt;
  return stored->substr(8);
}

IngestWriter::IngestWriter(Database& database, toolkit::AppendSequence& sequence, Backlog& backlog,
                           std::function<bool()> verification_available,
                           std::function<void()> admit, std::function<void()> accepted)
    : database_(database),
      gate_(sequence),
      backlog_(backlog),
      verification_available_(std::move(verification_available)),
      admit_(std::move(admit)),
      accepted_(std::move(accepted)) {}

sdk::AcceptResult IngestWriter::accept(const sdk::IncomingWrite& write,
                                       const sdk::ReceiptRenderer& render) {
  sdk::AcceptResult result = append_write(write, render);
  if (!result.replayed) accepted_();
  return result;
}

sdk::AcceptResult IngestWriter::accept_erasure(const sdk::ErasureRequest& request,
                                               const sdk::ErasureRenderer& render) {
  sdk::AcceptResult result = append_erasure(request, render);
  if (!result.replayed) accepted_();
  return result;
}

sdk::AcceptResult IngestWriter::append_write(const sdk::IncomingWrite& write,
                                             const sdk::ReceiptRenderer& render) {
  const std::string tenant = tenant_prefix(write.tenant);
  const std::string idempotency_key = tenant + write.idempotency_key;
  const std::vector<std::string> claims = claims_of(tenant, write);
  auto entered = gate_.enter({
      .key = idempotency_key,
      .claims = claims,
      .stored_answer = [&] { return stored_answer(database_, idempotency_key, write.received_at); },
      .claimed_before =
          [&](const std::string& claim) { return database_.exists(database_.digests, claim); },
      .admit = admit_,
  });
  if (auto* replay = std::get_if<std::string>(&entered)) return {std::move(*replay), true};
  // Held until the write is durable or has failed.
  const auto& pass = std::get<toolkit::AppendGate::Pass>(entered);

  const PreparedWrite prepared =
      prepare_write(write, pass.duplicate, verification_available_(), render);
  rocksdb::WriteBatch batch;
  put_in_inbox(batch, database_, pass.sequence, tenant, write.receipt_id,
               encode_accepted_write(prepared.accepted), encode_receipt(prepared.receipt));
  batch.Put(database_.idempotency, idempotency_key,
            encode_idempotency(write.received_at, prepared.body));
  for (const auto& claim : pass.claimed)
    batch.Put(database_.digests, claim, rocksdb::Slice());
  database_.write(batch, true);

  backlog_.accepted(tenant, pass.sequence);
  return {prepared.body, false};
}

sdk::AcceptResult IngestWriter::append_erasure(const sdk::ErasureRequest& request,
                                               const sdk::ErasureRenderer& render) {
  const std::string tenant = tenant_prefix(request.tenant);
  const std::string idempotency_key = tenant + erasure_idempotency_key(request.idempotency_key);
  const std::vector<std::string> no_claims;
  // Never refused for projection lag (`admit`): what is to be erased waits in the same queue.
  auto entered = gate_.enter({
      .key = idempotency_key,
      .claims = no_claims,
      .stored_answer =
          [&] { return stored_answer(database_, idempotency_key, request.received_at); },
      .claimed_before = [](const std::string&) { return false; },
      .admit = [] {},
  });
  if (auto* replay = std::get_if<std::string>(&entered)) return {std::move(*replay), true};
  const auto& pass = std::get<toolkit::AppendGate::Pass>(entered);

  const PreparedErasure prepared = prepare_erasure(request, render);
  rocksdb::WriteBatch batch;
  put_in_inbox(batch, database_, pass.sequence, tenant, request.erasure_id, prepared.order,
               prepared.status);
  batch.Put(database_.idempotency, idempotency_key,
            encode_idempotency(request.received_at, prepared.body));
  database_.write(batch, true);

  backlog_.accepted(tenant, pass.sequence);
  return {prepared.body, false};
}

}  // namespace eventsvc::plugins::rocksdb_storage
