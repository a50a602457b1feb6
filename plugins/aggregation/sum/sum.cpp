#include "sum.hpp"

#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

void Sum::accumulate(SumState& state, const sdk::AggregationSpec&,
                     const sdk::Sample& sample) const {
  if (const auto number = toolkit::take_number(state.counts, sample)) state.sum += *number;
}

void Sum::combine(SumState& into, const SumState& from) const {
  into.sum += from.sum;
}

void Sum::accumulate_span(SumState& state, const sdk::AggregationSpec& spec,
                          const sdk::ColumnSpan& span) const {
  state.counts.count += span.numbers.size();
  double sum = state.sum;
  for (const double number : span.numbers)
    sum += number;  // in row order, as add() would: the same bits either way
  state.sum = sum;
  accumulate_non_numbers(state, spec, span);
}

sdk::json::value Sum::value(const SumState& state, const sdk::AggregationSpec&) const {
  return state.sum;
}

void Sum::save(const SumState& state, toolkit::StateWriter& out) const {
  out.f64(state.sum);
}

void Sum::load(SumState& state, toolkit::StateReader& in) const {
  state.sum = in.f64();
}

}  // namespace eventsvc::plugins::aggregation
