#include "projection/erasure_round.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "chunks/chunk_keys.hpp"
#include "chunks/column_chunk.hpp"
#include "chunks/erased_rows.hpp"
#include "chunks/stored_column.hpp"
#include "eventsvc/sdk/error.hpp"
#include "store/index_keys.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"
#include "write/ingest_writer.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

using Version = std::pair<sdk::Millis, std::string>;  // (timestamp, id)

// The tenant's column chunks: number -> rows, in number (acceptance) order.
std::map<std::uint64_t, std::uint32_t> chunk_catalogue(Database& database,
                                                       const std::string& tenant) {
  const std::string prefix = catalogue_prefix(tenant);
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  std::map<std::uint64_t, std::uint32_t> chunks;
  auto it = database.iterator(database.columns, &upper_slice);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    const auto number =
        header_chunk(std::string_view(it->key().data(), it->key().size()), prefix.size());
    const auto header =
        decode_chunk_header(std::string_view(it->value().data(), it->value().size()));
    if (!number || !header) throw sdk::Error::internal("a column chunk header is damaged");
    chunks.emplace(*number, header->rows);
  }
  check(it->status(), "column chunk scan");
  return chunks;
}

// The instants of every version of `id` in the tenant's history, oldest first. An iterator of its
// own, bounded to the id: one left unbounded would step past the id over every deleted key after
// it.
std::vector<sdk::Millis> versions_of(Database& database, const std::string& tenant,
                                     const std::string& id) {
  const std::string prefix = id_prefix(tenant, Scope::history, id);
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  std::vector<sdk::Millis> instants;
  auto it = database.iterator(database.indexes, &upper_slice);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    const std::string_view key(it->key().data(), it->key().size());
    if (key.size() != prefix.size() + 8) throw sdk::Error::internal("an id index key is damaged");
    instants.push_back(read_instant(key.substr(prefix.size())));
  }
  check(it->status(), "id index scan");
  return instants;
}

// Finds the rows of versions in their chunks, chunk by chunk: a version's chunk is the last one
// numbered at or before its inbox entry (a chunk is numbered by its round's first entry, a
// merged one by its first chunk's).
class RowFinder {
 public:
  RowFinder(Database& database, const std::string& tenant)
      : database_(database), tenant_(tenant), chunks_(chunk_catalogue(database, tenant)) {}

  // Asks for the row of a version accepted as `sequence` (its record's).
  void want(std::uint64_t sequence, const Version& version) {
    auto it = chunks_.upper_bound(sequence / 128);
    if (it == chunks_.begin()) return;  // history from before the column chunks
    wanted_[std::prev(it)->first].insert(version);
  }

  // Reads the chunks asked about; found() then answers.
  void find() {
    for (const auto& [chunk, versions] : wanted_) {
      const std::uint32_t rows = chunks_.at(chunk);
      auto ids = column(chunk, "id", rows);
      auto instants = column(chunk, "timestamp", rows);
      // A chunk holds tens of thousands of rows and a few wanted ones: their instants pass first,
      // and only then is a row's id read.
      std::unordered_set<sdk::Millis> wanted_instants;
      for (const auto& version : versions)
        wanted_instants.insert(version.first);
      ColumnView::Cursor id(ids);
      ColumnView::Cursor instant(instants);
      for (std::uint32_t row = 0; row < rows; ++row) {
        id.next();
        instant.next();
        const auto at = static_cast<sdk::Millis>(instant.number());
        if (!wanted_instants.contains(at)) continue;
        Version version{at, std::string(ids.dictionary_entry(id.string_index()))};
        if (versions.contains(version)) found_.emplace(std::move(version), RowRef{chunk, row});
      }
    }
  }

  std::optional<RowRef> found(const Version& version) const {
    const auto it = found_.find(version);
    return it == found_.end() ? std::nullopt : std::optional<RowRef>(it->second);
  }
  std::uint32_t rows_of(std::uint64_t chunk) const { return chunks_.at(chunk); }

 private:
  ColumnView column(std::uint64_t chunk, std::string_view name, std::uint32_t rows) {
    auto view = read_column(database_, nullptr, tenant_, chunk, name, rows);
    if (!view) {
      throw sdk::Error::internal("the " + std::string(name) + " column of chunk " +
                                 std::to_string(chunk) + " is damaged");
    }
    return std::move(*view);
  }

  Database& database_;
  const std::string& tenant_;
  std::map<std::uint64_t, std::uint32_t> chunks_;
  std::map<std::uint64_t, std::set<Version>> wanted_;
  std::map<Version, RowRef> found_;
};

// A chunk's row bitmap (erased or replaced rows) read, changed and written back.
class Bitmaps {
 public:
  Bitmaps(Database& database, const RowFinder& rows) : database_(database), rows_(rows) {}

  void set(const std::string& key, std::uint64_t chunk, std::uint32_t row, bool value) {
    auto it = bitmaps_.find(key);
    if (it == bitmaps_.end()) {
      std::vector<bool> bits(rows_.rows_of(chunk), false);
      if (const auto stored = database_.get(database_.columns, key)) {
        if (!mark_replaced({}, *stored, bits))
          throw sdk::Error::internal("the row bitmap of chunk " + std::to_string(chunk) +
                                     " is damaged");
      }
      it = bitmaps_.emplace(key, std::move(bits)).first;
    }
    it->second[row] = value;
  }

