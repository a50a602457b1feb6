#include "merge/chunk_merger.hpp"

#include <rocksdb/write_batch.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "chunks/chunk_keys.hpp"
#include "chunks/chunk_postings.hpp"
#include "chunks/column_chunk.hpp"
#include "chunks/erased_rows.hpp"
#include "chunks/term_blocks.hpp"
#include "chunks/term_directory.hpp"
#include "eventsvc/sdk/error.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

struct Chunk {
  std::uint64_t number = 0;
  ChunkHeader header;
};

}  // namespace

std::optional<std::uint32_t> merge_tier(const MergePolicy& policy, std::uint32_t rows) {
  if (rows >= policy.final_rows) return std::nullopt;
  std::uint32_t tier = 0;
  for (std::uint64_t bound = std::uint64_t{policy.small_rows} * policy.fanout; rows >= bound;
       bound *= policy.fanout)
    ++tier;
  return tier;
}

namespace {

// The chunks of one tenant, in number (acceptance) order.
using Catalogue = std::vector<Chunk>;

// The first run of at least two consecutive small chunks whose rows fit in small_rows together.
std::optional<std::vector<Chunk>> small_run(const MergePolicy& policy, const Catalogue& chunks) {
  std::vector<Chunk> run;
  std::uint64_t rows = 0;
  for (const auto& chunk : chunks) {
    const bool small = chunk.header.rows < policy.small_rows;
    if (small && rows + chunk.header.rows <= policy.small_rows) {
      run.push_back(chunk);
      rows += chunk.header.rows;
      continue;
    }
    if (run.size() >= 2) return run;
    run.clear();
    rows = 0;
    if (small) {
      run.push_back(chunk);
      rows = chunk.header.rows;
    }
  }
  if (run.size() >= 2) return run;
  return std::nullopt;
}

// The first `fanout` consecutive chunks of one tier.
std::optional<std::vector<Chunk>> tier_run(const MergePolicy& policy, const Catalogue& chunks) {
  std::size_t first = 0;
  std::optional<std::uint32_t> tier;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const auto own = merge_tier(policy, chunks[i].header.rows);
    if (!own || own != tier) {
      first = i;
      tier = own;
    }
    if (tier && i + 1 - first == policy.fanout) {
      return std::vector<Chunk>(chunks.begin() + static_cast<std::ptrdiff_t>(first),
                                chunks.begin() + static_cast<std::ptrdiff_t>(i + 1));
    }
  }
  return std::nullopt;
}

// The first run to merge: of the first tenant that has one, its small chunks first.
std::optional<std::pair<std::string, std::vector<Chunk>>> find_run(const MergePolicy& policy,
                                                                   Database& database) {
  auto it = database.iterator(database.columns);
  std::string tenant;
  Catalogue chunks;
  auto run_of = [&]() -> std::optional<std::pair<std::string, std::vector<Chunk>>> {
    auto run = small_run(policy, chunks);
    if (!run) run = tier_run(policy, chunks);
    if (!run) return std::nullopt;
    return std::make_pair(tenant, std::move(*run));
  };
  for (it->SeekToFirst(); it->Valid();) {
    const std::string_view key(it->key().data(), it->key().size());
    const auto owner = tenant_of(key);
    if (!owner) throw sdk::Error::internal("a column chunk key is damaged");
    if (*owner != tenant) {
      if (auto run = run_of()) return run;
      tenant = std::string(*owner);
      chunks.clear();
    }
    if (key[tenant.size()] != 'C') {  // chunk data and replaced rows: past this tenant's catalogue
      it->Seek(tenant + static_cast<char>('S' + 1));
      continue;
    }
    const auto number = header_chunk(key, tenant.size() + 1);
    const auto header =
        number ? decode_chunk_header(std::string_view(it->value().data(), it->value().size()))
               : std::nullopt;
    if (!number || !header) throw sdk::Error::internal("a column chunk header is damaged");
    chunks.push_back({*number, *header});
    it->Next();
  }
  check(it->status(), "column chunk scan");
  return run_of();
}

