// Secondary index layouts (indexes and stats column families). Each index exists twice per tenant:
// once for history (every version) and once for current (latest version per id). The id index
// and history's documents and tokens counters are kept in every database; the field index, text
// postings and the other counters only in databases from before chunk indexes
// (chunk_postings.hpp), whose reads use them (the others sum a token's documents over the chunks,
// text_scorer.hpp).
//
//   field index    <tenant> 'F' <scope> <path:varstr> <encoded value> <instant> <id>   -> ""
//   id index       <tenant> 'I' <scope> <id:varstr> <instant>                          -> ""
//   text postings  <tenant> 'T' <scope> <token> 0x00 <instant> <id>                   ->
//   stats          <tenant> <scope> 'N'                documents
//                  <tenant> <scope> 'L'                tokens in all documents
//                  <tenant> <scope> 'D' <token>        documents holding token
//
// Within one (path, value), one id or one token, entries are in time order, so an equality or a
// word is a time-ordered stream the planner can merge, intersect and stop early on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "eventsvc/sdk/record.hpp"
#include "eventsvc/sdk/storage.hpp"

namespace eventsvc::plugins::rocksdb_storage {

enum class Scope : char { current = 'C', history = 'H' };

inline Scope scope_of(sdk::Source source) {
  return source == sdk::Source::current ? Scope::current : Scope::history;
}

std::string field_prefix(std::string_view tenant, Scope scope, std::string_view path);
std::string id_prefix(std::string_view tenant, Scope scope, std::string_view id);
std::string token_prefix(std::string_view tenant, Scope scope, std::string_view token);
// Prefix of the document-frequency counters of a scope: the tokens that exist, in order (for
// expanding prefix* terms).
std::string frequency_prefix(std::string_view tenant, Scope scope);

std::string documents_key(std::string_view tenant, Scope scope);
std::string length_key(std::string_view tenant, Scope scope);
std::string frequency_key(std::string_view tenant, Scope scope, std::string_view token);

// A posting's value: the token's frequency in the record and the record's length in tokens, what
// BM25 needs to score without reading the record.
std::string encode_posting(std::uint32_t frequency, std::uint32_t length);
std::pair<std::uint32_t, std::uint32_t> decode_posting(std::string_view value);

// <instant><id>: the tail of field and posting keys.
void append_version_tail(std::string& key, sdk::Millis timestamp, std::string_view id);

// Calls `emit(path, encoded value)` for every indexed value of a record: the canonical string
// fields (type, stream, namespace, site_id, source_id, receipt_id), ingested_at (as a number of
// milliseconds), and every scalar leaf of payload and metrics (array elements by index).
void for_each_indexed_value(const sdk::Record& record,
                            const std::function<void(std::string_view, std::string_view)>& emit);

// uint64add operands: 8 bytes little-endian; negative deltas wrap.
std::string counter_delta(std::int64_t delta);
std::uint64_t counter_value(std::string_view bytes);

}  // namespace eventsvc::plugins::rocksdb_storage
