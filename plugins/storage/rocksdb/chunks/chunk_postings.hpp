// The indexes of a column chunk, written with its columns in the same batch and merged with
// them, instead of one index key per (token or value, version):
//
//  * words: per token, the rows that hold it and how often (BM25's term frequency); each row's
//    length in tokens (BM25's document length) is the chunk's `#tokens` column;
//  * values: per (column, string, boolean or null value), the rows whose cell is exactly that
//    value (numbers are answered from the columns; ids from the id index).
//
//   columns  <tenant> 'H' <chunk:u64> 0x02 <token>                       -> postings
//            <tenant> 'H' <chunk:u64> 0x03 <column> 0x00 <value term>    -> postings
//
// A value term is 's' and the string, 't', 'f' or 'n'.
//
// Word postings are a varint count, then per row in ascending order the varint gap to the
// previous row (the first row as it is) and the varint frequency. Value postings are a row set:
// 'B' and a bitmap (row r: bit r % 8 of byte r / 8), or 'L', a varint count and the varint gaps,
// whichever is smaller. A search reads, for each chunk inside
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
#include "store/row_bits.hpp"
#include "store/string_hash.hpp"

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
  // Only `length`: what an index without per-word counters needs to take a record out.
  static TokenCounts length_of(const sdk::Record& record);
};

// <tenant> 'H' <chunk> 0x02: every postings key of a chunk starts with it.
std::string chunk_postings_prefix(std::string_view tenant, std::uint64_t chunk);
std::string chunk_postings_key(std::string_view tenant, std::uint64_t chunk,
                               std::string_view token);
// <tenant> 'H' <chunk> 0x03: every value postings key of a chunk starts with it.
std::string chunk_values_prefix(std::string_view tenant, std::uint64_t chunk);
// `term`: value_term(column, value).
std::string chunk_values_key(std::string_view tenant, std::uint64_t chunk, std::string_view term);
// <column> 0x00 <value term>; nullopt for values without postings (numbers, containers).
std::optional<std::string> value_term(std::string_view column, const sdk::json::value& value);
std::string string_value_term(std::string_view column, std::string_view text);

std::string encode_postings(const std::vector<Posting>& postings);
// Appends the decoded postings to `out`, each row plus `base`; false (and nothing appended) when
// the bytes are damaged.
bool decode_postings(std::string_view bytes, std::vector<Posting>& out, std::uint32_t base = 0);

std::string encode_row_set(const std::vector<Posting>& rows);
// As decode_postings, for a row set (frequency 1).
bool decode_row_set(std::string_view bytes, std::vector<Posting>& out, std::uint32_t base = 0);
// Sets the rows of a row set in `bits`; false when damaged or past its rows.
bool mark_row_set(std::string_view bytes, RowBits& bits);

// One chunk's (term, encoded postings) in term order, while its rows are moved past `base`
// (merging chunks).
struct ChunkTermList {
  std::uint64_t chunk = 0;  // for the message when its postings are damaged
  std::uint32_t base = 0;
  std::vector<std::pair<std::string, std::string>> terms;
  // When rows leave (a purge): each old row's row in the new chunk, or kDroppedRow; its rows are
  // then not moved by `base`.
  const std::vector<std::uint32_t>* renumbered = nullptr;
};
inline constexpr std::uint32_t kDroppedRow = UINT32_MAX;

// The postings of consecutive chunks as those of one: a k-way merge of their term lists, in the
// chunks' order (each list's rows after the previous ones'), so that no term is hashed or sorted
// again; a term left with no row (every row of it dropped) is left out. Word postings, or with
// `frequencies` false, row sets. Throws (500) naming a chunk whose postings are damaged.
std::vector<std::pair<std::string, std::string>> merge_term_lists(
    const std::vector<ChunkTermList>& lists, bool frequencies);

// The postings of the chunk being built, term by term: word postings, or with `frequencies`
// false, row sets.
class PostingsBuilder {
 public:
  explicit PostingsBuilder(bool frequencies = true) : frequencies_(frequencies) {}
  void add(std::uint32_t row, const TokenCounts& counts);
  // One term of one row (value postings: frequency 1). Rows must come in ascending order.
  void add_row(std::string_view term, std::uint32_t row);
  // (token, encoded postings), in token order.
  std::vector<std::pair<std::string, std::string>> encode() const;

 private:
  bool frequencies_;
  StringMap<std::vector<Posting>> postings_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
