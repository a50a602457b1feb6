#include "query/column_reader.hpp"

#include <rocksdb/write_batch.h>

#include <algorithm>
#include <bit>
#include <exception>
#include <mutex>
#include <optional>
#include <utility>

#include "chunks/text_scorer.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/aggregate_accumulator.hpp"
#include "eventsvc/toolkit/condition.hpp"
#include "eventsvc/toolkit/field_value.hpp"
#include "query/cell_sink.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

namespace {

const std::string kCoveredKey = "columns.complete";
const std::string kIndexedKey = "columns.indexed";
const std::string kCatalogueKey = "columns.catalogue";

// How many rows of the whole history hold a word a ranked search scores, at most (a row holding
// two of them is counted twice): the rows it can read, whatever the rows in its time bounds.
std::uint64_t rows_holding_words(const TextStatistics& statistics) {
  std::uint64_t rows = 0;
  for (const auto& [word, documents] : statistics.frequencies)
    rows += documents;
  return rows;
}

// Moves every chunk header of a data directory from before the catalogue (<tenant> 'H' <chunk>
// 0x00) to it (<tenant> 'C' <chunk>), in one batch with the mark that it is done.
void migrate_chunk_headers(Database& database) {
  rocksdb::WriteBatch batch;
  auto it = database.iterator(database.columns);
  for (it->SeekToFirst(); it->Valid();) {
    const std::string_view key(it->key().data(), it->key().size());
    const auto tenant = tenant_of(key);
    if (!tenant) throw sdk::Error::internal("a column chunk key is damaged");
    const std::string owner(*tenant);
    if (key[owner.size()] == 'C') {  // a header already where it belongs
      it->Seek(chunk_prefix(owner));
      continue;
    }
    if (key[owner.size()] != 'H') {  // replaced rows: the next tenant
      it->Seek(owner + static_cast<char>('S' + 1));
      continue;
    }
    if (key.size() != owner.size() + 1 + 9 || key.back() != '\0') {
      throw sdk::Error::internal("a column chunk header is damaged");
    }
    const std::uint64_t chunk = read_u64(key.substr(owner.size() + 1, 8));
    batch.Put(database.columns, chunk_header_key(owner, chunk), it->value());
    batch.Delete(database.columns, it->key());
    std::string next = chunk_prefix(owner);  // past this chunk's columns
    append_u64(next, chunk + 1);
    it->Seek(next);
  }
  check(it->status(), "column chunk scan");
  batch.Put(database.meta, kCatalogueKey, "1");
  database.write(batch, true);
}

std::optional<ColumnPlan> plan_columns(const sdk::AggregateRequest& request, bool value_postings) {
  auto planned = plan_conditions(request.where, false, value_postings);
  if (!planned) return std::nullopt;
  ColumnPlan& plan = *planned;
  for (const auto& field : request.group_by) {
    const auto slot = plan.slot(field);
    if (!slot) return std::nullopt;
    plan.group_by.push_back(*slot);
  }
  if (request.time_bucket) {
    if (!request.time_bucket->field.is_instant()) return std::nullopt;
    plan.bucket = plan.slot(request.time_bucket->field);
  }
  for (const auto& aggregation : request.aggregations) {
    std::optional<std::size_t> value;
    if (aggregation.spec.field) {
      value = plan.slot(*aggregation.spec.field);
      if (!value) return std::nullopt;
    }
    plan.values.push_back(value);
    std::optional<std::size_t> time;
    if (aggregation.op->uses_time()) {
      if (!aggregation.spec.time_field.is_instant()) return std::nullopt;
      time = plan.slot(aggregation.spec.time_field);
    }
    plan.times.push_back(time);
  }
  return planned;
}

}  // namespace

ColumnReader::ColumnReader(Database& database, std::uint64_t parallel_rows)
    : database_(database), parallel_rows_(parallel_rows) {
  covered_ = database_.get(database_.meta, kCoveredKey).has_value();
  chunk_indexed_ = database_.get(database_.meta, kIndexedKey).has_value();
  if (covered_ && !database_.get(database_.meta, kCatalogueKey)) migrate_chunk_headers(database_);
  if (covered_ && chunk_indexed_) return;
  auto it = database_.iterator(database_.history);
  it->SeekToFirst();
  check(it->status(), "history scan");
  // History from before columns (or before their postings): what they lack is read record by
  // record, or from the per-version index keys.
  if (it->Valid()) return;
  rocksdb::WriteBatch batch;
  batch.Put(database_.meta, kCoveredKey, "1");
  batch.Put(database_.meta, kIndexedKey, "1");
  batch.Put(database_.meta, kCatalogueKey, "1");
  database_.write(batch, true);
  covered_ = true;
  chunk_indexed_ = true;
}

namespace {

// Matching rows into the total and the groups of an aggregate request.
class AggregateSink final : public RowSink {
 public:
  AggregateSink(const sdk::AggregateRequest& request, const ColumnPlan& plan,
                toolkit::AggregateAccumulator& accumulator)
      : request_(request), plan_(plan), accumulator_(accumulator) {}

  void begin_chunk(const ChunkRef& /*chunk*/) override {
    by_string_.clear();
    last_bucket_.reset();
    last_group_ = nullptr;
  }

