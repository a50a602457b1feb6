// integral: the time-weighted sum of a field (DESIGN §5). Samples are ordered by time_field; each
// value holds until the next sample, credited at most max_gap_ms; the last sample is credited
// nothing. The result is value × duration in `unit` (h by default): a power reading in kW
// integrates to kWh.
#pragma once

#include <utility>
#include <vector>

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

struct IntegralState {
  toolkit::SampleCounts counts;
  std::vector<std::pair<sdk::Millis, double>> samples;  // (time, value); sorted when finalised
};

class Integral final : public toolkit::AggregationOperatorHelper<IntegralState> {
 public:
  static constexpr std::string_view kName = "integral";
  static constexpr sdk::PluginInfo kInfo{"1.0.0",
                                         "Time-weighted sum of a field: each value held until the "
                                         "next sample, at most max_gap_ms, in `unit`"};
  explicit Integral(const sdk::PluginContext&) {}
  std::string_view op() const override { return kName; }
  bool requires_field() const override { return true; }
  bool uses_time() const override { return true; }

 protected:
  void accumulate(IntegralState& state, const sdk::AggregationSpec& spec,
                  const sdk::Sample& sample) const override;
  void combine(IntegralState& into, const IntegralState& from) const override;
  void accumulate_span(IntegralState& state, const sdk::AggregationSpec& spec,
                       const sdk::ColumnSpan& span) const override;
  sdk::json::value value(const IntegralState& state,
                         const sdk::AggregationSpec& spec) const override;
  void save(const IntegralState& state, toolkit::StateWriter& out) const override;
  void load(IntegralState& state, toolkit::StateReader& in) const override;
};

}  // namespace eventsvc::plugins::aggregation
