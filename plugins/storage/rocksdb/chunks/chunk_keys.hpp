// Where a column chunk's data is kept: the key layout every part of a chunk shares, so that the
// columns, postings, term blocks and filter of one chunk sit side by side under one prefix.
//
//   <tenant> 'C' <chunk:u64>              the chunk's header (the catalogue, column_chunk.hpp)
//   <tenant> 'H' <chunk:u64> <tag> ...    its data, by tag (below)
//   <tenant> 'R' <chunk:u64>              its erased rows: a bitmap, as replaced rows'
//   <tenant> 'S' <chunk:u64> ...          its replaced rows
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace eventsvc::plugins::rocksdb_storage {

// The tags of a chunk's data.
inline constexpr char kColumnTag = 0x01;       // <column name> -> column (column_chunk.hpp)
inline constexpr char kPostingsTag = 0x02;     // word postings (chunk_postings.hpp)
inline constexpr char kValuesTag = 0x03;       // value postings (chunk_postings.hpp)
inline constexpr char kWordBlocksTag = 0x04;   // word term blocks (term_blocks.hpp)
inline constexpr char kValueBlocksTag = 0x05;  // value term blocks (term_blocks.hpp)
inline constexpr char kFilterTag = 0x06;       // term filter (term_filter.hpp)
inline constexpr char kAbsorbedTag = 0x07;     // the chunks a merge absorbed (absorbed_chunks.hpp)
inline constexpr char kDirectoryTag = 0x08;   // first terms of the term blocks (term_directory.hpp)
inline constexpr char kColumnPageTag = 0x09;  // <column name> <page:u32> -> a page of a column

std::string chunk_prefix(std::string_view tenant);  // <tenant> 'H'
// <tenant> 'H' <chunk> <tag>: where one kind of a chunk's data is kept.
std::string chunk_data_prefix(std::string_view tenant, std::uint64_t chunk, char tag);
std::string catalogue_prefix(std::string_view tenant);  // <tenant> 'C'
std::string chunk_header_key(std::string_view tenant, std::uint64_t chunk);
std::string chunk_column_key(std::string_view tenant, std::uint64_t chunk, std::string_view column);
// One page of a paged column (column_chunk.hpp): a column's pages are one run of keys, read one
// after the other by a question about many of its rows. (A key is told from one of another column
// whose name extends this one by its size.)
std::string chunk_column_pages_prefix(std::string_view tenant, std::uint64_t chunk,
                                      std::string_view column);
std::string chunk_column_page_key(std::string_view tenant, std::uint64_t chunk,
                                  std::string_view column, std::uint32_t page);
// The bitmap of the chunk's erased rows: hidden from every read, of history as of current state.
std::string erased_key(std::string_view tenant, std::uint64_t chunk);
// The bitmap's key, and the prefix of every replaced-rows key of the chunk.
std::string replaced_key(std::string_view tenant, std::uint64_t chunk);

}  // namespace eventsvc::plugins::rocksdb_storage
