#include "column_aggregator.hpp"

#include <rocksdb/write_batch.h>

#include <algorithm>
#include <bit>
#include <unordered_map>

#include "column_chunk.hpp"
#include "eventsvc/sdk/digest.hpp"
#include "eventsvc/sdk/error.hpp"
#include "key_codec.hpp"
#include "stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace json = sdk::json;

namespace {

const std::string kCoveredKey = "columns.complete";

// The columns a request reads, each once, and where each part of the request finds its column.
struct ColumnPlan {
  struct Slot {
    std::string name;
    bool canonical = false;  // a canonical field: strings are not JSON, instants are instants
    bool instant = false;    // timestamp or ingested_at
  };
  std::vector<Slot> slots;
  std::vector<std::size_t> conditions;  // per condition
  std::vector<std::size_t> group_by;    // per group_by field
  std::optional<std::size_t> bucket;
  std::vector<std::optional<std::size_t>> values;  // per aggregation: its field's column
  std::vector<std::optional<std::size_t>>
      times;  // per aggregation: its time column, if it uses one
  std::size_t timestamp = 0;
  std::size_t id = 0;

  std::optional<std::size_t> slot(const sdk::FieldPath& field) {
    const auto name = column_name(field);
    if (!name) return std::nullopt;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].name == *name) return i;
    }
    const bool canonical = field.root == sdk::FieldPath::Root::canonical;
    slots.push_back({*name, canonical, canonical && field.is_instant()});
    return slots.size() - 1;
  }
};

std::optional<ColumnPlan> plan_columns(const sdk::AggregateRequest& request) {
  ColumnPlan plan;
  plan.timestamp = *plan.slot(*sdk::FieldPath::parse("timestamp"));
  plan.id = *plan.slot(*sdk::FieldPath::parse("id"));
  for (const auto& condition : request.where) {
    const auto slot = plan.slot(condition.field);
    if (!slot) return std::nullopt;
    plan.conditions.push_back(*slot);
  }
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
  return plan;
}

// A group key as bytes: values that render as the same canonical JSON give the same bytes.
void append_string_part(std::string& key, std::string_view text) {
  key.push_back('s');
  append_string(key, text);
}

void append_key_part(std::string& key, const sdk::FieldValue& value) {
  if (!value.present()) {
    key.push_back('z');  // absent renders as null
    return;
  }
  if (value.kind() == sdk::FieldValue::Kind::instant) {
    append_string_part(key, sdk::format_rfc3339(value.instant()));
    return;
  }
  if (const auto text = value.as_string()) {
    append_string_part(key, *text);
    return;
  }
  const json::value& json_value = value.json_value();
  if (json_value.is_null()) {
    key.push_back('z');
  } else {
    key.push_back('j');
    append_string(key, sdk::canonical_json(json_value));
  }
}

// Every partition of one request: the total and the groups, found by their key bytes.
class Partitions {
 public:
  explicit Partitions(const sdk::AggregateRequest& request)
      : request_(request), total_(request, json::object(), std::nullopt) {}

  sdk::AggregatePartition& total() { return total_; }
  bool grouping() const { return !request_.group_by.empty() || request_.time_bucket; }

  // The group of `key`; `make_key` builds its JSON key the first time.
  template <class MakeKey>
  sdk::AggregatePartition& group(const std::string& key, std::optional<sdk::Millis> bucket,
                                 MakeKey&& make_key) {
    auto it = index_.find(key);
    if (it == index_.end()) {
      json::object rendered = make_key();
      if (bucket) rendered["bucket"] = sdk::format_rfc3339(*bucket);
      groups_.push_back(
          std::make_unique<sdk::AggregatePartition>(request_, std::move(rendered), bucket));
      it = index_.emplace(key, groups_.size() - 1).first;
    }
    return *groups_[it->second];
  }

