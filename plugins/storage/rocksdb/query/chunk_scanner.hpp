// Finding the matching rows of one column chunk (column_chunk.hpp): the columns a request reads
// (ColumnPlan), a chunk's columns read row by row (ChunkRows), and the scan of a chunk
// (ChunkScanner) that hands each matching row to a RowSink, by its cells or, where the columns
// cannot answer, as its record. The column reader (column_reader.hpp) runs scanners over the
// chunks of a time range; its sinks aggregate, keep the first matches, or deliver cells.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunks/chunk_text.hpp"
#include "chunks/chunk_values.hpp"
#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/aggregate_pushdown.hpp"
#include "eventsvc/sdk/condition.hpp"
#include "eventsvc/toolkit/field_value.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "store/database.hpp"
#include "store/row_bits.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// The columns a request reads, each once, and where each part of the request finds its column.
struct ColumnPlan {
  struct Slot {
    std::string name;
    bool canonical = false;  // a canonical field: strings are not JSON, instants are instants
    bool instant = false;    // timestamp or ingested_at
  };
  std::vector<Slot> slots;
  // A condition the chunks' value postings decide: no column.
  static constexpr std::size_t kDecided = SIZE_MAX;
  std::vector<std::size_t> conditions;  // per condition: its column, or kDecided
  std::vector<std::size_t> group_by;    // per group_by field
  std::optional<std::size_t> bucket;
  std::vector<std::optional<std::size_t>> values;  // per aggregation: its field's column
  std::vector<std::optional<std::size_t>>
      times;  // per aggregation: its time column, if it uses one
  std::size_t timestamp = 0;
  std::optional<std::size_t> id;  // read only when the rows' ids are needed

  std::optional<std::size_t> slot(const sdk::FieldPath& field) {
    const auto name = column_name(field);
    if (!name) return std::nullopt;
    const bool canonical = field.root == sdk::FieldPath::Root::canonical;
    return slot_named(*name, canonical, canonical && field.is_instant());
  }
  std::size_t slot_named(const std::string& name, bool canonical, bool instant) {
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].name == name) return i;
    }
    slots.push_back({name, canonical, instant});
    return slots.size() - 1;
  }
};

// The columns of the conditions and the timestamp, and the ids when `with_ids`. With
// `value_postings`, the conditions the chunks' value postings decide (ChunkValues) read no column.
std::optional<ColumnPlan> plan_conditions(const std::vector<sdk::Condition>& where, bool with_ids,
                                          bool value_postings);

// A cell of a column of `slot` as the record-wise resolve() would give it: `kind` and the cursor's
// number or string; `scratch` holds the JSON value the result may point to.
toolkit::FieldValue cell_value(const ColumnPlan::Slot& slot, CellKind kind, const ColumnView& view,
                               const ColumnView::Cursor& cursor, sdk::json::value& scratch);

// One chunk's columns, read row by row. A column's cursor moves only when one of its cells is
// asked for: a request whose conditions leave few of the candidates reads the other columns
// (ids, timestamps) only at its matches, and their pages elsewhere are never loaded.
class ChunkRows {
 public:
  ChunkRows(const ColumnPlan& plan, std::vector<ColumnView> views)
      : plan_(plan),
        views_(std::move(views)),
        kinds_(views_.size()),
        scratch_(views_.size()),
        taken_(views_.size(), 0) {
    cursors_.reserve(views_.size());
    for (const auto& view : views_)
      cursors_.emplace_back(view);
  }

  // To the next row: the cells asked for from here on are this row's.
  void next() { ++passed_; }
  // Moves past `rows` rows without decoding them.
  void skip(std::size_t rows) { passed_ += rows; }

  CellKind kind(std::size_t slot) { return at(slot); }
  std::uint32_t string_index(std::size_t slot) {
    at(slot);
    return cursors_[slot].string_index();
  }
  std::string_view string(std::size_t slot) {
    return views_[slot].dictionary_entry(string_index(slot));
  }
  std::int64_t integer(std::size_t slot) { return static_cast<std::int64_t>(number(slot)); }
  std::uint64_t number(std::size_t slot) {
    at(slot);
    return cursors_[slot].number();
  }
  const ColumnView& view(std::size_t slot) const { return views_[slot]; }
  const ColumnView::Cursor& cursor(std::size_t slot) {
    at(slot);
    return cursors_[slot];
  }

  // The cell as the record-wise resolve() would give it.
  toolkit::FieldValue value(std::size_t slot) {
    const CellKind kind = at(slot);
    return cell_value(plan_.slots[slot], kind, views_[slot], cursors_[slot], scratch_[slot]);
  }

