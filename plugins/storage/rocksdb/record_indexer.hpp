// Adds and removes the index entries of one record in one scope, inside the projector's batch.
#pragma once

#include <rocksdb/write_batch.h>

#include <string_view>

#include "database.hpp"
#include "eventsvc/sdk/record.hpp"
#include "index_keys.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class RecordIndexer {
 public:
  explicit RecordIndexer(Database& database) : database_(database) {}

  void add(rocksdb::WriteBatch& batch, std::string_view tenant, Scope scope,
           const sdk::Record& record);
  void remove(rocksdb::WriteBatch& batch, std::string_view tenant, Scope scope,
              const sdk::Record& record);

 private:
  void apply(rocksdb::WriteBatch& batch, std::string_view tenant, Scope scope,
             const sdk::Record& record, bool adding);

  Database& database_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