  sdk::AggregateResult finish(const sdk::AggregateStats& stats) {
    sdk::AggregateResult result;
    result.total = total_.finish();
    std::vector<std::pair<std::string, sdk::AggregatePartition*>> ordered;
    ordered.reserve(groups_.size());
    for (const auto& group : groups_)
      ordered.emplace_back(sdk::canonical_json(group->key()), group.get());
    std::sort(ordered.begin(), ordered.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [canonical, partition] : ordered)
      result.groups.push_back(partition->finish());
    result.stats = stats;
    return result;
  }

 private:
  const sdk::AggregateRequest& request_;
  sdk::AggregatePartition total_;
  std::vector<std::unique_ptr<sdk::AggregatePartition>> groups_;
  std::unordered_map<std::string, std::size_t> index_;
};

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

  CellKind kind(std::size_t slot) const { return kinds_[slot]; }
  std::uint32_t string_index(std::size_t slot) const { return cursors_[slot].string_index(); }
  std::string_view string(std::size_t slot) const {
    return views_[slot].dictionary()[cursors_[slot].string_index()];
  }
  std::int64_t integer(std::size_t slot) const {
    return static_cast<std::int64_t>(cursors_[slot].number());
  }
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

ColumnAggregator::ColumnAggregator(Database& database) : database_(database) {
  if (database_.get(database_.meta, kCoveredKey)) {
    covered_ = true;
    return;
  }
  auto it = database_.iterator(database_.history);
  it->SeekToFirst();
  check(it->status(), "history scan");
  if (it->Valid()) return;  // history from before columns: aggregate record by record
  rocksdb::WriteBatch batch;
  batch.Put(database_.meta, kCoveredKey, "1");
  database_.write(batch, true);
  covered_ = true;
}