  void row(ChunkRows& rows, std::uint32_t /*row*/, double /*score*/) override {
    feed(rows, accumulator_.total());
    if (!accumulator_.grouping()) return;
    std::optional<sdk::Millis> bucket;
    if (plan_.bucket) {
      if (rows.kind(*plan_.bucket) != CellKind::int64) return;  // no time to place it by
      bucket = toolkit::bucket_start(rows.integer(*plan_.bucket), request_.time_bucket->interval);
    }
    feed(rows, group_of(rows, bucket));
  }

  void record(const sdk::Record& record, double /*score*/) override { accumulator_.add(record); }

  // A column at a time: the groups of the rows, then each aggregation's values, in runs of
  // numbers per partition. Each span builder gets the values the row path would give it, in the
  // same order and spans, so the answers are the same to the bit (a sum of doubles depends on its
  // spans). Groups by one group_by field or by time buckets alone; not by several fields, nor by
  // fields and buckets, nor for operators that read a time.
  bool all_rows(ChunkRows& rows, const RowBits& matching) override {
    if (plan_.group_by.size() > (plan_.bucket ? 0U : 1U)) return false;
    for (const auto& time : plan_.times) {
      if (time) return false;
    }
    find_stretches(matching);
    partitions_.assign(1, &accumulator_.total());
    counts_.assign(1, matched_);
    string_partitions_.clear();
    if (plan_.bucket) {
      bucket_rows(rows, *plan_.bucket);
    } else if (!plan_.group_by.empty()) {
      group_rows(rows, plan_.group_by.front());
    } else {
      row_groups_.clear();
    }
    for (std::size_t p = 0; p < partitions_.size(); ++p)
      partitions_[p]->count_rows(counts_[p]);
    decoded_slot_.reset();
    for (std::size_t i = 0; i < request_.aggregations.size(); ++i) {
      if (!plan_.values[i]) {
        for (std::size_t p = 0; p < partitions_.size(); ++p)
          partitions_[p]->add_absent(i, counts_[p]);
      } else if (plain_numbers(rows, *plan_.values[i])) {
        add_plain_numbers(i);
      } else {
        add_column(rows, i, *plan_.values[i]);
      }
    }
    return true;
  }

 private:
  // The matching rows as stretches of consecutive rows, and how many they are.
  void find_stretches(const RowBits& matching) {
    stretches_.clear();
    matched_ = 0;
    matching.for_each_run([&](std::uint32_t first, std::uint32_t count) {
      stretches_.push_back({first, matched_, count});
      matched_ += count;
    });
  }

  // Calls each(run, cursor, k) for every run of cells of one kind (ColumnView::Cursor::run) among
  // the matching rows of `view`, in row order: k is the place of the run's first row among the
  // matching rows, `cursor` is at that row (each reads the cells one by one from a copy of it, if
  // at all). Stops, returning false, when each does.
  template <class Each>
  bool for_each_matching_run(const ColumnView& view, Each each) const {
    ColumnView::Cursor cursor(view);
    std::uint32_t at = 0;
    for (const Stretch& stretch : stretches_) {
      cursor.skip(stretch.first - at);
      at = stretch.first + stretch.count;
      for (std::uint32_t done = 0; done < stretch.count;) {
        const auto run = cursor.run(stretch.count - done);
        if (!each(run, std::as_const(cursor), stretch.k + done)) return false;
        cursor.skip(run.rows);
        done += static_cast<std::uint32_t>(run.rows);
      }
    }
    return true;
  }

  // Whether every matching row of `slot` holds a plain number (plain_number()); when so, they are
  // in numbers_ and, with several groups in the chunk, each group's in group_numbers_. Decoded
  // once for the aggregations that read the same field (a sum and an avg of it), a run of cells
  // of one kind at a time.
  bool plain_numbers(ChunkRows& rows, std::size_t slot) {
    if (decoded_slot_ == slot) return decoded_plain_;
    decoded_slot_ = slot;
    decoded_plain_ = false;
    if (numbers_.size() < matched_) numbers_.resize(matched_);
    const bool instant = plan_.slots[slot].instant;
    const bool plain = for_each_matching_run(
        rows.view(slot),
        [&](const ColumnView::Cursor::Run& run, const ColumnView::Cursor&, std::uint64_t k) {
          return plain_run(run, instant, numbers_.data() + k);
        });
    if (!plain) return false;
    if (!one_group_has_every_row() && partitions_.size() > 1) {
      // Each group's numbers, in row order: placed at their group's offset; those of rows in no
      // group (0: the total alone) after every group's.
      if (group_numbers_.size() < matched_) group_numbers_.resize(matched_);
      group_starts_.assign(partitions_.size() + 1, 0);
      for (std::size_t p = 1; p < partitions_.size(); ++p)
        group_starts_[p + 1] = group_starts_[p] + counts_[p];
      next_.assign(group_starts_.begin(), group_starts_.end() - 1);
      next_[0] = group_starts_.back();
      const std::uint32_t* groups = row_groups_.data();
      const double* numbers = numbers_.data();
      double* placed = group_numbers_.data();
      std::uint64_t* next = next_.data();
      for (std::uint64_t k = 0; k < matched_; ++k)
        placed[next[groups[k]]++] = numbers[k];
    }
    decoded_plain_ = true;
    return true;
  }

