// Text search as every backend does it (DESIGN §5): the tokenizer, the query syntax, the text of
// a record, matching and BM25 scoring.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/record.hpp"
#include "eventsvc/sdk/text_query.hpp"
#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

using sdk::Record;
using sdk::TextQuery;

// Longest token kept, in bytes; longer runs are cut (the rest of the run is dropped).
inline constexpr std::size_t kMaxTokenBytes = 64;

// Splits UTF-8 text into lowercase tokens: runs of letters, digits and combining marks of any
// script; every Han, Hiragana or Katakana character is a token of its own (those scripts do not
// separate words with spaces). Everything else, including invalid UTF-8, separates tokens.
void for_each_token(std::string_view text, const std::function<void(std::string_view)>& emit);
std::vector<std::string> tokenize(std::string_view text);

// Unicode lowercase of a UTF-8 string (simple case mapping).
std::string fold_case(std::string_view text);

// The query a `text` parameter asks for (sdk/text_query.hpp shows the syntax). Throws Error 400
// when the text holds nothing to search for (e.g. only exclusions).
TextQuery parse_text_query(std::string_view text);

// The searchable text of a record, field by field: the id, the type, and every key and string
// value inside payload, metrics and attributes. `path` is the dotted field path of a value ("" for
// keys).
void for_each_text_field(
    const Record& record,
    const std::function<void(std::string_view path, std::string_view text)>& emit);

// The record's tokens in order. Fields are separated by an empty token so phrases never match
// across two values.
std::vector<std::string> record_tokens(const Record& record);

// Whether tokens (as record_tokens() gives them) satisfy the query.
bool text_matches(const TextQuery& query, const std::vector<std::string>& tokens);

// BM25 with the usual k1 = 1.2, b = 0.75.
struct Bm25 {
  double k1 = 1.2;
  double b = 0.75;

  // Inverse document frequency, the non-negative Lucene form log(1 + (N - df + 0.5) / (df + 0.5)).
  static double idf(std::uint64_t documents, std::uint64_t document_frequency);
  double term_score(double idf, std::uint32_t term_frequency, std::uint32_t document_length,
                    double average_length) const;
};

}  // namespace eventsvc::toolkit
