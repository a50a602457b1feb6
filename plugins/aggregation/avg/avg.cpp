#include "avg.hpp"

#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

void Avg::accumulate(AvgState& state, const sdk::AggregationSpec&,
                     const sdk::Sample& sample) const {
  if (const auto number = toolkit::take_number(state.counts, sample)) {
    state.sum += *number;
    ++state.numbers;
  }
}

void Avg::combine(AvgState& into, const AvgState& from) const {
  into.sum += from.sum;
  into.numbers += from.numbers;
}

void Avg::accumulate_span(AvgState& state, const sdk::AggregationSpec& spec,
                          const sdk::ColumnSpan& span) const {
  state.counts.count += span.numbers.size();
  state.numbers += span.numbers.size();
  double sum = state.sum;
  for (const double number : span.numbers)
    sum += number;
  state.sum = sum;
  accumulate_non_numbers(state, spec, span);
}

sdk::json::value Avg::value(const AvgState& state, const sdk::AggregationSpec&) const {
  if (state.numbers == 0) return nullptr;
  return state.sum / static_cast<double>(state.numbers);
}

void Avg::save(const AvgState& state, toolkit::StateWriter& out) const {
  out.f64(state.sum);
  out.u64(state.numbers);
}

void Avg::load(AvgState& state, toolkit::StateReader& in) const {
  state.sum = in.f64();
  state.numbers = in.u64();
}

}  // namespace eventsvc::plugins::aggregation
