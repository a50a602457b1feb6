#include "column_reader.hpp"

#include <rocksdb/write_batch.h>

#include <algorithm>
#include <bit>
#include <exception>
#include <thread>

#include "chunk_text.hpp"
#include "chunk_values.hpp"
#include "column_chunk.hpp"
#include "eventsvc/sdk/error.hpp"
#include "key_codec.hpp"
#include "stored_formats.hpp"
#include "text_scorer.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

namespace {

const std::string kCoveredKey = "columns.complete";
const std::string kIndexedKey = "columns.indexed";
const std::string kCatalogueKey = "columns.catalogue";

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

// One chunk's columns, read row by row.
class ChunkRows {
 public:
  ChunkRows(const ColumnPlan& plan, std::vector<ColumnView> views)
      : plan_(plan), views_(std::move(views)), kinds_(views_.size()), scratch_(views_.size()) {
    cursors_.reserve(views_.size());
    for (const auto& view : views_)
      cursors_.emplace_back(view);
  }

  void next() {
    for (std::size_t i = 0; i < cursors_.size(); ++i)
      kinds_[i] = cursors_[i].next();
  }
  // Moves past `rows` rows without decoding them.
  void skip(std::size_t rows) {
    for (auto& cursor : cursors_)
      cursor.skip(rows);
  }

  CellKind kind(std::size_t slot) const { return kinds_[slot]; }
  std::uint32_t string_index(std::size_t slot) const { return cursors_[slot].string_index(); }
  std::string_view string(std::size_t slot) const {
    return views_[slot].dictionary_entry(cursors_[slot].string_index());
  }
  std::int64_t integer(std::size_t slot) const {
    return static_cast<std::int64_t>(cursors_[slot].number());
  }
  std::uint64_t number(std::size_t slot) const { return cursors_[slot].number(); }
  const ColumnView& view(std::size_t slot) const { return views_[slot]; }

  // The cell as the record-wise resolve() would give it.
  sdk::FieldValue value(std::size_t slot) {
    const auto& meta = plan_.slots[slot];
    json::value& scratch = scratch_[slot];
    switch (kinds_[slot]) {
      case CellKind::absent:
      case CellKind::container:
        return sdk::FieldValue::absent();
      case CellKind::null:
        scratch = nullptr;
        break;
      case CellKind::boolean_false:
        scratch = false;
        break;
      case CellKind::boolean_true:
        scratch = true;
        break;
      case CellKind::int64:
        if (meta.instant) return sdk::FieldValue::of_instant(integer(slot));
        scratch = integer(slot);
        break;
      case CellKind::uint64:
        scratch = cursors_[slot].number();
        break;
      case CellKind::double_number:
        scratch = std::bit_cast<double>(cursors_[slot].number());
        break;
      case CellKind::string:
        if (meta.canonical) return sdk::FieldValue::of(string(slot));
        scratch = json::string(string(slot));
        break;
    }
    return sdk::FieldValue::of(&scratch);
  }

 private:
  const ColumnPlan& plan_;
  std::vector<ColumnView> views_;
  std::vector<ColumnView::Cursor> cursors_;
  std::vector<CellKind> kinds_;
  std::vector<json::value> scratch_;
};

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

// Where matching rows go: a row is given either as cells at the cursors, or, in a chunk read
// record by record, as the record.
class RowSink {
 public:
  virtual ~RowSink() = default;
  // `score`: the row's BM25 score when the matches are ranked, else 0.
  virtual void row(ChunkRows& rows, double score) = 0;
  virtual void record(const sdk::Record& record, double score) = 0;
  // Before the rows of a chunk read by columns: what a sink caches per chunk starts anew.
  virtual void begin_chunk() {}
};

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
  // For current state: the rows a newer version replaced.
  // For current state: the rows a newer version replaced, into replaced_.
  void read_replaced(const ChunkRef& chunk);
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
  RowBits replaced_;  // of the chunk being scanned
  // Of the chunk being scanned, the rows whose columns are read: those with the text query's
  // words and the equalities' values (every row when nothing narrows), less the replaced ones.
  RowBits candidates_;
  double score(std::uint32_t row) const { return text_ != nullptr ? text_->score(row) : 0.0; }
};

std::optional<ChunkRows> ChunkScanner::rows_of(const ChunkRef& chunk, bool& containers) {
  std::vector<ColumnView> views;
  containers = false;
  for (const auto& slot : plan_.slots) {
    auto bytes = database_.get_pinned(
        database_.columns, chunk_column_key(tenant_, chunk.number, slot.name), snapshot_);
    if (!bytes) {
      views.emplace_back(chunk.header.rows);
      continue;
    }
    auto view = ColumnView::decode(std::move(bytes), chunk.header.rows);
    if (!view) {
      throw sdk::Error::internal("a column of chunk " + std::to_string(chunk.number) +
                                 " is damaged");
    }
    containers = containers || view->has_containers();
    views.push_back(std::move(*view));
  }
  return ChunkRows(plan_, std::move(views));
}

