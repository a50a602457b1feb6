// max: the largest numeric value of a field (null when there are none).
#pragma once

#include <optional>

#include "eventsvc/sdk/aggregation.hpp"

namespace eventsvc::plugins::aggregation {

struct MaxState {
  sdk::SampleCounts counts;
  std::optional<double> max;
};

class Max final : public sdk::AggregationOperatorHelper<MaxState> {
 public:
  static sdk::Manifest manifest();
  explicit Max(const sdk::PluginContext&) {}
  std::string_view op() const override { return "max"; }
  bool requires_field() const override { return true; }

 protected:
  void accumulate(MaxState& state, const sdk::AggregationSpec& spec,
                  const sdk::Sample& sample) const override;
  void combine(MaxState& into, const MaxState& from) const override;
  sdk::json::value value(const MaxState& state, const sdk::AggregationSpec& spec) const override;
};

}  // namespace eventsvc::plugins::aggregation
