#include "projection/record_indexer.hpp"

#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

void RecordIndexer::add(OrderedBatch& batch, std::string_view tenant, Scope scope,
                        const sdk::Record& record, const TokenCounts& tokens) {
  apply(batch, tenant, scope, record, tokens, true);
}

void RecordIndexer::remove(OrderedBatch& batch, std::string_view tenant, Scope scope,
                           const sdk::Record& record, const TokenCounts& tokens) {
  apply(batch, tenant, scope, record, tokens, false);
}

void RecordIndexer::remove_id(OrderedBatch& batch, std::string_view tenant, Scope scope,
                              std::string_view id, sdk::Millis timestamp) {
  std::string id_key = id_prefix(tenant, scope, id);
  append_instant(id_key, timestamp);
  batch.remove(database_.indexes, std::move(id_key));
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

  if (version_indexes_) {
    for (const auto& [token, frequency] : tokens.frequencies) {
      std::string key = token_prefix(tenant, scope, token);
      append_version_tail(key, record.timestamp, record.id);
      if (adding) {
        batch.put(database_.indexes, std::move(key), encode_posting(frequency, tokens.length));
      } else {
        batch.remove(database_.indexes, std::move(key));
      }
    }
  }
  // Searches of a database with chunk indexes rank by the history's totals and sum each word's
  // documents over the chunks (text_scorer.hpp).
  if (!version_indexes_ && scope != Scope::history) return;
  CounterDeltas& deltas = deltas_of(tenant, scope);
  const std::int64_t sign = adding ? 1 : -1;
  if (version_indexes_) {
    for (const auto& [token, frequency] : tokens.frequencies) {
      auto it = deltas.tokens.find(token);
      if (it == deltas.tokens.end()) it = deltas.tokens.emplace(token, 0).first;
      it->second += sign;
    }
  }
  deltas.documents += sign;
  deltas.length += sign * static_cast<std::int64_t>(tokens.length);
}

RecordIndexer::CounterDeltas& RecordIndexer::deltas_of(std::string_view tenant, Scope scope) {
  if (last_ == nullptr || last_key_.second != scope || last_key_.first != tenant) {
    last_key_ = {std::string(tenant), scope};
    last_ = &deltas_[last_key_];
  }
  return *last_;
}

void RecordIndexer::flush(OrderedBatch& batch) {
  const auto merge = [&](std::string key, std::int64_t delta) {
    if (delta != 0) batch.merge(database_.stats, std::move(key), counter_delta(delta));
  };
  for (const auto& [where, deltas] : deltas_) {
    const auto& [tenant, scope] = where;
    for (const auto& [token, delta] : deltas.tokens)
      merge(frequency_key(tenant, scope, token), delta);
    merge(documents_key(tenant, scope), deltas.documents);
    merge(length_key(tenant, scope), deltas.length);
  }
  deltas_.clear();
  last_ = nullptr;
}

}  // namespace eventsvc::plugins::rocksdb_storage
