#include "chunks/term_blocks.hpp"

#include <algorithm>

#include "chunks/chunk_keys.hpp"
#include "chunks/chunk_postings.hpp"
#include "chunks/column_chunk.hpp"
#include "chunks/term_directory.hpp"
#include "eventsvc/sdk/error.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

// The seed of a chunk's value postings id (ChunkHeader::values).
constexpr std::uint64_t kValuesSeed = 0x76616c7565732121ULL;

std::string_view as_view(const rocksdb::Slice& slice) {
  return {slice.data(), slice.size()};
}

sdk::Error term_blocks_damaged(std::uint64_t chunk) {
  return sdk::Error::internal("the term blocks of chunk " + std::to_string(chunk) + " are damaged");
}

// One term of a block: how many leading bytes it shares with the term before, the rest of it, and
// its postings.
struct BlockEntry {
  std::size_t shared = 0;
  std::string_view suffix;
  std::string_view postings;
};

// Takes the next term off `block`, whose term before was `previous` bytes long, into `entry`;
// false when the block is damaged (a term sharing more than there was, or a length past the end).
// `inline`: called out of line it cost a look-up a third more instructions than parsing in place.
inline bool take_block_entry(std::string_view& block, std::size_t previous, BlockEntry& entry) {
  const auto shared = take_varint(block);
  const auto rest = take_varint(block);
  if (!shared || !rest || *shared > previous || *rest > block.size()) return false;
  entry.shared = *shared;
  entry.suffix = block.substr(0, *rest);
  block.remove_prefix(*rest);
  const auto size = take_varint(block);
  if (!size || *size > block.size()) return false;
  entry.postings = block.substr(0, *size);
  block.remove_prefix(*size);
  return true;
}

}  // namespace

std::string term_blocks_prefix(std::string_view tenant, std::uint64_t chunk, TermIndex index) {
  return chunk_data_prefix(tenant, chunk,
                           index == TermIndex::words ? kWordBlocksTag : kValueBlocksTag);
}

std::string term_filter_key(std::string_view tenant, std::uint64_t chunk) {
  return chunk_data_prefix(tenant, chunk, kFilterTag);
}

std::string term_filter_part_key(std::string_view tenant, std::uint64_t chunk, std::uint32_t part) {
  std::string key = term_filter_key(tenant, chunk);
  append_u32(key, part);
  return key;
}

std::vector<std::pair<std::string, std::string>> encode_term_blocks(
    const std::vector<std::pair<std::string, std::string>>& terms, std::size_t block_bytes) {
  std::vector<std::pair<std::string, std::string>> blocks;
  std::string_view previous;
  for (const auto& [term, postings] : terms) {
    if (blocks.empty() || blocks.back().second.size() >= block_bytes) {
      blocks.emplace_back(term, std::string());
      previous = {};
    }
    std::string& block = blocks.back().second;
    std::size_t shared = 0;
    while (shared < previous.size() && shared < term.size() && previous[shared] == term[shared])
      ++shared;
    append_varint(block, shared);
    append_varint(block, term.size() - shared);
    block.append(term, shared);
    append_varint(block, postings.size());
    block += postings;
    previous = term;
  }
  return blocks;
}

std::vector<std::pair<std::string, std::string>> chunk_entries(std::string_view tenant,
                                                               std::uint64_t chunk,
                                                               const ChunkBuilder& built,
                                                               TermFilterCache* cache) {
  return chunk_entries(tenant, chunk, built, built.postings().encode(), built.values().encode(),
                       cache);
}

