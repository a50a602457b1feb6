#include "query/cell_sink.hpp"

#include <algorithm>
#include <deque>

#include "chunks/stored_column.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/cells.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

namespace {

// Matching rows into cell blocks, one per chunk: the named fields from the plan's columns, the
// leaves from every payload and metrics column of the chunk, the size from `#bytes`; a chunk read
// record by record through CellBlockBuilder, the definition the columns agree with.
class CellSink final : public RowSink {
 public:
  CellSink(Database& database, const rocksdb::Snapshot* snapshot, const std::string& tenant,
           CellPlan& plan)
      : database_(database),
        snapshot_(snapshot),
        tenant_(tenant),
        plan_(plan),
        records_(plan.query->fields) {
    for (const auto& field : plan.query->fields.named)
      block_.fields.push_back({field.text, {}, {}});
  }

  void begin_chunk(const ChunkRef& chunk) override {
    chunk_ = chunk;
    selected_.clear();
    verdicts_.clear();
    named_strings_.assign(plan_.named.size(), {});
  }

  bool reads_columns(const ChunkRows& rows) const override {
    const ColumnView& bytes = rows.view(plan_.bytes);
    return bytes.stored() && bytes.every_row_a_number();
  }

  void row(ChunkRows& rows, std::uint32_t row, double /*score*/) override {
    const sdk::Millis at = rows.integer(plan_.columns.timestamp);
    const std::string_view id = rows.string(*plan_.columns.id);
    if (plan_.cutoff &&
        compare(VersionRef{at, std::string(id)}, *plan_.cutoff, plan_.query->records.order) > 0) {
      return;
    }
    selected_.push_back(row);
    const sdk::Verification verification = verdict(rows);
    block_.ids.push_back(id);
    block_.timestamps.push_back(at);
    block_.verifications.push_back(verification);
    block_.json_sizes.push_back(static_cast<std::size_t>(rows.integer(plan_.bytes)) +
                                sdk::json_size(sdk::verification_name(verification)));
    for (std::size_t f = 0; f < plan_.named.size(); ++f) {
      const std::size_t slot = plan_.named[f];
      sdk::FieldCells& cells = block_.fields[f];
      const CellKind kind = rows.kind(slot);
      if (kind == CellKind::absent) {
        cells.rows.push_back(sdk::FieldCells::kAbsent);
      } else if (kind == CellKind::string) {  // one value per dictionary entry
        auto& known = named_strings_[f];
        if (known.empty()) known.assign(rows.view(slot).dictionary_size(), kUnknown);
        std::uint32_t& index = known[rows.string_index(slot)];
        if (index == kUnknown) {
          index = static_cast<std::uint32_t>(cells.values.size());
          cells.values.emplace_back(json::string(rows.string(slot)));
        }
        cells.rows.push_back(index);
      } else {
        cells.rows.push_back(static_cast<std::uint32_t>(cells.values.size()));
        cells.values.push_back(rows.value(slot).to_json());
      }
    }
  }

  void record(const sdk::Record& record, double /*score*/) override {
    if (plan_.cutoff && compare(VersionRef{record.timestamp, record.id}, *plan_.cutoff,
                                plan_.query->records.order) > 0) {
      return;
    }
    sdk::Record& kept = kept_.emplace_back(record);
    kept.verification = (*plan_.verification)(kept.receipt_id);
    records_.add(kept);
  }

  void end_chunk(ChunkRows& /*rows*/) override {
    if (records_.block().rows() > 0) {
      deliver(records_.block());
      records_.clear();
      kept_.clear();
      return;
    }
    if (selected_.empty()) return;
    if (plan_.query->fields.every_leaf) read_leaves();
    deliver(block_);
    block_.clear(plan_.named.size());
  }

 private:
  static constexpr std::uint32_t kUnknown = 0xffffffff;

