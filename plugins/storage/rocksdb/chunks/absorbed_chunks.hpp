// Where the rows of a merged chunk came from, so that a merge need not repoint current_ids.
//
// current_ids point at rows (column_chunk.hpp: RowRef), and a merge moves every row of the chunks
// it absorbs. Pointing each row still current at its new place made a merge's commit, which holds
// the projection round, as long as the chunk: up to 65,536 memtable inserts for a final chunk, a
// round held for hundreds of milliseconds. Instead a merged chunk lists the chunks it absorbed,
// each with where its rows start in it, and a pointer is resolved when a round reads it:
//
//   columns  <tenant> 'H' <chunk:u64> 0x07  -> (<absorbed chunk:u64><first row:u32>)*, by number
//
// A merged chunk is numbered like the first chunk of its run, runs are consecutive in number
// order and numbers are never used again, so the chunk holding an absorbed chunk's rows is the
// one with the greatest number at or below it; a merge of merged chunks carries their lists over,
// shifted. A chunk's own rows keep their numbers when it absorbs others (it comes first), so a
// pointer at a chunk that still has a header needs no list. A purge renumbers the rows of one
// chunk: it repoints the current_ids of its rows and leaves no list.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunks/column_chunk.hpp"
#include "store/database.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// An absorbed chunk's number, and the row of the merged chunk its first row became.
struct AbsorbedChunk {
  std::uint64_t number = 0;
  std::uint32_t first_row = 0;
};

std::string absorbed_key(std::string_view tenant, std::uint64_t chunk);
std::string encode_absorbed(const std::vector<AbsorbedChunk>& absorbed);
// nullopt when the bytes are damaged.
std::optional<std::vector<AbsorbedChunk>> decode_absorbed(std::string_view bytes);

// Resolves the rows current_ids point at, for one projection round: merges commit only between
// rounds, so what it learns about a chunk holds until the round ends.
class RowResolver {
 public:
  explicit RowResolver(Database& database) : database_(database) {}

  // Where the row that a pointer written at any time since names is now. Throws sdk::Error
  // (internal) when no chunk holds it: the catalogue is damaged.
  RowRef resolve(const std::string& tenant, RowRef row);

 private:
  RowRef holder_of(const std::string& tenant, std::uint64_t chunk);

  Database& database_;
  std::map<std::pair<std::string, std::uint64_t>, RowRef> holders_;  // chunk -> its first row now
};

}  // namespace eventsvc::plugins::rocksdb_storage