 private:
  // Brings the slot's cursor to the current row (the last one next() moved to), decoding its cell.
  CellKind at(std::size_t slot) {
    std::size_t& taken = taken_[slot];
    if (taken != passed_) {
      cursors_[slot].skip(passed_ - 1 - taken);
      kinds_[slot] = cursors_[slot].next();
      taken = passed_;
    }
    return kinds_[slot];
  }

  const ColumnPlan& plan_;
  std::vector<ColumnView> views_;
  std::vector<ColumnView::Cursor> cursors_;
  std::vector<CellKind> kinds_;
  std::vector<sdk::json::value> scratch_;
  std::size_t passed_ = 0;          // rows moved past, the current one included
  std::vector<std::size_t> taken_;  // per slot: rows its cursor moved past
};

// Where matching rows go: a row is given either as cells at the cursors, or, in a chunk read
// record by record, as the record.
class RowSink {
 public:
  virtual ~RowSink() = default;
  // `row`: its number in the chunk. `score`: the row's BM25 score when the matches are ranked,
  // else 0.
  virtual void row(ChunkRows& rows, std::uint32_t row, double score) = 0;
  virtual void record(const sdk::Record& record, double score) = 0;
  // Before the rows of a chunk: what a sink caches per chunk starts anew.
  virtual void begin_chunk(const ChunkRef& /*chunk*/) {}
  // Whether the chunk's columns hold all the sink needs (else its records are read).
  virtual bool reads_columns(const ChunkRows& /*rows*/) const { return true; }
  // After the rows of a chunk, its columns still readable.
  virtual void end_chunk(ChunkRows& /*rows*/) {}
  // Every row `matching` marks matches, and none has a score: a sink that can take them all at
  // once, reading the columns a column at a time, does and says so; else they come by row().
  virtual bool all_rows(ChunkRows& /*rows*/, const RowBits& /*matching*/) { return false; }
};

// Finds the rows of a chunk that match the conditions: the work of one thread.
class ChunkScanner {
 public:
  // `text`: the text query's filter over the chunks' postings, when there is one. `values`: the
  // equalities' filter over the chunks' value postings, when the chunks have them (a
  // chunk-indexed database, whose replaced rows are one bitmap per chunk).
  ChunkScanner(Database& database, const rocksdb::Snapshot* snapshot, const std::string& tenant,
               sdk::Source source, const std::vector<sdk::Condition>& where, const ColumnPlan& plan,
               const sdk::TextQuery* query = nullptr, ChunkText* text = nullptr,
               ChunkValues* values = nullptr)
      : database_(database),
        snapshot_(snapshot),
        tenant_(tenant),
        source_(source),
        where_(where),
        plan_(plan),
        query_(query),
        text_(text),
        values_(values != nullptr && values->active() ? values : nullptr),
        replaced_bitmaps_(values != nullptr) {}

  // Adds the rows examined and the rows matched to `stats`.
  void scan(const ChunkRef& chunk, RowSink& sink, sdk::AggregateStats& stats);

 private:
  // For current state: clears from candidates_ the rows a newer version replaced.
  void drop_replaced(const ChunkRef& chunk);
  // The rows erased from the chunk, into erased_; false when it has none.
  bool read_erased(const ChunkRef& chunk);
  std::optional<ChunkRows> rows_of(const ChunkRef& chunk, bool& containers);
  void by_records(const ChunkRef& chunk, ChunkRows& rows, RowSink& sink,
                  sdk::AggregateStats& stats);
  void by_columns(const ChunkRef& chunk, ChunkRows& rows, RowSink& sink,
                  sdk::AggregateStats& stats);

  Database& database_;
  const rocksdb::Snapshot* snapshot_;
  const std::string& tenant_;
  sdk::Source source_;
  const std::vector<sdk::Condition>& where_;
  const ColumnPlan& plan_;
  const sdk::TextQuery* query_;
  ChunkText* text_;
  ChunkValues* values_;
  bool replaced_bitmaps_;
  bool narrowing() const { return text_ != nullptr || values_ != nullptr; }
  // Pages read at the rows postings picked are a question's few, a look-up (page_cache.hpp).
  PageRead page_read() const { return narrowing() ? PageRead::lookup : PageRead::scan; }
  RowBits erased_;  // of the chunk being scanned, when read_erased() found some
  // Of the chunk being scanned, the rows whose columns are read: those with the text query's
  // words and the equalities' values (every row when nothing narrows), less the replaced ones.
  RowBits candidates_;
  double score(std::uint32_t row) const { return text_ != nullptr ? text_->score(row) : 0.0; }
};

}  // namespace eventsvc::plugins::rocksdb_storage
