#include "write/prepared_write.hpp"

#include <set>
#include <tuple>

#include "store/erasure_formats.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

PreparedWrite prepare_write(const sdk::IncomingWrite& write, const std::vector<bool>& duplicate,
                            bool verification_available, const sdk::ReceiptRenderer& render) {
  PreparedWrite prepared;
  AcceptedWrite& accepted = prepared.accepted;
  accepted.tenant = write.tenant;
  accepted.receipt_id = write.receipt_id;
  accepted.envelope = write.envelope;
  accepted.received_at = write.received_at;
  std::size_t duplicates = 0;
  std::set<std::tuple<std::string, sdk::Millis, std::string>> versions;
  for (std::size_t i = 0; i < write.events.size(); ++i) {
    const auto& event = write.events[i];
    if (duplicate[i]) {
      ++duplicates;
    } else {
      accepted.events.push_back({event.version, event.event});
    }
    if (versions.emplace(event.version.id, event.version.occurred_at, event.version.digest)
            .second) {
      prepared.receipt.events.push_back(event.version);
    }
  }

  sdk::AcceptSummary summary;
  summary.receipt_id = write.receipt_id;
  summary.submitted = write.events.size();
  summary.duplicates = duplicates;
  summary.accepted = summary.submitted - duplicates;
  summary.verification_available = verification_available;
  prepared.body = render(summary);

  sdk::Receipt& receipt = prepared.receipt.receipt;
  receipt.receipt_id = write.receipt_id;
  receipt.state = sdk::ReceiptState::accepted;
  receipt.submitted = summary.submitted;
  receipt.accepted = summary.accepted;
  receipt.duplicates = duplicates;
  receipt.event_set_sha256 = write.event_set_sha256;
  receipt.created_at = write.received_at;
  receipt.updated_at = write.received_at;
  return prepared;
}

void put_in_inbox(rocksdb::WriteBatch& batch, Database& database, std::uint64_t sequence,
                  std::string_view tenant, std::string_view receipt_id,
                  std::string_view write_bytes, std::string_view receipt_bytes) {
  std::string inbox_key;
  append_u64(inbox_key, sequence);
  std::string inbox_value;
  append_string(inbox_value, tenant);
  inbox_value += write_bytes;
  batch.Put(database.inbox, inbox_key, inbox_value);
  const rocksdb::Slice receipt(receipt_bytes.data(), receipt_bytes.size());
  if (is_erasure_id(receipt_id)) {
    batch.Put(database.meta, erasure_status_key(tenant, receipt_id), receipt);
    return;
  }
  std::string receipt_key(tenant);
  receipt_key += receipt_id;
  batch.Put(database.receipts, receipt_key, receipt);
}

PreparedErasure prepare_erasure(const sdk::ErasureRequest& request,
                                const sdk::ErasureRenderer& render) {
  sdk::ErasureStatus status;
  status.erasure_id = request.erasure_id;
  status.key_id = request.key_id;
  status.request = request.request;
  status.accepted_at = request.received_at;
  return {encode_erasure_order(erasure_order_of(request)), encode_erasure_status(status),
          render(status)};
}

}  // namespace eventsvc::plugins::rocksdb_storage
