#include "integral.hpp"

#include <algorithm>

#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

void Integral::accumulate(IntegralState& state, const sdk::AggregationSpec&,
                          const sdk::Sample& sample) const {
  const auto number = toolkit::take_number(state.counts, sample);
  if (!number) return;
  if (!sample.time) {
    ++state.counts.skipped;  // a value without a usable time cannot be placed
    return;
  }
  state.samples.emplace_back(*sample.time, *number);
}

void Integral::combine(IntegralState& into, const IntegralState& from) const {
  into.samples.insert(into.samples.end(), from.samples.begin(), from.samples.end());
}

void Integral::accumulate_span(IntegralState& state, const sdk::AggregationSpec& spec,
                               const sdk::ColumnSpan& span) const {
  state.counts.count += span.numbers.size();
  state.samples.reserve(state.samples.size() + span.numbers.size());
  for (std::size_t i = 0; i < span.numbers.size(); ++i) {
    const sdk::Millis time = i < span.number_times.size() ? span.number_times[i] : sdk::kNoTime;
    if (time == sdk::kNoTime) {
      ++state.counts.skipped;  // a value without a usable time cannot be placed
    } else {
      state.samples.emplace_back(time, span.numbers[i]);
    }
  }
  accumulate_non_numbers(state, spec, span);
}

sdk::json::value Integral::value(const IntegralState& state,
                                 const sdk::AggregationSpec& spec) const {
  auto samples = state.samples;
  std::sort(samples.begin(), samples.end());  // by time, then value: deterministic
  double area = 0;                            // value × milliseconds
  for (std::size_t i = 0; i + 1 < samples.size(); ++i) {
    const sdk::Millis held = std::min(samples[i + 1].first - samples[i].first, spec.max_gap_ms);
    area += samples[i].second * static_cast<double>(held);
  }
  const sdk::Millis unit = toolkit::unit_millis(spec.unit);
  return area / static_cast<double>(unit > 0 ? unit : 3600000);
}

void Integral::save(const IntegralState& state, toolkit::StateWriter& out) const {
  out.u64(state.samples.size());
  for (const auto& [time, value] : state.samples) {
    out.i64(time);
    out.f64(value);
  }
}

void Integral::load(IntegralState& state, toolkit::StateReader& in) const {
  for (std::uint64_t left = in.u64(); left > 0; --left) {
    const sdk::Millis time = in.i64();
    state.samples.emplace_back(time, in.f64());
  }
}

}  // namespace eventsvc::plugins::aggregation
