// min: the smallest numeric value of a field (null when there are none).
#pragma once

#include <optional>

#include "eventsvc/sdk/aggregation.hpp"

namespace eventsvc::plugins::aggregation {

struct MinState {
  sdk::SampleCounts counts;
  std::optional<double> min;
};

class Min final : public sdk::AggregationOperatorHelper<MinState> {
 public:
  static sdk::Manifest manifest();
  explicit Min(const sdk::PluginContext&) {}
  std::string_view op() const override { return "min"; }
  bool requires_field() const override { return true; }

 protected:
  void accumulate(MinState& state, const sdk::AggregationSpec& spec,
                  const sdk::Sample& sample) const override;
  void combine(MinState& into, const MinState& from) const override;
  sdk::json::value value(const MinState& state, const sdk::AggregationSpec& spec) const override;
};

}  // namespace eventsvc::plugins::aggregation
