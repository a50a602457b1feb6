// What every aggregation operator does alike, so that a plugin supplies only its arithmetic:
// AggregationOperatorHelper turns the sdk::AggregationOperator interface into typed calls on the
// operator's own state, writes the state's bytes, and counts samples; ExtremumOperator is min and
// max.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"
#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

using sdk::AggregationOperator;
using sdk::AggregationSpec;
using sdk::AggregationState;
using sdk::ColumnSpan;
using sdk::Sample;

// Milliseconds in one `unit` (ms, s, m, h); 0 for anything else.
Millis unit_millis(std::string_view unit);

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
    sdk::for_each_sample(span, [&](const Sample& sample) { accumulate(state, spec, sample); });
  }
  // Feeds the span's other values and absent rows to accumulate(): what a numeric kernel leaves
  // to the record-wise path.
  void accumulate_non_numbers(State& state, const AggregationSpec& spec,
                              const ColumnSpan& span) const {
    sdk::for_each_non_number(span, [&](const Sample& sample) { accumulate(state, spec, sample); });
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

}  // namespace eventsvc::toolkit
