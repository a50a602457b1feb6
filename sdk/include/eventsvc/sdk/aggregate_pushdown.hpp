// Aggregation pushdown (DESIGN §5): what an analyze request asks a storage engine to compute over
// every match (aggregations, group_by, time buckets), and the partial states it answers with.
// The engine runs the aggregation operators itself, over records or column spans, per partition
// and thread, and merges the partial states; the host finalises, orders and caps the groups. The
// toolkit's AggregateAccumulator (toolkit/aggregate_accumulator.hpp) partitions matches exactly as
// the API defines it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/sdk/condition.hpp"
#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/text_query.hpp"

namespace eventsvc::sdk {

// Which records a read sees: every event's latest version, or every version.
enum class Source : std::uint8_t { current, history };

std::string_view source_name(Source source);  // "current", "history"

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

}  // namespace eventsvc::sdk