  // A run's cells as plain_number() takes them, into `out`; false when one is not such a number.
  static bool plain_run(const ColumnView::Cursor::Run& run, bool instant, double* out) {
    if (run.kind == CellKind::double_number) {
      for (std::size_t i = 0; i < run.rows; ++i)
        out[i] = std::bit_cast<double>(run.number(i));
      return true;
    }
    if (run.kind != CellKind::int64 || instant) return false;
    bool exact = true;
    for (std::size_t i = 0; i < run.rows; ++i) {
      const auto number = static_cast<std::int64_t>(run.number(i));
      exact &= toolkit::exact_double(number);
      out[i] = static_cast<double>(number);
    }
    return exact;
  }

  // Whether the chunk's matching rows all fall in one group: its numbers are the total's.
  bool one_group_has_every_row() const { return partitions_.size() == 2 && counts_[1] == matched_; }

  // The numbers plain_numbers() decoded, to the total and the groups.
  void add_plain_numbers(std::size_t aggregation) {
    const std::span<const double> numbers(numbers_.data(), matched_);
    partitions_[0]->add_numbers(aggregation, numbers);
    if (one_group_has_every_row()) {
      partitions_[1]->add_numbers(aggregation, numbers);
      return;
    }
    for (std::size_t p = 1; p < partitions_.size(); ++p) {
      partitions_[p]->add_numbers(
          aggregation,
          std::span<const double>(group_numbers_).subspan(group_starts_[p], counts_[p]));
    }
  }

  // The time bucket of each matching row, as an index into partitions_, by its instant in `slot`;
  // 0 (the total alone) for a row without one, which no bucket counts. Rows come mostly in time
  // order: a row in the bucket of the row before takes its group without a look-up.
  void bucket_rows(ChunkRows& rows, std::size_t slot) {
    const sdk::Millis interval = request_.time_bucket->interval;
    if (row_groups_.size() < matched_) row_groups_.resize(matched_);
    sdk::Millis from = 0;  // the bucket of the row before: [from, from + interval)
    std::uint32_t group = 0;
    for_each_matching_run(rows.view(slot), [&](const ColumnView::Cursor::Run& run,
                                               const ColumnView::Cursor&, std::uint64_t k) {
      std::uint32_t* groups = row_groups_.data() + k;
      if (run.kind != CellKind::int64) {
        std::fill(groups, groups + run.rows, 0);
        return true;
      }
      for (std::size_t i = 0; i < run.rows; ++i) {
        const auto instant = static_cast<sdk::Millis>(run.number(i));
        if (group == 0 || instant < from || instant - from >= interval) {
          from = toolkit::bucket_start(instant, interval);
          key_.clear();  // buckets alone: no group_by fields to key by
          group = partition_index(accumulator_.group(key_, from, [] { return json::object{}; }));
        }
        groups[i] = group;
        ++counts_[group];
      }
      return true;
    });
  }

  // A group's index into partitions_ (0 is the total), added when the chunk had none of its rows.
  std::uint32_t partition_index(toolkit::AggregatePartition& group) {
    const auto index = static_cast<std::uint32_t>(
        std::find(partitions_.begin() + 1, partitions_.end(), &group) - partitions_.begin());
    if (index == partitions_.size()) {
      partitions_.push_back(&group);
      counts_.push_back(0);
    }
    return index;
  }

  // The group of each matching row, as an index into partitions_ (0 is the total): strings by
  // their dictionary index, a run of them at a time; any other cell on its own.
  void group_rows(ChunkRows& rows, std::size_t slot) {
    const ColumnView& view = rows.view(slot);
    if (row_groups_.size() < matched_) row_groups_.resize(matched_);
    for_each_matching_run(view, [&](const ColumnView::Cursor::Run& run,
                                    const ColumnView::Cursor& at_run, std::uint64_t k) {
      std::uint32_t* groups = row_groups_.data() + k;
      if (run.kind != CellKind::string) {
        ColumnView::Cursor cells = at_run;
        for (std::size_t i = 0; i < run.rows; ++i) {
          const CellKind kind = cells.next();
          groups[i] = partition_index(single_group(group_value(slot, kind, view, cells)));
          ++counts_[groups[i]];
        }
        return true;
      }
      if (string_partitions_.empty()) string_partitions_.assign(view.dictionary_size(), 0);
      for (std::size_t i = 0; i < run.rows; ++i) {
        const std::uint32_t index = run.string_index(i);
        std::uint32_t& known = string_partitions_[index];
        if (known == 0) {
          known =
              partition_index(single_group(toolkit::FieldValue::of(view.dictionary_entry(index))));
        }
        groups[i] = known;
        ++counts_[known];
      }
      return true;
    });
  }

