#include "chunks/chunk_text.hpp"

#include <algorithm>
#include <iterator>

#include "chunks/stored_column.hpp"
#include "eventsvc/sdk/error.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

std::vector<std::uint32_t> rows_of(const std::vector<Posting>& postings) {
  std::vector<std::uint32_t> rows;
  rows.reserve(postings.size());
  for (const auto& posting : postings)
    rows.push_back(posting.row);
  return rows;
}

sdk::Error postings_damaged(std::uint64_t chunk) {
  return sdk::Error::internal("the postings of chunk " + std::to_string(chunk) + " are damaged");
}

}  // namespace

ChunkText::ChunkText(Database& database, const rocksdb::Snapshot* snapshot,
                     const std::string& tenant, const sdk::TextQuery& query, TextScorer* scorer)
    : database_(database),
      snapshot_(snapshot),
      tenant_(tenant),
      words_(database, snapshot, tenant, TermIndex::words),
      query_(query),
      scorer_(scorer),
      required_(query.scoring_terms()) {
  for (const auto& phrase : query.phrases) {
    if (phrase.size() > 1) exact_ = false;
  }
  for (const auto& excluded : query.excluded) {
    if (excluded.size() == 1) {
      excluded_.push_back(excluded.front());
    } else {
      exact_ = false;
    }
  }
}

ChunkText::Rows ChunkText::postings(const ChunkRef& chunk, std::string_view token) {
  Rows out;
  const auto bytes = words_.find(chunk, token);
  if (bytes && !decode_postings(*bytes, out)) throw postings_damaged(chunk.number);
  return out;
}

std::vector<std::pair<std::string, ChunkText::Rows>> ChunkText::expansions(
    std::uint64_t chunk, std::string_view prefix) {
  std::vector<std::pair<std::string, Rows>> out;
  words_.with_prefix(chunk, prefix, [&](std::string_view token, std::string_view bytes) {
    Rows rows;
    if (!decode_postings(bytes, rows)) throw postings_damaged(chunk);
    out.emplace_back(std::string(token), std::move(rows));
  });
  return out;
}

std::uint32_t ChunkText::candidates(const ChunkRef& chunk, RowBits& rows) {
  const std::uint32_t chunk_rows = chunk.header.rows;
  rows.reset(chunk_rows, false);
  scored_rows_.clear();
  scores_.clear();
  scored_at_ = 0;
  std::vector<std::pair<std::string, Rows>> scored;
  std::optional<std::vector<std::uint32_t>> kept;  // sorted; nullopt: every row so far
  auto narrow = [&](std::vector<std::uint32_t> found) {
    if (!kept) {
      kept = std::move(found);
      return;
    }
    std::vector<std::uint32_t> both;
    std::set_intersection(kept->begin(), kept->end(), found.begin(), found.end(),
                          std::back_inserter(both));
    kept = std::move(both);
  };

  for (const auto& token : required_) {
    Rows found = postings(chunk, token);
    narrow(rows_of(found));
    if (kept->empty()) return 0;
    if (scorer_ != nullptr) scored.emplace_back(token, std::move(found));
  }
  for (const auto& prefix : query_.prefixes) {
    auto tokens = expansions(chunk.number, prefix);
    std::vector<std::uint32_t> any;
    for (const auto& entry : tokens) {
      for (const auto& posting : entry.second)
        any.push_back(posting.row);
    }
    std::sort(any.begin(), any.end());
    any.erase(std::unique(any.begin(), any.end()), any.end());
    narrow(std::move(any));
    if (kept->empty()) return 0;
    if (scorer_ != nullptr) std::move(tokens.begin(), tokens.end(), std::back_inserter(scored));
  }

  if (kept) {
    for (const auto row : *kept) {
      if (row < chunk_rows) rows.set(row);
    }
  } else {
    rows.reset(chunk_rows, true);
  }
  for (const auto& token : excluded_) {
    for (const auto& posting : postings(chunk, token)) {
      if (posting.row < chunk_rows) rows.clear(posting.row);
    }
  }
  const std::uint32_t count = rows.count();
  if (count > 0 && scorer_ != nullptr) compute_scores(chunk.number, chunk_rows, rows, scored);
  return count;
}

void ChunkText::compute_scores(std::uint64_t chunk, std::uint32_t chunk_rows, const RowBits& rows,
                               const std::vector<std::pair<std::string, Rows>>& scored) {
  // The candidates are a few rows of a large chunk (two words in one message of eight): the
  // lengths and scores are kept for them alone, in row order, not for every row of the chunk.
  for (std::uint32_t row = rows.next(0); row < chunk_rows; row = rows.next(row + 1))
    scored_rows_.push_back(row);
  scores_.assign(scored_rows_.size(), 0.0);
  // Each candidate's length in tokens, BM25's document length.
  std::vector<std::uint32_t> lengths(scored_rows_.size(), 0);
  if (const auto view = read_column(database_, snapshot_, tenant_, chunk, kTokenCountColumn,
                                    chunk_rows, PageRead::lookup)) {
    // The cursor steps over the rows between candidates undecoded.
    ColumnView::Cursor cursor(*view);
    std::uint32_t position = 0;
    for (std::size_t i = 0; i < scored_rows_.size(); ++i) {
      cursor.skip(scored_rows_[i] - position);
      position = scored_rows_[i] + 1;
      if (cursor.next() == CellKind::int64)
        lengths[i] = static_cast<std::uint32_t>(cursor.number());
    }
  }
  // Terms in the order the record-wise score adds them, so both give the same doubles. Postings
  // and candidates are both in row order: one walk of the two per term.
  for (const auto& [token, postings] : scored) {
    const double idf = scorer_->idf(token);
    std::size_t i = 0;
    for (const auto& posting : postings) {
      while (i < scored_rows_.size() && scored_rows_[i] < posting.row)
        ++i;
      if (i == scored_rows_.size()) break;
      if (scored_rows_[i] == posting.row)
        scores_[i] += scorer_->term(idf, posting.frequency, lengths[i]);
    }
  }
}

double ChunkText::score(std::uint32_t row) {
  if (scored_at_ >= scored_rows_.size() || scored_rows_[scored_at_] > row) {
    scored_at_ = static_cast<std::size_t>(
        std::lower_bound(scored_rows_.begin(), scored_rows_.end(), row) - scored_rows_.begin());
  }
  while (scored_at_ < scored_rows_.size() && scored_rows_[scored_at_] < row)
    ++scored_at_;
  if (scored_at_ == scored_rows_.size() || scored_rows_[scored_at_] != row) return 0.0;
  return scores_[scored_at_];
}

}  // namespace eventsvc::plugins::rocksdb_storage