void ChunkScanner::read_replaced(const ChunkRef& chunk) {
  replaced_.reset(chunk.header.rows, false);
  if (source_ != sdk::Source::current) return;
  const std::string prefix = replaced_key(tenant_, chunk.number);
  if (replaced_bitmaps_) {  // one key: a point read, no iterator
    const auto bitmap = database_.get_pinned(database_.columns, prefix, snapshot_);
    if (bitmap && !replaced_.set_bytes(bitmap->data(), bitmap->size())) {
      throw sdk::Error::internal("the replaced rows of chunk " + std::to_string(chunk.number) +
                                 " are damaged");
    }
    return;
  }
  std::vector<bool> replaced(chunk.header.rows, false);
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database_.iterator(database_.columns, &upper_slice, nullptr, snapshot_);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    if (!mark_replaced(std::string_view(it->key().data(), it->key().size()).substr(prefix.size()),
                       std::string_view(it->value().data(), it->value().size()), replaced)) {
      throw sdk::Error::internal("the replaced rows of chunk " + std::to_string(chunk.number) +
                                 " are damaged");
    }
  }
  check(it->status(), "replaced rows scan");
  for (std::uint32_t row = 0; row < chunk.header.rows; ++row) {
    if (replaced[row]) replaced_.set(row);
  }
}

void ChunkScanner::scan(const ChunkRef& chunk, RowSink& sink, sdk::AggregateStats& stats) {
  if (narrowing()) {
    // Only rows with the query's words and values are examined; a chunk without them is not
    // read at all.
    std::uint32_t candidates = chunk.header.rows;
    if (text_ != nullptr) {
      candidates = text_->candidates(chunk.number, chunk.header.rows, candidates_);
    } else {
      candidates_.reset(chunk.header.rows, true);
    }
    if (candidates > 0 && values_ != nullptr)
      candidates = values_->narrow(chunk.number, candidates_);
    stats.scanned += candidates;
    if (candidates == 0) return;
  } else {
    stats.scanned += chunk.header.rows;
  }
  read_replaced(chunk);
  if (!narrowing()) candidates_.reset(chunk.header.rows, true);
  candidates_.and_not(replaced_);
  if (!candidates_.any()) return;  // every candidate stopped being current
  bool containers = false;
  auto rows = rows_of(chunk, containers);
  // A named field holds an object or array somewhere in this chunk, or the text query has
  // phrases the postings cannot decide: read the records.
  if (containers || (text_ != nullptr && !text_->exact())) {
    by_records(chunk, *rows, sink, stats);
  } else {
    by_columns(chunk, *rows, sink, stats);
  }
}

void ChunkScanner::by_records(const ChunkRef& chunk, ChunkRows& rows, RowSink& sink,
                              sdk::AggregateStats& stats) {
  // The ids locate the records; aggregations do not read them otherwise.
  std::optional<ColumnView> loaded;
  if (!plan_.id) {
    auto bytes = database_.get_pinned(database_.columns,
                                      chunk_column_key(tenant_, chunk.number, "id"), snapshot_);
    if (bytes) loaded = ColumnView::decode(std::move(bytes), chunk.header.rows);
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
    if (!sdk::matches_all(record, where_)) continue;
    if (query_ != nullptr && !text_->exact() &&
        !sdk::text_matches(*query_, sdk::record_tokens(record))) {
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
  sink.begin_chunk();
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
        if (known < 0) known = sdk::matches(rows.value(slot), where_[c]) ? 1 : 0;
        matched = known == 1;
      } else {
        matched = sdk::matches(rows.value(slot), where_[c]);
      }
    }
    if (!matched) continue;
    ++stats.matched;
    sink.row(rows, score(row));
  }
}

// Matching rows into the total and the groups of an aggregate request.
class AggregateSink final : public RowSink {
 public:
  AggregateSink(const sdk::AggregateRequest& request, const ColumnPlan& plan,
                sdk::AggregateAccumulator& accumulator)
      : request_(request), plan_(plan), accumulator_(accumulator) {}

  void begin_chunk() override {
    by_string_.clear();
    last_bucket_.reset();
    last_group_ = nullptr;
  }