  // One aggregation's values from its column, to the total and each row's group: runs of numbers
  // at once, any other cell on its own where it falls.
  void add_column(ChunkRows& rows, std::size_t aggregation, std::size_t slot) {
    runs_.resize(partitions_.size());
    for (auto& run : runs_)
      run.clear();
    const auto add_run = [&](std::size_t p) {
      partitions_[p]->add_numbers(aggregation, runs_[p]);
      runs_[p].clear();
    };
    const ColumnView& view = rows.view(slot);
    ColumnView::Cursor cursor(view);
    std::uint32_t at = 0;
    for (const Stretch& stretch : stretches_) {
      cursor.skip(stretch.first - at);
      at = stretch.first + stretch.count;
      for (std::uint64_t k = stretch.k; k < stretch.k + stretch.count; ++k) {
        const CellKind kind = cursor.next();
        const std::size_t group = row_groups_.empty() ? 0 : row_groups_[k];
        double number = 0;
        if (!plain_number(slot, kind, cursor, number)) {
          const auto add_one = [&](std::size_t p) {
            add_run(p);
            add_cell(partitions_[p]->values(aggregation), slot, kind, view, cursor, sdk::kNoTime);
            partitions_[p]->flush_full(aggregation);
          };
          add_one(0);  // the total, then the row's group (0: the total alone)
          if (group != 0) add_one(group);
          continue;
        }
        runs_[0].push_back(number);
        if (group != 0) runs_[group].push_back(number);
      }
    }
    for (std::size_t p = 0; p < partitions_.size(); ++p)
      add_run(p);
  }

  // The row's group. Within a chunk, a single string group_by field finds it by the cell's
  // dictionary index, and buckets alone by the bucket of the row before (rows come in time order
  // mostly); otherwise by the key bytes.
  toolkit::AggregatePartition& group_of(ChunkRows& rows, std::optional<sdk::Millis> bucket) {
    if (plan_.group_by.empty()) {
      if (last_group_ == nullptr || last_bucket_ != bucket) {
        last_group_ = &keyed_group(rows, bucket);
        last_bucket_ = bucket;
      }
      return *last_group_;
    }
    if (plan_.group_by.size() == 1 && !bucket &&
        rows.kind(plan_.group_by.front()) == CellKind::string) {
      const std::size_t slot = plan_.group_by.front();
      const std::uint32_t index = rows.string_index(slot);
      if (by_string_.empty()) by_string_.assign(rows.view(slot).dictionary_size(), nullptr);
      toolkit::AggregatePartition*& known = by_string_[index];
      if (known == nullptr) known = &keyed_group(rows, bucket);
      return *known;
    }
    return keyed_group(rows, bucket);
  }

  toolkit::AggregatePartition& keyed_group(ChunkRows& rows, std::optional<sdk::Millis> bucket) {
    key_.clear();
    for (const auto slot : plan_.group_by) {
      toolkit::append_group_key(
          key_, group_value(slot, rows.kind(slot), rows.view(slot), rows.cursor(slot)));
    }
    return accumulator_.group(key_, bucket, [&] {
      json::object rendered;
      for (std::size_t g = 0; g < plan_.group_by.size(); ++g) {
        const std::size_t slot = plan_.group_by[g];
        rendered[request_.group_by[g].text] =
            group_value(slot, rows.kind(slot), rows.view(slot), rows.cursor(slot)).to_json();
      }
      return rendered;
    });
  }

  void feed(ChunkRows& rows, toolkit::AggregatePartition& partition) {
    partition.count_row();
    for (std::size_t i = 0; i < request_.aggregations.size(); ++i) {
      sdk::Millis time = sdk::kNoTime;
      if (plan_.times[i]) {
        const toolkit::FieldValue instant = rows.value(*plan_.times[i]);
        if (instant.kind() == toolkit::FieldValue::Kind::instant) time = instant.instant();
      }
      toolkit::SpanBuilder& values = partition.values(i);
      if (!plan_.values[i]) {
        values.add_absent();
        continue;
      }
      const std::size_t slot = *plan_.values[i];
      add_cell(values, slot, rows.kind(slot), rows.view(slot), rows.cursor(slot), time);
    }
    partition.flush_full();
  }

  // The cell as the number the operators are handed, when it is one they take as a double: a
  // double, or an integer of a field that is not an instant that a double holds exactly.
  // False for any other cell.
  bool plain_number(std::size_t slot, CellKind kind, const ColumnView::Cursor& cursor,
                    double& number) const {
    if (kind == CellKind::double_number) {
      number = std::bit_cast<double>(cursor.number());
      return true;
    }
    if (kind == CellKind::int64 && !plan_.slots[slot].instant &&
        toolkit::exact_double(static_cast<std::int64_t>(cursor.number()))) {
      number = static_cast<double>(static_cast<std::int64_t>(cursor.number()));
      return true;
    }
    return false;
  }

  // Numbers straight from the column; everything else as the record-wise value.
  void add_cell(toolkit::SpanBuilder& values, std::size_t slot, CellKind kind,
                const ColumnView& view, const ColumnView::Cursor& cursor, sdk::Millis time) {
    if (kind == CellKind::absent || kind == CellKind::container) {
      values.add_absent();
    } else if (double number = 0; plain_number(slot, kind, cursor, number)) {
      values.add_number(number, time);
    } else {
      values.add(cell_value(plan_.slots[slot], kind, view, cursor, scratch_), time);
    }
  }

