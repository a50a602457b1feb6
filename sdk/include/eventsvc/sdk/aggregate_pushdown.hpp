// Aggregation pushdown (DESIGN §5): what an analyze request asks a storage engine to compute over
// every match (aggregations, group_by, time buckets), and the partial states it answers with.
// The engine runs the aggregation operators itself, over records or column spans, per partition
// and thread, and merges the partial states; the host finalises, orders and caps the groups.
//
// AggregateAccumulator partitions matches into groups exactly as the API defines them and feeds
// the operators in column spans; a backend gives it records, or a column engine its row values.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/sdk/condition.hpp"
#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/record.hpp"
#include "eventsvc/sdk/text.hpp"

namespace eventsvc::sdk {

enum class Source : std::uint8_t { current, history };

struct TimeBucketSpec {
  Millis interval = 0;  // > 0; buckets start at UTC epoch multiples of it
  FieldPath field;      // the instant a record is placed by (default `timestamp`)
};

struct BoundAggregation {
  AggregationSpec spec;
  const AggregationOperator* op = nullptr;  // outlives the request
};

struct AggregateRequest {
  Source source = Source::history;
  std::vector<Condition> where;  // all must match
  std::optional<TextQuery> text;
  std::vector<FieldPath> group_by;  // empty and no time_bucket: only the total
  std::optional<TimeBucketSpec> time_bucket;
  std::vector<BoundAggregation> aggregations;  // in request order
};

// The matches of one partition: their number and one state per requested aggregation.
struct AggregateGroup {
  json::object key;              // {<group_by field>: value, ..., "bucket": RFC 3339 start}
  std::optional<Millis> bucket;  // the bucket's start, when time_bucket is set
  std::uint64_t count = 0;
  std::vector<std::unique_ptr<AggregationState>> states;
};

struct AggregateStats {
  std::uint64_t scanned = 0;  // records or column rows examined
  std::uint64_t matched = 0;  // of those, the matches
  bool indexed = false;       // indexes or columns, not a time-range scan, found the candidates
};

struct AggregateResult {
  AggregateGroup total;  // every match; key empty
  // The group_by / time_bucket partitions, ordered by the canonical JSON of their key; empty when
  // the request names neither. A match without a usable bucket instant is in no group.
  std::vector<AggregateGroup> groups;
  AggregateStats stats;
};

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
    times_.push_back(time);
  }
  void add_absent() { ++rows_; }
  bool full() const { return rows_ >= kRows; }
  // Adds what was collected to `state` as one span, and empties.
  void flush(const BoundAggregation& aggregation, AggregationState& state);

  // Rows collected before a span is handed over: enough that the call is noise, few enough to
  // stay in cache.
  static constexpr std::uint64_t kRows = 1024;

 private:
  std::uint64_t rows_ = 0;
  std::vector<double> numbers_;
  std::vector<Millis> times_;
  std::vector<json::value> others_;
};

// Whether a JSON number converts to a double without losing anything.
bool exact_double(const json::value& number);
// The same for an integer: within ±2^53.
inline bool exact_double(std::int64_t number) {
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  return number >= -kExact && number <= kExact;
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
  SpanBuilder& values(std::size_t aggregation) { return buffers_[aggregation]; }
  // Hands full span builders to their operators; call after a row's values.
  void flush_full();

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

}  // namespace eventsvc::sdk
