// A stored record (stored_formats.hpp) read as text: its members' JSON values located without
// decoding them, and the record's answer JSON spliced from them. An export hands on records whole;
// decoding each into a DOM and writing it out again was half of an export's time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/record.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// The stored record's members as the JSON texts they were written as (strings with their quotes);
// empty when the record has no such member.
struct StoredRecordText {
  std::string_view digest;  // 64 hex digits, not JSON
  std::string_view id;
  std::string_view type;
  std::string_view stream;
  std::string_view namespace_name;
  std::string_view site_id;
  std::string_view source_id;
  std::string_view receipt_id;
  std::string_view payload;
  std::string_view metrics;
  std::string_view attributes;
  std::string_view envelope;
  sdk::Millis timestamp = 0;
  sdk::Millis ingested_at = 0;
};

// Locates the members of a stored record value; throws sdk::Error(500) when it is damaged.
StoredRecordText read_record_text(std::string_view value);

// The record a reader naming `fields` uses (sdk::RecordQuery::fields): its digest and canonical
// members, and its payload and metrics only when a field names them, so a question asking for
// ids decodes none of the payloads. Empty `fields`: decode_record(), the whole record.
sdk::Record decode_record_fields(std::string_view value, const std::vector<sdk::FieldPath>& fields);

// The string a JSON string text stands for (its quotes removed, escapes undone).
std::string json_string_value(std::string_view text);

// Appends the record's answer JSON, byte for byte what toolkit::append_record_json writes for the
// decoded record with this verification: the stored values are the same writer's output, and
// that writer writes a parsed value back as the text it was parsed from.
void append_record_answer_json(std::string& out, const StoredRecordText& record,
                               sdk::Verification verification);

}  // namespace eventsvc::plugins::rocksdb_storage