  // A group_by cell as its group's key and answer take it: strings straight from the dictionary
  // (the same key bytes as a JSON string, no copy).
  toolkit::FieldValue group_value(std::size_t slot, CellKind kind, const ColumnView& view,
                                  const ColumnView::Cursor& cursor) {
    return kind == CellKind::string
               ? toolkit::FieldValue::of(view.dictionary_entry(cursor.string_index()))
               : cell_value(plan_.slots[slot], kind, view, cursor, scratch_);
  }

  // The group of a single group_by field's value, as keyed_group() finds it.
  toolkit::AggregatePartition& single_group(const toolkit::FieldValue& value) {
    key_.clear();
    toolkit::append_group_key(key_, value);
    return accumulator_.group(key_, std::nullopt, [&] {
      json::object rendered;
      rendered[request_.group_by.front().text] = value.to_json();
      return rendered;
    });
  }

  const sdk::AggregateRequest& request_;
  const ColumnPlan& plan_;
  toolkit::AggregateAccumulator& accumulator_;
  std::string key_;           // group key bytes, reused
  sdk::json::value scratch_;  // a cell's JSON value, for the moment it is added
  // Of the chunk taken a column at a time: its matching rows, the total and the groups they
  // fall in, each row's group among them, and per partition the run of numbers not yet added.
  // Rows first .. first + count - 1, the k-th matching row of the chunk and those after it.
  struct Stretch {
    std::uint32_t first = 0;
    std::uint64_t k = 0;
    std::uint32_t count = 0;
  };
  std::vector<Stretch> stretches_;
  std::uint64_t matched_ = 0;
  std::vector<std::uint64_t> counts_;  // per partition, its rows
  std::vector<toolkit::AggregatePartition*> partitions_;
  std::vector<std::uint32_t> row_groups_;
  std::vector<std::uint32_t> string_partitions_;  // per dictionary index: its group's, or 0
  std::vector<std::vector<double>> runs_;
  // The column plain_numbers() decoded last in this chunk, and what it found.
  std::optional<std::size_t> decoded_slot_;
  bool decoded_plain_ = false;
  std::vector<double> numbers_;  // per matching row
  // With more than one group: the numbers by group, each group's from group_starts_[p].
  std::vector<double> group_numbers_;
  std::vector<std::uint64_t> group_starts_;
  std::vector<std::uint64_t> next_;
  // Of the chunk being read: the group of each dictionary index of the single group_by column,
  // and the bucket of the row before with its group.
  std::vector<toolkit::AggregatePartition*> by_string_;
  std::optional<sdk::Millis> last_bucket_;
  toolkit::AggregatePartition* last_group_ = nullptr;
};

// The first `keep` matching versions in (timestamp, id) order per `order`, or when ranked the
// best `keep` by score (ties: newer first, then by id); only those after `after` when set.
class MatchSink final : public RowSink {
 public:
  MatchSink(const ColumnPlan& plan, ReadOrder order, std::size_t keep,
            const PagePosition* after = nullptr)
      : plan_(plan), before_{order}, keep_(keep), after_(after) {}

  void row(ChunkRows& rows, std::uint32_t /*row*/, double score) override {
    if (keep_ == 0) return;
    // Most rows of a large read are decided by score or time alone, once `keep` are kept: behind
    // the last kept one, or before the page's position. Their ids (a page of the id column, a
    // copy) are not read, nor, ranked, their timestamps when the score decides.
    std::optional<sdk::Millis> read;
    const auto timestamp = [&] {
      if (!read) read = rows.integer(plan_.timestamp);
      return *read;
    };
    const std::optional<bool> admitted =
        after_ == nullptr
            ? std::optional<bool>(true)
            : before_.order.before(
                  after_->score, [this] { return after_->ref.timestamp; }, score, timestamp);
    if (admitted && !*admitted) return;
    if (admitted && kept_.size() == keep_) {
      const Kept& last = kept_.front();
      const auto ahead = before_.order.before(score, timestamp, last.score,
                                              [&last] { return last.ref.timestamp; });
      if (ahead && !*ahead) {
        ++admitted_;
        return;
      }
    }
    offer(timestamp(), rows.string(*plan_.id), score);
  }
  void record(const sdk::Record& record, double score) override {
    offer(record.timestamp, record.id, score);
  }

  void merge(MatchSink&& other) {
    const std::uint64_t admitted = admitted_ + other.admitted_;
    for (auto& kept : other.kept_)
      offer(kept.ref.timestamp, kept.ref.id, kept.score);
    admitted_ = admitted;
  }
  // Whether a chunk may hold a version before the last kept one (always, until `keep` are kept).
  bool may_take(const ChunkHeader& header) const {
    if (kept_.size() < keep_ || before_.order.ranked) return true;
    const sdk::Millis last = kept_.front().ref.timestamp;
    return before_.order.order == sdk::Order::desc ? header.max_timestamp >= last
                                                   : header.min_timestamp <= last;
  }
  // Matches offered that come after `after` (every match offered without one).
  std::uint64_t admitted() const { return admitted_; }
  void take(ColumnMatches& found) {
    std::sort_heap(kept_.begin(), kept_.end(), before_);
    for (auto& kept : kept_) {
      found.versions.push_back(std::move(kept.ref));
      found.scores.push_back(kept.score);
    }
    kept_.clear();
  }

