// Aggregation pushdown over history's column chunks (column_chunk.hpp): chunks outside the time
// bounds are skipped from their headers; in the others only the columns the request names are
// read, conditions are evaluated per cell with the SDK's evaluator (once per dictionary string),
// and the operators are fed column spans. A chunk where a named field holds an object or array
// is read record by record instead, so answers are always those of the record-wise definition.
#pragma once

#include <optional>

#include "database.hpp"
#include "eventsvc/sdk/aggregate.hpp"
#include "eventsvc/sdk/principal.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class ColumnAggregator {
 public:
  // Columns answer only when every version in history is in a chunk: true for a database
  // created by this version (the mark is set while history is still empty).
  // From `parallel_rows` rows in the time bounds on, two threads share the chunks.
  explicit ColumnAggregator(Database& database, std::uint64_t parallel_rows = 32768);

  // nullopt when the columns cannot answer: a text query, a field that is a whole
  // payload or metrics object, buckets or a time-weighted op on a non-canonical time field, or
  // history older than the columns. The caller then aggregates record by record.
  std::optional<sdk::AggregateResult> aggregate(const sdk::Tenant& tenant,
                                                const sdk::AggregateRequest& request);

 private:
  Database& database_;
  std::uint64_t parallel_rows_;
  bool covered_ = false;
};

}  // namespace eventsvc::plugins::rocksdb_storage
