// A chunk's directory of term blocks (term_blocks.hpp): the first term of every block of its word
// and value postings, so that the block that may hold a term is found in memory and read with one
// point lookup. Without it a term's block is found by SeekForPrev, which positions an iterator
// over every memtable and level of the LSM tree: at 1,000,000 events that was about an eighth of
// the server's time for a current-state question whose equalities the value postings decide.
//
//   columns  <tenant> 'H' <chunk:u64> 0x08   -> the directory
//
// Byte 0 is the format (1); then, for the words and then the values: the number of blocks (u32
// LE), the end offset of each block's first term (u32 LE each, from the first term's start), and
// the first terms one after the other. The chunk's header names its directory by a hash of its
// bytes (ChunkHeader::directory), so a cached directory is the one of the chunk a reader's
// snapshot sees, as for filters (term_filter.hpp). Chunks written before directories have none.
//
// A directory of more than kTermDirectoryPartBlocks blocks is stored as a head and parts, as a
// large filter is (term_filter.hpp): a reader with nothing cached reads the head and the one part
// that covers its term, not the first term of every block of the chunk (at 1,000,000 events, a
// fifth of a restarted server's first current-state answer read directories whole).
//
//            <tenant> 'H' <chunk:u64> 0x08 <index:1> <part:u32>   -> part `part` of an index
//
// A head is byte 0: format (2); then, for the words and then the values, a string table of the
// first term of each part's first block; then each part's id (u64 LE), the words' parts first. A
// part is a directory in format 1 of that index's blocks from its first one (the other index
// empty).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/term_filter.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::string term_directory_key(std::string_view tenant, std::uint64_t chunk);

// The directory of blocks whose first terms are `words` and `values`, each in term order.
std::string encode_term_directory(const std::vector<std::string_view>& words,
                                  const std::vector<std::string_view>& values);

// The id a header names a directory by: a hash of its bytes, never 0.
std::uint64_t term_directory_id(std::string_view directory);

// Whether `directory` is whole in this format: both parts present, every first term within its
// text and after the one before. Checked once, when a directory is cached.
bool term_directory_intact(std::string_view directory);

enum class BlockSearch : std::uint8_t {
  found,    // `first` is the first term of the only block that may hold the term
  absent,   // the term sorts before every block of the index: not in the chunk
  damaged,  // the directory is not one this format reads
};

BlockSearch find_term_block(std::string_view directory, TermIndex index, std::string_view term,
                            std::string_view& first);

inline constexpr std::size_t kTermDirectoryPartBlocks = 64;

// A directory as it is stored (above): whole when it names at most one part of blocks, else a
// head and its parts.
struct StoredTermDirectory {
  struct Part {
    TermIndex index = TermIndex::words;
    std::uint32_t number = 0;
    std::uint64_t id = 0;  // term_directory_id of its bytes
    std::string bytes;
  };
  std::string head;
  std::vector<Part> parts;
};
StoredTermDirectory store_term_directory(const std::vector<std::string_view>& words,
                                         const std::vector<std::string_view>& values);

std::string term_directory_part_key(std::string_view tenant, std::uint64_t chunk, TermIndex index,
                                    std::uint32_t part);

// The part of the directory whose head is `head` that covers `term` of `index`: found (`part`
// names it), absent (the term sorts before every block of the index) or damaged; nullopt when
// `head` is a whole directory (find_term_block() searches it).
struct TermDirectoryPart {
  std::uint32_t number = 0;
  std::uint64_t id = 0;
};
std::optional<BlockSearch> find_term_directory_part(std::string_view head, TermIndex index,
                                                    std::string_view term, TermDirectoryPart& part);

}  // namespace eventsvc::plugins::rocksdb_storage