std::vector<std::pair<std::string, std::string>> chunk_entries(
    std::string_view tenant, std::uint64_t chunk, const ChunkBuilder& built,
    const std::vector<std::pair<std::string, std::string>>& words,
    const std::vector<std::pair<std::string, std::string>>& values, TermFilterCache* cache) {
  std::vector<std::pair<std::string, std::string>> entries;
  // The header names the filter, so its value is set once the filter is built.
  entries.emplace_back(chunk_header_key(tenant, chunk), std::string());
  for (auto& column : built.encode()) {
    entries.emplace_back(chunk_column_key(tenant, chunk, column.name), std::move(column.bytes));
    for (auto& [page, bytes] : column.pages)
      entries.emplace_back(chunk_column_page_key(tenant, chunk, column.name, page),
                           std::move(bytes));
  }
  TermFilterBuilder filter;
  std::vector<std::string> firsts[2];     // per index, the first term of each block
  std::uint64_t values_id = kValuesSeed;  // a hash of the value blocks, chained block by block
  for (const auto index : {TermIndex::words, TermIndex::values}) {
    const auto& terms = index == TermIndex::words ? words : values;
    const std::string prefix = term_blocks_prefix(tenant, chunk, index);
    for (auto& [first, block] : encode_term_blocks(terms)) {
      if (index == TermIndex::values) values_id = content_id(block, values_id);
      entries.emplace_back(prefix + first, std::move(block));
      firsts[static_cast<int>(index)].push_back(std::move(first));
    }
    for (const auto& term : terms)
      filter.add(index, term.first);
  }
  StoredTermFilter stored = store_term_filter(filter.build());
  StoredTermDirectory directory =
      store_term_directory(std::vector<std::string_view>(firsts[0].begin(), firsts[0].end()),
                           std::vector<std::string_view>(firsts[1].begin(), firsts[1].end()));
  ChunkHeader header = built.header();
  header.filter = term_filter_id(stored.head);
  header.directory = term_directory_id(directory.head);
  header.values = values_id;
  entries.front().second = encode_chunk_header(header);
  if (cache != nullptr) {
    cache->put(tenant, chunk, *header.filter, stored.head, ChunkSummary::filter);
    for (const auto& [id, part] : stored.parts)
      cache->put(tenant, chunk, id, part, ChunkSummary::filter_part);
    cache->put(tenant, chunk, *header.directory, directory.head, ChunkSummary::directory);
    for (const auto& part : directory.parts)
      cache->put(tenant, chunk, part.id, part.bytes, ChunkSummary::directory_part);
  }
  entries.emplace_back(term_filter_key(tenant, chunk), std::move(stored.head));
  for (std::size_t part = 0; part < stored.parts.size(); ++part) {
    entries.emplace_back(term_filter_part_key(tenant, chunk, static_cast<std::uint32_t>(part)),
                         std::move(stored.parts[part].second));
  }
  entries.emplace_back(term_directory_key(tenant, chunk), std::move(directory.head));
  for (auto& part : directory.parts) {
    entries.emplace_back(term_directory_part_key(tenant, chunk, part.index, part.number),
                         std::move(part.bytes));
  }
  return entries;
}

bool for_each_term(std::string_view block,
                   const std::function<bool(std::string_view, std::string_view)>& visit) {
  std::string term;
  while (!block.empty()) {
    BlockEntry entry;
    if (!take_block_entry(block, term.size(), entry)) return false;
    term.resize(entry.shared);
    term.append(entry.suffix);
    if (!visit(term, entry.postings)) return true;
  }
  return true;
}

TermLookup find_in_term_block(std::string_view block, std::string_view term,
                              std::string_view& postings) {
  std::size_t previous = 0;  // the length of the term before
  std::size_t matched = 0;   // how many leading bytes the term before has in common with `term`
  while (!block.empty()) {
    BlockEntry entry;
    if (!take_block_entry(block, previous, entry)) return TermLookup::damaged;
    const std::size_t shared = entry.shared;
    const std::string_view suffix = entry.suffix;
    previous = shared + suffix.size();
    // Terms are in order: one that keeps more of the term before than `term` does differs from
    // `term` where that one did, and sorts before it too; one that keeps less sorts after it.
    if (shared > matched) continue;
    if (shared < matched && !suffix.empty()) return TermLookup::absent;
    // It agrees with `term` on its first `shared` bytes: compare the rest.
    const std::string_view wanted = term.substr(std::min(shared, term.size()));
    const std::size_t common = static_cast<std::size_t>(
        std::mismatch(suffix.begin(), suffix.end(), wanted.begin(), wanted.end()).first -
        suffix.begin());
    if (common == suffix.size() && common == wanted.size()) {
      postings = entry.postings;
      return TermLookup::found;
    }
    const bool before = common == suffix.size() ||
                        (common < wanted.size() && static_cast<unsigned char>(suffix[common]) <
                                                       static_cast<unsigned char>(wanted[common]));
    if (!before) return TermLookup::absent;
    matched = shared + common;
  }
  return TermLookup::absent;
}