 private:
  struct Kept {
    VersionRef ref;
    double score = 0;
  };
  struct Before {
    ReadOrder order;
    bool operator()(const Kept& a, const Kept& b) const {
      return order.before(a.score, a.ref, b.score, b.ref);
    }
  };
  // A heap whose top is the last of the kept versions.
  void offer(sdk::Millis timestamp, std::string_view id, double score) {
    if (keep_ == 0) return;
    Kept candidate{VersionRef{timestamp, std::string(id)}, score};
    if (after_ != nullptr && !after_->admits(before_.order, score, candidate.ref)) return;
    ++admitted_;
    if (kept_.size() == keep_) {
      if (!before_(candidate, kept_.front())) return;
      std::pop_heap(kept_.begin(), kept_.end(), before_);
      kept_.back() = std::move(candidate);
    } else {
      kept_.push_back(std::move(candidate));
    }
    std::push_heap(kept_.begin(), kept_.end(), before_);
  }

  const ColumnPlan& plan_;
  Before before_;
  std::size_t keep_;
  const PagePosition* after_;
  std::vector<Kept> kept_;
  std::uint64_t admitted_ = 0;
};

// Counts matches (ChunkScanner does): keeps nothing.
class CountSink final : public RowSink {
 public:
  void row(ChunkRows& /*rows*/, std::uint32_t /*row*/, double /*score*/) override {}
  void record(const sdk::Record& /*record*/, double /*score*/) override {}
};

// Whether a chunk holds versions inside `bounds`, by its header's time range.
bool meets(const ChunkHeader& header, const toolkit::TimeBounds& bounds) {
  return header.max_timestamp >= bounds.lower && header.min_timestamp <= bounds.upper;
}

}  // namespace

std::vector<ChunkRef> ColumnReader::chunks_in(const Snapshot& snapshot, const std::string& tenant,
                                              const toolkit::TimeBounds& bounds,
                                              std::uint64_t& rows) {
  std::vector<ChunkRef> chunks;
  rows = 0;
  // Held: a range-for over `*catalogue(...)` frees a list that is not kept before reading it.
  const auto listed = catalogue(snapshot.get(), snapshot.columns_writes(), tenant);
  for (const auto& chunk : *listed) {
    if (!meets(chunk.header, bounds)) continue;
    chunks.push_back(chunk);
    rows += chunk.header.rows;
  }
  return chunks;
}

std::shared_ptr<const std::vector<ChunkRef>> ColumnReader::catalogue(
    const rocksdb::Snapshot* snapshot, std::optional<std::uint64_t> columns_writes,
    const std::string& tenant) {
  if (columns_writes) {
    const std::lock_guard lock(listed_mutex_);
    const auto it = listed_.find(tenant);
    if (it != listed_.end() && it->second.columns_writes == *columns_writes)
      return it->second.chunks;
  }
  auto chunks = std::make_shared<std::vector<ChunkRef>>();
  const std::string prefix = catalogue_prefix(tenant);
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database_.iterator(database_.columns, &upper_slice, nullptr, snapshot);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    const std::string_view found(it->key().data(), it->key().size());
    const auto number = header_chunk(found, prefix.size());
    const auto header =
        number ? decode_chunk_header(std::string_view(it->value().data(), it->value().size()))
               : std::nullopt;
    if (!number || !header) throw sdk::Error::internal("a column chunk header is damaged");
    chunks->push_back({*number, *header});
  }
  check(it->status(), "column scan");
  if (columns_writes) {
    // One list a tenant, of the highest count seen: a list read at an older snapshot replaces none.
    constexpr std::size_t kMaxListedTenants = 4096;
    const std::lock_guard lock(listed_mutex_);
    if (listed_.size() >= kMaxListedTenants && !listed_.contains(tenant)) listed_.clear();
    auto& listed = listed_[tenant];
    if (!listed.chunks || listed.columns_writes < *columns_writes)
      listed = {*columns_writes, chunks};
  }
  return chunks;
}

std::shared_ptr<const TextStatistics> ColumnReader::text_statistics(
    const rocksdb::Snapshot* snapshot, const std::string& tenant, const sdk::TextQuery& query) {
  // The chunks listed and their postings read at one point in time: a merge between the two
  // reuses the first chunk's number for chunks the list does not name.
  std::optional<Snapshot> own;
  std::optional<std::uint64_t> columns_writes;
  if (snapshot == nullptr) {
    snapshot = own.emplace(database_).get();
    columns_writes = own->columns_writes();
  }
  const auto every_chunk = catalogue(snapshot, columns_writes, tenant);
  return text_statistics(snapshot, tenant, *every_chunk, query);
}

std::shared_ptr<const TextStatistics> ColumnReader::text_statistics(
    const rocksdb::Snapshot* snapshot, const std::string& tenant,
    const std::vector<ChunkRef>& every_chunk, const sdk::TextQuery& query) {
  return std::make_shared<const TextStatistics>(
      chunk_text_statistics(database_, snapshot, tenant, every_chunk, query, &word_counts_));
}

void ColumnReader::on_threads(std::size_t threads, const std::function<void(std::size_t)>& work) {
  if (threads == 1) {
    work(0);
    return;
  }
  helper_.run_both(work);
}

