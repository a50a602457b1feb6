// An aggregation pushdown (sdk/aggregate_pushdown.hpp) computed: matches partitioned into the
// total, the group_by groups and the time buckets exactly as the API defines them, each
// partition's values handed to its operators in column spans. A backend gives it records, or a
// column engine its row values.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "eventsvc/sdk/aggregate_pushdown.hpp"
#include "eventsvc/sdk/record.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/field_value.hpp"
#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

using sdk::AggregateGroup;
using sdk::AggregateRequest;
using sdk::AggregateResult;
using sdk::AggregateStats;
using sdk::AggregationState;
using sdk::BoundAggregation;
using sdk::FieldPath;
using sdk::Record;

// The instant a record holds in `field`: timestamp and ingested_at as they are; other fields when
// they hold an RFC 3339 string or a number of epoch milliseconds.
std::optional<Millis> record_instant(const Record& record, const FieldPath& field);

// The start of the UTC-aligned bucket of `interval` that holds `instant` (floor, also before 1970).
Millis bucket_start(Millis instant, Millis interval);

// One aggregation's values, collected row by row and handed to its operator as column spans.
class SpanBuilder {
 public:
  // Sorts a field's value into a span's numbers (JSON numbers a double holds exactly), its other
  // values, or its absent rows; `time` is the row's time_field instant (kNoTime when none).
  void add(const FieldValue& value, Millis time);
  // The same for a row a column engine already knows to hold a number a double holds exactly, or
  // nothing: no FieldValue is built.
  void add_number(double number, Millis time) {
    ++rows_;
    numbers_.push_back(number);
    if (keep_times_) times_.push_back(time);
  }
  void add_absent() { ++rows_; }
  // Column engines: the first of `numbers` (numbers a double holds exactly, without a time) as
  // add_number() would add them, up to a full span; returns how many that was.
  std::size_t add_numbers(std::span<const double> numbers);
  // The same for `rows` absent rows.
  std::uint64_t add_absent(std::uint64_t rows);
  bool empty() const { return rows_ == 0; }
  bool full() const { return rows_ >= kRows; }
  // Adds what was collected to `state` as one span, and empties.
  void flush(const BoundAggregation& aggregation, AggregationState& state);

  // Rows collected before a span is handed over: enough that the call is noise, few enough to
  // stay in cache.
  static constexpr std::uint64_t kRows = 1024;

  // Whether the numbers' times are kept: only for an operator that reads them (uses_time()).
  void keep_times(bool keep) { keep_times_ = keep; }

 private:
  bool keep_times_ = true;
  std::uint64_t rows_ = 0;
  std::vector<double> numbers_;
  std::vector<Millis> times_;
  std::vector<json::value> others_;
};

// Whether a JSON number converts to a double without losing anything.
bool exact_double(const json::value& number);
// The same for an integer: within ±2^53.
inline bool exact_double(std::int64_t number) {
  constexpr std::uint64_t kExact = std::uint64_t{1} << 53;
  // One comparison: -2^53..2^53 shifted to 0..2^54 (wrapping as unsigned).
  return static_cast<std::uint64_t>(number) + kExact <= 2 * kExact;
}

// The matches of one partition (the total, a group, a bucket) while they are being added: a
// record at a time, or a column engine's row values one aggregation at a time.
class AggregatePartition {
 public:
  AggregatePartition(const AggregateRequest& request, json::object key,
                     std::optional<Millis> bucket);

  void add(const Record& record);

  // Column engines: count a row, then give each aggregation's value through values(i).
  void count_row() { ++group_.count; }
  void count_rows(std::uint64_t rows) { group_.count += rows; }
  SpanBuilder& values(std::size_t aggregation) { return buffers_[aggregation]; }
  // Hands full span builders to their operators; call after a row's values.
  void flush_full();
  // The same for one aggregation's: a column engine giving values an aggregation at a time calls
  // it after each value, so spans end where the row-at-a-time path ends them.
  void flush_full(std::size_t aggregation);
  // Column engines, an aggregation at a time: runs of numbers or of absent rows given at once,
  // in the spans row-at-a-time adding (values(), flush_full()) would give them.
  void add_numbers(std::size_t aggregation, std::span<const double> numbers);
  void add_absent(std::size_t aggregation, std::uint64_t rows);

  void merge(AggregatePartition&& other);
  // The finished group; the partition is spent.
  AggregateGroup finish();
  const json::object& key() const { return group_.key; }

 private:
  void flush_all();

  const AggregateRequest* request_;
  AggregateGroup group_;
  std::vector<SpanBuilder> buffers_;  // one per aggregation
};

// Appends bytes that identify one group_by value within a group key: two values give the same
// bytes exactly when they render as the same canonical JSON (absent renders as null, an instant
// as its RFC 3339 string). Column engines build keys from their cells with it.
void append_group_key(std::string& key, const FieldValue& value);

// The total and the groups of one request while matches are added to them, a record at a time or
// a column engine's row at a time. Not thread-safe: give each thread its own and merge them.
class AggregateAccumulator {
 public:
  explicit AggregateAccumulator(const AggregateRequest& request);

  bool grouping() const { return !request_->group_by.empty() || request_->time_bucket; }
  AggregatePartition& total() { return total_; }
  // The group whose group_by values gave `key` (append_group_key, field by field) in `bucket`;
  // `make_key` renders the group_by values of its JSON key the first time.
  AggregatePartition& group(std::string& key, std::optional<Millis> bucket,
                            const std::function<json::object()>& make_key);

  // Adds a matching record to the total and to its group.
  void add(const Record& record);
  // Folds another accumulator of the same request into this one.
  void merge(AggregateAccumulator&& other);
  // Groups ordered by the canonical JSON of their key.
  AggregateResult finish(const AggregateStats& stats);

 private:
  const AggregateRequest* request_;
  AggregatePartition total_;
  std::unordered_map<std::string, std::unique_ptr<AggregatePartition>> groups_;  // by key bytes
  std::string key_;                                                              // reused by add()
};

// What Storage::aggregate must answer, computed through storage.scan() record by record: for an
// engine without columns to aggregate them from.
AggregateResult aggregate_by_scanning(sdk::Storage& storage, const sdk::Tenant& tenant,
                                      const AggregateRequest& request);

}  // namespace eventsvc::toolkit
