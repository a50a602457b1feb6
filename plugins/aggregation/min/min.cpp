#include "min.hpp"

#include <algorithm>

namespace eventsvc::plugins::aggregation {

sdk::Manifest Min::manifest() {
  return {"min", sdk::PluginKind::aggregation, "1.0.0", "Smallest numeric value of a field", {}};
}

void Min::accumulate(MinState& state, const sdk::AggregationSpec&,
                     const sdk::Sample& sample) const {
  if (const auto number = sdk::take_number(state.counts, sample)) {
    state.min = state.min ? std::min(*state.min, *number) : *number;
  }
}

void Min::combine(MinState& into, const MinState& from) const {
  if (from.min) into.min = into.min ? std::min(*into.min, *from.min) : *from.min;
}

sdk::json::value Min::value(const MinState& state, const sdk::AggregationSpec&) const {
  return state.min ? sdk::json::value(*state.min) : sdk::json::value(nullptr);
}

}  // namespace eventsvc::plugins::aggregation
