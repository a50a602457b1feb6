#include "store/page_cache.hpp"

#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

// What a remembered key costs beside its bytes: its list node and map entry.
constexpr std::size_t kSeenEntryBytes = 48;

}  // namespace

std::string PageCache::key(std::uint64_t column_id, std::uint32_t page, std::uint32_t rows) {
  std::string key;
  append_u64(key, column_id);
  append_u32(key, page);
  append_u32(key, rows);
  return key;
}

std::shared_ptr<const ColumnView> PageCache::find(const std::string& key) {
  auto found = pages_.find(key);
  (found ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed);
  return found;
}

bool PageCache::admits(const std::string& key) {
  if (seen_.find(key)) return true;
  static const auto kSeen = std::make_shared<const bool>(true);
  seen_.keep(key, kSeen, key.size() + kSeenEntryBytes);
  return false;
}

}  // namespace eventsvc::plugins::rocksdb_storage
