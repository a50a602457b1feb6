// What a validated write becomes once its duplicates are known, whichever log makes it durable
// (the local inbox or the shared PostgreSQL log): the events to store, the receipt verification
// will check, and the 202 body a replay answers byte for byte. And how such a write enters the
// local inbox, from where the projector takes it.
#pragma once

#include <rocksdb/write_batch.h>

#include <string>
#include <string_view>
#include <vector>

#include "store/database.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct PreparedWrite {
  AcceptedWrite accepted;  // the events that were not duplicates
  StoredReceipt receipt;   // state `accepted`, every distinct submitted version
  std::string body;        // the 202
};

// `duplicate[i]`: event i was accepted before or repeats an earlier event of this write.
PreparedWrite prepare_write(const sdk::IncomingWrite& write, const std::vector<bool>& duplicate,
                            bool verification_available, const sdk::ReceiptRenderer& render);

// What an erasure becomes, whichever log makes it durable: its order for the projector, its state
// (`accepted`) and its 202, all encoded.
struct PreparedErasure {
  std::string order;
  std::string status;
  std::string body;
};

PreparedErasure prepare_erasure(const sdk::ErasureRequest& request,
                                const sdk::ErasureRenderer& render);

// Puts a write into the inbox at `sequence` and its receipt beside it. `tenant` is the tenant's
// key prefix; `write_bytes` and `receipt_bytes` are the encoded AcceptedWrite and StoredReceipt,
// or for an erasure (its id as `receipt_id`) the encoded ErasureOrder and its state.
void put_in_inbox(rocksdb::WriteBatch& batch, Database& database, std::uint64_t sequence,
                  std::string_view tenant, std::string_view receipt_id,
                  std::string_view write_bytes, std::string_view receipt_bytes);

}  // namespace eventsvc::plugins::rocksdb_storage
