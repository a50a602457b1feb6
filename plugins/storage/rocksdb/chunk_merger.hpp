// Merges column chunks, so that reads visit few chunks however the events arrived. A projection
// round writes one chunk per tenant, so slow ingest leaves many small chunks, and steady ingest
// many of a round's size, each a header and a few keys that every read must fetch. Between
// rounds, the projector merges, per tenant, runs of consecutive chunks (acceptance order is kept):
//
//  * small chunks (under small_rows) whose rows together are at most small_rows, however many;
//  * else `fanout` consecutive chunks of one tier, a tier being a size class that grows `fanout`
//    times: below small_rows * fanout rows, then each next power of `fanout` of it. A chunk of
//    final_rows rows or more is never merged again.
//
// Each row is so rewritten about log_fanout(final_rows / small_rows) + 1 times (Lucene's and
// Cassandra's size-tiered merging), and a tenant's history is a few large chunks plus a tail of
// recent smaller ones. One atomic batch holds the new chunk (numbered like the first one), the
// replaced rows renumbered, the current_ids of the current versions pointing at their new rows,
// and the deletion of the old chunks. Readers use snapshots, so they see either the old chunks or
// the new one.
#pragma once

#include <cstdint>
#include <optional>

#include "database.hpp"
#include "eventsvc/sdk/logger.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct MergePolicy {
  std::uint32_t small_rows = 4096;
  std::uint32_t fanout = 4;          // at least 2
  std::uint32_t final_rows = 65536;  // at least small_rows
};

// The size class of a chunk of `rows` rows; nullopt when it is not merged again.
std::optional<std::uint32_t> merge_tier(const MergePolicy& policy, std::uint32_t rows);

class ChunkMerger {
 public:
  // Each merge is logged at debug level, when it starts and when it is done (with its time).
  ChunkMerger(Database& database, MergePolicy policy, sdk::Logger* logger = nullptr)
      : database_(database), policy_(policy), logger_(logger) {}

  // Merges one run of chunks if there is one; false when there was none.
  bool merge_once();

 private:
  Database& database_;
  MergePolicy policy_;
  sdk::Logger* logger_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
