#include "count.hpp"

#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

void Count::accumulate(CountState& state, const sdk::AggregationSpec& spec,
                       const sdk::Sample& sample) const {
  if (!spec.field || sample.value != nullptr) ++state.counts.count;
}

void Count::accumulate_span(CountState& state, const sdk::AggregationSpec& spec,
                            const sdk::ColumnSpan& span) const {
  state.counts.count += spec.field ? span.numbers.size() + span.others.size() : span.rows;
}

sdk::json::value Count::value(const CountState& state, const sdk::AggregationSpec&) const {
  return state.counts.count;
}

// Everything a count knows is in the counts the helper writes.
void Count::save(const CountState&, toolkit::StateWriter&) const {}

void Count::load(CountState&, toolkit::StateReader&) const {}

}  // namespace eventsvc::plugins::aggregation
