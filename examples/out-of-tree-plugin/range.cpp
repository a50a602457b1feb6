#include "range.hpp"

#include <algorithm>

#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace example {

namespace sdk = eventsvc::sdk;

void Range::accumulate(RangeState& state, const sdk::AggregationSpec&,
                       const sdk::Sample& sample) const {
  if (sample.value == nullptr) return;
  ++state.counts.count;
  const auto number = eventsvc::toolkit::numeric_value(sample);
  if (!number) {
    ++state.counts.skipped;
    return;
  }
  state.min = state.any ? std::min(state.min, *number) : *number;
  state.max = state.any ? std::max(state.max, *number) : *number;
  state.any = true;
}

void Range::combine(RangeState& into, const RangeState& from) const {
  if (!from.any) return;
  into.min = into.any ? std::min(into.min, from.min) : from.min;
  into.max = into.any ? std::max(into.max, from.max) : from.max;
  into.any = true;
}

sdk::json::value Range::value(const RangeState& state, const sdk::AggregationSpec&) const {
  if (!state.any) return nullptr;
  return state.max - state.min;
}

void Range::save(const RangeState& state, eventsvc::toolkit::StateWriter& out) const {
  out.boolean(state.any);
  out.f64(state.min);
  out.f64(state.max);
}

void Range::load(RangeState& state, eventsvc::toolkit::StateReader& in) const {
  state.any = in.boolean();
  state.min = in.f64();
  state.max = in.f64();
}

}  // namespace example
