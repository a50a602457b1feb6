// Merges column chunks, so that reads visit few chunks however the events arrived. A projection
// round writes one chunk per tenant, so slow ingest leaves many small chunks, and steady ingest
// many of a round's size, each a header and a few keys that every read must fetch. Beside
// projection, a thread of its own merges, per tenant, runs of consecutive chunks (acceptance order
// is kept):
//
//  * small chunks (under small_rows) whose rows together are at most small_rows, however many;
//  * else `fanout` consecutive chunks of one tier, a tier being a size class that grows `fanout`
//    times: below small_rows * fanout rows, then each next power of `fanout` of it. A chunk of
//    final_rows rows or more is never merged again.
//
// Each row is so rewritten about log_fanout(final_rows / small_rows) + 1 times (Lucene's and
// Cassandra's size-tiered merging), and a tenant's history is a few large chunks plus a tail of
// recent smaller ones.
//
// A merge is two steps, so that the long one runs beside projection (merge_thread.hpp):
// prepare() reads the run and builds the new chunk (numbered like the first one) with the list of
// the chunks it absorbed (absorbed_chunks.hpp), which nothing else changes meanwhile, chunk data
// being written once and deleted only by merges; commit() then reads the runs' replaced rows as
// they are now, renumbers them and writes it all with the deletion of the old chunks in one
// atomic batch. The current_ids of the merged rows keep pointing where they did: a round resolves
// them through the list. Replaced rows are what a projection round reads and rewrites, so a
// commit must not overlap a round. Readers use snapshots, so they see either the old chunks or the
// new one.
#pragma once

#include <rocksdb/write_batch.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunks/absorbed_chunks.hpp"
#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/logger.hpp"
#include "eventsvc/sdk/record.hpp"
#include "store/database.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct MergePolicy {
  std::uint32_t small_rows = 4096;
  std::uint32_t fanout = 4;                   // at least 2
  std::uint32_t final_rows = 65536;           // at least small_rows
  std::uint32_t page_rows = kColumnPageRows;  // of the merged chunks' columns (column_chunk.hpp)
};

// The size class of a chunk of `rows` rows; nullopt when it is not merged again.
std::optional<std::uint32_t> merge_tier(const MergePolicy& policy, std::uint32_t rows);

// A run of chunks read and merged, waiting for its commit.
struct PreparedMerge {
  // One chunk of the run: its rows, where they start in the new chunk, the chunks it had
  // absorbed. A purge (chunk_purge.hpp) leaves out the rows it drops (the others follow each
  // other from `base`), and reads each row's id and instant, for the current_ids of the rows
  // still current at the commit.
  struct Source {
    std::uint64_t number = 0;
    std::uint32_t rows = 0;
    std::uint32_t base = 0;
    std::vector<AbsorbedChunk> absorbed;
    std::vector<std::string> ids;       // a purge's only
    std::vector<sdk::Millis> instants;  // a purge's only
    std::vector<bool> dropped;          // empty: none
  };
  std::string tenant;
  std::uint64_t merged = 0;  // the new chunk's number
  std::uint64_t rows = 0;
  std::vector<Source> sources;
  bool repoint_current = false;  // a purge renumbers rows: their current_ids are written again
  rocksdb::WriteBatch batch;     // the new chunk's keys, the old chunks' data deleted
  std::chrono::steady_clock::time_point started;
};

class ChunkMerger {
 public:
  // Each merge is logged at debug level, when it starts and when it is done (with its time).
  ChunkMerger(Database& database, MergePolicy policy, sdk::Logger* logger = nullptr)
      : database_(database), policy_(policy), logger_(logger) {}

  // Reads and merges the first run of chunks to merge; nullopt when there is none. One prepared
  // merge at a time: the next prepare() must wait for this one's commit.
  std::optional<PreparedMerge> prepare();
  // The first chunk with erased rows built again without them (their columns and postings
  // filtered, the rows that stay renumbered), to commit like a merge; nullopt when no chunk has
  // any (chunk_purge.hpp).
  std::optional<PreparedMerge> prepare_purge();
  // Writes a prepared merge. Must not overlap a projection round.
  void commit(PreparedMerge& merge);

  const MergePolicy& policy() const { return policy_; }

 private:
  Database& database_;
  MergePolicy policy_;
  sdk::Logger* logger_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
