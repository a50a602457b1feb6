// Words in column chunks: the text index of a chunk, written with its columns in the same batch
// and merged with them, instead of one index key per (token, version). Each chunk holds, per
// token, the rows that hold it and how often (BM25's term frequency); each row's length in
// tokens (BM25's document length) is the chunk's `#tokens` column.
//
//   columns  <tenant> 'H' <chunk:u64> 0x02 <token>  -> postings
//
// Postings are a varint count, then per row in ascending order the varint gap to the previous
// row (the first row as it is) and the varint frequency. A search reads, for each chunk inside
// its time bounds, only the postings of its own tokens (prefix* terms: a key range).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eventsvc/sdk/record.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// The column of each row's length in tokens. No field path can name it.
inline constexpr std::string_view kTokenCountColumn = "#tokens";

struct Posting {
  std::uint32_t row = 0;
  std::uint32_t frequency = 0;
};

// A record's distinct tokens with their frequencies (in token order), and its length in tokens:
// what both the chunk postings and the BM25 counters need, computed once per record.
struct TokenCounts {
  std::vector<std::pair<std::string, std::uint32_t>> frequencies;
  std::uint32_t length = 0;

  static TokenCounts of(const sdk::Record& record);
};

// <tenant> 'H' <chunk> 0x02: every postings key of a chunk starts with it.
std::string chunk_postings_prefix(std::string_view tenant, std::uint64_t chunk);
std::string chunk_postings_key(std::string_view tenant, std::uint64_t chunk,
                               std::string_view token);

std::string encode_postings(const std::vector<Posting>& postings);
// Appends the decoded postings to `out`, each row plus `base`; false when the bytes are damaged.
bool decode_postings(std::string_view bytes, std::vector<Posting>& out, std::uint32_t base = 0);

// The postings of the chunk being built, token by token.
class PostingsBuilder {
 public:
  void add(std::uint32_t row, const TokenCounts& counts);
  // Appends postings already decoded (merging chunks); rows must follow the ones added so far.
  void append(std::string_view token, const std::vector<Posting>& postings);
  // (token, encoded postings), in token order.
  std::vector<std::pair<std::string, std::string>> encode() const;

 private:
  std::map<std::string, std::vector<Posting>, std::less<>> postings_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
