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
// A filter of more than one part (kTermFilterPartBlocks blocks, 4 KiB) is stored as a head and its
// parts, so that a question reads the part its term's block is in, not the whole filter: read
// whole, the filters of a restarted server's first question were two fifths of its time at
// 1,000,000 events (a megabyte for a chunk of 65,536 rows, hashed to check it). RocksDB's
// partitioned filters do the same.
//
//   columns  <tenant> 'H' <chunk:u64> 0x06               -> the whole filter, or the head
//            <tenant> 'H' <chunk:u64> 0x06 <part:u32>    -> part `part` of the blocks
//
// A head is byte 0: format (2), byte 1: probes, then, little-endian, the u32 number of blocks, the
// u32 blocks per part and each part's id (content_id of its bytes, u64). A part is its blocks, the
// bits of a term where a whole filter has them.
//
// A chunk's header names its filter (its head) by a 64-bit hash of the filter
// (ChunkHeader::filter); a chunk without one (written before filters) has no filter and every term
// may be in it. Filters are read into a cache keyed by (tenant, chunk, id): chunk numbers are
// reused by merges, but two filters with one id are the same filter, so a cached filter is that of
// the chunk a reader's snapshot sees, whatever the snapshot.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
// format (a head among them: term_filter_part()), or damaged, answers true.
bool term_filter_may_hold(std::string_view filter, TermIndex index, std::string_view term);

inline constexpr std::size_t kTermFilterPartBlocks = 64;

// A filter as it is stored (above): whole when it has at most one part of blocks, else a head and
// its parts, each with its id.
struct StoredTermFilter {
  std::string head;
  std::vector<std::pair<std::uint64_t, std::string>> parts;
};
StoredTermFilter store_term_filter(std::string filter);

// The part of a filter stored in parts that holds a term's bits, and where in it they are.
struct TermFilterPart {
  std::uint32_t number = 0;
  std::uint64_t id = 0;
  std::uint64_t hash = 0;
  std::size_t block = 0;  // within the part
  std::uint8_t probes = 0;
};
// Where `term` of `index` is in the filter whose head is `head`; nullopt when `head` is not a
// well-formed head (a whole filter: term_filter_may_hold() answers from it).
std::optional<TermFilterPart> term_filter_part(std::string_view head, TermIndex index,
                                               std::string_view term);
// False only when the term `part` was found for is certainly not in the chunk, answered from
// `bytes`, that part's blocks. Bytes of the wrong size answer true.
bool term_filter_part_holds(std::string_view bytes, const TermFilterPart& part);
// The id of a part of a filter: a hash of its bytes, never 0.
std::uint64_t term_filter_part_id(std::string_view bytes);

// The id of a filter: a hash of its bytes, never 0.
std::uint64_t term_filter_id(std::string_view filter);
// A hash of `bytes` with `seed`, never 0, fixed by the formats that name data by it.
std::uint64_t content_id(std::string_view bytes, std::uint64_t seed);

// What of a chunk the cache below holds: its filter (or its head) or a part of it, its directory
// of term blocks (term_directory.hpp: or its head) or a part of it, which share the cache's bytes.
enum class ChunkSummary : char {
  filter = 'f',
  filter_part = 'p',
  directory = 'd',
  directory_part = 'q'
};

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
