// Aggregation operators, one plugin per `op`. The split follows ClickHouse's aggregate functions:
// the operator is stateless and thread-safe; the per-aggregation state is a separate object the
// host creates, feeds and merges. Merge is what lets the host aggregate partitions (groups, time
// buckets, parallel scans) and combine them.
//
// A storage engine feeds an operator either record by record (add) or a whole column span at a time
// (add_span), per partition and thread, and merges the partial states (DESIGN §5, aggregation
// pushdown). Both entry points must give the same result.
//
// Write an operator by deriving from AggregationOperatorHelper<YourState> and supplying only the
// arithmetic (see docs/plugins.md and plugins/aggregation/sum).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/plugin.hpp"
#include "eventsvc/sdk/state_bytes.hpp"
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

// Milliseconds in one `unit` (ms, s, m, h); 0 for anything else.
Millis unit_millis(std::string_view unit);

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

// Counters every operator reports: `count` = samples that had the field, `skipped` = those whose
// value the operator could not use.
struct SampleCounts {
  std::uint64_t count = 0;
  std::uint64_t skipped = 0;
  void merge(const SampleCounts& other) {
    count += other.count;
    skipped += other.skipped;
  }
};

// Builds the standard result object.
json::object aggregation_result(const AggregationSpec& spec, json::value value,
                                const SampleCounts& counts);

// Removes the casting boilerplate: derive with your state type (which must hold a SampleCounts
// member named `counts` and be default-constructible) and implement accumulate / combine / value,
// and save / load for the state's own members (the helper writes the op name and the counts).
//
//   struct SumState { SampleCounts counts; double sum = 0; };
//   class Sum : public AggregationOperatorHelper<SumState> {
//     void accumulate(SumState&, const AggregationSpec&, const Sample&) const override;
//     void combine(SumState& into, const SumState& from) const override;
//     json::value value(const SumState&, const AggregationSpec&) const override;
//     void save(const SumState& s, StateWriter& out) const override { out.f64(s.sum); }
//     void load(SumState& s, StateReader& in) const override { s.sum = in.f64(); }
//   };
template <class State>
class AggregationOperatorHelper : public AggregationOperator {
 protected:
  struct Holder final : AggregationState {
    State state;
  };

  virtual void accumulate(State& state, const AggregationSpec& spec,
                          const Sample& sample) const = 0;
  virtual void combine(State& into, const State& from) const = 0;
  virtual json::value value(const State& state, const AggregationSpec& spec) const = 0;
  // The state's members but `counts`, written and read back in the same order.
  virtual void save(const State& state, StateWriter& out) const = 0;
  virtual void load(State& state, StateReader& in) const = 0;
  // Override for a column kernel; the default feeds every row to accumulate().
  virtual void accumulate_span(State& state, const AggregationSpec& spec,
                               const ColumnSpan& span) const {
    for_each_sample(span, [&](const Sample& sample) { accumulate(state, spec, sample); });
  }
  // Feeds the span's other values and absent rows to accumulate(): what a numeric kernel leaves
  // to the record-wise path.
  void accumulate_non_numbers(State& state, const AggregationSpec& spec,
                              const ColumnSpan& span) const {
    for_each_non_number(span, [&](const Sample& sample) { accumulate(state, spec, sample); });
  }

 public:
  std::unique_ptr<AggregationState> create_state(const AggregationSpec&) const final {
    return std::make_unique<Holder>();
  }
  void add(AggregationState& state, const AggregationSpec& spec, const Sample& sample) const final {
    accumulate(static_cast<Holder&>(state).state, spec, sample);
  }
  void add_span(AggregationState& state, const AggregationSpec& spec,
                const ColumnSpan& span) const final {
    accumulate_span(static_cast<Holder&>(state).state, spec, span);
  }
  void merge(AggregationState& into, const AggregationState& from) const final {
    auto& target = static_cast<Holder&>(into).state;
    const auto& source = static_cast<const Holder&>(from).state;
    target.counts.merge(source.counts);
    combine(target, source);
  }
  json::object finalize(const AggregationState& state, const AggregationSpec& spec) const final {
    const auto& s = static_cast<const Holder&>(state).state;
    return aggregation_result(spec, value(s, spec), s.counts);
  }
  std::string serialize(const AggregationState& state) const final {
    const auto& s = static_cast<const Holder&>(state).state;
    StateWriter out;
    out.text(op());
    out.u64(s.counts.count);
    out.u64(s.counts.skipped);
    save(s, out);
    return out.take();
  }
  std::unique_ptr<AggregationState> deserialize(std::string_view bytes) const final {
    StateReader in(bytes);
    if (const std::string of = in.text(); of != op()) {
      throw Error::internal("aggregation state of op '" + of + "' given to op '" +
                            std::string(op()) + "'");
    }
    auto holder = std::make_unique<Holder>();
    holder->state.counts.count = in.u64();
    holder->state.counts.skipped = in.u64();
    load(holder->state, in);
    in.expect_end();
    return holder;
  }
};

// A sample's value as a double, when it is a number.
std::optional<double> numeric_value(const Sample& sample);

// The bookkeeping of every numeric operator: counts the sample in `count` when it has the field
// and in `skipped` when that value is not a number, and returns the number if it is one.
std::optional<double> take_number(SampleCounts& counts, const Sample& sample);

// min and max: keeps the numeric value that `Prefer` chooses (std::less<double>: the smallest),
// null when there is none. Derive and name the op:
//   class Min final : public ExtremumOperator<std::less<double>> { ... op() returns "min" ... };
struct ExtremumState {
  SampleCounts counts;
  std::optional<double> kept;
};

template <class Prefer>
class ExtremumOperator : public AggregationOperatorHelper<ExtremumState> {
 public:
  bool requires_field() const override { return true; }

 protected:
  void accumulate(ExtremumState& state, const AggregationSpec&, const Sample& sample) const final {
    if (const auto number = take_number(state.counts, sample)) keep(state, *number);
  }
  void accumulate_span(ExtremumState& state, const AggregationSpec& spec,
                       const ColumnSpan& span) const final {
    state.counts.count += span.numbers.size();
    for (const double number : span.numbers)
      keep(state, number);
    this->accumulate_non_numbers(state, spec, span);
  }
  void combine(ExtremumState& into, const ExtremumState& from) const final {
    if (from.kept) keep(into, *from.kept);
  }
  json::value value(const ExtremumState& state, const AggregationSpec&) const final {
    return state.kept ? json::value(*state.kept) : json::value(nullptr);
  }
  void save(const ExtremumState& state, StateWriter& out) const final {
    out.boolean(state.kept.has_value());
    out.f64(state.kept.value_or(0));
  }
  void load(ExtremumState& state, StateReader& in) const final {
    const bool kept = in.boolean();
    const double number = in.f64();
    if (kept) state.kept = number;
  }

 private:
  static void keep(ExtremumState& state, double number) {
    if (!state.kept || Prefer{}(number, *state.kept)) state.kept = number;
  }
};

}  // namespace eventsvc::sdk