// Every key under `prefix`, with its value.
std::vector<std::pair<std::string, std::string>> entries_under(Database& database,
                                                               const std::string& prefix) {
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database.iterator(database.columns, &upper_slice);
  std::vector<std::pair<std::string, std::string>> out;
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  check(it->status(), "column chunk scan");
  return out;
}

// The id and instant of every row of a chunk whose columns are `columns`.
void read_ids_and_instants(const std::map<std::string, ColumnView>& columns, const Chunk& chunk,
                           PreparedMerge::Source& source) {
  const auto ids = columns.find("id");
  const auto instants = columns.find("timestamp");
  if (ids == columns.end() || instants == columns.end()) {
    throw sdk::Error::internal("chunk " + std::to_string(chunk.number) + " lacks id or timestamp");
  }
  ColumnView::Cursor id(ids->second);
  ColumnView::Cursor instant(instants->second);
  source.ids.reserve(chunk.header.rows);
  source.instants.reserve(chunk.header.rows);
  for (std::uint32_t row = 0; row < chunk.header.rows; ++row) {
    id.next();
    instant.next();
    source.ids.emplace_back(ids->second.dictionary_entry(id.string_index()));
    source.instants.push_back(static_cast<sdk::Millis>(instant.number()));
  }
}

// Reads one chunk of a run into the merge: its keys deleted in `batch`, its columns appended to
// `builder` (without the rows `dropped` marks, when given), its word and value terms to `words`
// and `values` (from blocks of terms, or one key per term in chunks written before blocks), the
// chunks it absorbed to `source`, and its rows' ids and instants when `with_ids`.
void read_chunk(Database& database, const std::string& tenant, const Chunk& chunk,
                rocksdb::WriteBatch& batch, ChunkBuilder& builder, ChunkTermList& words,
                ChunkTermList& values, PreparedMerge::Source& source, bool with_ids,
                const std::vector<bool>* dropped = nullptr) {
  // The chunk's columns (its header key sorts first and is skipped by name).
  std::string prefix = chunk_prefix(tenant);
  append_u64(prefix, chunk.number);
  const std::string postings_prefix = chunk_postings_prefix(tenant, chunk.number);
  const std::string values_prefix = chunk_values_prefix(tenant, chunk.number);
  const std::string word_blocks = term_blocks_prefix(tenant, chunk.number, TermIndex::words);
  const std::string value_blocks = term_blocks_prefix(tenant, chunk.number, TermIndex::values);
  const std::string filter = term_filter_key(tenant, chunk.number);
  const std::string directory = term_directory_key(tenant, chunk.number);
  const std::string absorbed = absorbed_key(tenant, chunk.number);
  const std::string pages_prefix = chunk_data_prefix(tenant, chunk.number, kColumnPageTag);
  std::map<std::string, ColumnView> columns;
  // The pages of paged columns, by (column, page): their keys follow the columns', and they are
  // read when the columns are appended, below.
  std::map<std::pair<std::string, std::uint32_t>, std::string> pages;
  batch.Delete(database.columns, chunk_header_key(tenant, chunk.number));
  for (auto& [key, value] : entries_under(database, prefix)) {
    batch.Delete(database.columns, key);
    // The merged chunk has its own filter and directory (each a head and any parts).
    if (key.starts_with(filter) || key.starts_with(directory)) continue;
    if (key == absorbed) {
      auto list = decode_absorbed(value);
      if (!list) {
        throw sdk::Error::internal("the absorbed chunks of chunk " + std::to_string(chunk.number) +
                                   " are damaged");
      }
      source.absorbed = std::move(*list);
      continue;
    }
    if (key.starts_with(word_blocks)) {
      append_block_terms(chunk.number, value, words.terms);
    } else if (key.starts_with(value_blocks)) {
      append_block_terms(chunk.number, value, values.terms);
    } else if (key.starts_with(postings_prefix)) {
      words.terms.emplace_back(key.substr(postings_prefix.size()), std::move(value));
    } else if (key.starts_with(values_prefix)) {
      values.terms.emplace_back(key.substr(values_prefix.size()), std::move(value));
    } else if (key.starts_with(pages_prefix) && key.size() >= pages_prefix.size() + 4) {
      const std::size_t name_size = key.size() - pages_prefix.size() - 4;
      const auto page = read_u32(std::string_view(key).substr(pages_prefix.size() + name_size));
      pages.emplace(std::pair(key.substr(pages_prefix.size(), name_size), page), std::move(value));
    } else {
      std::string name = key.substr(prefix.size() + 1);
      auto load = [&pages, name](std::uint32_t page, bool) {
        const auto it = pages.find({name, page});
        if (it == pages.end()) return std::unique_ptr<rocksdb::PinnableSlice>();
        auto bytes = std::make_unique<rocksdb::PinnableSlice>();
        bytes->PinSelf(it->second);
        return bytes;
      };
      auto view = ColumnView::decode(std::move(value), chunk.header.rows, load);
      if (!view) {
        throw sdk::Error::internal("a column of chunk " + std::to_string(chunk.number) +
                                   " is damaged");
      }
      columns.emplace(std::move(name), std::move(*view));
    }
  }
  source.rows = chunk.header.rows;
  if (with_ids) read_ids_and_instants(columns, chunk, source);
  builder.append(columns, chunk.header, dropped);
}

}  // namespace

