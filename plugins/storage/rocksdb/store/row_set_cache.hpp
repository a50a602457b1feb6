// The rows of a chunk's value postings (chunk_postings.hpp), decoded, kept between questions: a
// dashboard asks the same equalities again and again ("stream is sensors", "site is krk-1"), and
// every time each chunk of its time range would read the value's term block and decode its rows.
// Lucene's query cache keeps a segment's matching documents per filter for the same reason.
//
// A set is keyed by (tenant, chunk, the id of the chunk's value postings, value term). The id is a
// hash of the postings (ChunkHeader::values): chunk numbers are reused by merges and purges, but a
// set cached under one id is that of every chunk whose header names it, so a reader finds the set
// of the chunk its snapshot sees, whatever the snapshot. Chunks written before the id have none
// and are not cached.
//
// A set of fewer than kCachedRows rows is not kept: decoding it again is cheap, and the ids,
// addresses and order numbers that each question asks once would push out the sets that repeat.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "store/lru_cache.hpp"
#include "store/row_bits.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class RowSetCache {
 public:
  static constexpr std::uint32_t kCachedRows = 64;

  // A capacity of 0 keeps nothing.
  explicit RowSetCache(std::size_t capacity_bytes) : sets_(capacity_bytes) {}

  // The rows of `term` in the chunk of `rows` rows whose value postings have id `values`, decoded
  // by `load` when they are not cached; null when `load` finds none (no row holds the value).
  std::shared_ptr<const RowBits> get(std::string_view tenant, std::uint64_t chunk,
                                     std::uint64_t values, std::uint32_t rows,
                                     std::string_view term,
                                     const std::function<std::optional<RowBits>()>& load);

  std::uint64_t hits() const { return sets_.hits(); }
  std::uint64_t misses() const { return sets_.misses(); }
  std::size_t bytes() const { return sets_.bytes(); }
  std::size_t capacity() const { return sets_.capacity(); }

 private:
  LruCache<RowBits> sets_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