void append_block_terms(std::uint64_t chunk, std::string_view block,
                        std::vector<std::pair<std::string, std::string>>& into) {
  const bool intact = for_each_term(block, [&](std::string_view term, std::string_view postings) {
    into.emplace_back(term, postings);
    return true;
  });
  if (!intact) throw term_blocks_damaged(chunk);
}

ChunkTerms::ChunkTerms(Database& database, const rocksdb::Snapshot* snapshot,
                       const std::string& tenant, TermIndex index)
    : database_(database), snapshot_(snapshot), tenant_(tenant), index_(index) {}

rocksdb::Iterator& ChunkTerms::iterator() {
  if (!iterator_) iterator_ = database_.iterator(database_.columns, nullptr, nullptr, snapshot_);
  return *iterator_;
}

bool ChunkTerms::seek_block(const std::string& prefix, std::string_view term) {
  auto& it = iterator();
  std::string key = prefix;
  key += term;
  it.SeekForPrev(key);
  if (it.Valid() && as_view(it.key()).starts_with(prefix)) return true;
  check(it.status(), "term blocks seek");
  // Before the chunk's first term, or a chunk without blocks.
  it.Seek(prefix);
  check(it.status(), "term blocks seek");
  return it.Valid() && as_view(it.key()).starts_with(prefix);
}

std::string ChunkTerms::legacy_prefix(std::uint64_t chunk) const {
  return index_ == TermIndex::words ? chunk_postings_prefix(tenant_, chunk)
                                    : chunk_values_prefix(tenant_, chunk);
}

std::shared_ptr<const std::string> ChunkTerms::summary_of(const ChunkRef& chunk,
                                                          ChunkSummary kind) {
  const bool filter = kind == ChunkSummary::filter;
  const auto id = filter ? chunk.header.filter : chunk.header.directory;
  if (!id) return nullptr;
  return cached(
      chunk, kind, *id,
      filter ? term_filter_key(tenant_, chunk.number) : term_directory_key(tenant_, chunk.number));
}

std::shared_ptr<const std::string> ChunkTerms::cached(const ChunkRef& chunk, ChunkSummary kind,
                                                      std::uint64_t id, const std::string& key) {
  const bool filter = kind == ChunkSummary::filter || kind == ChunkSummary::filter_part;
  return database_.term_filters().get(
      tenant_, chunk.number, id,
      [&]() -> std::optional<std::string> {
        auto bytes = database_.get(database_.columns, key, snapshot_);
        // Bytes other than the ones the header (or the head) names (a reader without a snapshot,
        // the chunk's number reused by a merge since) are neither used nor cached: without a
        // filter every term may be in the chunk, without a directory its block is sought.
        if (!bytes) return {};
        const std::uint64_t found = kind == ChunkSummary::filter ? term_filter_id(*bytes)
                                    : kind == ChunkSummary::filter_part
                                        ? term_filter_part_id(*bytes)
                                        : term_directory_id(*bytes);
        if (found != id) return {};
        if (!filter && !term_directory_intact(*bytes)) throw term_blocks_damaged(chunk.number);
        return bytes;
      },
      kind);
}

