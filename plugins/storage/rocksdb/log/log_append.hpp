// A validated write as a durable log plugin takes it (sdk/durable_log.hpp): the tenant's key, the
// claim of each event under its duplicate-index key, and how the write becomes this engine's
// inbox entry, receipt and 202 once the log knows its duplicates.
#pragma once

#include "eventsvc/sdk/durable_log.hpp"
#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// `write` and `render` must outlive the append. `verification_available`: this server's
// projector runs (the 202 says `pending`, else `unavailable`).
sdk::LogAppend log_append_of(const sdk::IncomingWrite& write, bool verification_available,
                             const sdk::ReceiptRenderer& render);

}  // namespace eventsvc::plugins::rocksdb_storage
