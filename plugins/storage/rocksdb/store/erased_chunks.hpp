// Which column chunks have erased rows (an erasure's mask, chunk_keys.hpp), kept in memory so that
// a read of a chunk without any, nearly every chunk, costs nothing for them. A chunk is listed
// before the mask is written and stays listed while the database is open, even once a merge has
// moved its rows: a reader's snapshot may be older than the merge. At open, the masks are listed
// again from the keys.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>

namespace eventsvc::plugins::rocksdb_storage {

class ErasedChunks {
 public:
  void add(std::string_view tenant, std::uint64_t chunk) {
    const std::unique_lock lock(mutex_);
    chunks_.insert(key(tenant, chunk));
    any_ = true;
  }
  bool contains(std::string_view tenant, std::uint64_t chunk) const {
    if (!any_.load(std::memory_order_acquire)) return false;
    const std::shared_lock lock(mutex_);
    return chunks_.contains(key(tenant, chunk));
  }

 private:
  static std::string key(std::string_view tenant, std::uint64_t chunk) {
    std::string out(tenant);
    out.append(reinterpret_cast<const char*>(&chunk), sizeof chunk);
    return out;
  }

  mutable std::shared_mutex mutex_;
  std::set<std::string, std::less<>> chunks_;
  std::atomic<bool> any_{false};
};

}  // namespace eventsvc::plugins::rocksdb_storage
