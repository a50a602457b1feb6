#include "store/index_keys.hpp"

#include <algorithm>

#include "eventsvc/sdk/cells.hpp"
#include "eventsvc/toolkit/field_walk.hpp"
#include "store/key_codec.hpp"
#include "store/little_endian.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

namespace {

// <tenant><scope><kind>: the BM25 counters.
std::string stat_key(std::string_view tenant, Scope scope, char kind) {
  std::string key(tenant);
  key.push_back(static_cast<char>(scope));
  key.push_back(kind);
  return key;
}

std::string scoped(std::string_view tenant, char kind, Scope scope) {
  std::string key(tenant);
  key.push_back(kind);
  key.push_back(static_cast<char>(scope));
  return key;
}

}  // namespace

std::string field_prefix(std::string_view tenant, Scope scope, std::string_view path) {
  std::string key = scoped(tenant, 'F', scope);
  append_string(key, path);
  return key;
}

std::string id_prefix(std::string_view tenant, Scope scope, std::string_view id) {
  std::string key = scoped(tenant, 'I', scope);
  append_string(key, id);
  return key;
}

std::string token_prefix(std::string_view tenant, Scope scope, std::string_view token) {
  std::string key = scoped(tenant, 'T', scope);
  key += token;
  key.push_back('\0');
  return key;
}

std::string frequency_prefix(std::string_view tenant, Scope scope) {
  return stat_key(tenant, scope, 'D');
}

std::string documents_key(std::string_view tenant, Scope scope) {
  return stat_key(tenant, scope, 'N');
}

std::string length_key(std::string_view tenant, Scope scope) {
  return stat_key(tenant, scope, 'L');
}

std::string frequency_key(std::string_view tenant, Scope scope, std::string_view token) {
  std::string key = frequency_prefix(tenant, scope);
  key += token;
  return key;
}

std::string encode_posting(std::uint32_t frequency, std::uint32_t length) {
  std::string value;
  append_u64(value, (static_cast<std::uint64_t>(frequency) << 32U) | length);
  return value;
}

std::pair<std::uint32_t, std::uint32_t> decode_posting(std::string_view value) {
  if (value.size() < 8) return {0, 0};
  const std::uint64_t packed = read_u64(value);
  return {static_cast<std::uint32_t>(packed >> 32U),
          static_cast<std::uint32_t>(packed & 0xFFFFFFFFU)};
}

void append_version_tail(std::string& key, sdk::Millis timestamp, std::string_view id) {
  append_instant(key, timestamp);
  key += id;
}

void for_each_indexed_value(const sdk::Record& record,
                            const std::function<void(std::string_view, std::string_view)>& emit) {
  emit("type", encode_string(record.type));
  emit("stream", encode_string(record.stream));
  if (record.namespace_name) emit("namespace", encode_string(*record.namespace_name));
  if (record.site_id) emit("site_id", encode_string(*record.site_id));
  if (record.source_id) emit("source_id", encode_string(*record.source_id));
  emit("receipt_id", encode_string(record.receipt_id));
  emit("ingested_at", encode_number(static_cast<double>(record.ingested_at)));
  // Every value below payload and metrics (not the roots, which are not addressed through the
  // index), under every key: containers as a marker, scalars encoded.
  static const std::string kContainer(1, static_cast<char>(ValueTag::container));
  const auto leaf = [&](const std::string& path, std::optional<std::string_view>,
                        const json::value& value) {
    if (value.is_object() || value.is_array()) {
      emit(path, kContainer);
    } else if (const auto encoded = encode_value(value)) {
      emit(path, *encoded);
    }
  };
  std::string path = "payload";
  toolkit::for_each_field(path, record.payload, leaf, toolkit::FieldKeys::all);
  path = "metrics";
  toolkit::for_each_field(path, record.metrics, leaf, toolkit::FieldKeys::all);
}

std::string counter_delta(std::int64_t delta) {
  std::string out;
  append_u64_le(out, static_cast<std::uint64_t>(delta));
  return out;
}

std::uint64_t counter_value(std::string_view bytes) {
  return read_le(bytes, 0, static_cast<int>(std::min<std::size_t>(bytes.size(), 8)));
}

}  // namespace eventsvc::plugins::rocksdb_storage
