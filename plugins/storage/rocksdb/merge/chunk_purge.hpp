// Purging erased rows (erasure_round.hpp) from the column chunks, on the merge thread: a chunk with
// erased rows is built again without them, its columns and postings filtered
// (ChunkMerger::prepare_purge), and committed like a merge of one chunk (ChunkMerger::commit
// renumbers the rows that stay, their replaced and current state as they are then). An erasure is
// `purged` once every chunk its rows were in has been rebuilt and the database compacted, so that
// no table file nor write-ahead log holds its bytes any more:
//
//   meta  "erasure-purge/" <tenant> <erasure id> -> ""   an erasure hidden, not yet purged
#pragma once

#include <string>
#include <vector>

#include "eventsvc/sdk/time.hpp"
#include "store/database.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// The key that lists an erasure as waiting for its purge (written with its `hidden` state).
std::string pending_purge_key(std::string_view tenant, std::string_view erasure_id);

// The erasures waiting for their purge: their pending keys.
std::vector<std::string> pending_purges(Database& database);

// Marks the erasures of `pending` purged at `now` and forgets them, in one durable batch.
void mark_purged(Database& database, const std::vector<std::string>& pending, sdk::Millis now);

}  // namespace eventsvc::plugins::rocksdb_storage
