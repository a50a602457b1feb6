#include "distinct.hpp"

#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

void Distinct::accumulate(DistinctState& state, const sdk::AggregationSpec&,
                          const sdk::Sample& sample) const {
  if (sample.value == nullptr) return;
  ++state.counts.count;
  state.values.insert(sdk::canonical_json(*sample.value));
}

void Distinct::combine(DistinctState& into, const DistinctState& from) const {
  into.values.insert(from.values.begin(), from.values.end());
}

sdk::json::value Distinct::value(const DistinctState& state, const sdk::AggregationSpec&) const {
  return state.values.size();
}

void Distinct::save(const DistinctState& state, toolkit::StateWriter& out) const {
  out.u64(state.values.size());
  for (const auto& value : state.values)
    out.text(value);
}

void Distinct::load(DistinctState& state, toolkit::StateReader& in) const {
  for (std::uint64_t left = in.u64(); left > 0; --left)
    state.values.insert(state.values.end(), in.text());
}

}  // namespace eventsvc::plugins::aggregation
