#include "chunks/chunk_values.hpp"

#include "chunks/chunk_postings.hpp"
#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/error.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

// The value terms a condition is narrowed by; empty when it cannot narrow.
std::vector<std::string> terms_of(const sdk::Condition& condition) {
  const auto& field = condition.field;
  if (field.is_instant() || field.is_canonical(sdk::CanonicalField::id)) return {};
  const auto column = column_name(field);
  if (!column) return {};
  std::vector<sdk::json::value> operands;
  if (condition.op == sdk::Op::eq) {
    operands.push_back(condition.operand);
  } else if (condition.op == sdk::Op::in && condition.operand.is_array()) {
    operands.assign(condition.operand.get_array().begin(), condition.operand.get_array().end());
  } else {
    return {};
  }
  const bool canonical = field.root == sdk::FieldPath::Root::canonical;
  std::vector<std::string> terms;
  for (const auto& operand : operands) {
    // A canonical field holds only strings: other operands never equal it.
    if (canonical && !operand.is_string()) continue;
    auto term = value_term(*column, operand);
    if (!term) return {};  // a number: only the column can tell
    terms.push_back(std::move(*term));
  }
  if (terms.empty()) terms.emplace_back();  // nothing can be equal: an empty term has no rows
  return terms;
}

}  // namespace

ChunkValues::ChunkValues(Database& database, const rocksdb::Snapshot* snapshot,
                         const std::string& tenant, const std::vector<sdk::Condition>& where)
    : cache_(database.value_rows()),
      tenant_(tenant),
      terms_(database, snapshot, tenant, TermIndex::values) {
  for (const auto& condition : where) {
    auto terms = terms_of(condition);
    if (!terms.empty()) conditions_.push_back(std::move(terms));
  }
}

bool ChunkValues::narrows(const sdk::Condition& condition) {
  return !terms_of(condition).empty();
}

std::shared_ptr<const RowBits> ChunkValues::rows_with(const ChunkRef& chunk,
                                                      const std::string& term, bool filtered) {
  if (term.empty()) return nullptr;
  const auto load = [&]() -> std::optional<RowBits> {
    const auto postings = terms_.find(chunk, term, filtered);
    if (!postings) return std::nullopt;
    RowBits rows;
    rows.reset(chunk.header.rows, false);
    if (!mark_row_set(*postings, rows)) {
      throw sdk::Error::internal("the value postings of chunk " + std::to_string(chunk.number) +
                                 " are damaged");
    }
    return rows;
  };
  if (chunk.header.values) {
    return cache_.get(tenant_, chunk.number, *chunk.header.values, chunk.header.rows, term, load);
  }
  auto rows = load();
  return rows ? std::make_shared<const RowBits>(std::move(*rows)) : nullptr;
}

bool ChunkValues::may_match(const ChunkRef& chunk) {
  for (const auto& terms : conditions_) {
    bool any = false;
    for (const auto& term : terms)
      any = any || (!term.empty() && terms_.may_hold(chunk, term));
    if (!any) return false;
  }
  return true;
}

std::uint32_t ChunkValues::narrow(const ChunkRef& chunk, RowBits& rows, bool filtered) {
  RowBits holding;
  for (const auto& terms : conditions_) {
    if (!rows.any()) return 0;  // the next conditions' postings need not be read
    if (terms.size() == 1) {    // an equality: its value's rows narrow directly
      const auto with = rows_with(chunk, terms.front(), filtered);
      if (!with) {
        rows.reset(rows.rows(), false);
        return 0;
      }
      rows.and_with(*with);
      continue;
    }
    holding.reset(rows.rows(), false);
    for (const auto& term : terms) {
      if (const auto with = rows_with(chunk, term, false)) holding.or_with(*with);
    }
    rows.and_with(holding);
  }
  return rows.count();
}

}  // namespace eventsvc::plugins::rocksdb_storage
