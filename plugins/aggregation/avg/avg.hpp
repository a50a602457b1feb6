// avg: the mean of a field's numeric values (null when there are none).
#pragma once

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

struct AvgState {
  toolkit::SampleCounts counts;
  double sum = 0;
  std::uint64_t numbers = 0;
};

class Avg final : public toolkit::AggregationOperatorHelper<AvgState> {
 public:
  static constexpr std::string_view kName = "avg";
  static constexpr sdk::PluginInfo kInfo{"1.0.0", "Mean of the numeric values of a field"};
  explicit Avg(const sdk::PluginContext&) {}
  std::string_view op() const override { return kName; }
  bool requires_field() const override { return true; }

 protected:
  void accumulate(AvgState& state, const sdk::AggregationSpec& spec,
                  const sdk::Sample& sample) const override;
  void combine(AvgState& into, const AvgState& from) const override;
  void accumulate_span(AvgState& state, const sdk::AggregationSpec& spec,
                       const sdk::ColumnSpan& span) const override;
  sdk::json::value value(const AvgState& state, const sdk::AggregationSpec& spec) const override;
  void save(const AvgState& state, toolkit::StateWriter& out) const override;
  void load(AvgState& state, toolkit::StateReader& in) const override;
};

}  // namespace eventsvc::plugins::aggregation
