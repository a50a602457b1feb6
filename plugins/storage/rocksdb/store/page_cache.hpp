// The pages of chunks' columns (column_chunk.hpp) as questions parsed them, kept between
// questions: a question that lands on a few rows of each chunk (one site, one customer tier) reads
// and parses the same pages of `timestamp`, `id` and its fields every time it is asked, a point
// read and a count of every row's kind per page. ClickHouse keeps decompressed blocks in its
// uncompressed cache for the same short queries.
//
// A page is keyed by its column (tenant, chunk, name), the column's id (a hash of its stored pages
// one after the other, which the column's head names) and the page's place among the stored
// pages: together they fix the page's bytes, whatever the snapshot (a chunk rebuilt under its
// number by a merge or a purge has other ids), and no two columns share a page.
//
// A page that a scan reads is kept on its first load as the least recently used, the next to be
// dropped, and as the most recently used on its second load while its key is remembered (the keys
// remembered take at most a sixteenth of the capacity, beside it): an aggregation that reads each
// page once pushes out only what was used least recently before it (its own pages, once the cache
// is full), never the pages that questions come back to, and one asked again finds its pages
// where there was room for them. A page read at the rows a question's postings picked is kept as
// the most recently used on its first load: such a question, asked again, reads the same few
// pages. (Keeping pages only from their second load made that load parse them all again: at
// 1,000,000 events the second answer of a current-state question took 2.1 ms of the server's time
// against 0.6 ms from the third on, and the 7-day aggregation's 14.6 ms against 7.8.)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "store/lru_cache.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class ColumnView;
class PageCache;

// What reads a page, which decides how it is kept (above).
enum class PageRead : std::uint8_t {
  scan,    // every page of the column, or most of them
  lookup,  // the pages of the rows a question's postings picked
};

// Where the pages of one column are kept: the cache, the column's place (tenant, chunk, name)
// that every key of its pages begins with, and what reads them.
struct PageCacheScope {
  PageCache* cache = nullptr;
  std::string column;
  PageRead read = PageRead::scan;
};

class PageCache {
 public:
  // A capacity of 0 keeps nothing.
  explicit PageCache(std::size_t capacity_bytes)
      : pages_(capacity_bytes), seen_(capacity_bytes / 16) {}

  // The key of the page of `rows` rows that is stored page number `stored` (counting only the
  // pages stored) of `column` (PageCacheScope::column), whose head names `column_id`.
  static std::string key(std::string_view column, std::uint64_t column_id, std::uint32_t stored,
                         std::uint32_t rows);

  // The page kept under `key`, else null; counted as a hit or a miss.
  std::shared_ptr<const ColumnView> find(const std::string& key) { return pages_.find(key); }
  // Whether a page of `key` loaded now is kept as the most recently used: it was loaded before,
  // while remembered. Remembers it otherwise.
  bool admits(const std::string& key);
  // Keeps `page` (whose bytes are its own, `bytes` of them) under `key`, `at` that place among the
  // pages kept (above); the page kept.
  std::shared_ptr<const ColumnView> keep(const std::string& key,
                                         std::shared_ptr<const ColumnView> page, std::size_t bytes,
                                         Recency at = Recency::most_recent) {
    return pages_.keep(key, std::move(page), bytes, at);
  }

  std::uint64_t hits() const { return pages_.hits(); }
  std::uint64_t misses() const { return pages_.misses(); }
  std::size_t bytes() const { return pages_.bytes(); }
  bool enabled() const { return pages_.capacity() > 0; }

 private:
  LruCache<ColumnView> pages_;
  LruCache<bool> seen_;  // keys loaded once, each charged its size and the entry's
};

}  // namespace eventsvc::plugins::rocksdb_storage
