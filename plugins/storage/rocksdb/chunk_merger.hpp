// Merges small column chunks. A projection round writes one chunk per tenant, so slow ingest
// leaves many small chunks, each a header and a few keys that every column read must fetch.
// Between rounds, the projector rewrites consecutive small chunks of a tenant (together at most
// kTargetRows rows) as one. One atomic batch holds the new chunk (numbered like the first one),
// the replaced rows renumbered, the current_ids of the current versions pointing at their new
// rows, and the deletion of the old chunks. Readers use snapshots, so they see either the old
// chunks or the new one.
#pragma once

#include <cstdint>

#include "database.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class ChunkMerger {
 public:
  static constexpr std::uint32_t kTargetRows = 4096;

  explicit ChunkMerger(Database& database) : database_(database) {}

  // Merges one run of small chunks if there is one; false when there was none.
  bool merge_once();

 private:
  Database& database_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
