#include "chunks/text_scorer.hpp"

#include <algorithm>

#include "chunks/chunk_postings.hpp"
#include "chunks/erased_rows.hpp"
#include "chunks/term_blocks.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::shared_ptr<const sdk::RankStatistics> to_rank_statistics(const TextStatistics& statistics) {
  auto stated = std::make_shared<sdk::RankStatistics>();
  stated->documents = statistics.documents;
  stated->length = statistics.length;
  for (const auto& [token, documents] : statistics.frequencies)
    stated->frequencies.emplace(token, documents);
  return stated;
}

std::shared_ptr<const TextStatistics> from_rank_statistics(const sdk::RankStatistics& statistics) {
  auto taken = std::make_shared<TextStatistics>();
  taken->documents = statistics.documents;
  taken->length = statistics.length;
  for (const auto& [token, documents] : statistics.frequencies)
    taken->frequencies.emplace(token, documents);
  return taken;
}

namespace {

std::uint64_t stored_counter(Database& database, const rocksdb::Snapshot* snapshot,
                             const std::string& key) {
  const auto value = database.get(database.stats, key, snapshot);
  return value ? counter_value(*value) : 0;
}

// The number of rows a chunk's word postings hold: their leading count.
std::uint64_t all_rows_of(std::uint64_t chunk, std::string_view postings) {
  const auto count = take_varint(postings);
  if (!count) {
    throw sdk::Error::internal("the postings of chunk " + std::to_string(chunk) + " are damaged");
  }
  return *count;
}

// The same, less the erased rows.
std::uint64_t live_rows_of(std::uint64_t chunk, std::string_view postings, const RowBits& erased) {
  std::vector<Posting> rows;
  if (!decode_postings(postings, rows)) {
    throw sdk::Error::internal("the postings of chunk " + std::to_string(chunk) + " are damaged");
  }
  return static_cast<std::uint64_t>(std::count_if(rows.begin(), rows.end(), [&](const Posting& p) {
    return p.row >= erased.rows() || !erased.test(p.row);
  }));
}

}  // namespace

std::uint64_t ChunkWordCounts::rows_with(const std::string& tenant, const ChunkRef& chunk,
                                         std::string_view word,
                                         const std::function<std::uint64_t()>& count) {
  const ChunkHeader& header = chunk.header;
  if (!header.filter || !header.values) return count();
  std::string key;
  append_u64(key, tenant.size());
  key += tenant;
  append_u64(key, chunk.number);
  append_u64(key, header.rows);
  append_u64(key, *header.filter);
  append_u64(key, *header.values);
  key += word;
  if (const auto kept = counts_.find(key)) return *kept;
  const std::uint64_t counted = count();
  const std::size_t bytes = LruCache<std::uint64_t>::entry_bytes(key) + sizeof counted;
  counts_.keep(key, std::make_shared<const std::uint64_t>(counted), bytes);
  return counted;
}

TextStatistics chunk_text_statistics(Database& database, const rocksdb::Snapshot* snapshot,
                                     const std::string& tenant, const std::vector<ChunkRef>& chunks,
                                     const sdk::TextQuery& query, ChunkWordCounts* counts) {
  TextStatistics statistics;
  statistics.documents = stored_counter(database, snapshot, documents_key(tenant, Scope::history));
  statistics.length = stored_counter(database, snapshot, length_key(tenant, Scope::history));
  ChunkTerms words(database, snapshot, tenant, TermIndex::words);
  const auto scored = query.scoring_terms();
  for (const auto& word : scored)
    statistics.frequencies.emplace(word, 0);
  for (const auto& chunk : chunks) {
    // Erased rows hold their words until the chunk is purged; they are nobody's documents.
    const auto erased =
        read_erased_rows(database, snapshot, tenant, chunk.number, chunk.header.rows);
    const auto rows_of = [&](std::uint64_t number, std::string_view postings) {
      return erased ? live_rows_of(number, postings, *erased) : all_rows_of(number, postings);
    };
    for (const auto& word : scored) {
      const auto read = [&]() -> std::uint64_t {
        const auto postings = words.find(chunk, word);
        return postings ? rows_of(chunk.number, *postings) : 0;
      };
      // Erased rows change a chunk's counts without changing its ids: read until it is purged.
      statistics.frequencies.find(word)->second +=
          counts != nullptr && !erased ? counts->rows_with(tenant, chunk, word, read) : read();
    }
    for (const auto& prefix : query.prefixes) {
      words.with_prefix(chunk.number, prefix,
                        [&](std::string_view token, std::string_view postings) {
                          auto it = statistics.frequencies.find(token);
                          if (it == statistics.frequencies.end())
                            it = statistics.frequencies.emplace(std::string(token), 0).first;
                          it->second += rows_of(chunk.number, postings);
                        });
    }
  }
  return statistics;
}

TextScorer::TextScorer(Database& database, std::string tenant, Scope scope,
                       const rocksdb::Snapshot* snapshot)
    : database_(&database), tenant_(std::move(tenant)), scope_(scope), snapshot_(snapshot) {
  set_totals(counter(documents_key(tenant_, scope_)), counter(length_key(tenant_, scope_)));
}

TextScorer::TextScorer(std::shared_ptr<const TextStatistics> statistics)
    : statistics_(std::move(statistics)) {
  set_totals(statistics_->documents, statistics_->length);
}

void TextScorer::set_totals(std::uint64_t documents, std::uint64_t length) {
  documents_ = documents;
  average_length_ =
      documents > 0 ? static_cast<double>(length) / static_cast<double>(documents) : 0;
}

std::uint64_t TextScorer::counter(const std::string& key) {
  return stored_counter(*database_, snapshot_, key);
}

std::uint64_t TextScorer::frequency(std::string_view token) {
  if (database_ != nullptr) return counter(frequency_key(tenant_, scope_, token));
  const auto it = statistics_->frequencies.find(token);
  return it == statistics_->frequencies.end() ? 0 : it->second;
}

double TextScorer::idf(std::string_view token) {
  const auto it = idf_.find(token);
  if (it != idf_.end()) return it->second;
  const double value = toolkit::Bm25::idf(documents_, frequency(token));
  idf_.emplace(std::string(token), value);
  return value;
}

double TextScorer::score(const sdk::TextQuery& query, const std::vector<std::string>& tokens) {
  std::map<std::string_view, std::uint32_t> frequencies;
  std::uint32_t length = 0;
  for (const auto& token : tokens) {
    if (token.empty()) continue;
    ++frequencies[token];
    ++length;
  }
  double total = 0;
  for (const auto& word : query.scoring_terms()) {
    if (const auto it = frequencies.find(word); it != frequencies.end()) {
      total += term(word, it->second, length);
    }
  }
  for (const auto& prefix : query.prefixes) {
    for (const auto& [token, frequency] : frequencies) {
      if (token.starts_with(prefix)) total += term(token, frequency, length);
    }
  }
  return total;
}

}  // namespace eventsvc::plugins::rocksdb_storage