  void write(rocksdb::WriteBatch& batch) const {
    for (const auto& [key, bits] : bitmaps_)
      batch.Put(database_.columns, key, encode_replaced(bits));
  }

 private:
  Database& database_;
  const RowFinder& rows_;
  std::map<std::string, std::vector<bool>> bitmaps_;
};

}  // namespace

ErasedVersions erase_versions(Database& database, RecordIndexer& indexer, OrderedBatch& records,
                              rocksdb::WriteBatch& batch, const std::string& tenant,
                              const ErasureOrder& order, const VersionFinder& find) {
  std::set<Version> versions;
  const auto every_version_of = [&](const std::string& id) {
    for (const auto instant : versions_of(database, tenant, id))
      versions.emplace(instant, id);
  };
  for (const auto& id : order.ids)
    every_version_of(id);
  if (!order.where.empty()) {
    for (auto& found : find(order.tenant, order.source, order.where)) {
      if (order.source == sdk::Source::history) {
        versions.emplace(found.timestamp, std::move(found.id));
      } else {
        every_version_of(found.id);
      }
    }
  }

  ErasedVersions erased;
  RowFinder rows(database, tenant);
  std::map<std::string, std::set<sdk::Millis>> erased_of;  // id -> its erased instants
  for (const auto& version : versions) {
    const auto& [instant, id] = version;
    const std::string key = version_key(tenant, instant, id);
    const auto stored = database.get(database.history, key);
    if (!stored) continue;
    const sdk::Record record = decode_record(*stored);
    batch.Delete(database.history, key);
    batch.Delete(database.vectors, key);
    erased.claims.push_back(digest_key(tenant, id, record_digest(*stored)));
    batch.Delete(database.digests, erased.claims.back());
    erased.by_receipt[record.receipt_id].insert(version);
    indexer.remove(
        records, tenant, Scope::history, record,
        indexer.removal_needs_tokens() ? TokenCounts::of(record) : TokenCounts::length_of(record));
    rows.want(record.sequence, version);
    erased_of[id].insert(instant);
  }

  // Current state: an id whose current version went falls back to its newest survivor.
  std::vector<std::pair<std::string, sdk::Record>> survivors;
  for (const auto& [id, erased_instants] : erased_of) {
    const std::set<sdk::Millis>& instants = erased_instants;  // a lambda below reads it
    const auto current = database.get(database.current_ids, tenant + id);
    if (!current) continue;
    const sdk::Millis current_at = read_instant(*current);
    if (!instants.contains(current_at)) continue;
    records.remove(database.current, version_key(tenant, current_at, id));
    if (indexer.removal_needs_tokens()) {
      const auto stored = database.get(database.history, version_key(tenant, current_at, id));
      if (stored) {
        const sdk::Record record = decode_record(*stored);
        indexer.remove(records, tenant, Scope::current, record, TokenCounts::of(record));
      }
    } else {
      indexer.remove_id(records, tenant, Scope::current, id, current_at);
    }
    const auto all = versions_of(database, tenant, id);
    const auto survivor = std::find_if(all.rbegin(), all.rend(),
                                       [&](sdk::Millis at) { return !instants.contains(at); });
    if (survivor == all.rend()) {
      batch.Delete(database.current_ids, tenant + id);
      continue;
    }
    const auto stored = database.get(database.history, version_key(tenant, *survivor, id));
    if (!stored) throw sdk::Error::internal("the history of an id lacks an indexed version");
    sdk::Record record = decode_record(*stored);
    rows.want(record.sequence, {record.timestamp, id});
    survivors.emplace_back(id, std::move(record));
  }

  rows.find();
  Bitmaps bitmaps(database, rows);
  for (const auto& [id, instants] : erased_of) {
    for (const auto instant : instants) {
      ++erased.count;
      const auto row = rows.found({instant, id});
      if (!row) continue;  // history from before the column chunks: its record was all there was
      database.erased_chunks().add(tenant, row->chunk);  // listed before readers can see it
      bitmaps.set(erased_key(tenant, row->chunk), row->chunk, row->row, true);
    }
  }
  for (const auto& [id, record] : survivors) {
    const std::string key = version_key(tenant, record.timestamp, id);
    records.put(database.current, key, {});
    indexer.add(records, tenant, Scope::current, record, TokenCounts::of(record));
    const auto row = rows.found({record.timestamp, id});
    std::string current;
    if (row) {
      current = encode_current(record.timestamp, *row);
      bitmaps.set(replaced_key(tenant, row->chunk), row->chunk, row->row, false);
    } else {
      append_instant(current, record.timestamp);
    }
    batch.Put(database.current_ids, tenant + id, current);
  }
  bitmaps.write(batch);
  return erased;
}

void list_erased_chunks(Database& database) {
  for_each_erased_chunk(database, nullptr, [&](const std::string& tenant, std::uint64_t chunk) {
    database.erased_chunks().add(tenant, chunk);
    return true;
  });
}

}  // namespace eventsvc::plugins::rocksdb_storage
