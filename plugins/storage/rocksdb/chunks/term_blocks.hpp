// A chunk's word and value postings (chunk_postings.hpp) in blocks of consecutive terms: one
// RocksDB key per block of about 4 KiB instead of one per term. On production-like data most
// terms (ids, addresses, order numbers, rare words) hold one row of one chunk, and a key per term
// made memtable inserts, merges and compactions grow with the number of distinct terms (Lucene's
// and tantivy's term dictionaries are blocks of terms for the same reason).
//
//   columns  <tenant> 'H' <chunk:u64> 0x04 <first term of the block>   -> block of words
//            <tenant> 'H' <chunk:u64> 0x05 <first term of the block>   -> block of value terms
//
// A block holds, per term in term order: the varint number of bytes it shares with the previous
// term of the block, the varint length of the rest and the rest, the varint length of its
// postings and the postings. A term is found by seeking to the last block whose first term is not
// after it, then reading that block up to it.
//
// Chunks written before blocks keep one key per term (tags 0x02 and 0x03, chunk_postings.hpp):
// ChunkTerms reads both layouts, and merging such chunks writes blocks. A chunk written with
// blocks also has a filter of its terms (term_filter.hpp), which ChunkTerms asks first, and later
// ones a directory of their blocks (term_directory.hpp), which finds a term's block without a seek.
#pragma once

#include <rocksdb/iterator.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunks/column_chunk.hpp"
#include "chunks/term_directory.hpp"
#include "store/database.hpp"
#include "store/term_filter.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// <tenant> 'H' <chunk> 0x04 or 0x05: every block key of one index of a chunk starts with it.
std::string term_blocks_prefix(std::string_view tenant, std::uint64_t chunk, TermIndex index);
// <tenant> 'H' <chunk> 0x06: the chunk's term filter, or its head; every part's key starts with it.
std::string term_filter_key(std::string_view tenant, std::uint64_t chunk);
// <tenant> 'H' <chunk> 0x06 <part:u32>: part `part` of a filter stored in parts.
std::string term_filter_part_key(std::string_view tenant, std::uint64_t chunk, std::uint32_t part);

// (first term, block) for (term, postings) pairs in term order, each block at most about
// `block_bytes` (a term larger than that has a block of its own).
std::vector<std::pair<std::string, std::string>> encode_term_blocks(
    const std::vector<std::pair<std::string, std::string>>& terms, std::size_t block_bytes = 4096);

class ChunkBuilder;

// Every key and value of a built chunk numbered `chunk` (columns family): its header (naming a
// new filter), its columns, its word and value postings as blocks and the filter of their terms.
// The postings are the builder's own, or, merging chunks, given as (term, postings) in term
// order. With a `cache`, the chunk's filter and directory are also put there
// (TermFilterCache::put).
std::vector<std::pair<std::string, std::string>> chunk_entries(std::string_view tenant,
                                                               std::uint64_t chunk,
                                                               const ChunkBuilder& built,
                                                               TermFilterCache* cache = nullptr);
std::vector<std::pair<std::string, std::string>> chunk_entries(
    std::string_view tenant, std::uint64_t chunk, const ChunkBuilder& built,
    const std::vector<std::pair<std::string, std::string>>& words,
    const std::vector<std::pair<std::string, std::string>>& values,
    TermFilterCache* cache = nullptr);

// Calls visit(term, postings) for each term of a block, in order, until it returns false; false
// when the block is damaged.
bool for_each_term(std::string_view block,
                   const std::function<bool(std::string_view, std::string_view)>& visit);

enum class TermLookup : std::uint8_t { found, absent, damaged };

// Looks `term` up in a block (its postings into `postings` when found), a term of the block
// compared only from the first byte where the one before it differed from `term`, and not at all
// when it shares more than that with the one before (it then sorts before `term` as well): a block
// holds hundreds of short terms, and a search or an equality looks one up in every chunk.
TermLookup find_in_term_block(std::string_view block, std::string_view term,
                              std::string_view& postings);

// Appends the (term, postings) of a block of chunk `chunk` to `into`; throws (500) when the
// block is damaged.
void append_block_terms(std::uint64_t chunk, std::string_view block,
                        std::vector<std::pair<std::string, std::string>>& into);

// Reads one index of the chunks of one tenant, in either layout. Not thread-safe: one per reader.
class ChunkTerms {
 public:
  ChunkTerms(Database& database, const rocksdb::Snapshot* snapshot, const std::string& tenant,
             TermIndex index);

  // The postings of `term` in `chunk`; nullopt when it has none. The chunk's filter answers
  // first, when it has one, unless the caller `filtered` the term already (may_hold()).
  std::optional<std::string> find(const ChunkRef& chunk, std::string_view term,
                                  bool filtered = false);
  // False when the chunk's filter says `term` is not in it (true when it has no filter).
  bool may_hold(const ChunkRef& chunk, std::string_view term);
  // Calls visit(term, postings) for every term of the chunk that starts with `prefix`, in order.
  void with_prefix(std::uint64_t chunk, std::string_view prefix,
                   const std::function<void(std::string_view, std::string_view)>& visit);

 private:
  rocksdb::Iterator& iterator();
  // Positions the iterator on the block of `chunk` that holds `term` if any block does: the last
  // one whose first term is not after it, else the chunk's first block. False when the chunk has
  // no blocks (written before them).
  bool seek_block(const std::string& prefix, std::string_view term);
  // The chunk's filter or directory of blocks (term_directory.hpp) that its header names, cached;
  // null when it has none.
  std::shared_ptr<const std::string> summary_of(const ChunkRef& chunk, ChunkSummary kind);
  // The bytes at `key`, a `kind` of summary of `chunk` (a filter, a directory, or a part of
  // either) that a header or a head names by `id`, cached; null when they are not those.
  std::shared_ptr<const std::string> cached(const ChunkRef& chunk, ChunkSummary kind,
                                            std::uint64_t id, const std::string& key);
  // Where a chunk written before blocks keeps one key per term of this index.
  std::string legacy_prefix(std::uint64_t chunk) const;

  Database& database_;
  const rocksdb::Snapshot* snapshot_;
  const std::string& tenant_;
  TermIndex index_;
  std::unique_ptr<rocksdb::Iterator> iterator_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
