#include "max.hpp"

#include <algorithm>

namespace eventsvc::plugins::aggregation {

sdk::Manifest Max::manifest() {
  return {"max", sdk::PluginKind::aggregation, "1.0.0", "Largest numeric value of a field", {}};
}

void Max::accumulate(MaxState& state, const sdk::AggregationSpec&,
                     const sdk::Sample& sample) const {
  if (const auto number = sdk::take_number(state.counts, sample)) {
    state.max = state.max ? std::max(*state.max, *number) : *number;
  }
}

void Max::combine(MaxState& into, const MaxState& from) const {
  if (from.max) into.max = into.max ? std::max(*into.max, *from.max) : *from.max;
}

sdk::json::value Max::value(const MaxState& state, const sdk::AggregationSpec&) const {
  return state.max ? sdk::json::value(*state.max) : sdk::json::value(nullptr);
}

}  // namespace eventsvc::plugins::aggregation