std::optional<PreparedMerge> ChunkMerger::prepare() {
  const auto found = find_run(policy_, database_);
  if (!found) return std::nullopt;
  PreparedMerge merge;
  merge.started = std::chrono::steady_clock::now();
  merge.tenant = found->first;
  const std::string& tenant = merge.tenant;
  const auto& run = found->second;
  merge.merged = run.front().number;
  for (const auto& chunk : run)
    merge.rows += chunk.header.rows;
  if (logger_ != nullptr) {
    logger_->log(sdk::LogLevel::debug, "merging " + std::to_string(run.size()) +
                                           " column chunks (" + std::to_string(merge.rows) +
                                           " rows)");
  }

  ChunkBuilder builder(policy_.page_rows);  // the columns; postings are merged list by list
  std::vector<ChunkTermList> word_lists;
  std::vector<ChunkTermList> value_lists;
  for (const auto& chunk : run) {
    PreparedMerge::Source& source = merge.sources.emplace_back();
    source.number = chunk.number;
    source.base = builder.header().rows;
    auto& words = word_lists.emplace_back(ChunkTermList{chunk.number, source.base, {}});
    auto& values = value_lists.emplace_back(ChunkTermList{chunk.number, source.base, {}});
    read_chunk(database_, tenant, chunk, merge.batch, builder, words, values, source, false);
  }
  // Where the rows of every chunk absorbed so far start now (the first chunk's own stay put).
  std::vector<AbsorbedChunk> absorbed;
  for (const auto& source : merge.sources) {
    if (source.number != merge.merged) absorbed.push_back({source.number, source.base});
    for (const auto& inner : source.absorbed)
      absorbed.push_back({inner.number, source.base + inner.first_row});
  }
  merge.batch.Put(database_.columns, absorbed_key(tenant, merge.merged), encode_absorbed(absorbed));
  for (const auto& [key, value] :
       chunk_entries(tenant, merge.merged, builder, merge_term_lists(word_lists, true),
                     merge_term_lists(value_lists, false), &database_.term_filters()))
    merge.batch.Put(database_.columns, key, value);
  return merge;
}

