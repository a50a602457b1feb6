// Adds and removes the index entries of one record in one scope, inside the projector's batch:
// its id entry and the BM25 counters. Values and words are indexed per column chunk
// (chunk_postings.hpp), and the BM25 counters are the history's documents and their length
// (text_scorer.hpp). Only a database whose history predates chunk indexes still gets, in both
// scopes, a field key per (value, version), a posting key per (token, version) and a counter per
// token, the indexes and statistics its reads use; only there does removing a record need its
// tokens. The BM25 counters change by many small deltas per round; they are summed here and
// written once per key by flush(), which must run before the batch is committed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "chunks/chunk_postings.hpp"
#include "eventsvc/sdk/record.hpp"
#include "store/database.hpp"
#include "store/index_keys.hpp"
#include "store/ordered_batch.hpp"
#include "store/string_hash.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class RecordIndexer {
 public:
  // `version_indexes`: a database from before chunk indexes (see above).
  RecordIndexer(Database& database, bool version_indexes)
      : database_(database), version_indexes_(version_indexes) {}

  // Whether remove() reads the removed record's tokens.
  bool removal_needs_tokens() const { return version_indexes_; }

  // `tokens`: the record's TokenCounts (remove: empty unless removal_needs_tokens()).
  void add(OrderedBatch& batch, std::string_view tenant, Scope scope, const sdk::Record& record,
           const TokenCounts& tokens);
  void remove(OrderedBatch& batch, std::string_view tenant, Scope scope, const sdk::Record& record,
              const TokenCounts& tokens);
  // remove() where removal_needs_tokens() is false: only the version's id entry goes.
  void remove_id(OrderedBatch& batch, std::string_view tenant, Scope scope, std::string_view id,
                 sdk::Millis timestamp);
  // Writes the summed counter deltas into `batch` and forgets them.
  void flush(OrderedBatch& batch);
  // Forgets the counter deltas since the last flush (of a batch that was not written).
  void discard() {
    deltas_.clear();
    last_ = nullptr;
  }

 private:
  void apply(OrderedBatch& batch, std::string_view tenant, Scope scope, const sdk::Record& record,
             const TokenCounts& tokens, bool adding);

  // The BM25 counters' deltas of one tenant and scope since the last flush.
  struct CounterDeltas {
    std::int64_t documents = 0;
    std::int64_t length = 0;
    StringMap<std::int64_t> tokens;  // documents holding each token
  };
  CounterDeltas& deltas_of(std::string_view tenant, Scope scope);

  Database& database_;
  bool version_indexes_;
  std::map<std::pair<std::string, Scope>, CounterDeltas> deltas_;
  CounterDeltas* last_ = nullptr;  // the entry of the last record's tenant and scope
  std::pair<std::string, Scope> last_key_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
