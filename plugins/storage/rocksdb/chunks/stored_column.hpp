// A chunk's column read from the database, with what loads its pages when it is paged
// (column_chunk.hpp), all under one snapshot.
#pragma once

#include <rocksdb/snapshot.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "chunks/column_chunk.hpp"
#include "store/database.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// Loads the pages of a chunk's column under `snapshot` (nullptr: as the database is when a page
// is read; a page of another chunk of the number is then told by the head's id).
ColumnView::PageLoader column_pages(Database& database, const rocksdb::Snapshot* snapshot,
                                    std::string_view tenant, std::uint64_t chunk,
                                    std::string_view column);

// Where the pages of a chunk's column are kept between reads: the database's page cache, under the
// column's place (a cache that keeps nothing is passed over when the column is read), kept as
// page_cache.hpp says for what `read`s them.
PageCacheScope column_page_cache(Database& database, std::string_view tenant, std::uint64_t chunk,
                                 std::string_view column, PageRead read = PageRead::scan);

// The column of a chunk of `rows` rows; nullopt when the chunk has none. Throws sdk::Error 500
// when it is damaged.
std::optional<ColumnView> read_column(Database& database, const rocksdb::Snapshot* snapshot,
                                      std::string_view tenant, std::uint64_t chunk,
                                      std::string_view column, std::uint32_t rows,
                                      PageRead read = PageRead::scan);

}  // namespace eventsvc::plugins::rocksdb_storage
