#include "merge/chunk_purge.hpp"

#include <rocksdb/write_batch.h>

#include "chunks/chunk_keys.hpp"
#include "chunks/chunk_postings.hpp"
#include "chunks/column_chunk.hpp"
#include "chunks/erased_rows.hpp"
#include "chunks/term_blocks.hpp"
#include "eventsvc/sdk/error.hpp"
#include "store/erasure_formats.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

const std::string kPendingPrefix = "erasure-purge/";

ColumnView column_of(Database& database, const rocksdb::Snapshot* snapshot,
                     const std::string& tenant, std::uint64_t chunk, std::string_view name,
                     std::uint32_t rows) {
  auto bytes =
      database.get_pinned(database.columns, chunk_column_key(tenant, chunk, name), snapshot);
  auto view = bytes ? ColumnView::decode(std::move(bytes), rows) : std::nullopt;
  if (!view) {
    throw sdk::Error::internal("the " + std::string(name) + " column of chunk " +
                               std::to_string(chunk) + " is damaged");
  }
  return std::move(*view);
}

}  // namespace

std::string pending_purge_key(std::string_view tenant, std::string_view erasure_id) {
  std::string key = kPendingPrefix;
  key += tenant;
  key += erasure_id;
  return key;
}

std::optional<PreparedMerge> prepare_purge(Database& database) {
  // One view of the chunk, its erased rows and the records of the others: an erasure writes its
  // rows' bits and deletes their records in one batch.
  const Snapshot snapshot(database);
  std::optional<std::pair<std::string, std::uint64_t>> found;
  for_each_erased_chunk(database, snapshot.get(), [&](const std::string& tenant, std::uint64_t at) {
    found.emplace(tenant, at);
    return false;
  });
  if (!found) return std::nullopt;
  const auto& [tenant, chunk] = *found;
  const auto header_bytes =
      database.get(database.columns, chunk_header_key(tenant, chunk), snapshot.get());
  const auto header = header_bytes ? decode_chunk_header(*header_bytes) : std::nullopt;
  if (!header)
    throw sdk::Error::internal("the header of chunk " + std::to_string(chunk) +
                               " is damaged or missing");

  PreparedMerge purge;
  purge.started = std::chrono::steady_clock::now();
  purge.tenant = tenant;
  purge.merged = chunk;
  PreparedMerge::Source& source = purge.sources.emplace_back();
  source.number = chunk;
  source.dropped.assign(header->rows, false);
  const auto erased = database.get(database.columns, erased_key(tenant, chunk), snapshot.get());
  if (!erased || !mark_replaced({}, *erased, source.dropped))
    throw sdk::Error::internal("the erased rows of chunk " + std::to_string(chunk) +
                               " are damaged");

  const ColumnView ids = column_of(database, snapshot.get(), tenant, chunk, "id", header->rows);
  const ColumnView instants =
      column_of(database, snapshot.get(), tenant, chunk, "timestamp", header->rows);
  ColumnView::Cursor id(ids);
  ColumnView::Cursor instant(instants);
  ChunkBuilder builder;
  for (std::uint32_t row = 0; row < header->rows; ++row) {
    id.next();
    instant.next();
    source.ids.emplace_back(ids.dictionary_entry(id.string_index()));
    source.instants.push_back(static_cast<sdk::Millis>(instant.number()));
    if (source.dropped[row]) continue;
    const auto stored = database.get(database.history,
                                     version_key(tenant, source.instants.back(), source.ids.back()),
                                     snapshot.get());
    if (!stored) {
      throw sdk::Error::internal("a row of chunk " + std::to_string(chunk) +
                                 " has no record in history");
    }
    const sdk::Record record = decode_record(*stored);
    builder.add(record, TokenCounts::of(record));
  }
  purge.rows = builder.header().rows;

  // Every key of the old chunk goes; the new one (when a row stays) takes its number.
  purge.batch.Delete(database.columns, chunk_header_key(tenant, chunk));
  std::string prefix = chunk_prefix(tenant);
  append_u64(prefix, chunk);
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database.iterator(database.columns, &upper_slice, nullptr, snapshot.get());
  for (it->Seek(prefix); it->Valid(); it->Next())
    purge.batch.Delete(database.columns, it->key());
  check(it->status(), "column chunk scan");
  if (!builder.empty()) {
    for (const auto& [key, value] : chunk_entries(tenant, chunk, builder))
      purge.batch.Put(database.columns, key, value);
  }
  return purge;
}

std::vector<std::string> pending_purges(Database& database) {
  const std::string upper = prefix_successor(kPendingPrefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database.iterator(database.meta, &upper_slice);
  std::vector<std::string> pending;
  for (it->Seek(kPendingPrefix); it->Valid(); it->Next())
    pending.push_back(it->key().ToString());
  check(it->status(), "erasure scan");
  return pending;
}

void mark_purged(Database& database, const std::vector<std::string>& pending, sdk::Millis now) {
  rocksdb::WriteBatch batch;
  for (const auto& key : pending) {
    batch.Delete(database.meta, key);
    // "erasure-purge/" <tenant> <id>  ->  "erasure/" <tenant> <id>
    const std::string status_key = "erasure/" + key.substr(kPendingPrefix.size());
    const auto stored = database.get(database.meta, status_key);
    if (!stored) continue;
    sdk::ErasureStatus status = decode_erasure_status(*stored);
    status.state = sdk::ErasureState::purged;
    status.purged_at = now;
    batch.Put(database.meta, status_key, encode_erasure_status(status));
  }
  database.write(batch, true);
}

}  // namespace eventsvc::plugins::rocksdb_storage
