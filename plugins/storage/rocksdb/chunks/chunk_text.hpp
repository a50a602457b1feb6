// A text query over one column chunk at a time, from the chunk's postings (chunk_postings.hpp):
// which rows can match, and their BM25 scores. Rows must hold every word, every word of each
// phrase and, for each prefix* term, some token that starts with it, and no excluded word. The
// postings carry no positions, so phrases and excluded phrases leave candidates that only the
// record can decide: exact() says whether the candidates are the matches.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chunks/chunk_postings.hpp"
#include "chunks/column_chunk.hpp"
#include "chunks/term_blocks.hpp"
#include "chunks/text_scorer.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "store/database.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class ChunkText {
 public:
  // `scorer`: null when the matches are not ranked.
  ChunkText(Database& database, const rocksdb::Snapshot* snapshot, const std::string& tenant,
            const sdk::TextQuery& query, TextScorer* scorer);

  bool exact() const { return exact_; }

  // Sets in `rows` (reset to the chunk's rows) the rows that can match; returns how many. With a
  // scorer, also scores them (score()).
  std::uint32_t candidates(const ChunkRef& chunk, RowBits& rows);
  // The BM25 score of a candidate row of the chunk last given to candidates(); 0 for any other.
  // Rows asked in ascending order (as a chunk is read) are found by a step or two each.
  double score(std::uint32_t row);

 private:
  using Rows = std::vector<Posting>;
  Rows postings(const ChunkRef& chunk, std::string_view token);
  // Every (token, postings) of the chunk whose token starts with `prefix`.
  std::vector<std::pair<std::string, Rows>> expansions(std::uint64_t chunk,
                                                       std::string_view prefix);
  void compute_scores(std::uint64_t chunk, std::uint32_t chunk_rows, const RowBits& rows,
                      const std::vector<std::pair<std::string, Rows>>& scored);

  Database& database_;
  const rocksdb::Snapshot* snapshot_;
  const std::string& tenant_;
  ChunkTerms words_;
  const sdk::TextQuery& query_;
  TextScorer* scorer_;
  std::vector<std::string> required_;  // words and phrase words, each once
  std::vector<std::string> excluded_;  // excluded single words
  bool exact_ = true;
  std::vector<std::uint32_t> scored_rows_;  // the candidates scored, in row order
  std::vector<double> scores_;              // theirs, in the same order
  std::size_t scored_at_ = 0;               // where score() found the row asked last
};

}  // namespace eventsvc::plugins::rocksdb_storage
