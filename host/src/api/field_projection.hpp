// `fields` of a query: trims a record to the named paths, nested as in the record. `id` is always
// kept. A path that passes through an array keeps that whole array.
#pragma once

#include <vector>

#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/record.hpp"

namespace eventsvc::host {

// A record as query and export answer it: whole, or trimmed to `fields` when any are named.
sdk::json::object record_answer(const sdk::Record& record,
                                const std::vector<sdk::FieldPath>& fields);
// Appends the bytes of to_json(record_answer(record, fields)) to `out`; a whole record without
// building its object.
void append_record_answer(std::string& out, const sdk::Record& record,
                          const std::vector<sdk::FieldPath>& fields);

}  // namespace eventsvc::host
