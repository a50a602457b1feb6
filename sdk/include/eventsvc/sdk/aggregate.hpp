// Aggregation pushdown (DESIGN §5): what an analyze request asks a storage engine to compute over
// every match (aggregations, group_by, time buckets), and the partial states it answers with.
// The engine runs the aggregation operators itself, over records or column spans, per partition
// and thread, and merges the partial states; the host finalises, orders and caps the groups.
//
// AggregateAccumulator is the record-wise engine every backend can use: it partitions records
// into groups exactly as the API defines them and feeds the operators in column spans.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
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

// Accumulates matching records into the total and the groups of a request. Values are buffered
// per (group, aggregation) and handed to the operators as column spans. Not thread-safe: give each
// thread its own and merge them.
class AggregateAccumulator {
 public:
  explicit AggregateAccumulator(const AggregateRequest& request);
  ~AggregateAccumulator();
  AggregateAccumulator(AggregateAccumulator&&) noexcept;
  AggregateAccumulator& operator=(AggregateAccumulator&&) = delete;
  AggregateAccumulator(const AggregateAccumulator&) = delete;
  AggregateAccumulator& operator=(const AggregateAccumulator&) = delete;

  void add(const Record& record);
  // Folds another accumulator of the same request into this one.
  void merge(AggregateAccumulator&& other);
  AggregateResult finish(const AggregateStats& stats);

 private:
  struct Partition;

  const AggregateRequest* request_;
  std::unique_ptr<Partition> total_;
  std::map<std::string, std::unique_ptr<Partition>> groups_;  // by canonical JSON of the key
};

}  // namespace eventsvc::sdk
