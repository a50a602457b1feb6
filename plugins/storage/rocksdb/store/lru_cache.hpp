// Values kept in memory by key, the least recently used dropped once the bytes they hold pass a
// capacity: what the term filters (term_filter.hpp), the decoded row sets of value postings
// (row_set_cache.hpp) and the parsed pages of columns (page_cache.hpp) are kept in. Values are
// shared and immutable, so a reader keeps using one that is dropped meanwhile. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace eventsvc::plugins::rocksdb_storage {

// Where a value newly kept goes among the others.
enum class Recency : std::uint8_t {
  most_recent,   // the last to be dropped
  least_recent,  // the next to be dropped: it pushes out only what was used least recently
};

template <class Value>
class LruCache {
 public:
  explicit LruCache(std::size_t capacity_bytes) : capacity_(capacity_bytes) {}

  // What an entry of `key` costs beside its value: the key twice (list and map) and their nodes.
  static std::size_t entry_bytes(const std::string& key) { return 2 * key.size() + 128; }

  // The value of `key`, now the most recently used; null when it is not kept. Counted as a hit or
  // a miss.
  std::shared_ptr<const Value> find(const std::string& key) {
    const std::lock_guard lock(mutex_);
    const auto it = entries_.find(key);
    if (it == entries_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    recency_.splice(recency_.begin(), recency_, it->second.recency);
    return it->second.value;
  }

  // The value kept under `key`, else `value`, kept `at` that place when its `bytes` fit the
  // capacity. Two readers that both loaded a missing value keep the first one's.
  std::shared_ptr<const Value> keep(const std::string& key, std::shared_ptr<const Value> value,
                                    std::size_t bytes, Recency at = Recency::most_recent) {
    const std::lock_guard lock(mutex_);
    if (const auto it = entries_.find(key); it != entries_.end()) return it->second.value;
    if (bytes > capacity_) return value;  // used once, never kept
    // Room first, so that a value kept as the least recent drops the one before it, not itself.
    while (bytes_ + bytes > capacity_)
      drop_least_recent();
    const auto place = at == Recency::most_recent ? recency_.begin() : recency_.end();
    entries_.emplace(key, Entry{value, bytes, recency_.insert(place, key)});
    bytes_ += bytes;
    return value;
  }

  std::size_t bytes() const {
    const std::lock_guard lock(mutex_);
    return bytes_;
  }
  std::size_t capacity() const { return capacity_; }
  std::uint64_t hits() const {
    const std::lock_guard lock(mutex_);
    return hits_;
  }
  std::uint64_t misses() const {
    const std::lock_guard lock(mutex_);
    return misses_;
  }

 private:
  void drop_least_recent() {
    const auto last = entries_.find(recency_.back());
    bytes_ -= last->second.bytes;
    entries_.erase(last);
    recency_.pop_back();
  }

  struct Entry {
    std::shared_ptr<const Value> value;
    std::size_t bytes = 0;
    std::list<std::string>::iterator recency;
  };

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::list<std::string> recency_;  // most recently used first
  std::unordered_map<std::string, Entry> entries_;
  std::size_t bytes_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace eventsvc::plugins::rocksdb_storage