  void row(ChunkRows& rows, double /*score*/) override {
    feed(rows, accumulator_.total());
    if (!accumulator_.grouping()) return;
    std::optional<sdk::Millis> bucket;
    if (plan_.bucket) {
      if (rows.kind(*plan_.bucket) != CellKind::int64) return;  // no time to place it by
      bucket = sdk::bucket_start(rows.integer(*plan_.bucket), request_.time_bucket->interval);
    }
    feed(rows, group_of(rows, bucket));
  }

  void record(const sdk::Record& record, double /*score*/) override { accumulator_.add(record); }

 private:
  // The row's group. Within a chunk, a single string group_by field finds it by the cell's
  // dictionary index, and buckets alone by the bucket of the row before (rows come in time order
  // mostly); otherwise by the key bytes.
  sdk::AggregatePartition& group_of(ChunkRows& rows, std::optional<sdk::Millis> bucket) {
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
      sdk::AggregatePartition*& known = by_string_[index];
      if (known == nullptr) known = &keyed_group(rows, bucket);
      return *known;
    }
    return keyed_group(rows, bucket);
  }

  sdk::AggregatePartition& keyed_group(ChunkRows& rows, std::optional<sdk::Millis> bucket) {
    key_.clear();
    for (const auto slot : plan_.group_by) {
      // Strings straight from the dictionary: the same key bytes as a JSON string, no copy.
      sdk::append_group_key(key_, rows.kind(slot) == CellKind::string
                                      ? sdk::FieldValue::of(rows.string(slot))
                                      : rows.value(slot));
    }
    return accumulator_.group(key_, bucket, [&] {
      json::object rendered;
      for (std::size_t g = 0; g < plan_.group_by.size(); ++g) {
        rendered[request_.group_by[g].text] = rows.value(plan_.group_by[g]).to_json();
      }
      return rendered;
    });
  }

  void feed(ChunkRows& rows, sdk::AggregatePartition& partition) {
    partition.count_row();
    for (std::size_t i = 0; i < request_.aggregations.size(); ++i) {
      sdk::Millis time = sdk::kNoTime;
      if (plan_.times[i]) {
        const sdk::FieldValue instant = rows.value(*plan_.times[i]);
        if (instant.kind() == sdk::FieldValue::Kind::instant) time = instant.instant();
      }
      sdk::SpanBuilder& values = partition.values(i);
      if (!plan_.values[i]) {
        values.add_absent();
        continue;
      }
      // Numbers straight from the column; everything else as the record-wise value.
      const std::size_t slot = *plan_.values[i];
      const CellKind kind = rows.kind(slot);
      if (kind == CellKind::absent || kind == CellKind::container) {
        values.add_absent();
      } else if (kind == CellKind::double_number) {
        values.add_number(std::bit_cast<double>(rows.number(slot)), time);
      } else if (kind == CellKind::int64 && !plan_.slots[slot].instant &&
                 sdk::exact_double(rows.integer(slot))) {
        values.add_number(static_cast<double>(rows.integer(slot)), time);
      } else {
        values.add(rows.value(slot), time);
      }
    }
    partition.flush_full();
  }

  const sdk::AggregateRequest& request_;
  const ColumnPlan& plan_;
  sdk::AggregateAccumulator& accumulator_;
  std::string key_;  // group key bytes, reused
  // Of the chunk being read: the group of each dictionary index of the single group_by column,
  // and the bucket of the row before with its group.
  std::vector<sdk::AggregatePartition*> by_string_;
  std::optional<sdk::Millis> last_bucket_;
  sdk::AggregatePartition* last_group_ = nullptr;
};

// The first `keep` matching versions in (timestamp, id) order per `order`, or when ranked the
// best `keep` by score (ties: newer first, then by id).
class MatchSink final : public RowSink {
 public:
  // `after`: only versions after it in `order` (when not ranked).
  MatchSink(const ColumnPlan& plan, sdk::Order order, bool ranked, std::size_t keep,
            const VersionRef* after = nullptr)
      : plan_(plan), before_{order, ranked}, keep_(keep), after_(after) {}

  void row(ChunkRows& rows, double score) override {
    offer(rows.integer(plan_.timestamp), rows.string(*plan_.id), score);
  }
  void record(const sdk::Record& record, double score) override {
    offer(record.timestamp, record.id, score);
  }

