// How the local log lays out its data in RocksDB.
//
//   entries   position (8 bytes, big-endian sequence) -> tenant, receipt id, receipt, write
//   answers   tenant, idempotency key -> created_at (8 bytes) and the 202 body
//   claims    claim key -> "", every claim taken, kept for good (duplicate detection)
//   receipts  tenant, receipt id -> position, while the entry is kept
//   default   "trimmed" -> the position every entry up to which was trimmed
//
// A field of a key or value is its length (8 bytes, big-endian) and its bytes, so a tenant that
// ends like another's key cannot be taken for it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "eventsvc/sdk/durable_log.hpp"

namespace eventsvc::plugins::log {

sdk::LogPosition position_of(std::uint64_t sequence);
std::uint64_t sequence_of(std::string_view position);

std::string encode_entry(std::string_view tenant, std::string_view receipt_id,
                         std::string_view receipt, std::string_view write);
// The entry at `position`; with `with_write` false its write is left empty.
sdk::LogEntry decode_entry(std::string_view position, std::string_view value, bool with_write);

// The key of a tenant's idempotency key in `answers`, of a receipt in `receipts`.
std::string tenant_key(std::string_view tenant, std::string_view key);

std::string encode_answer(sdk::Millis created_at, std::string_view body);
sdk::Millis created_at_of_answer(std::string_view value);
std::string_view body_of_answer(std::string_view value);

}  // namespace eventsvc::plugins::log
