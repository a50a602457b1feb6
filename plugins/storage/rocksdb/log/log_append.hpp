// A validated write as a durable log plugin takes it (sdk/durable_log.hpp): the tenant's key, the
// claim of each event under its duplicate-index key, and how the write becomes this engine's
// inbox entry, receipt and 202 once the log knows its duplicates.
#pragma once

#include <functional>
#include <string>

#include "eventsvc/sdk/durable_log.hpp"
#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// `write` and `render` must outlive the append. `verification_available`: this server's
// projector runs (the 202 says `pending`, else `unavailable`). `claimed_here`, when set: whether
// this engine's own duplicate index holds a claim (writes it accepted before it had a log plugin),
// so that such an event is a duplicate too.
sdk::LogAppend log_append_of(const sdk::IncomingWrite& write, bool verification_available,
                             const sdk::ReceiptRenderer& render,
                             std::function<bool(const std::string&)> claimed_here = {});

// An erasure as a durable log plugin takes it: no claims; its entry is the erasure's order and
// state, in log order among the writes, so that every server carries it out at the same point.
// `request` and `render` must outlive the append.
sdk::LogAppend log_append_of_erasure(const sdk::ErasureRequest& request,
                                     const sdk::ErasureRenderer& render);

}  // namespace eventsvc::plugins::rocksdb_storage