  sdk::Verification verdict(ChunkRows& rows) {
    const std::uint32_t receipt = rows.string_index(plan_.receipt);
    if (verdicts_.empty()) verdicts_.assign(rows.view(plan_.receipt).dictionary_size(), -1);
    std::int8_t& known = verdicts_[receipt];
    if (known < 0)
      known = static_cast<std::int8_t>((*plan_.verification)(rows.string(plan_.receipt)));
    return static_cast<sdk::Verification>(known);
  }

  // Every payload and metrics column of the chunk but the named ones, at the selected rows.
  void read_leaves() {
    const std::string base = chunk_column_key(tenant_, chunk_.number, "");
    for (const std::string_view root : {"payload.", "metrics."}) {
      const std::string prefix = base + std::string(root);
      const std::string upper = prefix_successor(prefix);
      const rocksdb::Slice upper_slice(upper);
      auto it = database_.iterator(database_.columns, &upper_slice, nullptr, snapshot_);
      for (it->Seek(prefix); it->Valid(); it->Next()) {
        const std::string_view column(it->key().data() + base.size(),
                                      it->key().size() - base.size());
        if (plan_.query->fields.names(column)) continue;
        auto view =
            ColumnView::decode(it->value().ToString(), chunk_.header.rows,
                               column_pages(database_, snapshot_, tenant_, chunk_.number, column),
                               column_page_cache(database_, tenant_, chunk_.number, column));
        if (!view) {
          throw sdk::Error::internal("a column of chunk " + std::to_string(chunk_.number) +
                                     " is damaged");
        }
        leaf_cells(std::string(column), *view);
      }
      check(it->status(), "column scan");
    }
  }

  void leaf_cells(std::string path, const ColumnView& view) {
    sdk::FieldCells& cells = block_.fields.emplace_back();
    cells.path = std::move(path);
    cells.rows.reserve(selected_.size());
    strings_.assign(view.dictionary_size(), kUnknown);
    ColumnView::Cursor cursor(view);
    std::uint32_t at = 0;  // the row the cursor is at
    for (const std::uint32_t row : selected_) {
      cursor.skip(row - at);
      at = row + 1;
      const CellKind kind = cursor.next();
      if (kind == CellKind::absent) {
        cells.rows.push_back(sdk::FieldCells::kAbsent);
      } else if (kind == CellKind::container) {
        cells.rows.push_back(sdk::FieldCells::kContainer);
      } else if (kind == CellKind::string) {  // one value per dictionary entry
        std::uint32_t& index = strings_[cursor.string_index()];
        if (index == kUnknown) {
          index = static_cast<std::uint32_t>(cells.values.size());
          cells.values.emplace_back(json::string(view.dictionary_entry(cursor.string_index())));
        }
        cells.rows.push_back(index);
      } else {
        cells.rows.push_back(static_cast<std::uint32_t>(cells.values.size()));
        cells.values.push_back(scalar_cell(kind, cursor.number()));
      }
    }
  }

  void deliver(const sdk::CellBlock& block) {
    const std::lock_guard lock(*plan_.visiting);
    if (!plan_.stopped) plan_.stopped = !(*plan_.visit)(block);
  }

  Database& database_;
  const rocksdb::Snapshot* snapshot_;
  const std::string& tenant_;
  CellPlan& plan_;
  ChunkRef chunk_;
  std::vector<std::uint32_t> selected_;  // the chunk's rows in the block
  std::vector<std::int8_t> verdicts_;    // per receipt of the chunk: its verification, -1 unknown
  std::vector<std::vector<std::uint32_t>> named_strings_;  // per named field and dictionary entry
  std::vector<std::uint32_t> strings_;  // of the leaf being read: per dictionary entry
  sdk::CellBlock block_;
  toolkit::CellBlockBuilder records_;  // a chunk read record by record
  std::deque<sdk::Record> kept_;       // its records (the block's ids are views into them)
};

}  // namespace

std::unique_ptr<RowSink> cell_sink(Database& database, const rocksdb::Snapshot* snapshot,
                                   const std::string& tenant, CellPlan& plan) {
  return std::make_unique<CellSink>(database, snapshot, tenant, plan);
}

}  // namespace eventsvc::plugins::rocksdb_storage