std::optional<sdk::AggregateResult> ColumnReader::aggregate(const sdk::Tenant& tenant_id,
                                                            const sdk::AggregateRequest& request) {
  if (!covered_ || (request.text && !chunk_indexed_)) return std::nullopt;
  const auto planned = plan_columns(request, chunk_indexed_);
  if (!planned) return std::nullopt;
  const std::string tenant = tenant_prefix(tenant_id);
  const Snapshot snapshot(database_);  // merges may rewrite chunks meanwhile
  std::uint64_t rows = 0;
  const auto chunks = chunks_in(snapshot, tenant, toolkit::timestamp_bounds(request.where), rows);

  // Each thread takes every other chunk into an accumulator of its own; then they merge.
  const std::size_t threads = rows >= parallel_rows_ ? 2 : 1;
  std::vector<toolkit::AggregateAccumulator> accumulators;
  accumulators.reserve(threads);
  std::vector<sdk::AggregateStats> stats(threads);
  for (std::size_t t = 0; t < threads; ++t)
    accumulators.emplace_back(request);
  on_threads(threads, [&](std::size_t thread) {
    std::optional<ChunkText> text;
    if (request.text) text.emplace(database_, snapshot.get(), tenant, *request.text, nullptr);
    std::optional<ChunkValues> values;
    if (chunk_indexed_) values.emplace(database_, snapshot.get(), tenant, request.where);
    ChunkScanner scanner(database_, snapshot.get(), tenant, request.source, request.where, *planned,
                         request.text ? &*request.text : nullptr, text ? &*text : nullptr,
                         values ? &*values : nullptr);
    AggregateSink sink(request, *planned, accumulators[thread]);
    for (std::size_t c = thread; c < chunks.size(); c += threads)
      scanner.scan(chunks[c], sink, stats[thread]);
  });
  sdk::AggregateStats total{0, 0, true};
  for (std::size_t t = 0; t < threads; ++t) {
    total.scanned += stats[t].scanned;
    total.matched += stats[t].matched;
  }
  if (threads == 2) accumulators[0].merge(std::move(accumulators[1]));
  return accumulators[0].finish(total);
}

std::optional<sdk::Millis> ColumnReader::newest_ingested_at(const sdk::Tenant& tenant_id) {
  // Chunks are numbered in acceptance order, and a merge keeps the first number of its run: the
  // last chunk holds the last accepted versions.
  const std::string prefix = catalogue_prefix(tenant_prefix(tenant_id));
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  const rocksdb::Slice lower_slice(prefix);
  auto it = database_.iterator(database_.columns, &upper_slice, &lower_slice);
  it->SeekToLast();
  check(it->status(), "column scan");
  if (!it->Valid()) return std::nullopt;
  const auto header = decode_chunk_header(std::string_view(it->value().data(), it->value().size()));
  if (!header) throw sdk::Error::internal("a column chunk header is damaged");
  return header->max_ingested_at;
}

std::optional<sdk::ScanStats> ColumnReader::cells(
    const sdk::Tenant& tenant_id, const sdk::CellQuery& query, const sdk::CellVisitor& visit,
    const std::function<sdk::Verification(std::string_view receipt_id)>& verification) {
  const sdk::RecordQuery& records = query.records;
  if (!covered_ || records.text || records.rank_by_text) return std::nullopt;
  const auto& where = records.where;
  auto planned = plan_conditions(where, true, chunk_indexed_);
  if (!planned) return std::nullopt;
  CellPlan plan;
  plan.columns = std::move(*planned);
  for (const auto& field : query.fields.named) {
    const auto slot = plan.columns.slot(field);
    if (!slot) return std::nullopt;
    plan.named.push_back(*slot);
  }
  plan.receipt = plan.columns.slot_named("receipt_id", true, false);
  plan.bytes = plan.columns.slot_named(std::string(kRecordBytesColumn), true, false);
  plan.query = &query;
  plan.verification = &verification;
  plan.visit = &visit;
  std::mutex visiting;
  plan.visiting = &visiting;

  const std::string tenant = tenant_prefix(tenant_id);
  const Snapshot snapshot(database_);  // merges may rewrite chunks meanwhile
  std::uint64_t rows = 0;
  const auto chunks = chunks_in(snapshot, tenant, toolkit::timestamp_bounds(where), rows);
  const std::size_t threads = rows >= parallel_rows_ ? 2 : 1;
  // Each thread scans every other chunk with a sink of its own.
  auto scan_chunks = [&](auto make_sink) {
    std::vector<sdk::AggregateStats> stats(threads);
    on_threads(threads, [&](std::size_t thread) {
      std::optional<ChunkValues> values;
      if (chunk_indexed_) values.emplace(database_, snapshot.get(), tenant, where);
      ChunkScanner scanner(database_, snapshot.get(), tenant, records.source, where, plan.columns,
                           nullptr, nullptr, values ? &*values : nullptr);
      const std::unique_ptr<RowSink> sink = make_sink();
      for (std::size_t c = thread; c < chunks.size(); c += threads)
        scanner.scan(chunks[c], *sink, stats[thread]);
    });
    sdk::ScanStats total;
    total.indexed = true;
    for (const auto& part : stats) {
      total.scanned += part.scanned;
      total.matched += part.matched;
    }
    return total;
  };

  // More rows than scan_limit in the time range: the matches beyond the first scan_limit, if
  // there are any, are left out.
  const std::size_t keep = records.scan_limit;
  if (rows > keep && scan_chunks([] { return std::make_unique<CountSink>(); }).matched > keep) {
    const auto first = matches(tenant_id, MatchQuery::of(records, keep));
    if (!first) return std::nullopt;
    if (!first->versions.empty()) plan.cutoff = first->versions.back();
  }
  sdk::ScanStats stats =
      scan_chunks([&] { return cell_sink(database_, snapshot.get(), tenant, plan); });
  stats.complete = stats.matched <= keep;
  return stats;
}