  void merge(MatchSink&& other) {
    for (auto& kept : other.kept_)
      offer(kept.ref.timestamp, kept.ref.id, kept.score);
  }
  // Whether a chunk may hold a version before the last kept one (always, until `keep` are kept).
  bool may_take(const ChunkHeader& header) const {
    if (kept_.size() < keep_ || before_.ranked) return true;
    const sdk::Millis last = kept_.front().ref.timestamp;
    return before_.order == sdk::Order::desc ? header.max_timestamp >= last
                                             : header.min_timestamp <= last;
  }
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
    sdk::Order order;
    bool ranked;
    bool operator()(const Kept& a, const Kept& b) const {
      if (ranked) {
        if (a.score != b.score) return a.score > b.score;
        if (a.ref.timestamp != b.ref.timestamp) return a.ref.timestamp > b.ref.timestamp;
        return a.ref.id < b.ref.id;
      }
      return compare(a.ref, b.ref, order) < 0;
    }
  };
  // A heap whose top is the last of the kept versions.
  void offer(sdk::Millis timestamp, std::string_view id, double score) {
    if (keep_ == 0) return;
    Kept candidate{VersionRef{timestamp, std::string(id)}, score};
    if (after_ != nullptr && compare(candidate.ref, *after_, before_.order) <= 0) return;
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
  const VersionRef* after_;
  std::vector<Kept> kept_;
};

}  // namespace

std::vector<ChunkRef> ColumnReader::chunks_in(const rocksdb::Snapshot* snapshot,
                                              const std::string& tenant,
                                              const sdk::TimeBounds& bounds, std::uint64_t& rows) {
  std::vector<ChunkRef> chunks;
  rows = 0;
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
    if (header->max_timestamp < bounds.lower || header->min_timestamp > bounds.upper) continue;
    chunks.push_back({*number, *header});
    rows += header->rows;
  }
  check(it->status(), "column scan");
  return chunks;
}

void ColumnReader::on_threads(std::size_t threads, const std::function<void(std::size_t)>& work) {
  if (threads == 1) {
    work(0);
    return;
  }
  std::exception_ptr failure;
  std::thread second([&] {
    try {
      work(1);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  try {
    work(0);
  } catch (...) {
    second.join();
    throw;
  }
  second.join();
  if (failure) std::rethrow_exception(failure);
}

std::optional<sdk::AggregateResult> ColumnReader::aggregate(const sdk::Tenant& tenant_id,
                                                            const sdk::AggregateRequest& request) {
  if (!covered_ || (request.text && !chunk_indexed_)) return std::nullopt;
  const auto planned = plan_columns(request, chunk_indexed_);
  if (!planned) return std::nullopt;
  const std::string tenant = tenant_prefix(tenant_id);
  const Snapshot snapshot(database_);  // merges may rewrite chunks meanwhile
  std::uint64_t rows = 0;
  const auto chunks = chunks_in(snapshot.get(), tenant, sdk::timestamp_bounds(request.where), rows);

  // Each thread takes every other chunk into an accumulator of its own; then they merge.
  const std::size_t threads = rows >= parallel_rows_ ? 2 : 1;
  std::vector<sdk::AggregateAccumulator> accumulators;
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

std::optional<ColumnMatches> ColumnReader::matches(const sdk::Tenant& tenant_id,
                                                   const MatchQuery& query) {
  if (!covered_ || (query.text && !chunk_indexed_)) return std::nullopt;
  const auto& where = *query.where;
  const auto planned = plan_conditions(where, true, chunk_indexed_);
  if (!planned) return std::nullopt;
  const std::string tenant = tenant_prefix(tenant_id);
  const Snapshot snapshot(database_);  // merges may rewrite chunks meanwhile
  std::uint64_t rows = 0;
  auto chunks = chunks_in(snapshot.get(), tenant, sdk::timestamp_bounds(where), rows);

  // In the order asked, so that the first `keep` are found early and the rest skipped.
  if (query.first_only && !query.rank) {
    std::sort(chunks.begin(), chunks.end(), [&](const ChunkRef& a, const ChunkRef& b) {
      return query.order == sdk::Order::desc ? a.header.max_timestamp > b.header.max_timestamp
                                             : a.header.min_timestamp < b.header.min_timestamp;
    });
  }
  const std::size_t threads = rows >= parallel_rows_ ? 2 : 1;
  std::vector<MatchSink> sinks;
  std::vector<sdk::AggregateStats> stats(threads);
  for (std::size_t t = 0; t < threads; ++t)
    sinks.emplace_back(*planned, query.order, query.rank && query.text, query.keep, query.after);
  on_threads(threads, [&](std::size_t thread) {
    // Scorers cache as they go: one per thread.
    std::optional<TextScorer> scorer;
    std::optional<ChunkText> text;
    if (query.text) {
      if (query.rank) scorer.emplace(database_, tenant, scope_of(query.source), snapshot.get());
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
  sinks[0].take(found);
  return found;
}

}  // namespace eventsvc::plugins::rocksdb_storage
