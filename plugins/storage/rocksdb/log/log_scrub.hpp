// An erasure in a durable log plugin's entries (sdk/durable_log.hpp, scrub_entries): the entries
// of the writes that carried erased versions are rewritten without those events, so that a log
// that keeps entries until it trims them holds none of the erased bytes, and a server that copies
// the log later never sees them.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "eventsvc/sdk/durable_log.hpp"

namespace eventsvc::plugins::rocksdb_storage {

using ErasedOfReceipt = std::set<std::pair<sdk::Millis, std::string>>;  // (timestamp, id)

// The log's bytes of a write (an encoded AcceptedWrite) without the events `erased` names.
std::string write_without(std::string_view write, const ErasedOfReceipt& erased);
// The log's bytes of a receipt (an encoded StoredReceipt) without those versions: a server that
// copies the entry later verifies the events that are left, not the erased ones.
std::string receipt_without(std::string_view receipt, const ErasedOfReceipt& erased);

// Scrubs the entries of the receipts in `by_receipt` of `tenant` (the engine's key prefix).
void scrub_log_entries(sdk::DurableLog& log, const std::string& tenant,
                       const std::map<std::string, ErasedOfReceipt>& by_receipt);

}  // namespace eventsvc::plugins::rocksdb_storage
