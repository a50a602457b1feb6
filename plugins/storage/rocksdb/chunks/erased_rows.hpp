// The rows an erasure masked in a column chunk (chunk_keys.hpp, erased_key), as every read of the
// chunk leaves them out: scans (chunk_scanner.cpp) and the per-word document counts BM25 ranks by
// (text_scorer.cpp), until the chunk is purged.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "store/database.hpp"
#include "store/row_bits.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// The erased rows of a chunk of `rows` rows, read at `snapshot`; nullopt when it has none (the
// database's ErasedChunks answers for nearly every chunk without a read). Throws 500 when damaged.
std::optional<RowBits> read_erased_rows(Database& database, const rocksdb::Snapshot* snapshot,
                                        const std::string& tenant, std::uint64_t chunk,
                                        std::uint32_t rows);

// Calls visit(tenant, chunk) for every chunk with erased rows, in key order, until it returns
// false; read at `snapshot` (null: now).
void for_each_erased_chunk(Database& database, const rocksdb::Snapshot* snapshot,
                           const std::function<bool(const std::string&, std::uint64_t)>& visit);

}  // namespace eventsvc::plugins::rocksdb_storage