std::optional<PreparedMerge> ChunkMerger::prepare_purge() {
  std::optional<std::pair<std::string, std::uint64_t>> found;
  for_each_erased_chunk(database_, nullptr, [&](const std::string& tenant, std::uint64_t at) {
    found.emplace(tenant, at);
    return false;
  });
  if (!found) return std::nullopt;
  const auto& [tenant, number] = *found;
  const auto header_bytes = database_.get(database_.columns, chunk_header_key(tenant, number));
  const auto header = header_bytes ? decode_chunk_header(*header_bytes) : std::nullopt;
  if (!header) {
    throw sdk::Error::internal("the header of chunk " + std::to_string(number) +
                               " is damaged or missing");
  }
  PreparedMerge purge;
  purge.started = std::chrono::steady_clock::now();
  purge.tenant = tenant;
  purge.merged = number;
  purge.repoint_current = true;
  PreparedMerge::Source& source = purge.sources.emplace_back();
  source.number = number;
  // Its erased rows as they are now (chunk data changes only here; rows erased after this read
  // stay masked at the commit).
  source.dropped.assign(header->rows, false);
  const auto erased = database_.get(database_.columns, erased_key(tenant, number));
  if (!erased || !mark_replaced({}, *erased, source.dropped)) {
    throw sdk::Error::internal("the erased rows of chunk " + std::to_string(number) +
                               " are damaged");
  }
  std::vector<std::uint32_t> renumbered(header->rows, kDroppedRow);
  std::uint32_t next = 0;
  for (std::uint32_t row = 0; row < header->rows; ++row) {
    if (!source.dropped[row]) renumbered[row] = next++;
  }
  ChunkBuilder builder(policy_.page_rows);
  std::vector<ChunkTermList> words{ChunkTermList{number, 0, {}, &renumbered}};
  std::vector<ChunkTermList> values{ChunkTermList{number, 0, {}, &renumbered}};
  read_chunk(database_, tenant, Chunk{number, *header}, purge.batch, builder, words.front(),
             values.front(), source, true, &source.dropped);
  purge.rows = builder.header().rows;
  if (!builder.empty()) {
    for (const auto& [key, value] :
         chunk_entries(tenant, number, builder, merge_term_lists(words, true),
                       merge_term_lists(values, false), &database_.term_filters()))
      purge.batch.Put(database_.columns, key, value);
  }
  return purge;
}

void ChunkMerger::commit(PreparedMerge& merge) {
  const std::string& tenant = merge.tenant;
  rocksdb::WriteBatch& batch = merge.batch;
  std::vector<bool> replaced;  // of the merged chunk
  std::vector<bool> erased;    // of the merged chunk
  for (const auto& source : merge.sources) {
    // Its replaced and erased rows as they are now, renumbered; every other row is its id's
    // current version.
    const std::uint32_t rows = source.rows;
    std::vector<bool> gone(rows, false);
    const std::string replaced_prefix = replaced_key(tenant, source.number);
    for (const auto& [key, value] : entries_under(database_, replaced_prefix)) {
      batch.Delete(database_.columns, key);
      if (!mark_replaced(std::string_view(key).substr(replaced_prefix.size()), value, gone)) {
        throw sdk::Error::internal("replaced rows are damaged");
      }
    }
    std::vector<bool> erased_here(rows, false);
    const std::string erased_at = erased_key(tenant, source.number);
    if (const auto bitmap = database_.get(database_.columns, erased_at)) {
      batch.Delete(database_.columns, erased_at);
      if (!mark_replaced({}, *bitmap, erased_here))
        throw sdk::Error::internal("erased rows are damaged");
    }
    std::uint32_t at = source.base;  // the row's number in the new chunk
    for (std::uint32_t row = 0; row < rows; ++row) {
      if (!source.dropped.empty() && source.dropped[row]) continue;
      const std::uint32_t to = at++;
      if (erased_here[row]) {  // still masked (a purge: erased since it read the chunk)
        erased.resize(std::max<std::size_t>(erased.size(), to + 1), false);
        erased[to] = true;
        continue;
      }
      if (gone[row]) {
        replaced.resize(std::max<std::size_t>(replaced.size(), to + 1), false);
        replaced[to] = true;
        continue;
      }
      if (merge.repoint_current) {
        batch.Put(database_.current_ids, tenant + source.ids[row],
                  encode_current(source.instants[row], {merge.merged, to}));
      }
    }
  }
  if (!replaced.empty()) {
    batch.Put(database_.columns, replaced_key(tenant, merge.merged), encode_replaced(replaced));
  }
  if (!erased.empty()) {
    database_.erased_chunks().add(tenant, merge.merged);  // listed before readers can see it
    batch.Put(database_.columns, erased_key(tenant, merge.merged), encode_replaced(erased));
  }
  database_.write(batch, false);
  if (logger_ != nullptr) {
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - merge.started);
    logger_->log(sdk::LogLevel::debug, "merged " + std::to_string(merge.sources.size()) +
                                           " column chunks into one of " +
                                           std::to_string(merge.rows) + " rows in " +
                                           std::to_string(took.count()) + " ms");
  }
}

}  // namespace eventsvc::plugins::rocksdb_storage