std::optional<sdk::AggregateResult> ColumnAggregator::aggregate(
    const sdk::Tenant& tenant_id, const sdk::AggregateRequest& request) {
  if (!covered_ || request.source != sdk::Source::history || request.text) return std::nullopt;
  const auto planned = plan_columns(request);
  if (!planned) return std::nullopt;
  const ColumnPlan& plan = *planned;

  const std::string tenant = tenant_prefix(tenant_id);
  const sdk::TimeBounds bounds = sdk::timestamp_bounds(request.where);
  Partitions partitions(request);
  sdk::AggregateStats stats;
  stats.indexed = true;
  std::string key;

  // Adds a matching row to the total and its group; `value(slot)` gives a cell, `key_of` the
  // group key bytes (false: the row has no bucket instant and joins no group).
  auto add_row = [&](auto&& value, auto&& group_of) {
    ++stats.matched;
    auto feed = [&](sdk::AggregatePartition& partition) {
      partition.count_row();
      for (std::size_t i = 0; i < request.aggregations.size(); ++i) {
        const sdk::FieldValue cell =
            plan.values[i] ? value(*plan.values[i]) : sdk::FieldValue::absent();
        sdk::Millis time = sdk::kNoTime;
        if (plan.times[i]) {
          const sdk::FieldValue instant = value(*plan.times[i]);
          if (instant.kind() == sdk::FieldValue::Kind::instant) time = instant.instant();
        }
        partition.values(i).add(cell, time);
      }
      partition.flush_full();
    };
    feed(partitions.total());
    if (partitions.grouping()) {
      if (auto* group = group_of()) feed(*group);
    }
  };

  const std::string prefix = chunk_prefix(tenant);
  const std::string upper = prefix_successor(prefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database_.iterator(database_.columns, &upper_slice);
  for (it->Seek(prefix); it->Valid();) {
    const std::string_view found(it->key().data(), it->key().size());
    const auto chunk = header_chunk(found, prefix.size());
    const auto header =
        chunk ? decode_chunk_header(std::string_view(it->value().data(), it->value().size()))
              : std::nullopt;
    if (!chunk || !header) throw sdk::Error::internal("a column chunk header is damaged");
    it->Seek(chunk_header_key(tenant, *chunk + 1));  // the next chunk, past this one's columns
    if (header->max_timestamp < bounds.lower || header->min_timestamp > bounds.upper) continue;

    std::vector<ColumnView> views;
    bool containers = false;
    for (std::size_t slot = 0; slot < plan.slots.size(); ++slot) {
      auto bytes =
          database_.get(database_.columns, chunk_column_key(tenant, *chunk, plan.slots[slot].name));
      if (!bytes) {
        views.emplace_back(header->rows);
        continue;
      }
      auto view = ColumnView::decode(std::move(*bytes), header->rows);
      if (!view)
        throw sdk::Error::internal("a column of chunk " + std::to_string(*chunk) + " is damaged");
      containers = containers || view->has_containers();
      views.push_back(std::move(*view));
    }
    ChunkRows rows(plan, std::move(views));
    stats.scanned += header->rows;

    if (containers) {
      // A named field holds an object or array somewhere in this chunk: read its records.
      for (std::uint32_t row = 0; row < header->rows; ++row) {
        rows.next();
        const auto stored =
            database_.get(database_.history,
                          version_key(tenant, rows.integer(plan.timestamp), rows.string(plan.id)));
        if (!stored) continue;
        const sdk::Record record = decode_record(*stored);
        if (!sdk::matches_all(record, request.where)) continue;
        ++stats.matched;
        partitions.total().add(record);
        if (!partitions.grouping()) continue;
        const auto group_key = sdk::group_key(request, record);
        if (!group_key) continue;
        key.clear();
        for (const auto& field : request.group_by)
          append_key_part(key, sdk::resolve(record, field));
        if (group_key->second) append_u64(key, static_cast<std::uint64_t>(*group_key->second));
        partitions.group(key, group_key->second, [&] { return group_key->first; }).add(record);
      }
      continue;
    }

    // Conditions on strings are decided once per dictionary entry.
    std::vector<std::vector<std::int8_t>> decided(request.where.size());
    for (std::size_t c = 0; c < request.where.size(); ++c) {
      decided[c].assign(rows.view(plan.conditions[c]).dictionary().size(), -1);
    }
    for (std::uint32_t row = 0; row < header->rows; ++row) {
      rows.next();
      bool matched = true;
      for (std::size_t c = 0; c < request.where.size() && matched; ++c) {
        const std::size_t slot = plan.conditions[c];
        if (rows.kind(slot) == CellKind::string) {
          std::int8_t& known = decided[c][rows.string_index(slot)];
          if (known < 0) known = sdk::matches(rows.value(slot), request.where[c]) ? 1 : 0;
          matched = known == 1;
        } else {
          matched = sdk::matches(rows.value(slot), request.where[c]);
        }
      }
      if (!matched) continue;
      add_row([&](std::size_t slot) { return rows.value(slot); },
              [&]() -> sdk::AggregatePartition* {
                key.clear();
                for (const auto slot : plan.group_by) {
                  if (rows.kind(slot) == CellKind::string) {
                    append_string_part(key, rows.string(slot));
                  } else {
                    append_key_part(key, rows.value(slot));
                  }
                }
                std::optional<sdk::Millis> bucket;
                if (plan.bucket) {
                  if (rows.kind(*plan.bucket) != CellKind::int64) return nullptr;
                  bucket =
                      sdk::bucket_start(rows.integer(*plan.bucket), request.time_bucket->interval);
                  append_u64(key, static_cast<std::uint64_t>(*bucket));
                }
                return &partitions.group(key, bucket, [&] {
                  json::object rendered;
                  for (std::size_t g = 0; g < plan.group_by.size(); ++g) {
                    rendered[request.group_by[g].text] = rows.value(plan.group_by[g]).to_json();
                  }
                  return rendered;
                });
              });
    }
  }
  check(it->status(), "column scan");
  return partitions.finish(stats);
}

}  // namespace eventsvc::plugins::rocksdb_storage
