#include "query/chunk_scanner.hpp"

#include "chunks/erased_rows.hpp"
#include "chunks/stored_column.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/condition.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// The columns of the conditions and the timestamp, and the ids when `with_ids`. With
// `value_postings`, the conditions the chunks' value postings decide (ChunkValues) read no column.
std::optional<ColumnPlan> plan_conditions(const std::vector<sdk::Condition>& where, bool with_ids,
                                          bool value_postings) {
  ColumnPlan plan;
  plan.timestamp = *plan.slot(*sdk::FieldPath::parse("timestamp"));
  if (with_ids) plan.id = plan.slot(*sdk::FieldPath::parse("id"));
  for (const auto& condition : where) {
    if (value_postings && ChunkValues::narrows(condition)) {
      plan.conditions.push_back(ColumnPlan::kDecided);
      continue;
    }
    const auto slot = plan.slot(condition.field);
    if (!slot) return std::nullopt;
    plan.conditions.push_back(*slot);
  }
  return plan;
}

toolkit::FieldValue cell_value(const ColumnPlan::Slot& slot, CellKind kind, const ColumnView& view,
                               const ColumnView::Cursor& cursor, sdk::json::value& scratch) {
  switch (kind) {
    case CellKind::absent:
    case CellKind::container:
      return toolkit::FieldValue::absent();
    case CellKind::string:
      if (slot.canonical)
        return toolkit::FieldValue::of(view.dictionary_entry(cursor.string_index()));
      scratch = sdk::json::string(view.dictionary_entry(cursor.string_index()));
      break;
    case CellKind::int64:
      if (slot.instant)
        return toolkit::FieldValue::of_instant(static_cast<std::int64_t>(cursor.number()));
      [[fallthrough]];
    default:
      scratch = scalar_cell(kind, cursor.number());
      break;
  }
  return toolkit::FieldValue::of(&scratch);
}

namespace {

// Whether every row of a chunk meets a condition by its header alone: a bound on `timestamp` that
// the chunk's whole time range lies within (every row has a timestamp).
bool header_decides(const sdk::Condition& condition, const ChunkHeader& header) {
  if (!condition.field.is_canonical(sdk::CanonicalField::timestamp) ||
      !condition.operand.is_int64()) {
    return false;
  }
  const sdk::Millis bound = condition.operand.get_int64();
  switch (condition.op) {
    case sdk::Op::gt:
      return header.min_timestamp > bound;
    case sdk::Op::gte:
      return header.min_timestamp >= bound;
    case sdk::Op::lt:
      return header.max_timestamp < bound;
    case sdk::Op::lte:
      return header.max_timestamp <= bound;
    default:
      return false;
  }
}

}  // namespace

std::optional<ChunkRows> ChunkScanner::rows_of(const ChunkRef& chunk, bool& containers) {
  std::vector<ColumnView> views;
  containers = false;
  for (const auto& slot : plan_.slots) {
    auto view = read_column(database_, snapshot_, tenant_, chunk.number, slot.name,
                            chunk.header.rows, page_read());
    if (!view) {
      views.emplace_back(chunk.header.rows);
      continue;
    }
    containers = containers || view->has_containers();
    views.push_back(std::move(*view));
  }
  return ChunkRows(plan_, std::move(views));
}

void ChunkScanner::drop_replaced(const ChunkRef& chunk) {
  if (source_ != sdk::Source::current) return;
  const std::string prefix = replaced_key(tenant_, chunk.number);
  const auto damaged = [&] {
    return sdk::Error::internal("the replaced rows of chunk " + std::to_string(chunk.number) +
                                " are damaged");
  };
  if (replaced_bitmaps_) {  // one key: a point read, no iterator, cleared from the bitmap as read
    const auto bitmap = database_.get_pinned(database_.columns, prefix, snapshot_);
    if (bitmap && !candidates_.and_not_bytes(bitmap->data(), bitmap->size())) throw damaged();
    return;
  }
  std::vector<bool> replaced(chunk.header.rows, false);
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database_.iterator(database_.columns, &upper_slice, nullptr, snapshot_);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    if (!mark_replaced(std::string_view(it->key().data(), it->key().size()).substr(prefix.size()),
                       std::string_view(it->value().data(), it->value().size()), replaced)) {
      throw damaged();
    }
  }
  check(it->status(), "replaced rows scan");
  for (std::uint32_t row = 0; row < chunk.header.rows; ++row) {
    if (replaced[row]) candidates_.clear(row);
  }
}

bool ChunkScanner::read_erased(const ChunkRef& chunk) {
  auto erased = read_erased_rows(database_, snapshot_, tenant_, chunk.number, chunk.header.rows);
  if (!erased) return false;
  erased_ = std::move(*erased);
  return true;
}

