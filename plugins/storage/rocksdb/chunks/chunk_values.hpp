// Equalities over one column chunk at a time, from the chunk's value postings
// (chunk_postings.hpp): `eq` and `in` with string, boolean or null operands on any field but id
// and the instants narrow a chunk's rows to those holding one of the values, before any column is
// read. Such a condition holds exactly when the cell is one of its operands (no number, object or
// array equals a string, boolean or null), so narrowing drops no match; the conditions are still
// evaluated on the rows that remain.
#pragma once

#include <rocksdb/slice.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "chunks/term_blocks.hpp"
#include "eventsvc/sdk/condition.hpp"
#include "store/database.hpp"
#include "store/row_bits.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class ChunkValues {
 public:
  ChunkValues(Database& database, const rocksdb::Snapshot* snapshot, const std::string& tenant,
              const std::vector<sdk::Condition>& where);

  // Whether some condition narrows.
  bool active() const { return !conditions_.empty(); }
  // Whether the value postings narrow by this condition: then they decide it exactly, and its
  // column need not be read.
  static bool narrows(const sdk::Condition& condition);

  // False when the chunk's filter rules out every value of some narrowing condition: no row of it
  // can match, and nothing of it need be read. Asks only the filter, held in memory (where the
  // values' rows are kept decoded, narrow() alone does not ask it).
  bool may_match(const ChunkRef& chunk);
  // Clears in `rows` (sized to the chunk) every row that holds none of the values of some
  // narrowing condition; returns how many rows stay set. Stops reading postings once none is.
  // `filtered`: may_match() passed the chunk, so the filter is not asked again.
  std::uint32_t narrow(const ChunkRef& chunk, RowBits& rows, bool filtered);

 private:
  // The rows of the chunk holding the value `term`, from the database's cache of decoded rows
  // when the chunk's header names its value postings; null when none does. `filtered`: the
  // chunk's filter passed the term already.
  std::shared_ptr<const RowBits> rows_with(const ChunkRef& chunk, const std::string& term,
                                           bool filtered);

  RowSetCache& cache_;
  const std::string& tenant_;
  ChunkTerms terms_;
  std::vector<std::vector<std::string>> conditions_;  // per narrowing condition: its value terms
};

}  // namespace eventsvc::plugins::rocksdb_storage