bool ChunkTerms::may_hold(const ChunkRef& chunk, std::string_view term) {
  if (!chunk.header.filter) return true;  // a chunk from before filters
  const auto filter = summary_of(chunk, ChunkSummary::filter);
  bool held = true;  // without the filter the header names, every term may be in the chunk
  if (filter != nullptr) {
    if (const auto part = term_filter_part(*filter, index_, term)) {
      const auto bytes = cached(chunk, ChunkSummary::filter_part, part->id,
                                term_filter_part_key(tenant_, chunk.number, part->number));
      held = bytes == nullptr || term_filter_part_holds(*bytes, *part);
    } else {
      held = term_filter_may_hold(*filter, index_, term);
    }
  }
  database_.term_filters().count(!held);
  return held;
}

std::optional<std::string> ChunkTerms::find(const ChunkRef& ref, std::string_view term,
                                            bool filtered) {
  if (!filtered && !may_hold(ref, term)) return std::nullopt;
  const std::uint64_t chunk = ref.number;
  const std::string prefix = term_blocks_prefix(tenant_, chunk, index_);
  // The block from the directory by one point lookup, else by seeking to it.
  std::unique_ptr<rocksdb::PinnableSlice> pinned;
  std::string_view block;
  auto directory = summary_of(ref, ChunkSummary::directory);
  TermDirectoryPart part;
  if (const auto search =
          directory ? find_term_directory_part(*directory, index_, term, part) : std::nullopt) {
    switch (*search) {
      case BlockSearch::absent:
        return std::nullopt;
      case BlockSearch::damaged:
        throw term_blocks_damaged(chunk);
      case BlockSearch::found:
        // Not the part the head names: the block is sought, as without a directory.
        directory = cached(ref, ChunkSummary::directory_part, part.id,
                           term_directory_part_key(tenant_, ref.number, index_, part.number));
        break;
    }
  }
  if (directory) {
    std::string_view first;
    switch (find_term_block(*directory, index_, term, first)) {
      case BlockSearch::absent:
        return std::nullopt;
      case BlockSearch::damaged:
        throw term_blocks_damaged(chunk);
      case BlockSearch::found:
        break;
    }
    std::string key = prefix;
    key += first;
    pinned = database_.get_pinned(database_.columns, key, snapshot_);
    if (!pinned) throw term_blocks_damaged(chunk);  // the directory names a block not there
    block = as_view(*pinned);
  } else if (seek_block(prefix, term)) {
    block = as_view(iterator().value());
  } else {
    return database_.get(database_.columns, legacy_prefix(chunk) + std::string(term), snapshot_);
  }
  std::string_view postings;
  switch (find_in_term_block(block, term, postings)) {
    case TermLookup::found:
      return std::string(postings);
    case TermLookup::absent:
      return std::nullopt;
    case TermLookup::damaged:
      break;
  }
  throw term_blocks_damaged(chunk);
}

void ChunkTerms::with_prefix(std::uint64_t chunk, std::string_view prefix,
                             const std::function<void(std::string_view, std::string_view)>& visit) {
  const std::string blocks = term_blocks_prefix(tenant_, chunk, index_);
  if (!seek_block(blocks, prefix)) {
    const std::string legacy = legacy_prefix(chunk);
    const std::string lower = legacy + std::string(prefix);
    const std::string upper = prefix_successor(lower);
    const rocksdb::Slice upper_slice(upper);
    auto it = database_.iterator(database_.columns, &upper_slice, nullptr, snapshot_);
    for (it->Seek(lower); it->Valid(); it->Next())
      visit(as_view(it->key()).substr(legacy.size()), as_view(it->value()));
    check(it->status(), "postings scan");
    return;
  }
  auto& it = iterator();
  bool past = false;
  for (; !past && it.Valid() && as_view(it.key()).starts_with(blocks); it.Next()) {
    const bool intact =
        for_each_term(as_view(it.value()), [&](std::string_view term, std::string_view postings) {
          if (term.starts_with(prefix)) {
            visit(term, postings);
          } else if (term > prefix) {
            past = true;
          }
          return !past;
        });
    if (!intact) throw term_blocks_damaged(chunk);
  }
  check(it.status(), "term blocks scan");
}

}  // namespace eventsvc::plugins::rocksdb_storage
