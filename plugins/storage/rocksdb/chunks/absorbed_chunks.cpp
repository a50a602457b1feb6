#include "chunks/absorbed_chunks.hpp"

#include <algorithm>

#include "chunks/chunk_keys.hpp"
#include "eventsvc/sdk/error.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

constexpr std::size_t kEntryBytes = 12;

}  // namespace

std::string absorbed_key(std::string_view tenant, std::uint64_t chunk) {
  return chunk_data_prefix(tenant, chunk, kAbsorbedTag);
}

std::string encode_absorbed(const std::vector<AbsorbedChunk>& absorbed) {
  std::string out;
  out.reserve(absorbed.size() * kEntryBytes);
  for (const auto& chunk : absorbed) {
    append_u64(out, chunk.number);
    append_u32(out, chunk.first_row);
  }
  return out;
}

std::optional<std::vector<AbsorbedChunk>> decode_absorbed(std::string_view bytes) {
  if (bytes.size() % kEntryBytes != 0) return std::nullopt;
  std::vector<AbsorbedChunk> absorbed;
  absorbed.reserve(bytes.size() / kEntryBytes);
  for (; !bytes.empty(); bytes.remove_prefix(kEntryBytes)) {
    absorbed.push_back({read_u64(bytes), read_u32(bytes.substr(8))});
    if (absorbed.size() > 1 && absorbed[absorbed.size() - 2].number >= absorbed.back().number)
      return std::nullopt;
  }
  return absorbed;
}

RowRef RowResolver::resolve(const std::string& tenant, RowRef row) {
  const RowRef first = holder_of(tenant, row.chunk);
  return {first.chunk, first.row + row.row};
}

RowRef RowResolver::holder_of(const std::string& tenant, std::uint64_t chunk) {
  const auto key = std::make_pair(tenant, chunk);
  if (const auto known = holders_.find(key); known != holders_.end()) return known->second;
  const std::string header = chunk_header_key(tenant, chunk);
  RowRef first{chunk, 0};
  if (!database_.exists(database_.columns, header)) {
    auto damaged = [&] {
      return sdk::Error::internal("current_ids point at chunk " + std::to_string(chunk) +
                                  ", which no chunk holds");
    };
    const std::string catalogue = catalogue_prefix(tenant);
    auto it = database_.iterator(database_.columns);
    it->SeekForPrev(header);
    check(it->status(), "column chunk catalogue");
    const auto holder =
        it->Valid() && it->key().starts_with(catalogue)
            ? header_chunk(std::string_view(it->key().data(), it->key().size()), catalogue.size())
            : std::nullopt;
    if (!holder) throw damaged();
    const auto bytes = database_.get(database_.columns, absorbed_key(tenant, *holder));
    const auto absorbed = bytes ? decode_absorbed(*bytes) : std::nullopt;
    if (!absorbed) throw damaged();
    const auto at = std::lower_bound(
        absorbed->begin(), absorbed->end(), chunk,
        [](const AbsorbedChunk& entry, std::uint64_t number) { return entry.number < number; });
    if (at == absorbed->end() || at->number != chunk) throw damaged();
    first = {*holder, at->first_row};
  }
  holders_.emplace(key, first);
  return first;
}

}  // namespace eventsvc::plugins::rocksdb_storage
