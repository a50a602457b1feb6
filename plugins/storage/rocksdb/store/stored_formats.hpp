// Values this plugin stores, and their byte layouts. Values that expire begin with their creation
// time (8 bytes, big-endian milliseconds) so the compaction filter can drop them unparsed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/record.hpp"
#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// Stored values are JSON objects, most of them: the object, or Error 500 saying that the stored
// `what` is damaged. damaged_value() throws that error.
sdk::json::object parse_object(std::string_view text, const char* what);
[[noreturn]] void damaged_value(const char* what);

// ---- records (history CF) ----------------------------------------------------------------------
// <format:1 = 2><digest: 64 hex><the payload's length in the JSON: u32><JSON of the record>
// (format 1, written by earlier versions, has no payload length).
std::string encode_record(const sdk::Record& record);
// Throws sdk::Error(500) when the value is damaged.
sdk::Record decode_record(std::string_view value);
// The digest without parsing the rest.
std::string_view record_digest(std::string_view value);
// The parts of a stored record, unparsed; throws sdk::Error(500) when it has none.
struct StoredRecordParts {
  std::string_view digest;
  std::string_view json;
  std::optional<std::size_t> payload_size;  // the payload member's value's, in `json` (format 2)
};
StoredRecordParts stored_record_parts(std::string_view value);

struct AcceptedWrite;

// Builds the stored record of an accepted event of a write (DESIGN §3: payload = data, metrics =
// the metrics object, attributes = every other additional property, the write's envelope).
sdk::Record record_of(const sdk::json::object& event, const sdk::EventVersion& version,
                      const AcceptedWrite& write);

// ---- accepted writes (inbox CF) -----------------------------------------------------------------
struct AcceptedEvent {
  sdk::EventVersion version;
  sdk::json::object event;
};

struct AcceptedWrite {
  sdk::Tenant tenant;
  std::string receipt_id;
  sdk::WriteEnvelope envelope;
  sdk::Millis received_at = 0;
  std::vector<AcceptedEvent> events;  // only events that were not duplicates
};

std::string encode_accepted_write(const AcceptedWrite& write);
AcceptedWrite decode_accepted_write(std::string_view value);

// ---- receipts (receipts CF)
// -----------------------------------------------------------------------
struct StoredReceipt {
  sdk::Receipt receipt;
  // Every distinct submitted event version with its digest: what verification checks. Ids and
  // digests only, never payloads.
  std::vector<sdk::EventVersion> events;
};

std::string encode_receipt(const StoredReceipt& receipt);
StoredReceipt decode_receipt(std::string_view value);

// ---- idempotency records (idempotency CF)
// ------------------------------------------------------------ <created_at:8><the 202 body, byte
// for byte>
std::string encode_idempotency(sdk::Millis created_at, std::string_view body);

// Creation time of a value that starts with one.
sdk::Millis created_at_of(std::string_view value);

// The embedding stored for a version: <model:varstr><floats, little-endian IEEE>.
std::string encode_embedding(std::string_view model, const std::vector<float>& vector);
// Empty when the stored vector was made by another model.
std::vector<float> decode_embedding(std::string_view value, std::string_view model);

}  // namespace eventsvc::plugins::rocksdb_storage
