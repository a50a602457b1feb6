#include "chunks/chunk_keys.hpp"

#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::string chunk_prefix(std::string_view tenant) {
  std::string prefix(tenant);
  prefix.push_back('H');
  return prefix;
}

std::string catalogue_prefix(std::string_view tenant) {
  std::string prefix(tenant);
  prefix.push_back('C');
  return prefix;
}

std::string chunk_header_key(std::string_view tenant, std::uint64_t chunk) {
  std::string key = catalogue_prefix(tenant);
  append_u64(key, chunk);
  return key;
}

std::string chunk_data_prefix(std::string_view tenant, std::uint64_t chunk, char tag) {
  std::string key = chunk_prefix(tenant);
  append_u64(key, chunk);
  key.push_back(tag);
  return key;
}

std::string chunk_column_key(std::string_view tenant, std::uint64_t chunk,
                             std::string_view column) {
  std::string key = chunk_data_prefix(tenant, chunk, kColumnTag);
  key += column;
  return key;
}

std::string chunk_column_pages_prefix(std::string_view tenant, std::uint64_t chunk,
                                      std::string_view column) {
  std::string key = chunk_data_prefix(tenant, chunk, kColumnPageTag);
  key += column;
  return key;
}

std::string chunk_column_page_key(std::string_view tenant, std::uint64_t chunk,
                                  std::string_view column, std::uint32_t page) {
  std::string key = chunk_column_pages_prefix(tenant, chunk, column);
  append_u32(key, page);
  return key;
}

std::string erased_key(std::string_view tenant, std::uint64_t chunk) {
  std::string key(tenant);
  key.push_back('R');
  append_u64(key, chunk);
  return key;
}

std::string replaced_key(std::string_view tenant, std::uint64_t chunk) {
  std::string key(tenant);
  key.push_back('S');
  append_u64(key, chunk);
  return key;
}

}  // namespace eventsvc::plugins::rocksdb_storage