void ChunkScanner::scan(const ChunkRef& chunk, RowSink& sink, sdk::AggregateStats& stats) {
  if (narrowing()) {
    // Only rows with the query's words and values are examined; a chunk without them is not
    // read at all. For current state the replaced rows (one point read) go before the values'
    // postings, so that in a chunk whose matching rows were all replaced since (most of an old
    // chunk, for ids that are re-reported) the values stop at the first that leaves none.
    // For current state, a chunk its filter rules out is not read at all, not even its replaced
    // rows. (Elsewhere the value postings come first, and ask the filter only when a value's rows
    // are not kept decoded.)
    const bool filtered = source_ == sdk::Source::current && values_ != nullptr;
    if (filtered && !values_->may_match(chunk)) return;
    std::uint32_t candidates = chunk.header.rows;
    if (text_ != nullptr) {
      candidates = text_->candidates(chunk, candidates_);
    } else {
      candidates_.reset(chunk.header.rows, true);
    }
    // Counted once, at the end: until then only whether any candidate is left matters.
    bool recount = false;
    if (candidates > 0 && source_ == sdk::Source::current) {
      drop_replaced(chunk);
      candidates = candidates_.any() ? 1 : 0;
      recount = true;
    }
    if (candidates > 0 && read_erased(chunk)) {
      candidates_.and_not(erased_);
      candidates = candidates_.any() ? 1 : 0;
      recount = true;
    }
    if (candidates > 0 && values_ != nullptr) {
      candidates = values_->narrow(chunk, candidates_, filtered);
    } else if (candidates > 0 && recount) {
      candidates = candidates_.count();
    }
    stats.scanned += candidates;
    if (candidates == 0) return;
  } else {
    candidates_.reset(chunk.header.rows, true);
    drop_replaced(chunk);
    stats.scanned += chunk.header.rows;
    if (read_erased(chunk)) {  // erased rows are not records any more: not even scanned ones
      candidates_.and_not(erased_);
      stats.scanned -= erased_.count();
    }
  }
  if (!candidates_.any()) return;  // every candidate stopped being current
  bool containers = false;
  auto rows = rows_of(chunk, containers);
  sink.begin_chunk(chunk);
  // A named field holds an object or array somewhere in this chunk, the text query has phrases
  // the postings cannot decide, or the sink needs what the columns lack: read the records.
  if (containers || (text_ != nullptr && !text_->exact()) || !sink.reads_columns(*rows)) {
    by_records(chunk, *rows, sink, stats);
  } else {
    by_columns(chunk, *rows, sink, stats);
  }
  sink.end_chunk(*rows);
}

void ChunkScanner::by_records(const ChunkRef& chunk, ChunkRows& rows, RowSink& sink,
                              sdk::AggregateStats& stats) {
  // The ids locate the records; aggregations do not read them otherwise.
  std::optional<ColumnView> loaded;
  if (!plan_.id) {
    loaded = read_column(database_, snapshot_, tenant_, chunk.number, "id", chunk.header.rows,
                         page_read());
    if (!loaded) {
      throw sdk::Error::internal("the ids of chunk " + std::to_string(chunk.number) +
                                 " are damaged");
    }
  }
  const ColumnView& ids = plan_.id ? rows.view(*plan_.id) : *loaded;
  ColumnView::Cursor id(ids);
  std::uint32_t at = 0;  // the row the cursors are at
  for (std::uint32_t row = candidates_.next(0); row < chunk.header.rows;
       row = candidates_.next(row + 1)) {
    rows.skip(row - at);
    id.skip(row - at);
    at = row + 1;
    rows.next();
    id.next();
    const auto stored = database_.get(database_.history,
                                      version_key(tenant_, rows.integer(plan_.timestamp),
                                                  ids.dictionary_entry(id.string_index())),
                                      snapshot_);
    if (!stored) continue;
    const sdk::Record record = decode_record(*stored);
    if (!toolkit::matches_all(record, where_)) continue;
    if (query_ != nullptr && !text_->exact() &&
        !toolkit::text_matches(*query_, toolkit::record_tokens(record))) {
      continue;
    }
    ++stats.matched;
    sink.record(record, score(row));
  }
}

void ChunkScanner::by_columns(const ChunkRef& chunk, ChunkRows& rows, RowSink& sink,
                              sdk::AggregateStats& stats) {
  // Only the conditions that neither the value postings nor the chunk's time range decide are
  // evaluated per row; those on strings once per dictionary entry.
  std::vector<std::size_t> evaluated;
  std::vector<std::vector<std::int8_t>> decided(where_.size());
  for (std::size_t c = 0; c < where_.size(); ++c) {
    if (plan_.conditions[c] == ColumnPlan::kDecided || header_decides(where_[c], chunk.header)) {
      continue;
    }
    evaluated.push_back(c);
    decided[c].assign(rows.view(plan_.conditions[c]).dictionary_size(), -1);
  }
  if (evaluated.empty() && text_ == nullptr && sink.all_rows(rows, candidates_)) {
    stats.matched += candidates_.count();
    return;
  }
  std::uint32_t at = 0;  // the row the cursors are at
  for (std::uint32_t row = candidates_.next(0); row < chunk.header.rows;
       row = candidates_.next(row + 1)) {
    rows.skip(row - at);
    at = row + 1;
    rows.next();
    bool matched = true;
    for (std::size_t i = 0; i < evaluated.size() && matched; ++i) {
      const std::size_t c = evaluated[i];
      const std::size_t slot = plan_.conditions[c];
      if (rows.kind(slot) == CellKind::string) {
        std::int8_t& known = decided[c][rows.string_index(slot)];
        if (known < 0) known = toolkit::matches(rows.value(slot), where_[c]) ? 1 : 0;
        matched = known == 1;
      } else {
        matched = toolkit::matches(rows.value(slot), where_[c]);
      }
    }
    if (!matched) continue;
    ++stats.matched;
    sink.row(rows, row, score(row));
  }
}

}  // namespace eventsvc::plugins::rocksdb_storage
