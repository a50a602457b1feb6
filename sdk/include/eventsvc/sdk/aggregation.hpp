// Aggregation operators, one plugin per `op`. The split follows ClickHouse's aggregate functions:
// the operator is stateless and thread-safe; the per-aggregation state is a separate object the
// host creates, feeds and merges. Merge is what lets the host aggregate partitions (groups, time
// buckets, parallel scans) and combine them.
//
// A storage engine feeds an operator either record by record (add) or a whole column span at a time
// (add_span), per partition and thread, and merges the partial states (DESIGN §5, aggregation
// pushdown). Both entry points must give the same result.
//
// Write an operator by deriving from the toolkit's AggregationOperatorHelper<YourState>
// (toolkit/aggregation_helper.hpp) and supplying only the arithmetic (see docs/plugins.md and
// plugins/aggregation/sum).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/plugin.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::sdk {

// One validated aggregation of an analyze request (API-SPEC 4.5, aggregation spec).
struct AggregationSpec {
  std::string name;                // the caller's name for it
  std::string op;                  // "sum"
  std::optional<FieldPath> field;  // absent: the operator works on whole records (count)
  FieldPath time_field;            // default `timestamp`; used by time-weighted operators
  std::string unit = "h";          // ms, s, m or h; unit of time-weighted results
  Millis max_gap_ms = 300000;      // longest duration credited to one sampled value
};

// What one record contributes: the field's value (null pointer when the record lacks the field or
// the spec names none) and the record's time_field as an instant (nullopt when it has no usable
// one).
struct Sample {
  const json::value* value = nullptr;
  std::optional<Millis> time;
};

// A time_field value a row does not have (in ColumnSpan::number_times).
inline constexpr Millis kNoTime = std::numeric_limits<Millis>::min();

// A run of rows of one field, as a column store hands it over: the rows' values split by kind,
// each part in row order. `rows` counts every row of the span, with or without the field; the
// rows without it are rows - numbers.size() - others.size().
struct ColumnSpan {
  std::uint64_t rows = 0;
  // The values that are JSON numbers exactly representable as a double.
  std::span<const double> numbers;
  // The time_field instant of each number's row (kNoTime when the row has none); empty when the
  // engine was not asked for times (AggregationOperator::uses_time() is false).
  std::span<const Millis> number_times;
  // Every other present value: strings, booleans, null, containers, and integers a double
  // cannot hold exactly. Their rows' times are not given.
  std::span<const json::value> others;

  std::uint64_t absent() const { return rows - numbers.size() - others.size(); }
};

class AggregationState {
 public:
  virtual ~AggregationState();
};

class AggregationOperator : public Plugin {
 public:
  static constexpr PluginKind kKind = PluginKind::aggregation;

  ~AggregationOperator() override;

  // The `op` name requests use.
  virtual std::string_view op() const = 0;
  // Whether a spec must name a field (sum: yes; count: no).
  virtual bool requires_field() const = 0;

  virtual std::unique_ptr<AggregationState> create_state(const AggregationSpec& spec) const = 0;
  virtual void add(AggregationState& state, const AggregationSpec& spec,
                   const Sample& sample) const = 0;
  // Adds every row of a span: the same as add() for each row (numbers with their times, others
  // without a time, absent rows as samples without a value). The default does exactly that; an
  // operator overrides it with a loop over the numbers.
  virtual void add_span(AggregationState& state, const AggregationSpec& spec,
                        const ColumnSpan& span) const;
  // Whether add() reads Sample::time: an engine then passes ColumnSpan::number_times.
  virtual bool uses_time() const { return false; }
  // Folds `from` into `into`; afterwards `into` is as if it had seen both inputs.
  virtual void merge(AggregationState& into, const AggregationState& from) const = 0;
  // The result object: {op, field, value, count, skipped} (docs/api.md, "Aggregations").
  virtual json::object finalize(const AggregationState& state,
                                const AggregationSpec& spec) const = 0;
  // A partial state as bytes and back (ClickHouse's serialize / deserialize), so that partial
  // states can cross threads and machines: a state read back from serialize() merges and
  // finalizes exactly as the original. The bytes begin with the op name; another operator's bytes
  // or damaged ones throw Error 500.
  virtual std::string serialize(const AggregationState& state) const = 0;
  virtual std::unique_ptr<AggregationState> deserialize(std::string_view bytes) const = 0;
};

// Calls `visit` with the samples add() would get for every row of the span.
void for_each_sample(const ColumnSpan& span, const std::function<void(const Sample&)>& visit);
// The same for the rows that are not numbers: the other values, then the absent rows.
void for_each_non_number(const ColumnSpan& span, const std::function<void(const Sample&)>& visit);

}  // namespace eventsvc::sdk
