#include "record_indexer.hpp"

#include <map>

#include "eventsvc/sdk/text.hpp"
#include "key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

void RecordIndexer::add(OrderedBatch& batch, std::string_view tenant, Scope scope,
                        const sdk::Record& record) {
  apply(batch, tenant, scope, record, true);
}

void RecordIndexer::remove(OrderedBatch& batch, std::string_view tenant, Scope scope,
                           const sdk::Record& record) {
  apply(batch, tenant, scope, record, false);
}

void RecordIndexer::apply(OrderedBatch& batch, std::string_view tenant, Scope scope,
                          const sdk::Record& record, bool adding) {
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

  for_each_indexed_value(record, [&](std::string_view path, std::string_view value) {
    std::string key = field_prefix(tenant, scope, path);
    key += value;
    append_version_tail(key, record.timestamp, record.id);
    put_or_delete(std::move(key));
  });

  // Text postings with what BM25 needs, plus the BM25 counters.
  std::map<std::string, std::uint32_t> frequencies;
  std::uint32_t length = 0;
  for (const auto& token : sdk::record_tokens(record)) {
    if (token.empty()) continue;
    ++frequencies[token];
    ++length;
  }
  for (const auto& [token, frequency] : frequencies) {
    std::string key = token_prefix(tenant, scope, token);
    append_version_tail(key, record.timestamp, record.id);
    if (adding) {
      batch.put(database_.indexes, std::move(key), encode_posting(frequency, length));
    } else {
      batch.remove(database_.indexes, std::move(key));
    }
    counter_deltas_[frequency_key(tenant, scope, token)] += adding ? 1 : -1;
  }
  counter_deltas_[documents_key(tenant, scope)] += adding ? 1 : -1;
  counter_deltas_[length_key(tenant, scope)] +=
      adding ? length : -static_cast<std::int64_t>(length);
}

void RecordIndexer::flush(OrderedBatch& batch) {
  for (const auto& [key, delta] : counter_deltas_) {
    if (delta != 0) batch.merge(database_.stats, key, counter_delta(delta));
  }
  counter_deltas_.clear();
}

}  // namespace eventsvc::plugins::rocksdb_storage
