// Adds and removes the index entries of one record in one scope, inside the projector's batch.
// The BM25 counters change by many small deltas per round; they are summed here and written once
// per key by flush(), which must run before the batch is committed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "database.hpp"
#include "eventsvc/sdk/record.hpp"
#include "index_keys.hpp"
#include "ordered_batch.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class RecordIndexer {
 public:
  explicit RecordIndexer(Database& database) : database_(database) {}

  void add(OrderedBatch& batch, std::string_view tenant, Scope scope, const sdk::Record& record);
  void remove(OrderedBatch& batch, std::string_view tenant, Scope scope, const sdk::Record& record);
  // Writes the summed counter deltas into `batch` and forgets them.
  void flush(OrderedBatch& batch);

 private:
  void apply(OrderedBatch& batch, std::string_view tenant, Scope scope, const sdk::Record& record,
             bool adding);

  Database& database_;
  std::unordered_map<std::string, std::int64_t> counter_deltas_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
