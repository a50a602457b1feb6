#include "record_indexer.hpp"

#include "key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

void RecordIndexer::add(OrderedBatch& batch, std::string_view tenant, Scope scope,
                        const sdk::Record& record, const TokenCounts& tokens) {
  apply(batch, tenant, scope, record, tokens, true);
}

void RecordIndexer::remove(OrderedBatch& batch, std::string_view tenant, Scope scope,
                           const sdk::Record& record, const TokenCounts& tokens) {
  apply(batch, tenant, scope, record, tokens, false);
}

void RecordIndexer::apply(OrderedBatch& batch, std::string_view tenant, Scope scope,
                          const sdk::Record& record, const TokenCounts& tokens, bool adding) {
  auto put_or_delete = [&](std::string key) {
    if (adding) {
      batch.put(database_.indexes, std::move(key), {});
    } else {
      batch.remove(database_.indexes, std::move(key));
    }
  };

  std::string id_key = id_prefix(tenant, scope, record.id);
  append_instant(id_key, record.timestamp);
  put_or_delete(std::move(id_key));

  if (version_indexes_) {
    for_each_indexed_value(record, [&](std::string_view path, std::string_view value) {
      std::string key = field_prefix(tenant, scope, path);
      key += value;
      append_version_tail(key, record.timestamp, record.id);
      put_or_delete(std::move(key));
    });
  }

  for (const auto& [token, frequency] : tokens.frequencies) {
    if (version_indexes_) {
      std::string key = token_prefix(tenant, scope, token);
      append_version_tail(key, record.timestamp, record.id);
      if (adding) {
        batch.put(database_.indexes, std::move(key), encode_posting(frequency, tokens.length));
      } else {
        batch.remove(database_.indexes, std::move(key));
      }
    }
    counter_deltas_[frequency_key(tenant, scope, token)] += adding ? 1 : -1;
  }
  counter_deltas_[documents_key(tenant, scope)] += adding ? 1 : -1;
  counter_deltas_[length_key(tenant, scope)] +=
      adding ? tokens.length : -static_cast<std::int64_t>(tokens.length);
}

void RecordIndexer::flush(OrderedBatch& batch) {
  for (const auto& [key, delta] : counter_deltas_) {
    if (delta != 0) batch.merge(database_.stats, key, counter_delta(delta));
  }
  counter_deltas_.clear();
}

}  // namespace eventsvc::plugins::rocksdb_storage
