#include "chunks/erased_rows.hpp"

#include "chunks/chunk_keys.hpp"
#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/error.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::optional<RowBits> read_erased_rows(Database& database, const rocksdb::Snapshot* snapshot,
                                        const std::string& tenant, std::uint64_t chunk,
                                        std::uint32_t rows) {
  if (!database.erased_chunks().contains(tenant, chunk)) return std::nullopt;
  const auto bitmap = database.get_pinned(database.columns, erased_key(tenant, chunk), snapshot);
  if (!bitmap) return std::nullopt;
  RowBits erased;
  erased.reset(rows, false);
  if (!erased.set_bytes(bitmap->data(), bitmap->size())) {
    throw sdk::Error::internal("the erased rows of chunk " + std::to_string(chunk) +
                               " are damaged");
  }
  return erased;
}

void for_each_erased_chunk(Database& database, const rocksdb::Snapshot* snapshot,
                           const std::function<bool(const std::string&, std::uint64_t)>& visit) {
  auto it = database.iterator(database.columns, nullptr, nullptr, snapshot);
  for (it->SeekToFirst(); it->Valid();) {
    const std::string_view key(it->key().data(), it->key().size());
    const auto owner = tenant_of(key);
    if (!owner) throw sdk::Error::internal("a column chunk key is damaged");
    const std::string tenant(*owner);
    const char tag = key[tenant.size()];
    if (tag != 'R') {  // the tenant's catalogue or chunk data, or past its erased rows
      it->Seek(tenant + static_cast<char>(tag < 'R' ? 'R' : 'S' + 1));
      continue;
    }
    const auto chunk = header_chunk(key, tenant.size() + 1);
    if (!chunk) throw sdk::Error::internal("an erased-rows key is damaged");
    if (!visit(tenant, *chunk)) return;
    it->Next();
  }
  check(it->status(), "column chunk scan");
}

}  // namespace eventsvc::plugins::rocksdb_storage