std::optional<ColumnMatches> ColumnReader::matches(const sdk::Tenant& tenant_id,
                                                   const MatchQuery& query) {
  if (!covered_ || (query.text && !chunk_indexed_)) return std::nullopt;
  const auto& where = *query.where;
  const auto planned = plan_conditions(where, true, chunk_indexed_);
  if (!planned) return std::nullopt;
  const std::string tenant = tenant_prefix(tenant_id);
  const Snapshot snapshot(database_);  // merges may rewrite chunks meanwhile
  const bool ranked = query.text && query.rank;
  const ReadOrder order{query.order, ranked};
  toolkit::TimeBounds bounds = toolkit::timestamp_bounds(where);
  if (query.after != nullptr) query.after->narrow(order, bounds);
  // Ranking weighs words by how many documents of the whole history hold them, whatever the
  // query's time bounds: then every chunk is listed once, and narrowed to the bounds after.
  std::uint64_t rows = 0;
  auto chunks = chunks_in(snapshot, tenant, ranked ? toolkit::TimeBounds{} : bounds, rows);
  std::shared_ptr<const TextStatistics> statistics;
  if (ranked) {
    statistics = query.statistics ? query.statistics
                                  : text_statistics(snapshot.get(), tenant, chunks, *query.text);
    std::erase_if(chunks, [&](const ChunkRef& chunk) { return !meets(chunk.header, bounds); });
    rows = 0;
    for (const auto& chunk : chunks)
      rows += chunk.header.rows;
  }

  // In the order asked, so that the first `keep` are found early and the rest skipped.
  if (query.first_only && !query.rank) {
    std::sort(chunks.begin(), chunks.end(), [&](const ChunkRef& a, const ChunkRef& b) {
      return query.order == sdk::Order::desc ? a.header.max_timestamp > b.header.max_timestamp
                                             : a.header.min_timestamp < b.header.min_timestamp;
    });
  }
  // Equalities that the value postings decide leave most chunks without a row to read, and a
  // second thread then cost more than it saved (a selective current-state question at 1,000,000
  // events: 0.75 → 0.63 ms in the server on one thread). Text queries read and score many rows,
  // unless their words are rare: a ranked search reads only the rows holding its words, and with
  // fewer of them in all history than would be shared it runs on one thread too (a rare word at
  // 1,000,000 events, asked back to back: 0.41-0.46 → 0.34-0.42 ms in the server).
  const bool narrowed =
      query.text ? ranked && rows_holding_words(*statistics) < parallel_rows_
                 : std::any_of(planned->conditions.begin(), planned->conditions.end(),
                               [](std::size_t slot) { return slot == ColumnPlan::kDecided; });
  const std::size_t threads = rows >= parallel_rows_ && !narrowed ? 2 : 1;
  std::vector<MatchSink> sinks;
  std::vector<sdk::AggregateStats> stats(threads);
  for (std::size_t t = 0; t < threads; ++t)
    sinks.emplace_back(*planned, order, query.keep, query.after);
  on_threads(threads, [&](std::size_t thread) {
    // Scorers cache as they go: one per thread.
    std::optional<TextScorer> scorer;
    std::optional<ChunkText> text;
    if (query.text) {
      if (query.rank) scorer.emplace(statistics);
      text.emplace(database_, snapshot.get(), tenant, *query.text, scorer ? &*scorer : nullptr);
    }
    std::optional<ChunkValues> values;
    if (chunk_indexed_) values.emplace(database_, snapshot.get(), tenant, where);
    ChunkScanner scanner(database_, snapshot.get(), tenant, query.source, where, *planned,
                         query.text, text ? &*text : nullptr, values ? &*values : nullptr);
    for (std::size_t c = thread; c < chunks.size(); c += threads) {
      // Chunks come in order of their bound: once one cannot hold a kept version, none can.
      if (query.first_only && !sinks[thread].may_take(chunks[c].header)) break;
      scanner.scan(chunks[c], sinks[thread], stats[thread]);
    }
  });
  ColumnMatches found;
  for (std::size_t t = 0; t < threads; ++t) {
    found.scanned += stats[t].scanned;
    found.matched += stats[t].matched;
  }
  if (threads == 2) sinks[0].merge(std::move(sinks[1]));
  // A later page's matches are those after the previous page.
  if (query.after != nullptr) found.matched = sinks[0].admitted();
  sinks[0].take(found);
  found.statistics = std::move(statistics);
  return found;
}

}  // namespace eventsvc::plugins::rocksdb_storage
