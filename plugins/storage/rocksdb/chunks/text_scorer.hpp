// BM25 for one query. Its statistics come from one of two places:
//
//  * a database whose history is indexed in column chunks: the documents and their total length
//    are two counters per workspace (index_keys.hpp, kept by the projector), and a token's
//    document frequency is summed at query time from the postings of every chunk, each of which
//    starts with its number of rows (chunk_text_statistics). As Lucene sums a term's frequency
//    over its segments, and counts documents that were deleted until a merge drops them, every
//    statistic counts every stored version: a current-state search ranks with the statistics of
//    the whole history;
//  * a database from before chunk indexes: a counter per (scope, token), read as the query goes.
//
// One per query and thread: it caches as it goes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "store/database.hpp"
#include "store/index_keys.hpp"
#include "store/lru_cache.hpp"
#include "store/string_hash.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// What BM25 needs to score the words of one query.
struct TextStatistics {
  std::uint64_t documents = 0;
  std::uint64_t length = 0;  // of every document, in tokens
  // Documents holding each scored word, and each word that a prefix* term of the query matches.
  StringMap<std::uint64_t> frequencies;
};

// The same as the SDK states them to a caller paging a ranked read, and back.
std::shared_ptr<const sdk::RankStatistics> to_rank_statistics(const TextStatistics& statistics);
std::shared_ptr<const TextStatistics> from_rank_statistics(const sdk::RankStatistics& statistics);

// How many rows of a chunk hold a word, kept across questions: a ranked search sums them over
// every chunk of the tenant's history whatever its time bounds, and reading each chunk's block of
// the word was a sixth of the server's CPU for a rare word at 1,000,000 events. A chunk is
// known by its number, its rows and the content ids of its filter and value postings (a merge or
// purge that reuses the number changes them); chunks without those ids are read each time.
class ChunkWordCounts {
 public:
  explicit ChunkWordCounts(std::size_t capacity_bytes) : counts_(capacity_bytes) {}
  // The count kept for `word` in `chunk`, else count() kept.
  std::uint64_t rows_with(const std::string& tenant, const ChunkRef& chunk, std::string_view word,
                          const std::function<std::uint64_t()>& count);

 private:
  LruCache<std::uint64_t> counts_;
};

// The statistics of `query` over `chunks` (every chunk of the tenant) and the tenant's history
// counters, read at `snapshot`; a chunk's count of a word from `counts` where it has it (null:
// every count read).
TextStatistics chunk_text_statistics(Database& database, const rocksdb::Snapshot* snapshot,
                                     const std::string& tenant, const std::vector<ChunkRef>& chunks,
                                     const sdk::TextQuery& query,
                                     ChunkWordCounts* counts = nullptr);

class TextScorer {
 public:
  // From the counters of one scope (a database from before chunk indexes).
  TextScorer(Database& database, std::string tenant, Scope scope,
             const rocksdb::Snapshot* snapshot = nullptr);
  // From statistics gathered for the query; a word they lack occurs nowhere.
  explicit TextScorer(std::shared_ptr<const TextStatistics> statistics);

  double idf(std::string_view token);
  double term(double idf, std::uint32_t frequency, std::uint32_t length) const {
    return bm25_.term_score(idf, frequency, length, average_length_);
  }
  double term(std::string_view token, std::uint32_t frequency, std::uint32_t length) {
    return term(idf(token), frequency, length);
  }

  // The score of a record given its tokens (toolkit::record_tokens). Words and phrase words score
  // by their own frequency; a prefix* term by each record token it matched, so a rarer completion
  // ranks higher.
  double score(const sdk::TextQuery& query, const std::vector<std::string>& tokens);

 private:
  std::uint64_t counter(const std::string& key);
  std::uint64_t frequency(std::string_view token);
  void set_totals(std::uint64_t documents, std::uint64_t length);

  Database* database_ = nullptr;  // null: statistics_ are used
  std::string tenant_;
  Scope scope_ = Scope::history;
  const rocksdb::Snapshot* snapshot_ = nullptr;
  std::shared_ptr<const TextStatistics> statistics_;
  std::uint64_t documents_ = 0;
  double average_length_ = 0;
  toolkit::Bm25 bm25_;
  std::map<std::string, double, std::less<>> idf_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
