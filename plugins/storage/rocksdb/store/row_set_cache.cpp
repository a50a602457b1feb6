#include "store/row_set_cache.hpp"

#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::shared_ptr<const RowBits> RowSetCache::get(
    std::string_view tenant, std::uint64_t chunk, std::uint64_t values, std::uint32_t rows,
    std::string_view term, const std::function<std::optional<RowBits>()>& load) {
  std::string key(tenant);
  key.push_back('\0');
  append_u64(key, chunk);
  append_u64(key, values);
  append_u32(key, rows);
  key += term;
  if (auto found = sets_.find(key)) return found;
  auto loaded = load();
  if (!loaded) return nullptr;
  auto set = std::make_shared<const RowBits>(std::move(*loaded));
  if (set->count() < kCachedRows) return set;
  return sets_.keep(key, set,
                    LruCache<RowBits>::entry_bytes(key) + sizeof(RowBits) + set->bitmap_bytes());
}

}  // namespace eventsvc::plugins::rocksdb_storage
