// count: the number of records; with a field, the number of records that have it.
#pragma once

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

struct CountState {
  toolkit::SampleCounts counts;
};

class Count final : public toolkit::AggregationOperatorHelper<CountState> {
 public:
  static constexpr std::string_view kName = "count";
  static constexpr sdk::PluginInfo kInfo{"1.0.0",
                                         "Number of records, or of records that have the field"};
  explicit Count(const sdk::PluginContext&) {}
  std::string_view op() const override { return kName; }
  bool requires_field() const override { return false; }

 protected:
  void accumulate(CountState& state, const sdk::AggregationSpec& spec,
                  const sdk::Sample& sample) const override;
  void combine(CountState&, const CountState&) const override {}
  void accumulate_span(CountState& state, const sdk::AggregationSpec& spec,
                       const sdk::ColumnSpan& span) const override;
  sdk::json::value value(const CountState& state, const sdk::AggregationSpec& spec) const override;
  void save(const CountState& state, toolkit::StateWriter& out) const override;
  void load(CountState& state, toolkit::StateReader& in) const override;
};

}  // namespace eventsvc::plugins::aggregation
