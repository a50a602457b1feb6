// A record (sdk/record.hpp) as the API shows it.
#pragma once

#include <cstddef>
#include <string>

#include "eventsvc/sdk/record.hpp"
#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

using sdk::Record;

// The record as API answers show it: id, type, stream, namespace, site_id, source_id, timestamp,
// ingested_at, receipt_id, payload, metrics (when present), attributes, envelope (when
// non-empty), proof_digest, verification. Absent optional metadata is left out.
json::object record_to_json(const Record& record);

// Appends to_json(record_to_json(record)) to `out`, without building the object (no copy of the
// payload): what answers of many records (exports, tails) write.
void append_record_json(std::string& out, const Record& record);

// to_json(record_to_json(record)).size(), without building either.
std::size_t record_json_size(const Record& record);

}  // namespace eventsvc::toolkit
