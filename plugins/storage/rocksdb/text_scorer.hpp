// BM25 over the text statistics of one scope (index_keys.hpp: documents, tokens, and documents
// per token, kept by the projector), with each token's document frequency looked up once per
// query. One per query and thread: it caches as it goes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "database.hpp"
#include "eventsvc/sdk/text.hpp"
#include "index_keys.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class TextScorer {
 public:
  TextScorer(Database& database, std::string tenant, Scope scope,
             const rocksdb::Snapshot* snapshot = nullptr);

  double idf(std::string_view token);
  double term(double idf, std::uint32_t frequency, std::uint32_t length) const {
    return bm25_.term_score(idf, frequency, length, average_length_);
  }
  double term(std::string_view token, std::uint32_t frequency, std::uint32_t length) {
    return term(idf(token), frequency, length);
  }

  // The score of a record given its tokens (sdk::record_tokens). Words and phrase words score by
  // their own frequency; a prefix* term by each record token it matched, so a rarer completion
  // ranks higher.
  double score(const sdk::TextQuery& query, const std::vector<std::string>& tokens);

 private:
  std::uint64_t counter(const std::string& key);

  Database& database_;
  std::string tenant_;
  Scope scope_;
  const rocksdb::Snapshot* snapshot_;
  std::uint64_t documents_ = 0;
  double average_length_ = 0;
  sdk::Bm25 bm25_;
  std::map<std::string, double, std::less<>> idf_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
