// An erasure carried out by the projector (projector.hpp), alone in its round, so that it applies
// to every write accepted before it and to none after it. In one batch with the round's cursor:
//
//  * the versions: every version of the order's ids; every version its condition matches in
//    history, or every version of the ids whose current version it matches in current state;
//  * each leaves history (record, vector, id index entry, BM25 counters) and the duplicate index
//    (an erased event sent again is stored again: erasure is not suppression), and its row is
//    marked in its column chunk's erased rows, which every read of the chunk leaves out
//    (chunk_scanner.cpp) until a merge drops the row;
//  * an id whose current version is erased falls back to its newest surviving version, which
//    becomes current again (its row no longer replaced), or leaves current state.
#pragma once

#include <rocksdb/write_batch.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "eventsvc/sdk/condition.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "projection/record_indexer.hpp"
#include "store/database.hpp"
#include "store/erasure_formats.hpp"
#include "store/ordered_batch.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct VersionAt {
  sdk::Millis timestamp = 0;
  std::string id;
};

// Every version of a tenant's current state or history that matches every condition, however
// many: the query engine's, handed down by the storage plugin.
using VersionFinder = std::function<std::vector<VersionAt>(
    const sdk::Tenant& tenant, sdk::Source source, const std::vector<sdk::Condition>& where)>;

struct ErasedVersions {
  std::size_t count = 0;
  // Their duplicate-index keys: gone from this database in the batch; a durable log plugin's
  // claims of them are released too (sdk/durable_log.hpp).
  std::vector<std::string> claims;
  // The (timestamp, id) of each, by the receipt of the write that carried it: what a durable log
  // plugin's entries of those writes are scrubbed of.
  std::map<std::string, std::set<std::pair<sdk::Millis, std::string>>> by_receipt;
};

// Carries out `order` for `tenant` (its key prefix) into `batch` and `records` (the indexer's
// counters are flushed by the caller).
ErasedVersions erase_versions(Database& database, RecordIndexer& indexer, OrderedBatch& records,
                              rocksdb::WriteBatch& batch, const std::string& tenant,
                              const ErasureOrder& order, const VersionFinder& find);

// Lists the chunks that have erased rows in the database's ErasedChunks (at open).
void list_erased_chunks(Database& database);

}  // namespace eventsvc::plugins::rocksdb_storage
