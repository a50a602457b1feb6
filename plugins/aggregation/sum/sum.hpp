// sum: the sum of a field's numeric values (0 when there are none).
#pragma once

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

struct SumState {
  toolkit::SampleCounts counts;
  double sum = 0;
};

class Sum final : public toolkit::AggregationOperatorHelper<SumState> {
 public:
  static constexpr std::string_view kName = "sum";
  static constexpr sdk::PluginInfo kInfo{"1.0.0", "Sum of the numeric values of a field"};
  explicit Sum(const sdk::PluginContext&) {}
  std::string_view op() const override { return kName; }
  bool requires_field() const override { return true; }

 protected:
  void accumulate(SumState& state, const sdk::AggregationSpec& spec,
                  const sdk::Sample& sample) const override;
  void combine(SumState& into, const SumState& from) const override;
  void accumulate_span(SumState& state, const sdk::AggregationSpec& spec,
                       const sdk::ColumnSpan& span) const override;
  sdk::json::value value(const SumState& state, const sdk::AggregationSpec& spec) const override;
  void save(const SumState& state, toolkit::StateWriter& out) const override;
  void load(SumState& state, toolkit::StateReader& in) const override;
};

}  // namespace eventsvc::plugins::aggregation
