#include "text_scorer.hpp"

namespace eventsvc::plugins::rocksdb_storage {

TextScorer::TextScorer(Database& database, std::string tenant, Scope scope,
                       const rocksdb::Snapshot* snapshot)
    : database_(database), tenant_(std::move(tenant)), scope_(scope), snapshot_(snapshot) {
  documents_ = counter(documents_key(tenant_, scope_));
  const std::uint64_t tokens = counter(length_key(tenant_, scope_));
  average_length_ =
      documents_ > 0 ? static_cast<double>(tokens) / static_cast<double>(documents_) : 0;
}

std::uint64_t TextScorer::counter(const std::string& key) {
  const auto value = database_.get(database_.stats, key, snapshot_);
  return value ? counter_value(*value) : 0;
}

double TextScorer::idf(std::string_view token) {
  const auto it = idf_.find(token);
  if (it != idf_.end()) return it->second;
  const double value = sdk::Bm25::idf(documents_, counter(frequency_key(tenant_, scope_, token)));
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
