#include "record_indexer.hpp"

#include <map>

#include "eventsvc/sdk/text.hpp"
#include "key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

void RecordIndexer::add(rocksdb::WriteBatch& batch, std::string_view tenant, Scope scope,
                        const sdk::Record& record) {
  apply(batch, tenant, scope, record, true);
}

void RecordIndexer::remove(rocksdb::WriteBatch& batch, std::string_view tenant, Scope scope,
                           const sdk::Record& record) {
  apply(batch, tenant, scope, record, false);
}

void RecordIndexer::apply(rocksdb::WriteBatch& batch, std::string_view tenant, Scope scope,
                          const sdk::Record& record, bool adding) {
  auto put_or_delete = [&](const std::string& key, const rocksdb::Slice& value) {
    if (adding) {
      batch.Put(database_.indexes, key, value);
    } else {
      batch.Delete(database_.indexes, key);
    }
  };

  std::string id_key = id_prefix(tenant, scope, record.id);
  append_instant(id_key, record.timestamp);
  put_or_delete(id_key, rocksdb::Slice());

  for_each_indexed_value(record, [&](std::string_view path, std::string_view value) {
    std::string key = field_prefix(tenant, scope, path);
    key += value;
    append_version_tail(key, record.timestamp, record.id);
    put_or_delete(key, rocksdb::Slice());
  });

  // Text postings, plus the BM25 counters (term frequencies are read from the record itself when
  // a match is scored).
  std::map<std::string, std::uint32_t> frequencies;
  std::uint32_t length = 0;
  for (const auto& token : sdk::record_tokens(record)) {
    if (token.empty()) continue;
    ++frequencies[token];
    ++length;
  }
  for (const auto& [token, frequency] : frequencies) {
    (void)frequency;
    std::string key = token_prefix(tenant, scope, token);
    append_version_tail(key, record.timestamp, record.id);
    put_or_delete(key, rocksdb::Slice());
    batch.Merge(database_.stats, frequency_key(tenant, scope, token), counter_delta(adding ? 1 : -1));
  }
  batch.Merge(database_.stats, documents_key(tenant, scope), counter_delta(adding ? 1 : -1));
  batch.Merge(database_.stats, length_key(tenant, scope),
              counter_delta(adding ? length : -static_cast<std::int64_t>(length)));
}

}  // namespace eventsvc::plugins::rocksdb_storage
