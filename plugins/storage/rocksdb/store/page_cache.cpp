#include "store/page_cache.hpp"

#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::string PageCache::key(std::string_view column, std::uint64_t column_id, std::uint32_t stored,
                           std::uint32_t rows) {
  std::string key(column);
  append_u64(key, column_id);
  append_u32(key, stored);
  append_u32(key, rows);
  return key;
}

bool PageCache::admits(const std::string& key) {
  if (seen_.find(key)) return true;
  static const auto kSeen = std::make_shared<const bool>(true);
  seen_.keep(key, kSeen, LruCache<bool>::entry_bytes(key));
  return false;
}

}  // namespace eventsvc::plugins::rocksdb_storage
