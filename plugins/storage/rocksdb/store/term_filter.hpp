// A chunk's filter of terms: whether a word or a value term (term_blocks.hpp) can be in the
// chunk, answered from memory, so that a rare word or one exact id, address or order number
// opens only the chunks that may hold it instead of seeking into every chunk of the time range
// (Lucene's and RocksDB's per-segment Bloom filters do the same for point lookups).
//
//   columns  <tenant> 'H' <chunk:u64> 0x06   -> the filter
//
// The filter is a blocked Bloom filter: one 64-byte block per term, chosen by the term's hash,
// with kProbes bits set in it, about ten bits per term (about 1% false positives, one cache line
// read per question). It is byte 0: format (1), byte 1: probes, then the blocks. A term is hashed
// with its index (word or value) in front, with a hash fixed by this format, since filters
// outlive the process that wrote them.
//
// A chunk's header names its filter by a 64-bit hash of the filter (ChunkHeader::filter); a chunk
// without one (written before filters) has no filter and every term may be in it. Filters are
// read into a cache keyed by (tenant, chunk, id): chunk numbers are reused by merges, but two
// filters with one id are the same filter, so a cached filter is that of the chunk a reader's
// snapshot sees, whatever the snapshot.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/lru_cache.hpp"

namespace eventsvc::plugins::rocksdb_storage {

enum class TermIndex : std::uint8_t { words, values };

// Builds a filter for the terms of a chunk's two indexes.
class TermFilterBuilder {
 public:
  void add(TermIndex index, std::string_view term);
  std::size_t size() const { return hashes_.size(); }
  std::string build() const;

 private:
  std::vector<std::uint64_t> hashes_;
};

// False only when `term` of `index` is certainly not in the filter's chunk. A filter of another
// format, or damaged, answers true.
bool term_filter_may_hold(std::string_view filter, TermIndex index, std::string_view term);

// The id of a filter: a hash of its bytes, never 0.
std::uint64_t term_filter_id(std::string_view filter);
// A hash of `bytes` with `seed`, never 0, fixed by the formats that name data by it.
std::uint64_t content_id(std::string_view bytes, std::uint64_t seed);

// What of a chunk the cache below holds: its filter, or its directory of term blocks
// (term_directory.hpp), which share the cache's bytes.
enum class ChunkSummary : char { filter = 'f', directory = 'd' };

// The filters (and directories) read, least recently used dropped past `capacity_bytes`.
// Thread-safe.
class TermFilterCache {
 public:
  explicit TermFilterCache(std::size_t capacity_bytes) : entries_(capacity_bytes) {}

  // The filter (or directory) of (tenant, chunk, id), read by `load` when it is not cached; null
  // when `load` finds none (the chunk then may hold every term).
  std::shared_ptr<const std::string> get(std::string_view tenant, std::uint64_t chunk,
                                         std::uint64_t id,
                                         const std::function<std::optional<std::string>()>& load,
                                         ChunkSummary kind = ChunkSummary::filter);

  // Keeps the filter (or directory) `bytes` of (tenant, chunk, id) as if read: a chunk's writer
  // puts what it wrote, so that the first questions after a load or a merge do not read and
  // check a megabyte of filters per chunk. Kept under its id, it is found only once a header
  // names it, which the chunk's commit does.
  void put(std::string_view tenant, std::uint64_t chunk, std::uint64_t id, std::string bytes,
           ChunkSummary kind);

  // Counts a term lookup that a filter answered "not here", and one that it let through.
  void count(bool skipped) { (skipped ? skips_ : passes_).fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t skips() const { return skips_.load(std::memory_order_relaxed); }
  std::uint64_t passes() const { return passes_.load(std::memory_order_relaxed); }
  std::size_t bytes() const { return entries_.bytes(); }
  std::size_t capacity() const { return entries_.capacity(); }

 private:
  std::string key_of(std::string_view tenant, std::uint64_t chunk, std::uint64_t id,
                     ChunkSummary kind) const;

  LruCache<std::string> entries_;
  std::atomic<std::uint64_t> skips_{0};
  std::atomic<std::uint64_t> passes_{0};
};

}  // namespace eventsvc::plugins::rocksdb_storage
